"""Morphological and index-returning pools: Dilation2D (and erosion2d through it) with its backprop ops,
MaxPoolWithArgmax with MaxPoolGradWithArgmax, FractionalMaxPool / FractionalAvgPool with their grad ops
(NumPy kernels; ties go to the first maximum in row-major order, as TF's CPU kernels)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.random import _seed_attrs


def _out(n, k, s, r, padding):
    eff = (k - 1) * r + 1
    if padding == "VALID":
        return max(0, (n - eff) // s + 1), 0
    out = -(-n // s)
    return out, max(0, (out - 1) * s + eff - n) // 2


# ---- Dilation2D -------------------------------------------------------------------------------
def _dilation_core(op, x, f):
    """(output, argmax input (y, x), argmax filter (dy, dx)) of a grayscale dilation."""
    a = op._attrs
    x, f = np.asarray(x), np.asarray(f)
    if x.ndim != 4 or f.ndim != 3 or x.shape[3] != f.shape[2]:
        raise errors.InvalidArgumentError(None, op, "input must be 4-D and filter 3-D with the same depth, got %s "
                                          "and %s" % (list(x.shape), list(f.shape)))
    sh, sw = a["strides"][1:3]
    rh, rw = a["rates"][1:3]
    (oh, top), (ow, left) = _out(x.shape[1], f.shape[0], sh, rh, a["padding"]), \
        _out(x.shape[2], f.shape[1], sw, rw, a["padding"])
    best = np.full((x.shape[0], oh, ow, x.shape[3]), -np.inf, np.result_type(x, f))
    arg = np.zeros(best.shape + (4,), np.int64)   # (input row, input col, filter row, filter col)
    ys, xs = np.arange(oh) * sh - top, np.arange(ow) * sw - left
    for dy in range(f.shape[0]):
        for dx in range(f.shape[1]):
            yy, xx = ys + dy * rh, xs + dx * rw
            ok = ((yy >= 0) & (yy < x.shape[1]))[:, None] & ((xx >= 0) & (xx < x.shape[2]))[None, :]
            v = x[:, np.clip(yy, 0, x.shape[1] - 1)][:, :, np.clip(xx, 0, x.shape[2] - 1)] + f[dy, dx]
            v = np.where(ok[None, :, :, None], v, -np.inf)
            better = v > best
            best = np.where(better, v, best)
            here = np.stack(np.broadcast_arrays(yy[None, :, None, None], xx[None, None, :, None],
                                                np.int64(dy), np.int64(dx)), -1)
            arg = np.where(better[..., None], np.broadcast_to(here, arg.shape), arg)
    return best, arg


def _dilation_make(op, ctx):
    return lambda x, f: _dilation_core(op, x, f)[0].astype(np.asarray(x).dtype)


def _bp_input_make(op, ctx):
    def run(x, f, g):
        _, arg = _dilation_core(op, x, f)
        out = np.zeros(np.shape(x), np.asarray(g).dtype)
        b, ch = np.indices(np.shape(g))[0], np.indices(np.shape(g))[3]
        np.add.at(out, (b, arg[..., 0], arg[..., 1], ch), g)
        return out
    return run


def _bp_filter_make(op, ctx):
    def run(x, f, g):
        _, arg = _dilation_core(op, x, f)
        out = np.zeros(np.shape(f), np.asarray(g).dtype)
        ch = np.indices(np.shape(g))[3]
        np.add.at(out, (arg[..., 2], arg[..., 3], ch), g)
        return out
    return run


def _attrs(op):
    return {k: op._attrs[k] for k in ("strides", "rates", "padding", "T")}


def _dilation_grad(op, g):
    x, f = op._inputs
    return [apply_op("Dilation2DBackpropInput", [(x, "input"), (f, "filter"), (g, "out_backprop")], _attrs(op),
                     dtypes=[x.dtype.base_dtype], same_dtype=False),
            apply_op("Dilation2DBackpropFilter", [(x, "input"), (f, "filter"), (g, "out_backprop")], _attrs(op),
                     dtypes=[f.dtype.base_dtype], same_dtype=False)]


def _dilation_shape(op):
    a = op._attrs
    x = op._inputs[0].shape.as_list() if op._inputs[0].shape.ndims == 4 else [None] * 4
    f = op._inputs[1].shape.as_list() if op._inputs[1].shape.ndims == 3 else [None] * 3
    dims = [None if n is None or k is None else _out(n, k, s, r, a["padding"])[0]
            for n, k, s, r in zip(x[1:3], f[:2], a["strides"][1:3], a["rates"][1:3])]
    return [TensorShape([x[0]] + dims + [x[3]])]


register_op("Dilation2D", make=_dilation_make, shape=_dilation_shape, grad=_dilation_grad)
register_op("Dilation2DBackpropInput", make=_bp_input_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)
register_op("Dilation2DBackpropFilter", make=_bp_filter_make, shape=lambda op: [op._inputs[1].shape],
            not_differentiable=True)


def _four(v, what):
    v = [int(t) for t in v]
    if len(v) != 4 or v[0] != 1 or v[3] != 1:
        raise ValueError("%s must be [1, rows, cols, 1], got %s" % (what, v))
    return v


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None, filters=None,  # noqa: A002
               dilations=None):
    """The grayscale dilation max(input[y*s + dy*r, x*s + dx*r] + filter[dy, dx]) per channel."""
    filter = filters if filter is None else filter
    rates = dilations if rates is None else rates
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    with name_scope(name, "Dilation2D", [input, filter]) as scope:
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filter, dtype=x.dtype.base_dtype, name="filter")
        attrs = {"strides": _four(strides, "strides"), "rates": _four(rates, "rates"), "padding": padding,
                 "T": x.dtype.base_dtype}
        return apply_op("Dilation2D", [(x, "input"), (f, "filter")], attrs, name=scope)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """The grayscale erosion: -dilation2d(-value, kernel mirrored in both spatial axes)."""
    from lens.ops.indexing import reverse
    from lens.ops.math import negative
    with name_scope(name, "erosion2d", [value, kernel]) as scope:
        k = reverse(convert_to_tensor(kernel, name="kernel"), [0, 1])
        return negative(dilation2d(negative(convert_to_tensor(value, name="value")), k, strides, rates, padding),
                        name=scope)


# ---- MaxPoolWithArgmax ------------------------------------------------------------------------
def _argmax_pool(op, x):
    a = op._attrs
    x = np.asarray(x)
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, op, "input must be 4-dimensional, got shape %s" % list(x.shape))
    b, h, w, c = x.shape
    kh, kw = a["ksize"][1:3]
    sh, sw = a["strides"][1:3]
    (oh, top), (ow, left) = _out(h, kh, sh, 1, a["padding"]), _out(w, kw, sw, 1, a["padding"])
    best = np.full((b, oh, ow, c), -np.inf, x.dtype)
    arg = np.zeros(best.shape, np.int64)
    ys, xs = np.arange(oh) * sh - top, np.arange(ow) * sw - left
    chan = np.arange(c)[None, None, None, :]
    batch = np.arange(b)[:, None, None, None]
    for dy in range(kh):
        for dx in range(kw):
            yy, xx = ys + dy, xs + dx
            ok = ((yy >= 0) & (yy < h))[:, None] & ((xx >= 0) & (xx < w))[None, :]
            v = x[:, np.clip(yy, 0, h - 1)][:, :, np.clip(xx, 0, w - 1)]
            v = np.where(ok[None, :, :, None], v, -np.inf)
            better = v > best
            best = np.where(better, v, best)
            flat = (yy[None, :, None, None] * w + xx[None, None, :, None]) * c + chan
            if a["include_batch_in_index"]:
                flat = flat + batch * (h * w * c)
            arg = np.where(better, flat, arg)
    return best, arg


def _argmax_make(op, ctx):
    out_t = op._attrs["Targmax"].as_numpy_dtype
    return lambda x: [v.astype(t) for v, t in zip(_argmax_pool(op, x), (np.asarray(x).dtype, out_t))]


def _grad_argmax_make(op, ctx):
    def run(x, g, arg):
        out = np.zeros(np.size(x), np.asarray(g).dtype)
        g, arg = np.asarray(g), np.asarray(arg, np.int64)
        if not op._attrs["include_batch_in_index"]:
            per = int(np.prod(np.shape(x)[1:]))
            arg = arg + (np.arange(g.shape[0]) * per)[:, None, None, None]
        np.add.at(out, arg.ravel(), g.ravel())
        return out.reshape(np.shape(x))
    return run


def _argmax_shape(op):
    a = op._attrs
    x = op._inputs[0].shape.as_list() if op._inputs[0].shape.ndims == 4 else [None] * 4
    dims = [None if n is None else _out(n, k, s, 1, a["padding"])[0]
            for n, k, s in zip(x[1:3], a["ksize"][1:3], a["strides"][1:3])]
    s = TensorShape([x[0]] + dims + [x[3]])
    return [s, s]


def _argmax_grad(op, g, _):
    x = op._inputs[0]
    attrs = {k: op._attrs[k] for k in ("ksize", "strides", "padding", "include_batch_in_index", "Targmax", "T")}
    return [apply_op("MaxPoolGradWithArgmax", [(x, "input"), (g, "grad"), (op._outputs[1], "argmax")], attrs,
                     dtypes=[x.dtype.base_dtype], same_dtype=False)]


register_op("MaxPoolWithArgmax", make=_argmax_make, shape=_argmax_shape, grad=_argmax_grad)
register_op("MaxPoolGradWithArgmax", make=_grad_argmax_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None, name=None,  # noqa: A002
                         output_dtype=None, include_batch_in_index=False):
    """(max_pool output, flat argmax indices ((y * width + x) * channels + c, plus the batch offset if asked))."""
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    targ = _dt.as_dtype(output_dtype or Targmax or _dt.int64)
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    with name_scope(name, "MaxPoolWithArgmax", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        k = [1, ksize, ksize, 1] if np.ndim(ksize) == 0 else list(ksize)
        s = [1, strides, strides, 1] if np.ndim(strides) == 0 else list(strides)
        attrs = {"ksize": _four(k, "ksize"), "strides": _four(s, "strides"), "padding": padding, "Targmax": targ,
                 "include_batch_in_index": bool(include_batch_in_index), "T": x.dtype.base_dtype}
        out, arg = apply_op("MaxPoolWithArgmax", [(x, "input")], attrs, name=scope,
                            dtypes=[x.dtype.base_dtype, targ], same_dtype=False)
        return out, arg


# ---- fractional pools -------------------------------------------------------------------------
def _sequence(gen, n_in, n_out, pseudo_random):
    """TF's pooling boundaries: n_out + 1 increasing cut points from 0 to n_in."""
    if pseudo_random:
        alpha = n_in / n_out
        k = n_in // n_out
        u_max = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = gen.uniform() * u_max
        seq = [int(np.ceil(alpha * (i + u)) - np.ceil(alpha * u)) for i in range(n_out)] + [n_in]
        return np.array(seq, np.int64)
    k, extra = divmod(n_in, n_out)
    diff = np.array([k + 1] * extra + [k] * (n_out - extra))
    gen.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _windows(seq, n, overlapping):
    for i in range(len(seq) - 1):
        end = seq[i + 1] + (1 if overlapping else 0)
        yield i, seq[i], min(end, n)


