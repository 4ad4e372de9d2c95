"""tf.bitwise: and, or, xor, invert, left_shift, right_shift on integer tensors (not differentiable)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.ops.shapes import broadcast_shapes

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

_INTS = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)


def _shift(fn):
    def run(x, y):
        x, y = np.asarray(x), np.asarray(y)
        bits = x.dtype.itemsize * 8
        # Out-of-range shifts are clamped to [0, bits - 1], as TF's kernels do.
        return fn(x, np.clip(y, 0, bits - 1).astype(x.dtype)).astype(x.dtype)
    return run


_BINARY = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor,
           "LeftShift": _shift(np.left_shift), "RightShift": _shift(np.right_shift)}
for _t, _f in _BINARY.items():
    register_op(_t, fn=_f, not_differentiable=True,
                shape=lambda op: [broadcast_shapes(op._inputs[0].shape, op._inputs[1].shape)])
register_op("Invert", fn=np.invert, not_differentiable=True, shape=lambda op: [op._inputs[0].shape])


def _int_tensor(v, name, dtype=None):
    t = convert_to_tensor(v, dtype=dtype, name=name)
    if t.dtype.base_dtype not in _INTS:
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values: int8, "
                        "int16, int32, int64, uint8, uint16, uint32, uint64" % (name, t.dtype.name))
    return t


def _binary(op_type, x, y, name):
    with name_scope(name, op_type, [x, y]) as scope:
        xt = _int_tensor(x, "x")
        yt = _int_tensor(y, "y", dtype=xt.dtype.base_dtype)
        return apply_op(op_type, [(xt, "x"), (yt, "y")], name=scope)


def bitwise_and(x, y, name=None):
    """Elementwise x & y."""
    return _binary("BitwiseAnd", x, y, name)


def bitwise_or(x, y, name=None):
    """Elementwise x | y."""
    return _binary("BitwiseOr", x, y, name)


def bitwise_xor(x, y, name=None):
    """Elementwise x ^ y."""
    return _binary("BitwiseXor", x, y, name)


def left_shift(x, y, name=None):
    """Elementwise x << y (y clamped to [0, bits - 1])."""
    return _binary("LeftShift", x, y, name)


def right_shift(x, y, name=None):
    """Elementwise x >> y (arithmetic for signed types; y clamped to [0, bits - 1])."""
    return _binary("RightShift", x, y, name)


def invert(x, name=None):
    """Elementwise ~x (every bit flipped)."""
    with name_scope(name, "Invert", [x]) as scope:
        return apply_op("Invert", [(_int_tensor(x, "x"), "x")], name=scope)
