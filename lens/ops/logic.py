"""Comparisons, logical ops, where, is_nan/is_inf/is_finite."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops.shapes import broadcast_shapes
from lens.framework.registry import register_op
from lens.framework.tensor_shape import unknown_shape


def _bcast(op):
    return [broadcast_shapes(op._inputs[0].shape, op._inputs[1].shape)]


_CMP = [("Equal", "equal", np.equal), ("NotEqual", "not_equal", np.not_equal),
        ("Less", "less", np.less), ("LessEqual", "less_equal", np.less_equal),
        ("Greater", "greater", np.greater), ("GreaterEqual", "greater_equal", np.greater_equal),
        ("LogicalAnd", "logical_and", np.logical_and), ("LogicalOr", "logical_or", np.logical_or)]
for _t, _n, _fn in _CMP:
    register_op(_t, fn=_fn, shape=_bcast, not_differentiable=True)


def _cmp(op_type, x, y, name):
    return apply_op(op_type, [(x, "x"), (y, "y")], name=name or op_type, dtypes=[_dt.bool])


def equal(x, y, name=None):
    """x == y elementwise."""
    return _cmp("Equal", x, y, name)


def not_equal(x, y, name=None):
    """x != y elementwise."""
    return _cmp("NotEqual", x, y, name)


def less(x, y, name=None):
    """x < y."""
    return _cmp("Less", x, y, name)


def less_equal(x, y, name=None):
    """x <= y."""
    return _cmp("LessEqual", x, y, name)


def greater(x, y, name=None):
    """x > y."""
    return _cmp("Greater", x, y, name)


def greater_equal(x, y, name=None):
    """x >= y."""
    return _cmp("GreaterEqual", x, y, name)


def logical_and(x, y, name=None):
    """x and y."""
    return _cmp("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    """x or y."""
    return _cmp("LogicalOr", x, y, name)


def logical_xor(x, y, name="LogicalXor"):
    """(x or y) and not (x and y)."""
    with name_scope(name, "LogicalXor", [x, y]) as scope:
        return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=scope)


_UN = [("LogicalNot", "logical_not", np.logical_not), ("IsNan", "is_nan", np.isnan),
       ("IsInf", "is_inf", np.isinf), ("IsFinite", "is_finite", np.isfinite)]
for _t, _n, _fn in _UN:
    register_op(_t, fn=_fn, shape=lambda op: [op._inputs[0].shape], not_differentiable=True)


def logical_not(x, name=None):
    """not x."""
    return apply_op("LogicalNot", [(x, "x")], name=name or "LogicalNot", dtypes=[_dt.bool])


def is_nan(x, name=None):
    """x is NaN."""
    return apply_op("IsNan", [(x, "x")], name=name or "IsNan", dtypes=[_dt.bool])


def is_inf(x, name=None):
    """x is +-inf."""
    return apply_op("IsInf", [(x, "x")], name=name or "IsInf", dtypes=[_dt.bool])


def is_finite(x, name=None):
    """x is neither inf nor NaN."""
    return apply_op("IsFinite", [(x, "x")], name=name or "IsFinite", dtypes=[_dt.bool])


def _select_shape(op):
    c, x, y = (t.shape for t in op._inputs)
    s = x.merge_with(y) if x.ndims == y.ndims or x.ndims is None or y.ndims is None else broadcast_shapes(x, y)
    return [s]


def _select_kernel(c, x, y):
    c = np.asarray(c)
    x = np.asarray(x)
    if c.ndim == 1 and x.ndim > 1:
        c = c.reshape((-1,) + (1,) * (x.ndim - 1))
    return np.where(c, x, y)


# Select and SelectV2 gradients need array ops (above logic): they live in logic_grad.py.
register_op("Select", fn=_select_kernel, shape=_select_shape)
register_op("Where", fn=lambda c: np.argwhere(c).astype(np.int64), not_differentiable=True,
            shape=lambda op: [unknown_shape(2)])


def where(condition, x=None, y=None, name=None):
    """Elementwise choice between x and y; with only condition, the indices where it is true."""
    if x is None and y is None:
        return apply_op("Where", [(condition, "input")], name=name or "Where", dtypes=[_dt.int64])
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    with name_scope(name, "Select", [condition, x, y]) as scope:
        c = convert_to_tensor(condition, dtype=_dt.bool, name="condition")
        xt = convert_to_tensor(x, name="x")
        yt = convert_to_tensor(y, dtype=xt.dtype.base_dtype, name="e")
        return apply_op("Select", [(c, "condition"), (xt, "t"), (yt, "e")], name=scope,
                        dtypes=[xt.dtype.base_dtype], same_dtype=False)


def _where_v2_kernel(c, x, y):
    return np.where(c, x, y)


register_op("SelectV2", fn=_where_v2_kernel, shape=lambda op: [broadcast_shapes(
    broadcast_shapes(op._inputs[0].shape, op._inputs[1].shape), op._inputs[2].shape)])


def where_v2(condition, x=None, y=None, name=None):
    """where with full broadcasting of condition, x and y."""
    if x is None and y is None:
        return where(condition, name=name)
    with name_scope(name, "SelectV2", [condition, x, y]) as scope:
        c = convert_to_tensor(condition, dtype=_dt.bool, name="condition")
        xt = convert_to_tensor(x, name="x")
        yt = convert_to_tensor(y, dtype=xt.dtype.base_dtype, name="e")
        return apply_op("SelectV2", [(c, "condition"), (xt, "t"), (yt, "e")], name=scope,
                        dtypes=[xt.dtype.base_dtype], same_dtype=False)