def _frac_make(kind):
    def make(op, ctx):
        gen = ctx.rng(op)
        a = op._attrs

        def run(x):
            x = np.asarray(x)
            if x.ndim != 4:
                raise errors.InvalidArgumentError(None, op, "input must be 4-dimensional, got %s" % list(x.shape))
            ratio = a["pooling_ratio"]
            if ratio[0] != 1.0 or ratio[3] != 1.0 or min(ratio[1:3]) < 1.0:
                raise errors.InvalidArgumentError(None, op, "pooling_ratio must be [1.0, >= 1, >= 1, 1.0], got %s"
                                                  % list(ratio))
            oh, ow = int(x.shape[1] / ratio[1]), int(x.shape[2] / ratio[2])
            if a["deterministic"]:
                gen_ = np.random.default_rng([a["seed"], a["seed2"]])
            else:
                gen_ = gen
            rows = _sequence(gen_, x.shape[1], oh, a["pseudo_random"])
            cols = _sequence(gen_, x.shape[2], ow, a["pseudo_random"])
            return [_frac_pool(x, rows, cols, a["overlapping"], kind), rows, cols]
        return run
    return make


def _frac_pool(x, rows, cols, overlapping, kind):
    out = np.zeros((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
    for i, r0, r1 in _windows(rows, x.shape[1], overlapping):
        for j, c0, c1 in _windows(cols, x.shape[2], overlapping):
            win = x[:, r0:r1, c0:c1]
            out[:, i, j] = win.max((1, 2)) if kind == "max" else win.mean((1, 2))
    return out


def _frac_max_grad_make(op, ctx):
    def run(x, y, g, rows, cols):
        x, g = np.asarray(x), np.asarray(g)
        out = np.zeros_like(x, dtype=g.dtype)
        for i, r0, r1 in _windows(np.asarray(rows), x.shape[1], op._attrs["overlapping"]):
            for j, c0, c1 in _windows(np.asarray(cols), x.shape[2], op._attrs["overlapping"]):
                win = x[:, r0:r1, c0:c1].reshape(x.shape[0], -1, x.shape[3])
                k = win.argmax(1)
                ry, rx = np.unravel_index(k, (r1 - r0, c1 - c0))
                b, ch = np.indices(k.shape)
                np.add.at(out, (b, r0 + ry, c0 + rx, ch), g[:, i, j])
        return out
    return run


def _frac_avg_grad_make(op, ctx):
    def run(shape, g, rows, cols):
        shape = [int(v) for v in np.ravel(shape)]
        g = np.asarray(g)
        out = np.zeros(shape, g.dtype)
        for i, r0, r1 in _windows(np.asarray(rows), shape[1], op._attrs["overlapping"]):
            for j, c0, c1 in _windows(np.asarray(cols), shape[2], op._attrs["overlapping"]):
                out[:, r0:r1, c0:c1] += (g[:, i, j] / ((r1 - r0) * (c1 - c0)))[:, None, None, :]
        return out
    return run


def _frac_shape(op):
    x = op._inputs[0].shape.as_list() if op._inputs[0].shape.ndims == 4 else [None] * 4
    r = op._attrs["pooling_ratio"]
    dims = [None if n is None else int(n / q) for n, q in zip(x[1:3], r[1:3])]
    return [TensorShape([x[0]] + dims + [x[3]]), TensorShape([None if dims[0] is None else dims[0] + 1]),
            TensorShape([None if dims[1] is None else dims[1] + 1])]


def _frac_max_grad(op, g, _, __):
    x = op._inputs[0]
    ins = [(x, "orig_input"), (op._outputs[0], "orig_output"), (g, "out_backprop"),
           (op._outputs[1], "row_pooling_sequence"), (op._outputs[2], "col_pooling_sequence")]
    return [apply_op("FractionalMaxPoolGrad", ins, {"overlapping": op._attrs["overlapping"], "T": x.dtype.base_dtype},
                     dtypes=[x.dtype.base_dtype], same_dtype=False)]


def _frac_avg_grad(op, g, _, __):
    from lens.ops.array import shape
    x = op._inputs[0]
    ins = [(shape(x, out_type=_dt.int64), "orig_input_tensor_shape"), (g, "out_backprop"),
           (op._outputs[1], "row_pooling_sequence"), (op._outputs[2], "col_pooling_sequence")]
    return [apply_op("FractionalAvgPoolGrad", ins, {"overlapping": op._attrs["overlapping"], "T": x.dtype.base_dtype},
                     dtypes=[x.dtype.base_dtype], same_dtype=False)]


register_op("FractionalMaxPool", make=_frac_make("max"), shape=_frac_shape, grad=_frac_max_grad, stateful=True)
register_op("FractionalAvgPool", make=_frac_make("avg"), shape=_frac_shape, grad=_frac_avg_grad, stateful=True)
register_op("FractionalMaxPoolGrad", make=_frac_max_grad_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)
register_op("FractionalAvgPoolGrad", make=_frac_avg_grad_make, shape=lambda op: [TensorShape([None] * 4)],
            not_differentiable=True)


def _fractional(op_type, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2, name):
    with name_scope(name, op_type, [value]) as scope:
        x = convert_to_tensor(value, name="value")
        ratio = [float(r) for r in (pooling_ratio if np.ndim(pooling_ratio) else [1.0, pooling_ratio,
                                                                                   pooling_ratio, 1.0])]
        if len(ratio) == 2:
            ratio = [1.0] + ratio + [1.0]
        attrs = {"pooling_ratio": ratio, "pseudo_random": bool(pseudo_random), "overlapping": bool(overlapping),
                 "deterministic": bool(deterministic), "T": x.dtype.base_dtype}
        attrs.update(_seed_attrs(seed or None) if not (seed or seed2) else {"seed": int(seed), "seed2": int(seed2)})
        return tuple(apply_op(op_type, [(x, "value")], attrs, name=scope,
                              dtypes=[x.dtype.base_dtype, _dt.int64, _dt.int64], same_dtype=False))


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                        seed2=0, name=None):
    """(output, row_pooling_sequence, col_pooling_sequence): max pooling over randomly sized windows."""
    return _fractional("FractionalMaxPool", value, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                       seed2, name)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                        seed2=0, name=None):
    """(output, row_pooling_sequence, col_pooling_sequence): average pooling over randomly sized windows."""
    return _fractional("FractionalAvgPool", value, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                       seed2, name)
