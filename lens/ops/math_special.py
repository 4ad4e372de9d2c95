"""More of tf.math: inverse and hyperbolic trigonometry, expm1, erf/erfc, rint, atan2, truncating
division, xlogy/xdivy, reduce_variance/reduce_std (gradients as TF1 defines them)."""
import math as _math

import numpy as np

from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import math as M
from lens.ops.math_grad import binary_grad_pair
from lens.framework.registry import register_op


def _one(x):
    return convert_to_tensor(1, dtype=x.dtype.base_dtype)


def _elementwise(fn):
    """A NumPy kernel from a scalar function of math (erf has no NumPy ufunc)."""
    ufunc = np.frompyfunc(fn, 1, 1)

    def kernel(x):
        x = np.asarray(x)
        return ufunc(x).astype(x.dtype, copy=False)
    return kernel


def _sqrt_one_minus_square(x):
    return M.sqrt(M.subtract(_one(x), M.square(x)))


# op type, function name, NumPy kernel, d(op)/dx as lens ops of (x, y=op output), or None
_UNARY = [
    ("Tan", "tan", np.tan, lambda x, y: M.add(_one(x), M.square(y))),
    ("Asin", "asin", np.arcsin, lambda x, y: M.reciprocal(_sqrt_one_minus_square(x))),
    ("Acos", "acos", np.arccos, lambda x, y: M.negative(M.reciprocal(_sqrt_one_minus_square(x)))),
    ("Atan", "atan", np.arctan, lambda x, y: M.reciprocal(M.add(_one(x), M.square(x)))),
    ("Sinh", "sinh", np.sinh, lambda x, y: cosh(x)),
    ("Cosh", "cosh", np.cosh, lambda x, y: sinh(x)),
    ("Asinh", "asinh", np.arcsinh, lambda x, y: M.reciprocal(cosh(y))),
    ("Acosh", "acosh", np.arccosh, lambda x, y: M.reciprocal(sinh(y))),
    ("Atanh", "atanh", np.arctanh, lambda x, y: M.reciprocal(M.subtract(_one(x), M.square(x)))),
    ("Expm1", "expm1", np.expm1, lambda x, y: M.exp(x)),
    ("Erf", "erf", _elementwise(_math.erf),
     lambda x, y: M.multiply(convert_to_tensor(2 / _math.sqrt(_math.pi), dtype=x.dtype.base_dtype),
                             M.exp(M.negative(M.square(x))))),
    ("Erfc", "erfc", _elementwise(_math.erfc),
     lambda x, y: M.multiply(convert_to_tensor(-2 / _math.sqrt(_math.pi), dtype=x.dtype.base_dtype),
                             M.exp(M.negative(M.square(x))))),
    ("Rint", "rint", np.rint, None),
]


def _unary_grad(derivative):
    def grad(op, g):
        return [M.multiply(g, derivative(op._inputs[0], op._outputs[0]))]
    return grad


for _type, _name, _kernel, _derivative in _UNARY:
    if _derivative is None:
        register_op(_type, fn=_kernel, shape=M._same_shape, not_differentiable=True)
    else:
        register_op(_type, fn=_kernel, shape=M._same_shape, grad=_unary_grad(_derivative))


def _unary_fn(op_type, doc):
    def fn(x, name=None):
        return apply_op(op_type, [(x, "x")], name=name or op_type)
    fn.__doc__ = doc
    return fn


tan = _unary_fn("Tan", "Tangent.")
asin = _unary_fn("Asin", "Inverse sine.")
acos = _unary_fn("Acos", "Inverse cosine.")
atan = _unary_fn("Atan", "Inverse tangent.")
sinh = _unary_fn("Sinh", "Hyperbolic sine.")
cosh = _unary_fn("Cosh", "Hyperbolic cosine.")
asinh = _unary_fn("Asinh", "Inverse hyperbolic sine.")
acosh = _unary_fn("Acosh", "Inverse hyperbolic cosine.")
atanh = _unary_fn("Atanh", "Inverse hyperbolic tangent.")
expm1 = _unary_fn("Expm1", "exp(x) - 1, exact for small x.")
erf = _unary_fn("Erf", "The Gauss error function.")
erfc = _unary_fn("Erfc", "1 - erf(x), exact for large x.")
rint = _unary_fn("Rint", "Round to the nearest integer, halves to even.")


