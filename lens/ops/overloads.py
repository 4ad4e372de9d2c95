"""Python operators on Tensor and Variable (`x + 1` builds `add` with const `add/y`)."""
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import logic as L
from lens.ops import math as M


def _binary(op_fn, op_name):
    def forward(x, y):
        with name_scope(None, op_name, [x, y]) as scope:
            x = convert_to_tensor(x, name="x") if not isinstance(x, Tensor) else x
            y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return op_fn(x, y, name=scope)

    def reverse(y, x):
        with name_scope(None, op_name, [x, y]) as scope:
            y = convert_to_tensor(y, name="y") if not isinstance(y, Tensor) else y
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return op_fn(x, y, name=scope)
    return forward, reverse


def _truediv(x, y, name=None):
    return M.truediv(x, y, name=name)


def _matmul(x, y, name=None):
    from lens.ops.linalg import matmul
    return matmul(x, y, name=name)


_BINARIES = {
    "add": (M.add_v2, "add"), "sub": (M.subtract, "sub"), "mul": (M.multiply, "mul"),
    "truediv": (_truediv, "truediv"), "floordiv": (M.floordiv, "floordiv"), "mod": (M.floormod, "mod"),
    "pow": (M.pow, "pow"), "matmul": (_matmul, "MatMul"),
    "and": (L.logical_and, "and"), "or": (L.logical_or, "or"), "xor": (L.logical_xor, "xor"),
}


def _getitem(self, key):
    from lens.ops.indexing import slice_helper
    return slice_helper(self, key)


def install(cls):
    """Define the arithmetic, comparison, logical and indexing operators on cls."""
    for py, (fn, name) in _BINARIES.items():
        fwd, rev = _binary(fn, name)
        setattr(cls, "__%s__" % py, fwd)
        setattr(cls, "__r%s__" % py, rev)
    cls.__div__ = cls.__truediv__
    cls.__rdiv__ = cls.__rtruediv__
    cls.__neg__ = lambda self: M.negative(self)
    cls.__abs__ = lambda self: M.abs(self)
    cls.__invert__ = lambda self: L.logical_not(self)
    cls.__pos__ = lambda self: self
    cls.__lt__ = lambda self, other: L.less(self, other)
    cls.__le__ = lambda self, other: L.less_equal(self, other)
    cls.__gt__ = lambda self, other: L.greater(self, other)
    cls.__ge__ = lambda self, other: L.greater_equal(self, other)
    cls.__getitem__ = _getitem


install(Tensor)
