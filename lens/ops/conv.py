"""Convolutions: Conv2D and DepthwiseConv2dNative with their backprop ops, and the tf.nn wrappers."""
import numbers

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import conv_np as K
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape

__all__ = ["conv1d", "conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "conv2d_transpose",
           "depthwise_conv2d", "depthwise_conv2d_native", "depthwise_conv2d_native_backprop_input",
           "depthwise_conv2d_native_backprop_filter", "separable_conv2d", "atrous_conv2d", "convolution"]

_PADDINGS = ("SAME", "VALID", "EXPLICIT")


# ------------------------------------------------------------------ attrs and geometry
def _hw(vals, fmt):
    """(H, W) entries of a 4-vector given in the op's data format."""
    vals = list(vals)
    return (vals[2], vals[3]) if fmt == "NCHW" else (vals[1], vals[2])


def _padding_of(op_attrs):
    """'SAME' / 'VALID', or ((top, bottom), (left, right)) for explicit padding."""
    p = op_attrs["padding"]
    if p != "EXPLICIT":
        return p
    e = list(op_attrs["explicit_paddings"])
    pairs = [(e[2 * i], e[2 * i + 1]) for i in range(4)]
    return _hw(pairs, op_attrs["data_format"])


def _geometry(attrs, in_shape, f_hw):
    """Geometry for an input shape given in the op's data format."""
    fmt = attrs["data_format"]
    return K.Geometry(_hw(in_shape, fmt), f_hw, _hw(attrs["strides"], fmt),
                      _hw(attrs["dilations"], fmt), _padding_of(attrs))


def _nhwc_shape(shape, fmt):
    shape = [int(d) for d in shape]
    return (shape[0], shape[2], shape[3], shape[1]) if fmt == "NCHW" else tuple(shape)


def _out_shape(attrs, in_shape, f_shape, depthwise):
    """Static output shape (in data format order) or None when unknown."""
    fmt = attrs["data_format"]
    if in_shape.ndims is None or f_shape.ndims is None:
        return unknown_shape(4)
    dims, fdims = in_shape.as_list(), f_shape.as_list()
    c = dims[1] if fmt == "NCHW" else dims[3]
    fc = fdims[2]
    if c is not None and fc is not None:
        if depthwise and c != fc:
            raise ValueError("Depthwise filter in-channels (%d) must equal input channels (%d)" % (fc, c))
        if not depthwise and c % fc:
            raise ValueError("Depth of input (%d) is not a multiple of input depth of filter (%d); the "
                             "filter's third dimension must equal the input channels" % (c, fc))
    out_c = None if fdims[3] is None else fdims[3] * (fc if depthwise and fc is not None else 1)
    if depthwise and fc is None:
        out_c = None
    h, w = _hw(dims, fmt)
    spatial = [None, None]
    if h is not None and w is not None and fdims[0] is not None and fdims[1] is not None:
        geo = _geometry(attrs, [dims[0], c, h, w] if fmt == "NCHW" else [dims[0], h, w, c], fdims[:2])
        spatial = list(geo.out_hw)
    if fmt == "NCHW":
        return TensorShape([dims[0], out_c] + spatial)
    return TensorShape([dims[0]] + spatial + [out_c])


