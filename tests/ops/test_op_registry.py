"""Meta-tests: every registered op has a gradient entry, and every registered op is in the op table."""
import lens.tf1.facade  # noqa: F401 - the TF1 facade loads every op family (lens/ops/all.py)
import lens.training.gradient_descent  # noqa: F401 - registers ApplyGradientDescent
import lens.events.summary_ops  # noqa: F401 - registers the summary op types
import pytest
from lens.framework.registry import has_gradient_entry, register_op, registered_ops
from test_op_table import ALL_ROWS

# Ops the table cannot build on their own. Keep this list short and say why for each one.
NOT_IN_TABLE = {
    # Variables, random draws, printing and summaries have self-checking rows instead. The transfers
    # run only between a cluster's task processes: tests/distributed checks them on real Ray tasks.
    "_Send", "_Recv",
}


def test_every_registered_op_has_a_gradient_or_is_marked_not_differentiable():
    missing = sorted(op for op in registered_ops() if not has_gradient_entry(op))
    assert not missing, ("ops with neither a gradient nor a NotDifferentiable mark: %s; register grad= or "
                         "not_differentiable=True next to the op" % missing)


def test_every_registered_op_appears_in_the_op_table():
    covered = {row.op for row in ALL_ROWS}
    missing = sorted(set(registered_ops()) - covered - set(NOT_IN_TABLE))
    assert not missing, ("registered ops with no row in tests/ops/optable_rows_*.py: %s; add a row with "
                         "a NumPy reference (or a self-checking row for stateful ops)" % missing)


def test_allow_list_names_only_real_ops():
    stale = sorted(set(NOT_IN_TABLE) - set(registered_ops()))
    assert not stale, "NOT_IN_TABLE names ops that are not registered: %s" % stale


def test_the_meta_test_notices_an_op_without_gradient():
    # Registering a throwaway type must make the gradient check see it as missing.
    register_op("OpTableProbeNoGradient", fn=lambda x: x)
    try:
        assert not has_gradient_entry("OpTableProbeNoGradient")
        assert "OpTableProbeNoGradient" not in {row.op for row in ALL_ROWS}
    finally:
        from lens.framework import registry
        registry._OPS.pop("OpTableProbeNoGradient")


def test_registering_twice_names_the_first_place():
    with pytest.raises(KeyError, match="registered twice"):
        register_op("Relu", fn=lambda x: x, not_differentiable=True)
