"""3-D convolution and pooling: Conv3D with Conv3DBackpropInputV2 / Conv3DBackpropFilterV2, MaxPool3D /
AvgPool3D with their grad ops (NumPy kernels looping over the kernel's offsets), their TF1 wrappers,
and N-D tf.nn.convolution / tf.nn.pool / conv_transpose / max_pool_v2 / avg_pool_v2 dispatchers."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.shapes import const_value


# ---- geometry ---------------------------------------------------------------------------------
def _mid(v, fmt="NDHWC"):
    """The 3 spatial entries of a 5-element attr in data_format order."""
    return [int(t) for t in (v[2:] if fmt == "NCDHW" else v[1:-1])]


def _out_size(n, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return max(0, (n - eff) // s + 1), 0
    out = -(-n // s)
    return out, max(0, (out - 1) * s + eff - n) // 2


def _geometry(op, spatial, ksp):
    a = op._attrs
    fmt = a["data_format"]
    s, d = _mid(a["strides"], fmt), _mid(a.get("dilations", [1] * 5), fmt)
    outs, befores = zip(*[_out_size(n, k, st, dl, a["padding"]) for n, k, st, dl in zip(spatial, ksp, s, d)])
    return list(outs), list(befores), s, d


def _ndhwc(op, x):
    return np.moveaxis(x, 1, -1) if op._attrs["data_format"] == "NCDHW" else x


def _back(op, x):
    return np.moveaxis(x, -1, 1) if op._attrs["data_format"] == "NCDHW" else x


def _windows(outs, befores, s, d, ksp):
    """For each kernel offset: (offset tuple, per-dim slices into the padded input)."""
    for off in np.ndindex(*ksp):
        yield off, tuple(slice(o * dl, o * dl + st * (n - 1) + 1, st) for o, dl, st, n in zip(off, d, s, outs))


def _padded(x, outs, befores, s, d, ksp, fill=0.0):
    need = [(n - 1) * st + (k - 1) * dl + 1 for n, st, k, dl in zip(outs, s, ksp, d)]
    pads = [(0, 0)] + [(b, max(0, nd - sz - b)) for b, nd, sz in zip(befores, need, x.shape[1:-1])] + [(0, 0)]
    return np.pad(x, pads, constant_values=fill), pads


# ---- Conv3D -----------------------------------------------------------------------------------
def _conv_make(op, ctx):
    def run(x, f):
        x, f = _ndhwc(op, np.asarray(x)), np.asarray(f)
        if x.ndim != 5 or f.ndim != 5 or x.shape[-1] != f.shape[3]:
            raise errors.InvalidArgumentError(None, op, "input depth must match filter in_channels: input %s, "
                                              "filter %s" % (list(x.shape), list(f.shape)))
        outs, befores, s, d = _geometry(op, x.shape[1:4], f.shape[:3])
        xp, _ = _padded(x, outs, befores, s, d, f.shape[:3])
        y = np.zeros((x.shape[0],) + tuple(outs) + (f.shape[4],), np.result_type(x, f))
        for off, sl in _windows(outs, befores, s, d, f.shape[:3]):
            y += np.tensordot(xp[(slice(None),) + sl], f[off], axes=([4], [0]))
        return _back(op, y)
    return run


def _bp_input_make(op, ctx):
    def run(sizes, f, dy):
        shape = [int(v) for v in np.ravel(sizes)]
        dy, f = _ndhwc(op, np.asarray(dy)), np.asarray(f)
        xshape = shape if op._attrs["data_format"] != "NCDHW" else [shape[0]] + shape[2:] + [shape[1]]
        outs, befores, s, d = _geometry(op, xshape[1:4], f.shape[:3])
        if list(dy.shape[1:4]) != outs:
            raise errors.InvalidArgumentError(None, op, "out_backprop shape %s does not match the forward output "
                                              "%s" % (list(dy.shape), outs))
        xp, pads = _padded(np.zeros(xshape, dy.dtype), outs, befores, s, d, f.shape[:3])
        for off, sl in _windows(outs, befores, s, d, f.shape[:3]):
            xp[(slice(None),) + sl] += np.tensordot(dy, f[off], axes=([4], [1]))
        core = tuple(slice(p[0], p[0] + n) for p, n in zip(pads[1:4], xshape[1:4]))
        return _back(op, np.ascontiguousarray(xp[(slice(None),) + core + (slice(None),)]))
    return run


def _bp_filter_make(op, ctx):
    def run(x, sizes, dy):
        fshape = [int(v) for v in np.ravel(sizes)]
        x, dy = _ndhwc(op, np.asarray(x)), _ndhwc(op, np.asarray(dy))
        outs, befores, s, d = _geometry(op, x.shape[1:4], fshape[:3])
        xp, _ = _padded(x, outs, befores, s, d, fshape[:3])
        df = np.zeros(fshape, np.result_type(x, dy))
        for off, sl in _windows(outs, befores, s, d, fshape[:3]):
            df[off] = np.tensordot(xp[(slice(None),) + sl], dy, axes=([0, 1, 2, 3], [0, 1, 2, 3]))
        return df
    return run


def _attrs_of(op):
    a = op._attrs
    return {"strides": a["strides"], "padding": a["padding"], "data_format": a["data_format"],
            "dilations": a.get("dilations", [1] * 5)}


def _shape_of(t):
    v = t.shape.as_list() if t.shape.is_fully_defined() else None
    if v is not None:
        return v
    from lens.ops.array import shape
    return shape(t)


def _conv_grad(op, g):
    x, f = op._inputs
    return [conv3d_backprop_input_v2(_shape_of(x), f, g, **_attrs_of(op)),
            conv3d_backprop_filter_v2(x, _shape_of(f), g, **_attrs_of(op))]


def _bp_input_grad(op, g):
    _, f, dy = op._inputs
    return [None, conv3d_backprop_filter_v2(g, _shape_of(f), dy, **_attrs_of(op)),
            conv3d(g, f, **_attrs_of(op))]


def _bp_filter_grad(op, g):
    x, _, dy = op._inputs
    return [conv3d_backprop_input_v2(_shape_of(x), g, dy, **_attrs_of(op)), None, conv3d(x, g, **_attrs_of(op))]


def _fmt_dims(shape, fmt):
    dims = shape.as_list() if shape.ndims is not None else [None] * 5
    return [dims[0]] + dims[2:] + [dims[1]] if fmt == "NCDHW" else dims


def _to_fmt(dims, fmt):
    return [dims[0], dims[4]] + dims[1:4] if fmt == "NCDHW" else dims


def _conv_shape(op):
    a = op._attrs
    x = _fmt_dims(op._inputs[0].shape, a["data_format"])
    f = op._inputs[1].shape.as_list() if op._inputs[1].shape.ndims == 5 else [None] * 5
    if None in x[1:4] or None in f[:3]:
        outs = [None] * 3
    else:
        outs = _geometry(op, x[1:4], f[:3])[0]
    return [TensorShape(_to_fmt([x[0]] + outs + [f[4]], a["data_format"]))]


def _sizes_shape(op, k):
    v = const_value(op._inputs[k])
    return [TensorShape([int(t) for t in np.ravel(v)] if v is not None else [None] * 5)]


register_op("Conv3D", make=_conv_make, shape=_conv_shape, grad=_conv_grad)
register_op("Conv3DBackpropInputV2", make=_bp_input_make, shape=lambda op: _sizes_shape(op, 0), grad=_bp_input_grad)
register_op("Conv3DBackpropFilterV2", make=_bp_filter_make, shape=lambda op: _sizes_shape(op, 1),
            grad=_bp_filter_grad)


# ---- pooling ----------------------------------------------------------------------------------
def _pool_geometry(op, x):
    a = op._attrs
    k = _mid(a["ksize"], a["data_format"])
    outs, befores, s, _ = zip(*[(*_out_size(n, kk, st, 1, a["padding"]), st, 1)
                               for n, kk, st in zip(x.shape[1:4], k, _mid(a["strides"], a["data_format"]))])
    return list(outs), list(befores), list(s), [1, 1, 1], k


def _max_pool_make(op, ctx):
    def run(x):
        x = _ndhwc(op, np.asarray(x))
        outs, befores, s, d, k = _pool_geometry(op, x)
        xp, _ = _padded(x, outs, befores, s, d, k, fill=-np.inf)
        y = np.full((x.shape[0],) + tuple(outs) + (x.shape[4],), -np.inf, x.dtype)
        for _, sl in _windows(outs, befores, s, d, k):
            np.maximum(y, xp[(slice(None),) + sl], out=y)
        return _back(op, y)
    return run


def _avg_pool_make(op, ctx):
    def run(x):
        x = _ndhwc(op, np.asarray(x))
        outs, befores, s, d, k = _pool_geometry(op, x)
        xp, _ = _padded(x, outs, befores, s, d, k)
        ones, _ = _padded(np.ones((1,) + x.shape[1:4] + (1,), x.dtype), outs, befores, s, d, k)
        y = np.zeros((x.shape[0],) + tuple(outs) + (x.shape[4],), x.dtype)
        count = np.zeros((1,) + tuple(outs) + (1,), x.dtype)
        for _, sl in _windows(outs, befores, s, d, k):
            y += xp[(slice(None),) + sl]
            count += ones[(slice(None),) + sl]
        return _back(op, y / count)   # SAME windows average over the pixels inside the input only
    return run


def _max_pool_grad_make(op, ctx):
    def run(x, y, dy):
        x, dy = _ndhwc(op, np.asarray(x)), _ndhwc(op, np.asarray(dy))
        outs, befores, s, d, k = _pool_geometry(op, x)
        xp, pads = _padded(x, outs, befores, s, d, k, fill=-np.inf)
        best = np.full(dy.shape, -np.inf, x.dtype)
        where = np.zeros(dy.shape, np.int64)
        for i, (_, sl) in enumerate(_windows(outs, befores, s, d, k)):
            v = xp[(slice(None),) + sl]
            better = v > best          # the first maximum in the window gets the gradient
            best = np.where(better, v, best)
            where = np.where(better, i, where)
        gp = np.zeros(xp.shape, dy.dtype)
        for i, (_, sl) in enumerate(_windows(outs, befores, s, d, k)):
            gp[(slice(None),) + sl] += np.where(where == i, dy, 0)
        core = tuple(slice(p[0], p[0] + n) for p, n in zip(pads[1:4], x.shape[1:4]))
        return _back(op, np.ascontiguousarray(gp[(slice(None),) + core + (slice(None),)]))
    return run


def _avg_pool_grad_make(op, ctx):
    def run(sizes, dy):
        shape = [int(v) for v in np.ravel(sizes)]
        dy = _ndhwc(op, np.asarray(dy))
        xshape = shape if op._attrs["data_format"] != "NCDHW" else [shape[0]] + shape[2:] + [shape[1]]
        x = np.zeros(xshape, dy.dtype)
        outs, befores, s, d, k = _pool_geometry(op, x)
        ones, pads = _padded(np.ones((1,) + x.shape[1:4] + (1,), dy.dtype), outs, befores, s, d, k)
        count = np.zeros((1,) + tuple(outs) + (1,), dy.dtype)
        for _, sl in _windows(outs, befores, s, d, k):
            count += ones[(slice(None),) + sl]
        gp, _ = _padded(x, outs, befores, s, d, k)
        for _, sl in _windows(outs, befores, s, d, k):
            gp[(slice(None),) + sl] += dy / count
        core = tuple(slice(p[0], p[0] + n) for p, n in zip(pads[1:4], xshape[1:4]))
        return _back(op, np.ascontiguousarray(gp[(slice(None),) + core + (slice(None),)]))
    return run


def _pool_shape(op):
    a = op._attrs
    x = _fmt_dims(op._inputs[0].shape, a["data_format"])
    k, s = _mid(a["ksize"], a["data_format"]), _mid(a["strides"], a["data_format"])
    outs = [None if n is None else _out_size(n, kk, st, 1, a["padding"])[0] for n, kk, st in zip(x[1:4], k, s)]
    return [TensorShape(_to_fmt([x[0]] + outs + [x[4]], a["data_format"]))]


def _pool_attrs(op):
    a = op._attrs
    return {"ksize": a["ksize"], "strides": a["strides"], "padding": a["padding"], "data_format": a["data_format"]}


def _max_pool_grad(op, g):
    x, = op._inputs
    return [_raw("MaxPool3DGrad", [(x, "orig_input"), (op._outputs[0], "orig_output"), (g, "grad")],
                 {**_pool_attrs(op), "T": x.dtype.base_dtype, "TInput": x.dtype.base_dtype}, x.dtype.base_dtype)]


def _avg_pool_grad(op, g):
    x, = op._inputs
    return [_raw("AvgPool3DGrad", [(convert_to_tensor(_shape_of(x), dtype=_dt.int32), "orig_input_shape"), (g, "grad")],
                 {**_pool_attrs(op), "T": x.dtype.base_dtype}, x.dtype.base_dtype)]


def _avg_grad_grad(op, gg):
    return [None, _pool3d("AvgPool3D", gg, **{k: v for k, v in _pool_attrs(op).items()})]


register_op("MaxPool3D", make=_max_pool_make, shape=_pool_shape, grad=_max_pool_grad)
register_op("AvgPool3D", make=_avg_pool_make, shape=_pool_shape, grad=_avg_pool_grad)
register_op("MaxPool3DGrad", make=_max_pool_grad_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)
register_op("AvgPool3DGrad", make=_avg_pool_grad_make, shape=lambda op: _sizes_shape(op, 0), grad=_avg_grad_grad)


# ---- wrappers ---------------------------------------------------------------------------------
def _raw(op_type, inputs, attrs, dtype, name=None):
    return apply_op(op_type, inputs, attrs, name=name or op_type, dtypes=[dtype], same_dtype=False)


def _five(v, fmt, what):
    if np.ndim(v) == 0:
        v = [int(v)] * 3
    v = [int(t) for t in v]
    if len(v) == 3:
        v = [1] + v + [1] if fmt != "NCDHW" else [1, 1] + v
    if len(v) != 5:
        raise ValueError("%s must have 1, 3 or 5 elements, got %s" % (what, v))
    chan = 1 if fmt == "NCDHW" else 4   # attrs stay in data_format order, as TF stores them
    if v[0] != 1 or v[chan] != 1:
        raise ValueError("%s must be 1 in the batch and depth dimensions, got %s" % (what, v))
    return v


def _conv_attrs(strides, padding, data_format, dilations):
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError("data_format must be 'NDHWC' or 'NCDHW', got %r" % (data_format,))
    st = _five(strides, data_format, "strides")
    dl = _five(dilations if dilations is not None else 1, data_format, "dilations")
    if any(a > 1 for a in st[1:4]) and any(b > 1 for b in dl[1:4]):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    return {"strides": st, "padding": padding, "data_format": data_format, "dilations": dl}


def _float_pair(x, f):
    x = convert_to_tensor(x, name="input")
    f = convert_to_tensor(f, dtype=x.dtype.base_dtype, name="filter")
    if x.dtype.base_dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise TypeError("Value passed to parameter 'input' has DataType %s not in list of allowed values: "
                        "float16, float32, float64" % x.dtype.base_dtype.name)
    return x, f


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=None, name=None, filters=None):
    """3-D convolution of [batch, depth, height, width, in] input with a [d, h, w, in, out] filter."""
    filter = filters if filter is None else filter
    with name_scope(name, "Conv3D", [input, filter]) as scope:
        x, f = _float_pair(input, filter)
        attrs = _conv_attrs(strides, padding, data_format, dilations)
        attrs["T"] = x.dtype.base_dtype
        return _raw("Conv3D", [(x, "input"), (f, "filter")], attrs, x.dtype.base_dtype, scope)


def conv3d_backprop_input_v2(input_sizes, filter, out_backprop, strides, padding, data_format="NDHWC",  # noqa: A002
                             dilations=None, name=None):
    """The gradient of conv3d with respect to its input (of shape input_sizes)."""
    with name_scope(name, "Conv3DBackpropInputV2", [filter, out_backprop]) as scope:
        dy, f = _float_pair(out_backprop, filter)
        attrs = _conv_attrs(strides, padding, data_format, dilations)
        attrs.update(T=dy.dtype.base_dtype, Tshape=_dt.int32)
        sizes = convert_to_tensor(input_sizes, dtype=_dt.int32, name="input_sizes")
        return _raw("Conv3DBackpropInputV2", [(sizes, "input_sizes"), (f, "filter"), (dy, "out_backprop")], attrs,
                    dy.dtype.base_dtype, scope)


def conv3d_backprop_filter_v2(input, filter_sizes, out_backprop, strides, padding, data_format="NDHWC",  # noqa: A002
                              dilations=None, name=None):
    """The gradient of conv3d with respect to its filter (of shape filter_sizes)."""
    with name_scope(name, "Conv3DBackpropFilterV2", [input, out_backprop]) as scope:
        x, dy = _float_pair(input, out_backprop)
        attrs = _conv_attrs(strides, padding, data_format, dilations)
        attrs["T"] = x.dtype.base_dtype
        sizes = convert_to_tensor(filter_sizes, dtype=_dt.int32, name="filter_sizes")
        return _raw("Conv3DBackpropFilterV2", [(x, "input"), (sizes, "filter_sizes"), (dy, "out_backprop")], attrs,
                    x.dtype.base_dtype, scope)


conv3d_backprop_filter = conv3d_backprop_filter_v2


def conv3d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NDHWC", name=None, input=None, filters=None, dilations=None):  # noqa: A002
    """The transpose of conv3d: a [d, h, w, out, in] filter mapping value up to output_shape."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    with name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        return conv3d_backprop_input_v2(output_shape, filter, value, strides, padding, data_format, dilations,
                                        name=scope)


