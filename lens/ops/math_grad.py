"""Gradients of the binary math ops and Sign: they need array, logic and reduce ops, which sit above math."""
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor
from lens.framework.registry import RegisterGradient
from lens.ops import array as A
from lens.ops import cwise_grad_ops as CG
from lens.ops.complex_ops import conj
from lens.ops.logic import greater_equal, less_equal, where
from lens.ops.math import (div_no_nan, floordiv, log, multiply, negative, pow, real_div,  # noqa: A004
                           square)
from lens.ops.reduce import reduce_to, smart_reduce_to


def _static_equal(x, y, grad=None):
    xs, ys = x.shape, y.shape
    ok = xs.is_fully_defined() and ys.is_fully_defined() and xs == ys
    return ok and (grad is None or not isinstance(grad, Tensor) or grad.shape == xs)


def binary_grad_pair(op, gx, gy, smart=True):
    """[gx, gy] of a broadcasting binary op, each summed back to its input's shape (None stays None).

    As TF1.15: Add, Sub, Mul, Pow and SquaredDifference (smart) skip the reduction when the
    shapes are static and equal and reduce by constants when static; the others always build
    Shape, BroadcastGradientArgs, Sum and Reshape for both sides."""
    x, y = op._inputs
    pair = (gx if gx is not None else gy, gy if gy is not None else gx)
    if smart:
        if _static_equal(x, y):
            return [gx, gy]
        outs = smart_reduce_to(pair, x, y)
    else:
        outs = reduce_to(pair, x, y)
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
    """grad * conj(y) and conj(x) * grad (conj adds no op for real dtypes)."""
    x, y = op._inputs
    return binary_grad_pair(op, multiply(grad, conj(y)), multiply(conj(x), grad))


@RegisterGradient("RealDiv")
@RegisterGradient("Div")
def _realdiv_grad(op, grad):
    """grad / y and grad * (-x / y / y)."""
    x, y = op._inputs
    return binary_grad_pair(op, real_div(grad, y), grad * real_div(real_div(-x, y), y), smart=False)


@RegisterGradient("DivNoNan")
def _divnonan_grad(op, grad):
    """RealDiv's gradient with div_no_nan, so y == 0 gives 0."""
    x, y = op._inputs
    return binary_grad_pair(op, div_no_nan(grad, y), grad * div_no_nan(div_no_nan(-x, y), y), smart=False)


@RegisterGradient("FloorMod")
def _floormod_grad(op, grad):
    """grad and -grad * floordiv(x, y)."""
    x, y = op._inputs
    return binary_grad_pair(op, grad, grad * negative(floordiv(x, y)), smart=False)


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    """grad * y * x**(y-1) and grad * z * log(x) (0 where x <= 0), built as TF1.15's (mul, sub,
    Pow, mul_1; Greater, Select on a safe x, Log, Select_1, mul_2, mul_3)."""
    x, y = op._inputs
    z = op._outputs[0]
    gx = grad * y * pow(x, y - 1)
    mask = x > 0
    safe_x = where(mask, x, A.grad_ones_like(x))
    log_x = where(mask, log(safe_x), A.grad_zeros_like(x))
    gy = grad * z * log_x
    return binary_grad_pair(op, gx, gy)


def _minmax_grad(op, grad, cmp):
    x, y = op._inputs
    zeros = A.zeros(A.grad_shape(grad), grad.dtype.base_dtype)
    mask = cmp(x, y)
    if not _static_equal(x, y):
        mask = A.broadcast_to(mask, A.shape(op._outputs[0]))
    return binary_grad_pair(op, where(mask, grad, zeros), where(mask, zeros, grad), smart=False)


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
    """2 * grad * (x - y) and its negation (TF1.15's: scalar, Mul, sub, mul_1, then Neg)."""
    x, y = op._inputs
    two = convert_to_tensor(2.0, dtype=grad.dtype.base_dtype, name="scalar")
    d = multiply(two, grad) * (x - y)
    if _static_equal(x, y):
        return [d, -d]
    gx, gy = smart_reduce_to((d, d), x, y)
    return [gx, -gy]


@RegisterGradient("Sign")
def _sign_grad(op, g):
    """Zero almost everywhere."""
    return [A.zeros_like(op._inputs[0])]


# Gradients of the fused gradient ops (inputs y, dy), as TF1.15's _SigmoidGradGrad and the others.
@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    """z = dy * y * (1 - y): dz/dy = dy - 2 * dy * y, dz/ddy = SigmoidGrad(y, grad)."""
    a, b = op._inputs
    gb = grad * b
    return [gb - 2.0 * gb * a, CG.sigmoid_grad(a, grad)]


@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    """z = dy * (1 - y^2): dz/dy = -2 * dy * y, dz/ddy = TanhGrad(y, grad)."""
    a, b = op._inputs
    return [grad * -2.0 * b * a, CG.tanh_grad(a, grad)]


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    """z = 0.5 * dy / y: dz/dy = -(grad / y) * z, dz/ddy = 0.5 * grad / y."""
    a = op._inputs[0]
    ga = grad / a
    return [-ga * op._outputs[0], 0.5 * ga]


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    """z = -0.5 * dy * y^3: dz/dy = -1.5 * dy * y^2, dz/ddy = RsqrtGrad(y, grad)."""
    a, b = op._inputs
    return [-1.5 * grad * b * square(a), CG.rsqrt_grad(a, grad)]


@RegisterGradient("ReciprocalGrad")
def _reciprocal_grad_grad(op, grad):
    """z = -dy * y^2: dz/dy = -2 * dy * y, dz/ddy = ReciprocalGrad(y, grad)."""
    a, b = op._inputs
    return [grad * -2.0 * b * a, CG.reciprocal_grad(a, grad)]
