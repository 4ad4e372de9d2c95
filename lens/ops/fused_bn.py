"""FusedBatchNorm: one op normalizing a 4-D batch per channel, with a composed gradient."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.nn import _is_zero
from lens.ops.reduce import reduce_sum
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape

__all__ = ["fused_batch_norm"]

_MIN_EPSILON = 1.001e-5   # TF raises smaller epsilons to this (cuDNN's lower bound)


def _axes(fmt):
    return (0, 2, 3) if fmt == "NCHW" else (0, 1, 2)


def _fbn_make(op, ctx):
    eps, fmt, training = op._attrs["epsilon"], op._attrs["data_format"], op._attrs["is_training"]
    axes = _axes(fmt)

    def run(x, scale, offset, mean, var):
        x = np.asarray(x)
        dt = x.dtype
        c = x.shape[1] if fmt == "NCHW" else x.shape[3]
        bshape = (1, c, 1, 1) if fmt == "NCHW" else (c,)
        for what, v in (("scale", scale), ("offset", offset)) + ((() if training else (("mean", mean), ("variance", var)))):
            if np.size(v) != c:
                raise errors.InvalidArgumentError(
                    None, op, "%s must have %d elements (the channels of x, data_format %s), got shape %s"
                    % (what, c, fmt, np.shape(v)))
        if training:
            m = x.mean(axis=axes)
            v = np.square(x - m.reshape(bshape)).mean(axis=axes)
            n = x.size // c
            unbiased = v * (n / max(n - 1, 1))   # TF reports the Bessel-corrected batch variance
        else:
            m, v = np.asarray(mean, dtype=dt), np.asarray(var, dtype=dt)
            unbiased = v
        inv = 1.0 / np.sqrt(v + eps)
        y = (x - m.reshape(bshape)) * (inv * scale).reshape(bshape) + np.reshape(offset, bshape)
        return (y.astype(dt, copy=False), m.astype(dt, copy=False), np.asarray(unbiased, dtype=dt),
                m.astype(dt, copy=False), v.astype(dt, copy=False))
    return run


def _fbn_shape(op):
    x = op._inputs[0].shape
    if x.ndims not in (None, 4):
        raise ValueError("FusedBatchNorm needs a 4-D input, got shape %s for '%s'" % (x, op.name))
    c = None
    if x.ndims == 4:
        c = x.as_list()[1 if op._attrs["data_format"] == "NCHW" else 3]
    vec = TensorShape([c]) if x.ndims == 4 else unknown_shape(1)
    return [x, vec, vec, vec, vec]


def _live(*gs):
    """Sum of the gradients that are not statically zero (None when all are)."""
    live = [g for g in gs if not _is_zero(g)]
    if not live:
        return None
    return live[0] if len(live) == 1 else M.add_n(live)


def _fbn_grad(op, gy, g_mean, g_var, g_r1, g_r2):
    x, scale = op._inputs[0], op._inputs[1]
    fmt, eps = op._attrs["data_format"], op._attrs["epsilon"]
    axes = list(_axes(fmt))
    t = x.dtype.base_dtype

    def bc(v):   # a per-channel vector shaped to broadcast against x
        return v if fmt != "NCHW" else A.reshape(v, [1, -1, 1, 1])

    n = M.real_div(A.cast(A.size(x), t), A.cast(A.size(scale), t))
    d_offset = reduce_sum(gy, axes)
    if op._attrs["is_training"]:
        m, v = op._outputs[3], op._outputs[4]
        inv = M.rsqrt(M.add(v, convert_to_tensor(eps, dtype=t)))
        xc = M.subtract(x, bc(m))
        xhat = M.multiply(xc, bc(inv))
        d_scale = reduce_sum(M.multiply(gy, xhat), axes)
        centered = M.subtract(M.subtract(gy, bc(M.real_div(d_offset, n))), M.multiply(xhat, bc(M.real_div(d_scale, n))))
        dx = M.multiply(bc(M.multiply(scale, inv)), centered)
        gm = _live(g_mean, g_r1)
        if gm is not None:
            dx = M.add(dx, bc(M.real_div(gm, n)))
        bessel = M.real_div(n, M.maximum(M.subtract(n, convert_to_tensor(1, dtype=t)), convert_to_tensor(1, dtype=t)))
        gv = _live(None if _is_zero(g_var) else M.multiply(g_var, bessel), g_r2)
        if gv is not None:
            dx = M.add(dx, M.multiply(xc, bc(M.real_div(M.multiply(gv, convert_to_tensor(2, dtype=t)), n))))
        return [dx, d_scale, d_offset, None, None]
    mean, var = op._inputs[3], op._inputs[4]
    inv = M.rsqrt(M.add(var, convert_to_tensor(eps, dtype=t)))
    xc = M.subtract(x, bc(mean))
    gxc = reduce_sum(M.multiply(gy, xc), axes)
    dx = M.multiply(gy, bc(M.multiply(scale, inv)))
    d_scale = M.multiply(gxc, inv)
    d_mean = M.negative(M.multiply(d_offset, M.multiply(scale, inv)))
    d_var = M.multiply(M.multiply(gxc, scale), M.multiply(convert_to_tensor(-0.5, dtype=t), M.pow(inv, convert_to_tensor(3, dtype=t))))
    d_mean = _live(d_mean, g_mean, g_r1)
    d_var = _live(d_var, g_var, g_r2)
    return [dx, d_scale, d_offset, d_mean, d_var]


register_op("FusedBatchNorm", make=_fbn_make, shape=_fbn_shape, grad=_fbn_grad)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None):
    """(y, batch_mean, batch_variance) of per-channel batch normalization of a 4-D x.

    Training: normalizes with the batch statistics and reports the Bessel-corrected variance;
    inference: normalizes with the given mean and variance."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format must be 'NHWC' or 'NCHW', got %r" % (data_format,))
    x = convert_to_tensor(x, name="input")
    if x.dtype.base_dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise TypeError("fused_batch_norm needs a float input, got %s" % x.dtype.name)
    if x.shape.ndims not in (None, 4):
        raise ValueError("fused_batch_norm needs a 4-D input, got shape %s" % x.shape)
    t = x.dtype.base_dtype
    scale = convert_to_tensor(scale, dtype=t, name="scale")
    offset = convert_to_tensor(offset, dtype=t, name="offset")
    if not is_training and (mean is None or variance is None):
        raise ValueError("Both 'mean' and 'variance' must be a 1-D tensor when is_training is False.")
    mean = convert_to_tensor(np.zeros([0]) if mean is None else mean, dtype=t)
    variance = convert_to_tensor(np.zeros([0]) if variance is None else variance, dtype=t)
    eps = max(float(epsilon), _MIN_EPSILON)
    outs = apply_op("FusedBatchNorm", [(x, "x"), (scale, "scale"), (offset, "offset"), (mean, "mean"),
                                       (variance, "variance")],
                    {"epsilon": eps, "data_format": data_format, "is_training": bool(is_training), "T": t},
                    name=name or "FusedBatchNorm", dtypes=[t] * 5)
    return outs[0], outs[1], outs[2]