def _pool3d(op_type, value, ksize, strides, padding, data_format="NDHWC", name=None):
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    with name_scope(name, op_type, [value]) as scope:
        x = convert_to_tensor(value, name="input")
        attrs = {"ksize": _five(ksize, data_format, "ksize"), "strides": _five(strides, data_format, "strides"),
                 "padding": padding, "data_format": data_format, "T": x.dtype.base_dtype}
        return _raw(op_type, [(x, "input")], attrs, x.dtype.base_dtype, scope)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """The maximum over [d, h, w] windows of 5-D input."""
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """The average over [d, h, w] windows of 5-D input (SAME windows count only the pixels inside)."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)


# ---- N-D dispatchers --------------------------------------------------------------------------
def _rank_n(t, default):
    r = convert_to_tensor(t).shape.ndims
    return default if r is None else r - 2


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None,  # noqa: A002
                data_format=None, filters=None, dilations=None):
    """N-D convolution (N = 1, 2 or 3) by the filter's rank."""
    from lens.ops import conv as C
    filter = filters if filter is None else filter
    dilation_rate = dilations if dilation_rate is None else dilation_rate
    if _rank_n(filter, 2) == 3:
        return conv3d(input, filter, strides or 1, padding, data_format or "NDHWC", dilation_rate, name=name)
    return C.convolution(input, filter, padding, strides, dilation_rate, name, data_format)


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None,  # noqa: A002
         data_format=None, dilations=None):
    """N-D pooling (N = 1, 2 or 3 by window_shape) with MAX or AVG."""
    from lens.ops import pool as P
    dilation_rate = dilations if dilation_rate is None else dilation_rate
    if len(list(window_shape)) == 3:
        if dilation_rate is not None and any(int(d) != 1 for d in np.ravel(dilation_rate)):
            raise ValueError("lens's 3-D tf.nn.pool does not support dilation_rate > 1")
        fn = {"MAX": max_pool3d, "AVG": avg_pool3d}.get(pooling_type)
        if fn is None:
            raise ValueError("pooling_type must be 'MAX' or 'AVG', got %r" % (pooling_type,))
        return fn(input, list(window_shape), list(strides or window_shape), padding, data_format or "NDHWC",
                  name=name)
    if len(list(window_shape)) == 1:
        fn = {"MAX": P.max_pool1d, "AVG": P.avg_pool1d}.get(pooling_type)
        if fn is None:
            raise ValueError("pooling_type must be 'MAX' or 'AVG', got %r" % (pooling_type,))
        return fn(input, list(window_shape), list(strides or window_shape), padding, data_format or "NWC", name=name)
    return P.pool(input, window_shape, pooling_type, padding, dilation_rate, strides, name, data_format)


