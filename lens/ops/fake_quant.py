"""Fake quantization (TF's FakeQuantWithMinMaxArgs / Vars / VarsPerChannel and their gradient ops):
inputs clamped to a nudged [min, max] whose zero is exactly representable, rounded to 2^num_bits levels;
gradients pass straight through inside the range (and to min / max from outside it)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op


def _nudge(lo, hi, num_bits, narrow):
    """(nudged_min, nudged_max, scale) in float32, elementwise over lo and hi."""
    qmin = np.float32(1 if narrow else 0)
    qmax = np.float32((1 << num_bits) - 1)
    lo, hi = np.asarray(lo, np.float32), np.asarray(hi, np.float32)
    scale = (hi - lo) / (qmax - qmin)
    with np.errstate(divide="ignore", invalid="ignore"):
        zp_from_min = qmin - lo / scale
    zp = np.where(zp_from_min < qmin, qmin, np.where(zp_from_min > qmax, qmax,
                                                     np.sign(zp_from_min) * np.floor(np.abs(zp_from_min) + 0.5)))
    return ((qmin - zp) * scale).astype(np.float32), ((qmax - zp) * scale).astype(np.float32), scale.astype(np.float32)


def _quantize(x, lo, hi, num_bits, narrow):
    nmin, nmax, scale = _nudge(lo, hi, num_bits, narrow)
    x = np.asarray(x, np.float32)
    clamped = np.clip(x, nmin, nmax)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.floor((clamped - nmin) * (np.float32(1) / scale) + np.float32(0.5)) * scale + nmin
    return np.where(scale > 0, q, clamped).astype(np.float32)


def _check_bits(num_bits, narrow):
    if not 2 <= num_bits <= 16:
        raise ValueError("num_bits is out of range, expected between 2 and 16, was: %d" % num_bits)


def _check_range(op, lo, hi):
    if (np.asarray(lo) > np.asarray(hi)).any():
        raise errors.InvalidArgumentError(None, op, "min has to be smaller or equal than max, got min=%s max=%s"
                                          % (np.asarray(lo).tolist(), np.asarray(hi).tolist()))


def _args_make(op, ctx):
    a = op._attrs
    return lambda x: _quantize(x, a["min"], a["max"], a["num_bits"], a["narrow_range"])


def _args_grad_make(op, ctx):
    a = op._attrs

    def run(g, x):
        nmin, nmax, _ = _nudge(a["min"], a["max"], a["num_bits"], a["narrow_range"])
        x = np.asarray(x, np.float32)
        return np.where((x >= nmin) & (x <= nmax), g, 0).astype(np.float32)
    return run


def _vars_make(op, ctx):
    a = op._attrs

    def run(x, lo, hi):
        _check_range(op, lo, hi)
        return _quantize(x, lo, hi, a["num_bits"], a["narrow_range"])
    return run


def _vars_grad_make(op, ctx):
    a = op._attrs
    per_channel = op.type.endswith("PerChannelGradient")

    def run(g, x, lo, hi):
        _check_range(op, lo, hi)
        nmin, nmax, _ = _nudge(lo, hi, a["num_bits"], a["narrow_range"])
        x, g = np.asarray(x, np.float32), np.asarray(g, np.float32)
        axes = tuple(range(x.ndim - 1)) if per_channel else None
        below, above = x < nmin, x > nmax
        dx = np.where(~below & ~above, g, 0).astype(np.float32)
        dmin = np.asarray(np.where(below, g, 0).sum(axis=axes), np.float32)
        dmax = np.asarray(np.where(above, g, 0).sum(axis=axes), np.float32)
        return [dx, dmin, dmax]
    return run


def _same(op):
    return [op._inputs[0].shape]


def _args_grad(op, g):
    return [fake_quant_with_min_max_args_gradient(g, op._inputs[0], op._attrs["min"], op._attrs["max"],
                                                  op._attrs["num_bits"], op._attrs["narrow_range"])]


def _vars_grad(per_channel):
    def grad(op, g):
        x, lo, hi = op._inputs
        fn = fake_quant_with_min_max_vars_per_channel_gradient if per_channel else \
            fake_quant_with_min_max_vars_gradient
        return list(fn(g, x, lo, hi, op._attrs["num_bits"], op._attrs["narrow_range"]))
    return grad


def _grad_shapes(op):
    return [op._inputs[1].shape, op._inputs[2].shape, op._inputs[3].shape]


register_op("FakeQuantWithMinMaxArgs", make=_args_make, shape=_same, grad=_args_grad)
register_op("FakeQuantWithMinMaxArgsGradient", make=_args_grad_make, shape=_same, not_differentiable=True)
register_op("FakeQuantWithMinMaxVars", make=_vars_make, shape=_same, grad=_vars_grad(False))
register_op("FakeQuantWithMinMaxVarsGradient", make=_vars_grad_make, shape=_grad_shapes, not_differentiable=True)
register_op("FakeQuantWithMinMaxVarsPerChannel", make=_vars_make, shape=_same, grad=_vars_grad(True))
register_op("FakeQuantWithMinMaxVarsPerChannelGradient", make=_vars_grad_make, shape=_grad_shapes,
            not_differentiable=True)


def _f32(v, name):
    return convert_to_tensor(v, dtype=_dt.float32, name=name)


def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """inputs fake-quantized to 2^num_bits levels over the (nudged) constant range [min, max]."""
    _check_bits(num_bits, narrow_range)
    if min > max:
        raise ValueError("min has to be smaller or equal than max, got min=%s max=%s" % (min, max))
    with name_scope(name, "FakeQuantWithMinMaxArgs", [inputs]) as scope:
        attrs = {"min": float(min), "max": float(max), "num_bits": int(num_bits), "narrow_range": bool(narrow_range)}
        return apply_op("FakeQuantWithMinMaxArgs", [(_f32(inputs, "inputs"), "inputs")], attrs, name=scope)


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None):
    """gradients where inputs fall inside the nudged [min, max], zeros elsewhere."""
    _check_bits(num_bits, narrow_range)
    with name_scope(name, "FakeQuantWithMinMaxArgsGradient", [gradients, inputs]) as scope:
        attrs = {"min": float(min), "max": float(max), "num_bits": int(num_bits), "narrow_range": bool(narrow_range)}
        return apply_op("FakeQuantWithMinMaxArgsGradient", [(_f32(gradients, "gradients"), "gradients"),
                                                            (_f32(inputs, "inputs"), "inputs")], attrs, name=scope)


def _vars(op_type, inputs, lo, hi, num_bits, narrow_range, name):
    _check_bits(num_bits, narrow_range)
    with name_scope(name, op_type, [inputs, lo, hi]) as scope:
        attrs = {"num_bits": int(num_bits), "narrow_range": bool(narrow_range)}
        return apply_op(op_type, [(_f32(inputs, "inputs"), "inputs"), (_f32(lo, "min"), "min"),
                                  (_f32(hi, "max"), "max")], attrs, name=scope)


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """inputs fake-quantized over a range [min, max] given by scalar tensors (variables)."""
    return _vars("FakeQuantWithMinMaxVars", inputs, min, max, num_bits, narrow_range, name)


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                             name=None):
    """inputs fake-quantized per last-axis channel over ranges given by [channels] tensors."""
    return _vars("FakeQuantWithMinMaxVarsPerChannel", inputs, min, max, num_bits, narrow_range, name)


def _vars_gradient(op_type, gradients, inputs, lo, hi, num_bits, narrow_range, name):
    _check_bits(num_bits, narrow_range)
    with name_scope(name, op_type, [gradients, inputs, lo, hi]) as scope:
        attrs = {"num_bits": int(num_bits), "narrow_range": bool(narrow_range)}
        return tuple(apply_op(op_type, [(_f32(gradients, "gradients"), "gradients"), (_f32(inputs, "inputs"), "inputs"),
                                        (_f32(lo, "min"), "min"), (_f32(hi, "max"), "max")], attrs, name=scope,
                              dtypes=[_dt.float32] * 3))


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                          name=None):
    """(d inputs, d min, d max): straight through inside the nudged range, summed onto min / max outside."""
    return _vars_gradient("FakeQuantWithMinMaxVarsGradient", gradients, inputs, min, max, num_bits, narrow_range,
                          name)


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                                      narrow_range=False, name=None):
    """The per-channel fake quantization's (d inputs, d min [channels], d max [channels])."""
    return _vars_gradient("FakeQuantWithMinMaxVarsPerChannelGradient", gradients, inputs, min, max, num_bits,
                          narrow_range, name)
