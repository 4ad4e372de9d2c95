"""TF's fused elementwise gradient ops (SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad).

Each takes (y, dy): y the forward op's output, dy the incoming gradient; TF1.15's gradients of
Sigmoid, Tanh, Sqrt, Rsqrt and Reciprocal build them. Their own gradients are in math_grad.py.
"""
import numpy as np

from lens.framework.convert import apply_op
from lens.framework.registry import register_op


def _sigmoid_grad_np(y, dy):
    return dy * (y * (1 - y))


def _tanh_grad_np(y, dy):
    return dy * (1 - y * y)


def _sqrt_grad_np(y, dy):
    return dy * 0.5 / y


def _rsqrt_grad_np(y, dy):
    return dy * -0.5 * (y * y * y)


def _reciprocal_grad_np(y, dy):
    return -dy * (y * y)


def _same_shape(op):
    return [op._inputs[0].shape.merge_with(op._inputs[1].shape)]


def _typed(fn):
    # NumPy may promote through the Python-float constants; TF keeps y's dtype.
    return lambda y, dy: np.asarray(fn(np.asarray(y), np.asarray(dy))).astype(np.asarray(y).dtype, copy=False)


KERNELS = {
    "SigmoidGrad": _sigmoid_grad_np, "TanhGrad": _tanh_grad_np, "SqrtGrad": _sqrt_grad_np,
    "RsqrtGrad": _rsqrt_grad_np, "ReciprocalGrad": _reciprocal_grad_np,
}
for _t, _fn in KERNELS.items():
    # Gradients registered by math_grad.py (they need math ops, which import this module).
    register_op(_t, fn=_typed(_fn), shape=_same_shape)


def _grad_op(op_type, y, dy, name):
    return apply_op(op_type, [(y, "y"), (dy, "dy")], name=name or op_type)


def sigmoid_grad(y, dy, name=None):
    """dy * y * (1 - y): Sigmoid's gradient from its output y."""
    return _grad_op("SigmoidGrad", y, dy, name)


def tanh_grad(y, dy, name=None):
    """dy * (1 - y^2): Tanh's gradient from its output y."""
    return _grad_op("TanhGrad", y, dy, name)


def sqrt_grad(y, dy, name=None):
    """dy * 0.5 / y: Sqrt's gradient from its output y."""
    return _grad_op("SqrtGrad", y, dy, name)


def rsqrt_grad(y, dy, name=None):
    """dy * -0.5 * y^3: Rsqrt's gradient from its output y."""
    return _grad_op("RsqrtGrad", y, dy, name)


def reciprocal_grad(y, dy, name=None):
    """-dy * y^2: Reciprocal's gradient from its output y."""
    return _grad_op("ReciprocalGrad", y, dy, name)