def _pool_v2(kind, input, ksize, strides, padding, data_format, name):  # noqa: A002
    from lens.ops import pool as P
    n = _rank_n(input, 2)
    if n == 3:
        return _pool3d("MaxPool3D" if kind == "max" else "AvgPool3D", input, ksize, strides, padding,
                       data_format or "NDHWC", name)
    if n == 1:
        fn = P.max_pool1d if kind == "max" else P.avg_pool1d
        return fn(input, ksize, strides, padding, data_format or "NWC", name=name)
    if n != 2:
        raise ValueError("Input tensor must be of rank 3, 4 or 5 but was %d." % (n + 2))
    fn = P.max_pool if kind == "max" else P.avg_pool
    k = [1] + [int(ksize)] * 2 + [1] if np.ndim(ksize) == 0 else list(ksize)
    s = [1] + [int(strides)] * 2 + [1] if np.ndim(strides) == 0 else list(strides)
    if len(k) == 2:
        k = [1] + k + [1]
    if len(s) == 2:
        s = [1] + s + [1]
    return fn(input, k, s, padding, data_format=data_format or "NHWC", name=name)


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """tf.nn.max_pool_v2: max pooling of rank 3, 4 or 5 input (1-, 2- or 3-D windows)."""
    return _pool_v2("max", input, ksize, strides, padding, data_format, name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """tf.nn.avg_pool_v2: average pooling of rank 3, 4 or 5 input."""
    return _pool_v2("avg", input, ksize, strides, padding, data_format, name)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv1d: [batch, width, in] up to output_shape with a [w, out, in] filter."""
    from lens.ops import array as A
    from lens.ops import conv as C
    if data_format not in ("NWC", "NCW"):
        raise ValueError("data_format must be 'NWC' or 'NCW', got %r" % (data_format,))
    axis = 1 if data_format == "NWC" else 2
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]):
        x = A.expand_dims(convert_to_tensor(input, name="input"), axis)
        f = A.expand_dims(convert_to_tensor(filters, name="filters"), 0)
        shape = [int(v) for v in np.ravel(output_shape)] if not hasattr(output_shape, "op") else None
        if shape is None:
            raise ValueError("conv1d_transpose: lens takes a constant output_shape")
        shape = shape[:axis] + [1] + shape[axis:]
        s = int(np.ravel(strides)[0] if np.size(strides) == 1 else np.ravel(strides)[1 if data_format == "NWC" else 2])
        st = [1, 1, s, 1] if data_format == "NWC" else [1, 1, 1, s]
        d = 1 if dilations is None else int(np.ravel(dilations)[0] if np.size(dilations) == 1 else
                                            np.ravel(dilations)[1 if data_format == "NWC" else 2])
        dl = [1, 1, d, 1] if data_format == "NWC" else [1, 1, 1, d]
        fmt = "NHWC" if data_format == "NWC" else "NCHW"
        y = C.conv2d_backprop_input(shape, f, x, st, padding, data_format=fmt, dilations=dl)
        return A.squeeze(y, [axis])


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """tf.nn.conv_transpose: 1-, 2- or 3-D transposed convolution by len(output_shape) - 2."""
    from lens.ops import conv as C
    n = (len(output_shape) if not hasattr(output_shape, "op") else output_shape.shape.as_list()[0]) - 2
    if n == 1:
        return conv1d_transpose(input, filters, output_shape, strides, padding, data_format or "NWC", dilations, name)
    if n == 2:
        return C.conv2d_transpose(input, filters, output_shape, strides if np.ndim(strides) else [1, strides,
                                                                                               strides, 1],
                                  padding, data_format or "NHWC", name, dilations=dilations)
    if n == 3:
        return conv3d_transpose(input, filters, output_shape, strides, padding, data_format or "NDHWC", name,
                                dilations=dilations)
    raise ValueError("output_shape must be of length 3, 4 or 5 but was %d." % (n + 2))
