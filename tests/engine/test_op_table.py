"""One table-driven test for every registered op: NumPy forward reference + finite-difference gradients."""
import pytest

import lens.engine.train.gradient_descent  # noqa: F401 - registers ApplyGradientDescent
import lens.events.summary_ops  # noqa: F401 - registers the summary op types
import optable_rows_array
import optable_rows_conv
import optable_rows_control
import optable_rows_custom
import optable_rows_data
import optable_rows_math
import optable_rows_math_special
import optable_rows_nn
import optable_rows_train
import optable_rows_rnn
from lens.engine.registry import registered_ops
from optable_lib import check_row

ALL_ROWS = (optable_rows_math.ROWS + optable_rows_math_special.ROWS + optable_rows_array.ROWS + optable_rows_nn.ROWS
            + optable_rows_custom.ROWS + optable_rows_data.ROWS + optable_rows_rnn.ROWS
            + optable_rows_conv.ROWS + optable_rows_train.ROWS + optable_rows_control.ROWS)


@pytest.mark.parametrize("row", ALL_ROWS, ids=lambda r: r.label)
def test_op_matches_numpy_and_finite_differences(row):
    if row.op not in registered_ops():
        pytest.skip("op %s is not registered in this build" % row.op)
    check_row(row)
