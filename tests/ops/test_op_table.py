"""One table-driven test for every registered op: NumPy forward reference + finite-difference gradients."""
import importlib
import pathlib

import pytest

import lens.training.gradient_descent  # noqa: F401 - registers ApplyGradientDescent
import lens.events.summary_ops  # noqa: F401 - registers the summary op types
from lens.framework.registry import registered_ops
from optable_lib import check_row

# Every tests/ops/optable_rows_*.py module contributes its ROWS (a new op family adds a file).
ALL_ROWS = tuple(row for path in sorted(pathlib.Path(__file__).parent.glob("optable_rows_*.py"))
                 for row in importlib.import_module(path.stem).ROWS)


@pytest.mark.parametrize("row", ALL_ROWS, ids=lambda r: r.label)
def test_op_matches_numpy_and_finite_differences(row):
    if row.op not in registered_ops():
        pytest.skip("op %s is not registered in this build" % row.op)
    check_row(row)