def _check_attrs(strides, padding, data_format, dilations, explicit_paddings, op_name):
    """Validate conv attrs at graph-build time; returns the attr dict."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("%s: data_format must be 'NHWC' or 'NCHW', got %r" % (op_name, data_format))
    strides = four(strides, data_format, "strides", op_name)
    dilations = four(dilations if dilations is not None else 1, data_format, "dilations", op_name)
    ch = 1 if data_format == "NCHW" else 3
    if strides[0] != 1 or strides[ch] != 1:
        raise ValueError("%s: current implementation does not yet support strides in the batch and depth "
                         "dimensions (got strides=%s)" % (op_name, strides))
    if dilations[0] != 1 or dilations[ch] != 1:
        raise ValueError("%s: dilations in the batch and depth dimensions must be 1 (got %s)" % (op_name, dilations))
    if min(strides) < 1 or min(dilations) < 1:
        raise ValueError("%s: strides and dilations must be >= 1 (got %s and %s)" % (op_name, strides, dilations))
    attrs = {"strides": strides, "dilations": dilations, "data_format": data_format}
    if isinstance(padding, (list, tuple)):
        pairs = [list(p) for p in padding]
        if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
            raise ValueError("%s: explicit padding must be 4 [before, after] pairs, got %r" % (op_name, padding))
        attrs["padding"] = "EXPLICIT"
        attrs["explicit_paddings"] = [int(v) for p in pairs for v in p]
        return attrs
    if isinstance(padding, bytes):
        padding = padding.decode()
    if padding not in ("SAME", "VALID"):
        raise ValueError("%s: padding must be 'SAME' or 'VALID' (or explicit pairs), got %r" % (op_name, padding))
    attrs["padding"] = padding
    return attrs


def four(v, fmt, what, op_name=None):
    """An int or 1/2/4-list expanded to the 4-vector TF stores (conv and pool attrs)."""
    if isinstance(v, numbers.Integral):
        v = [int(v)] * 2
    v = [int(x) for x in v]
    if len(v) == 1:
        v = v * 2
    if len(v) == 2:
        return [1, 1] + v if fmt == "NCHW" else [1] + v + [1]
    if len(v) != 4:
        raise ValueError("%s%s must have 1, 2 or 4 entries, got %r"
                         % (op_name + ": " if op_name else "", what, v))
    return v


def _attr_subset(op):
    keys = ("strides", "padding", "data_format", "dilations", "explicit_paddings")
    return {k: op._attrs[k] for k in keys if k in op._attrs}


# ------------------------------------------------------------------ Conv2D and its backprops
def _conv_make(op, ctx):
    attrs = dict(op._attrs)
    fmt = attrs["data_format"]

    recycler = K.Recycler()

    def run(x, f):
        x, f = np.asarray(x), np.asarray(f)
        geo = _geometry(attrs, x.shape, f.shape[:2])
        if fmt == "NCHW":
            return K.from_nhwc(K.conv2d(K.to_nhwc(x, fmt), f, geo), fmt)
        shape = (x.shape[0],) + geo.out_hw + (f.shape[3],)
        return recycler.give(K.conv2d(x, f, geo, out=recycler.take(shape, np.result_type(x, f))))
    return run


def make_conv_bias_relu(members, ctx, fed=()):
    """Kernel of a fused Conv2D -> BiasAdd (-> Relu) chain in NHWC: run(x, filter, bias)."""
    conv_op, relu = members[0], members[-1]._type == "Relu"
    attrs = dict(conv_op._attrs)
    recycler = K.Recycler()

    def run(x, f, b):
        x, f = np.asarray(x), np.asarray(f)
        b = np.reshape(b, -1)   # as BiasAdd's kernel reads it: broadcast along the channels
        geo = _geometry(attrs, x.shape, f.shape[:2])
        out = recycler.take((x.shape[0],) + geo.out_hw + (f.shape[3],), np.result_type(x, f))
        return recycler.give(K.conv2d(x, f, geo, out=out, bias=b, relu=relu))
    return run


def _conv_grad(op, g):
    x, f = op._inputs
    a = _attr_subset(op)
    return [_raw("Conv2DBackpropInput", [(A.shape(x), "input_sizes"), (f, "filter"), (g, "out_backprop")], a),
            _raw("Conv2DBackpropFilter", [(x, "input"), (A.shape(f), "filter_sizes"), (g, "out_backprop")], a)]


def _bp_input_make(op, ctx, depthwise=False):
    attrs = dict(op._attrs)
    fmt = attrs["data_format"]
    kernel = K.depthwise_backprop_input if depthwise else K.conv2d_backprop_input

    def run(sizes, f, dy):
        f, dy = np.asarray(f), np.asarray(dy)
        geo = _geometry(attrs, sizes, f.shape[:2])
        in_shape = _nhwc_shape(sizes, fmt)
        _check_out(op, geo, dy.shape, fmt)
        return K.from_nhwc(kernel(in_shape, f, K.to_nhwc(dy, fmt), geo), fmt)
    return run


def _bp_filter_make(op, ctx, depthwise=False):
    attrs = dict(op._attrs)
    fmt = attrs["data_format"]
    kernel = K.depthwise_backprop_filter if depthwise else K.conv2d_backprop_filter

    def run(x, sizes, dy):
        x, dy = np.asarray(x), np.asarray(dy)
        sizes = tuple(int(s) for s in sizes)
        geo = _geometry(attrs, x.shape, sizes[:2])
        _check_out(op, geo, dy.shape, fmt)
        return kernel(K.to_nhwc(x, fmt), K.to_nhwc(dy, fmt), sizes, geo)
    return run


def _check_out(op, geo, dy_shape, fmt):
    from lens.framework import errors
    got = _hw(dy_shape, fmt)
    if tuple(got) != geo.out_hw:
        raise errors.InvalidArgumentError(
            None, op, "%s: out_backprop spatial size %s does not match the size %s computed from the input, "
            "filter, strides and padding" % (op.name, tuple(got), geo.out_hw))


def _shape_from_const(t, rank=4):
    from lens.ops.shapes import const_value
    v = const_value(t)
    return unknown_shape(rank) if v is None else TensorShape([int(d) for d in v])


def _bp_input_grad(op, g, depthwise=False):
    _, f, dy = op._inputs
    a = _attr_subset(op)
    fwd = "DepthwiseConv2dNative" if depthwise else "Conv2D"
    bpf = "DepthwiseConv2dNativeBackpropFilter" if depthwise else "Conv2DBackpropFilter"
    return [None, _raw(bpf, [(g, "input"), (A.shape(f), "filter_sizes"), (dy, "out_backprop")], a),
            _raw(fwd, [(g, "input"), (f, "filter")], a)]


def _bp_filter_grad(op, g, depthwise=False):
    x, _, dy = op._inputs
    a = _attr_subset(op)
    fwd = "DepthwiseConv2dNative" if depthwise else "Conv2D"
    bpi = "DepthwiseConv2dNativeBackpropInput" if depthwise else "Conv2DBackpropInput"
    return [_raw(bpi, [(A.shape(x), "input_sizes"), (g, "filter"), (dy, "out_backprop")], a), None,
            _raw(fwd, [(x, "input"), (g, "filter")], a)]


def _raw(op_type, inputs, attrs, name=None):
    """Create one conv-family op with the given attrs (inputs may mix int shape vectors and floats)."""
    dtype = next(v.dtype.base_dtype for v, arg in inputs if arg in ("filter", "input", "out_backprop")
                 and v.dtype.is_floating)
    attrs = dict(attrs, T=dtype)
    return apply_op(op_type, inputs, attrs, name=name or op_type, dtypes=[dtype], same_dtype=False)


register_op("Conv2D", make=_conv_make, grad=_conv_grad,
            shape=lambda op: [_out_shape(op._attrs, op._inputs[0].shape, op._inputs[1].shape, False)])
register_op("Conv2DBackpropInput", make=_bp_input_make, grad=_bp_input_grad,
            shape=lambda op: [_shape_from_const(op._inputs[0])])
register_op("Conv2DBackpropFilter", make=_bp_filter_make, grad=_bp_filter_grad,
            shape=lambda op: [_shape_from_const(op._inputs[1])])


# ------------------------------------------------------------------ depthwise
def _dw_make(op, ctx):
    attrs = dict(op._attrs)
    fmt = attrs["data_format"]

    def run(x, f):
        x, f = np.asarray(x), np.asarray(f)
        geo = _geometry(attrs, x.shape, f.shape[:2])
        return K.from_nhwc(K.depthwise(K.to_nhwc(x, fmt), f, geo), fmt)
    return run


def _dw_grad(op, g):
    x, f = op._inputs
    a = _attr_subset(op)
    return [_raw("DepthwiseConv2dNativeBackpropInput", [(A.shape(x), "input_sizes"), (f, "filter"),
                                                        (g, "out_backprop")], a),
            _raw("DepthwiseConv2dNativeBackpropFilter", [(x, "input"), (A.shape(f), "filter_sizes"),
                                                         (g, "out_backprop")], a)]


register_op("DepthwiseConv2dNative", make=_dw_make, grad=_dw_grad,
            shape=lambda op: [_out_shape(op._attrs, op._inputs[0].shape, op._inputs[1].shape, True)])
register_op("DepthwiseConv2dNativeBackpropInput", make=lambda op, ctx: _bp_input_make(op, ctx, True),
            grad=lambda op, g: _bp_input_grad(op, g, True), shape=lambda op: [_shape_from_const(op._inputs[0])])
register_op("DepthwiseConv2dNativeBackpropFilter", make=lambda op, ctx: _bp_filter_make(op, ctx, True),
            grad=lambda op, g: _bp_filter_grad(op, g, True), shape=lambda op: [_shape_from_const(op._inputs[1])])


# ------------------------------------------------------------------ public wrappers
def _float_pair(x, f, xname="input", fname="filter"):
    x = convert_to_tensor(x, name=xname)
    if not x.dtype.is_floating:
        raise TypeError("Convolution input must be a float tensor, got %s; cast it first" % x.dtype.name)
    f = convert_to_tensor(f, dtype=x.dtype.base_dtype, name=fname)
    for t, what in ((x, xname), (f, fname)):
        if t.shape.ndims not in (None, 4):
            raise ValueError("Shape must be rank 4 but is rank %d for %s %s" % (t.shape.ndims, what, t.shape))
    return x, f


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """2-D convolution of a 4-D input with a [KH, KW, in, out] filter (NHWC or NCHW)."""
    filter = filters if filter is None else filter
    if filter is None or strides is None or padding is None:
        raise ValueError("conv2d needs filter, strides and padding")
    attrs = _check_attrs(strides, padding, data_format, dilations, None, "Conv2D")
    with name_scope(name, "Conv2D", [input, filter]) as scope:
        x, f = _float_pair(input, filter)
        return _raw("Conv2D", [(x, "input"), (f, "filter")], attrs, name=scope)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None, padding=None,  # noqa: A002
                          use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1), name=None,
                          filters=None):
    """Gradient of conv2d with respect to its input, for an input of shape input_sizes."""
    filter = filters if filter is None else filter
    attrs = _check_attrs(strides, padding, data_format, dilations, None, "Conv2DBackpropInput")
    with name_scope(name, "Conv2DBackpropInput", [input_sizes, filter, out_backprop]) as scope:
        dy, f = _float_pair(out_backprop, filter, "out_backprop")
        sizes = convert_to_tensor(input_sizes, dtype=_dt.int32, name="input_sizes")
        return _raw("Conv2DBackpropInput", [(sizes, "input_sizes"), (f, "filter"), (dy, "out_backprop")],
                    attrs, name=scope)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Gradient of conv2d with respect to its filter, for a filter of shape filter_sizes."""
    attrs = _check_attrs(strides, padding, data_format, dilations, None, "Conv2DBackpropFilter")
    with name_scope(name, "Conv2DBackpropFilter", [input, filter_sizes, out_backprop]) as scope:
        x, dy = _float_pair(input, out_backprop, "input", "out_backprop")
        sizes = convert_to_tensor(filter_sizes, dtype=_dt.int32, name="filter_sizes")
        return _raw("Conv2DBackpropFilter", [(x, "input"), (sizes, "filter_sizes"), (dy, "out_backprop")],
                    attrs, name=scope)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):  # noqa: A002
    """The transpose (gradient) of conv2d: maps [N, H, W, out] to output_shape with a [KH, KW, C, out] filter."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    if value is None or filter is None or output_shape is None or strides is None:
        raise ValueError("conv2d_transpose needs value, filter, output_shape and strides")
    attrs = _check_attrs(strides, padding, data_format, dilations, None, "conv2d_transpose")
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        x, f = _float_pair(value, filter, "value")
        out = convert_to_tensor(output_shape, dtype=_dt.int32, name="output_shape")
        if out.shape.ndims is not None and out.shape.as_list() not in ([4], [None]):
            raise ValueError("output_shape must have shape (4,), got %s" % out.shape)
        ch = 1 if data_format == "NCHW" else 3
        xc, fo = x.shape.as_list()[ch] if x.shape.ndims else None, f.shape.as_list()[3] if f.shape.ndims else None
        if xc is not None and fo is not None and xc != fo:
            raise ValueError("input channels does not match filter's output channels, %d != %d" % (xc, fo))
        from lens.ops.shapes import const_value
        ov = const_value(out)
        fi = f.shape.as_list()[2] if f.shape.ndims else None
        if ov is not None and fi is not None and int(ov[ch]) != fi:
            raise ValueError("output_shape does not match filter's input channels, %d != %d" % (int(ov[ch]), fi))
        return _raw("Conv2DBackpropInput", [(out, "input_sizes"), (f, "filter"), (x, "out_backprop")],
                    attrs, name=scope)


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, data_format=None,
           name=None, input=None, dilations=None):  # noqa: A002
    """1-D convolution of [N, W, C] (NWC) or [N, C, W] (NCW) with a [K, C, out] filter, via Conv2D."""
    value = input if value is None else value
    if value is None or filters is None or stride is None or padding is None:
        raise ValueError("conv1d needs value, filters, stride and padding")
    fmt = data_format or "NWC"
    if fmt not in ("NWC", "NCW", "NHWC", "NCHW"):
        raise ValueError("conv1d: data_format must be 'NWC' or 'NCW', got %r" % data_format)
    nchw = fmt in ("NCW", "NCHW")
    s = stride if isinstance(stride, numbers.Integral) else list(stride)[-2 if nchw is False else -1]
    d = 1 if dilations is None else (dilations if isinstance(dilations, numbers.Integral) else list(dilations)[-1])
    with name_scope(name, "conv1d", [value, filters]) as scope:
        x = A.expand_dims(convert_to_tensor(value, name="value"), 2 if nchw else 1, name="ExpandDims")
        f = A.expand_dims(convert_to_tensor(filters, dtype=x.dtype.base_dtype, name="filters"), 0,
                          name="ExpandDims_1")
        y = conv2d(x, f, [1, int(s)], padding, data_format="NCHW" if nchw else "NHWC",
                   dilations=[1, int(d)], name="Conv2D")
        return A.squeeze(y, [2 if nchw else 1], name=scope)


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=(1, 1, 1, 1), name=None):
    """The DepthwiseConv2dNative op: each input channel convolved with its own [KH, KW] x multiplier filters."""
    attrs = _check_attrs(strides, padding, data_format, dilations, None, "DepthwiseConv2dNative")
    with name_scope(name, "DepthwiseConv2dNative", [input, filter]) as scope:
        x, f = _float_pair(input, filter)
        return _raw("DepthwiseConv2dNative", [(x, "input"), (f, "filter")], attrs, name=scope)


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                           data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Gradient of the depthwise convolution with respect to its input."""
    attrs = _check_attrs(strides, padding, data_format, dilations, None, "DepthwiseConv2dNativeBackpropInput")
    with name_scope(name, "DepthwiseConv2dNativeBackpropInput", [input_sizes, filter, out_backprop]) as scope:
        dy, f = _float_pair(out_backprop, filter, "out_backprop")
        sizes = convert_to_tensor(input_sizes, dtype=_dt.int32, name="input_sizes")
        return _raw("DepthwiseConv2dNativeBackpropInput", [(sizes, "input_sizes"), (f, "filter"),
                                                           (dy, "out_backprop")], attrs, name=scope)


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                            data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Gradient of the depthwise convolution with respect to its filter."""
    attrs = _check_attrs(strides, padding, data_format, dilations, None, "DepthwiseConv2dNativeBackpropFilter")
    with name_scope(name, "DepthwiseConv2dNativeBackpropFilter", [input, filter_sizes, out_backprop]) as scope:
        x, dy = _float_pair(input, out_backprop, "input", "out_backprop")
        sizes = convert_to_tensor(filter_sizes, dtype=_dt.int32, name="filter_sizes")
        return _raw("DepthwiseConv2dNativeBackpropFilter", [(x, "input"), (sizes, "filter_sizes"),
                                                            (dy, "out_backprop")], attrs, name=scope)


def _rate_dilations(rate, dilations):
    if rate is not None and dilations is not None:
        raise ValueError("Give rate or dilations, not both")
    r = dilations if rate is None else rate
    return None if r is None else ([int(r)] * 2 if isinstance(r, numbers.Integral) else [int(v) for v in r])


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None):
    """Depthwise 2-D convolution (op 'depthwise'); rate dilates the filter (atrous)."""
    fmt = data_format or "NHWC"
    d = _rate_dilations(rate, dilations)
    attrs = _check_attrs(strides, padding, fmt, d, None, "depthwise_conv2d")
    if d is not None and max(d) > 1 and max(_hw(attrs["strides"], fmt)) > 1:
        raise ValueError("depthwise_conv2d: strides > 1 not supported in conjunction with rate > 1")
    with name_scope(name, "depthwise", [input, filter]) as scope:
        x, f = _float_pair(input, filter)
        return _raw("DepthwiseConv2dNative", [(x, "input"), (f, "filter")], attrs, name=scope)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """Depthwise convolution followed by a 1x1 pointwise Conv2D (op 'separable_conv2d')."""
    fmt = data_format or "NHWC"
    with name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as scope:
        pf = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        if pf.shape.ndims == 4 and pf.shape.as_list()[:2] not in ([1, 1], [None, None]):
            raise ValueError("Pointwise filter must be [1, 1, in, out], got %s" % pf.shape)
        dw = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate, name="depthwise",
                              data_format=fmt, dilations=dilations)
        return conv2d(dw, pf, [1, 1, 1, 1], "VALID", data_format=fmt, name=scope)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """Dilated ('atrous') 2-D convolution with stride 1 (a Conv2D with dilations [1, rate, rate, 1])."""
    if not isinstance(rate, numbers.Integral) or rate < 1:
        raise ValueError("rate must be a positive integer, got %r" % (rate,))
    with name_scope(name, "convolution", [value, filters]) as scope:
        x, f = _float_pair(value, filters, "value", "filters")
        attrs = _check_attrs([1, 1, 1, 1], padding, "NHWC", [1, rate, rate, 1], None, "atrous_conv2d")
        return _raw("Conv2D", [(x, "input"), (f, "filter")], attrs, name=scope)


def convolution(input, filter, padding, strides=None, dilation_rate=None, name=None, data_format=None,  # noqa: A002
                filters=None, dilations=None):
    """N-D convolution for N = 1 or 2 (Conv2D underneath)."""
    filter = filters if filter is None else filter
    dilation_rate = dilations if dilation_rate is None else dilation_rate
    f = convert_to_tensor(filter, name="filter")
    n = (f.shape.ndims or 4) - 2
    if n == 1:
        return conv1d(input, f, strides or 1, padding, data_format="NCW" if data_format in ("NCW", "NCHW") else "NWC",
                      dilations=dilation_rate, name=name or "convolution")
    if n != 2:
        raise ValueError("lens supports 1-D and 2-D convolution, got a rank-%d filter" % (n + 2))
    with name_scope(name, "convolution", [input, f]) as scope:
        x, f = _float_pair(input, f)
        attrs = _check_attrs(strides or 1, padding, data_format or "NHWC", dilation_rate or 1, None, "convolution")
        return _raw("Conv2D", [(x, "input"), (f, "filter")], attrs, name=scope)