# ---- binary ----------------------------------------------------------------------------------
def _truncate_div(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu":
        return np.trunc(np.true_divide(a, b)).astype(np.result_type(a, b), copy=False)
    q = np.floor_divide(a, b)
    # floor differs from truncation when the quotient is negative and inexact
    return q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))).astype(q.dtype)


def _xlogy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, np.zeros_like(x * y), x * np.log(y))


def _xdivy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, np.zeros_like(x * y), x / y)


def _atan2_grad(op, g):
    y, x = op._inputs
    scale = M.real_div(g, M.add(M.square(x), M.square(y)))
    return binary_grad_pair(op, M.multiply(x, scale), M.multiply(M.negative(y), scale))


def _x_nonzero(x, value):
    """value where x != 0, else 0 (TF's xlogy/xdivy gradients vanish with x)."""
    from lens.ops import array as A
    from lens.ops.logic import not_equal, where
    return where(not_equal(A.broadcast_to(x, A.shape(value)), A.zeros_like(x)), value,
                 A.zeros_like(value))


def _xlogy_grad(op, g):
    x, y = op._inputs
    return binary_grad_pair(op, _x_nonzero(x, M.multiply(g, M.log(y))),
                            _x_nonzero(x, M.multiply(g, M.real_div(x, y))))


def _xdivy_grad(op, g):
    x, y = op._inputs
    return binary_grad_pair(op, _x_nonzero(x, M.real_div(g, y)),
                            _x_nonzero(x, M.multiply(g, M.real_div(M.negative(x), M.square(y)))))


register_op("Atan2", fn=np.arctan2, shape=M._bcast_shape, grad=_atan2_grad)
register_op("TruncateDiv", fn=M.checked_int_division(_truncate_div), shape=M._bcast_shape,
            not_differentiable=True)
def _truncatemod_grad(op, g):
    # TF defines none (its gradients() raises); this is FloorMod's with truncation, so programs
    # TF accepts behave the same and a gradient through it works here too.
    x, y = op._inputs
    return binary_grad_pair(op, g, M.multiply(g, M.negative(truncatediv(x, y))))


register_op("TruncateMod", fn=M.checked_int_division(np.fmod), shape=M._bcast_shape,
            grad=_truncatemod_grad)
register_op("Xlogy", fn=_xlogy, shape=M._bcast_shape, grad=_xlogy_grad)
register_op("Xdivy", fn=_xdivy, shape=M._bcast_shape, grad=_xdivy_grad)


def atan2(y, x, name=None):
    """The angle of (x, y), in (-pi, pi]."""
    return apply_op("Atan2", [(y, "y"), (x, "x")], name=name or "Atan2")


def truncatediv(x, y, name=None):
    """x / y rounded towards zero."""
    return M._binary("TruncateDiv", x, y, name)


def truncatemod(x, y, name=None):
    """The remainder of truncating division (C's fmod): the sign of x."""
    return M._binary("TruncateMod", x, y, name)


def xlogy(x, y, name=None):
    """x * log(y), and 0 where x is 0."""
    return M._binary("Xlogy", x, y, name)


def xdivy(x, y, name=None):
    """x / y, and 0 where x is 0."""
    return M._binary("Xdivy", x, y, name)


# ---- moments -----------------------------------------------------------------------------------
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The mean squared deviation from the mean over axis."""
    from lens.ops import reduce as R
    with name_scope(name, "reduce_variance", [input_tensor]):
        x = convert_to_tensor(input_tensor)
        mean = R.reduce_mean(x, axis=axis, keepdims=True)
        return R.reduce_mean(M.square(M.subtract(x, mean)), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over axis."""
    with name_scope(name, "reduce_std", [input_tensor]):
        return M.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


realdiv = M.real_div  # TF1's public name for the RealDiv op
