"""Gradients of the binary math ops and Sign: they need array, logic and reduce ops, which sit above math."""
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor
from lens.framework.registry import RegisterGradient
from lens.ops import array as A
from lens.ops.logic import greater, greater_equal, less_equal, where
from lens.ops.math import (div_no_nan, floordiv, log, multiply, negative, pow, real_div,  # noqa: A004
                           subtract)
from lens.ops.reduce import reduce_to


def _static_equal(x, y, grad=None):
    xs, ys = x.shape, y.shape
    ok = xs.is_fully_defined() and ys.is_fully_defined() and xs == ys
    return ok and (grad is None or not isinstance(grad, Tensor) or grad.shape == xs)


def binary_grad_pair(op, gx, gy):
    """[gx, gy] of a broadcasting binary op, each summed back to its input's shape (None stays None)."""
    x, y = op._inputs
    if _static_equal(x, y):
        return [gx, gy]
    outs = reduce_to((gx if gx is not None else gy, gy if gy is not None else gx), x, y)
    return [outs[0] if gx is not None else None, outs[1] if gy is not None else None]


@RegisterGradient("Add")
@RegisterGradient("AddV2")
def _add_grad(op, grad):
    """grad to both inputs."""
    return binary_grad_pair(op, grad, grad)


@RegisterGradient("Sub")
def _sub_grad(op, grad):
    """grad and -grad."""
    return binary_grad_pair(op, grad, negative(grad))


@RegisterGradient("Mul")
def _mul_grad(op, grad):
    """grad * y and x * grad."""
    x, y = op._inputs
    return binary_grad_pair(op, multiply(grad, y), multiply(x, grad))


@RegisterGradient("RealDiv")
@RegisterGradient("Div")
def _realdiv_grad(op, grad):
    """grad / y and grad * (-x / y / y)."""
    x, y = op._inputs
    return binary_grad_pair(op, real_div(grad, y), multiply(grad, real_div(real_div(negative(x), y), y)))


@RegisterGradient("DivNoNan")
def _divnonan_grad(op, grad):
    """RealDiv's gradient with div_no_nan, so y == 0 gives 0."""
    x, y = op._inputs
    return binary_grad_pair(op, div_no_nan(grad, y), multiply(grad, div_no_nan(div_no_nan(negative(x), y), y)))


@RegisterGradient("FloorMod")
def _floormod_grad(op, grad):
    """grad and -grad * floordiv(x, y)."""
    x, y = op._inputs
    return binary_grad_pair(op, grad, multiply(grad, negative(floordiv(x, y))))


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    """grad * y * x**(y-1) and grad * z * log(x) (0 where x <= 0)."""
    x, y = op._inputs
    z = op._outputs[0]
    gx = multiply(multiply(grad, y), pow(x, subtract(y, A.ones_like(y))))
    log_x = where(greater(x, A.zeros_like(x)), log(x), A.zeros_like(x))
    gy = multiply(multiply(grad, z), log_x)
    return binary_grad_pair(op, gx, gy)


def _minmax_grad(op, grad, cmp):
    x, y = op._inputs
    gshape = op._outputs[0]
    zeros = A.zeros_like(grad)
    mask = cmp(x, y)
    if not _static_equal(x, y):
        mask = A.broadcast_to(mask, A.shape(gshape))
    return binary_grad_pair(op, where(mask, grad, zeros), where(mask, zeros, grad))


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    """grad to x where x >= y, else to y."""
    return _minmax_grad(op, grad, greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    """grad to x where x <= y, else to y."""
    return _minmax_grad(op, grad, less_equal)


@RegisterGradient("SquaredDifference")
def _sqdiff_grad(op, grad):
    """2 * grad * (x - y) and its negation."""
    x, y = op._inputs
    two = convert_to_tensor(2, dtype=grad.dtype.base_dtype)
    d = multiply(multiply(two, grad), subtract(x, y))
    return binary_grad_pair(op, d, negative(d))


@RegisterGradient("Sign")
def _sign_grad(op, g):
    """Zero almost everywhere."""
    return [A.zeros_like(op._inputs[0])]
