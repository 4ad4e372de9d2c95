"""Pooling: MaxPool, AvgPool and their gradient ops (MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad)."""
import numbers

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import conv_np as K
from lens.ops.conv import four
from lens.ops import pool_np as PK
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape

__all__ = ["max_pool", "avg_pool", "max_pool2d", "avg_pool2d", "max_pool_grad", "avg_pool_grad", "pool",
           "max_pool1d", "avg_pool1d"]


def _hw(vals, fmt):
    vals = list(vals)
    return (vals[2], vals[3]) if fmt == "NCHW" else (vals[1], vals[2])


def _geometry(attrs, in_shape):
    fmt = attrs["data_format"]
    return K.Geometry(_hw(in_shape, fmt), _hw(attrs["ksize"], fmt), _hw(attrs["strides"], fmt), (1, 1),
                      attrs["padding"])


def _pool_shape(op):
    """Static pooled shape in the op's data format."""
    s = op._inputs[0].shape
    if s.ndims is None:
        return [unknown_shape(4)]
    if s.ndims != 4:
        raise ValueError("Shape must be rank 4 but is rank %d for '%s' (op: '%s') with input shape %s"
                         % (s.ndims, op.name, op.type, s))
    fmt = op._attrs["data_format"]
    dims = s.as_list()
    h, w = _hw(dims, fmt)
    out = [None, None]
    if h is not None and w is not None:
        out = list(_geometry(op._attrs, [1, h, w, 1] if fmt != "NCHW" else [1, 1, h, w]).out_hw)
    if fmt == "NCHW":
        return [TensorShape(dims[:2] + out)]
    return [TensorShape([dims[0]] + out + [dims[3]])]


def _fmt_attrs(op):
    """A copy of the op attrs and its data format (kernels run in NHWC whatever the format)."""
    attrs = dict(op._attrs)
    fmt = attrs["data_format"]
    return attrs, fmt


def _max_pool_make(op, ctx):
    attrs, fmt = _fmt_attrs(op)
    recycler = K.Recycler()

    def run(x):
        x = np.asarray(x)
        geo = _geometry(attrs, x.shape)
        if fmt == "NCHW":
            return K.from_nhwc(PK.max_pool(K.to_nhwc(x, fmt), geo), fmt)
        out = recycler.take((x.shape[0],) + geo.out_hw + (x.shape[3],), x.dtype)
        return recycler.give(PK.max_pool(x, geo, out))
    return run


def _max_pool_grad_make(op, ctx):
    attrs, fmt = _fmt_attrs(op)
    recycler = K.Recycler()

    def run(x, y, g):
        x, g = np.asarray(x), np.asarray(g)
        geo = _geometry(attrs, x.shape)
        if fmt == "NCHW":
            return K.from_nhwc(PK.max_pool_grad(K.to_nhwc(x, fmt), K.to_nhwc(g, fmt), geo), fmt)
        return recycler.give(PK.max_pool_grad(x, g, geo, recycler.take(x.shape, g.dtype)))
    return run


def make_max_pool_grad_relu(members, ctx, fed=()):
    """Kernel of a fused MaxPoolGrad -> ReluGrad chain (NHWC, features = the pool's input)."""
    grad_op = members[0]
    attrs, _ = _fmt_attrs(grad_op)
    x_t, y_t = grad_op._inputs[0], grad_op._inputs[1]
    # When orig_output is this plan's MaxPool of the same input, its maxima need no recomputing.
    fwd = y_t._op
    same = (fwd._type == "MaxPool" and y_t not in fed and fwd._inputs[0] is x_t
            and fwd._outputs[0].dtype == x_t.dtype and _attrs_of(fwd) == _attrs_of(grad_op))
    recycler = K.Recycler()

    def run(x, y, g):
        x, g = np.asarray(x), np.asarray(g)
        geo = _geometry(attrs, x.shape)
        y = np.asarray(y) if same else None
        return recycler.give(PK.max_pool_grad(x, g, geo, recycler.take(x.shape, g.dtype), relu=True, y=y))
    return run


def _max_pool_grad_grad_make(op, ctx):
    attrs, fmt = _fmt_attrs(op)

    def run(x, y, gg):
        x, gg = np.asarray(x), np.asarray(gg)
        return K.from_nhwc(PK.max_pool_grad_grad(K.to_nhwc(x, fmt), K.to_nhwc(gg, fmt),
                                                _geometry(attrs, x.shape)), fmt)
    return run


def _avg_pool_make(op, ctx):
    attrs, fmt = _fmt_attrs(op)

    def run(x):
        x = np.asarray(x)
        return K.from_nhwc(PK.avg_pool(K.to_nhwc(x, fmt), _geometry(attrs, x.shape)), fmt)
    return run


def _avg_pool_grad_make(op, ctx):
    attrs, fmt = _fmt_attrs(op)

    def run(sizes, g):
        g = np.asarray(g)
        sizes = [int(s) for s in sizes]
        in_shape = (sizes[0], sizes[2], sizes[3], sizes[1]) if fmt == "NCHW" else tuple(sizes)
        return K.from_nhwc(PK.avg_pool_grad(in_shape, K.to_nhwc(g, fmt), _geometry(attrs, sizes)), fmt)
    return run


def _attrs_of(op):
    return {k: op._attrs[k] for k in ("ksize", "strides", "padding", "data_format")}


def _raw(op_type, inputs, attrs, dtype, name=None):
    return apply_op(op_type, inputs, dict(attrs, T=dtype), name=name or op_type, dtypes=[dtype], same_dtype=False)


def _max_pool_grad_fn(op, g):
    x, y = op._inputs[0], op._outputs[0]
    return [_raw("MaxPoolGrad", [(x, "orig_input"), (y, "orig_output"), (g, "grad")], _attrs_of(op), x.dtype.base_dtype)]


def _max_pool_grad_grad_fn(op, gg):
    x, y = op._inputs[0], op._inputs[1]
    return [A.zeros_like(x), A.zeros_like(y),
            _raw("MaxPoolGradGrad", [(x, "orig_input"), (y, "orig_output"), (gg, "grad")], _attrs_of(op),
                 x.dtype.base_dtype)]


def _max_pool_ggg_fn(op, g):
    x, y = op._inputs[0], op._inputs[1]
    return [A.zeros_like(x), A.zeros_like(y),
            _raw("MaxPoolGrad", [(x, "orig_input"), (y, "orig_output"), (g, "grad")], _attrs_of(op), x.dtype.base_dtype)]


def _avg_pool_grad_fn(op, g):
    x = op._inputs[0]
    return [_raw("AvgPoolGrad", [(A.shape(x), "orig_input_shape"), (g, "grad")], _attrs_of(op), x.dtype.base_dtype)]


def _avg_pool_gg_fn(op, gg):
    return [None, _raw("AvgPool", [(gg, "value")], _attrs_of(op), gg.dtype.base_dtype)]


def _shape_input(op):
    from lens.ops.shapes import const_value
    v = const_value(op._inputs[0])
    return [unknown_shape(4) if v is None else TensorShape([int(d) for d in v])]


register_op("MaxPool", make=_max_pool_make, shape=_pool_shape, grad=_max_pool_grad_fn)
register_op("MaxPoolGrad", make=_max_pool_grad_make, shape=lambda op: [op._inputs[0].shape],
            grad=_max_pool_grad_grad_fn)
register_op("MaxPoolGradGrad", make=_max_pool_grad_grad_make, shape=lambda op: [op._inputs[1].shape],
            grad=_max_pool_ggg_fn)
register_op("AvgPool", make=_avg_pool_make, shape=_pool_shape, grad=_avg_pool_grad_fn)
register_op("AvgPoolGrad", make=_avg_pool_grad_make, shape=_shape_input, grad=_avg_pool_gg_fn)


# ------------------------------------------------------------------ public wrappers
def _four(v, fmt, what):
    """conv's 4-vector expansion, plus the checks pooling windows need."""
    v = four(v, fmt, what)
    if min(v) < 1:
        raise ValueError("%s must be positive, got %r" % (what, v))
    ch = 1 if fmt == "NCHW" else 3
    if v[0] != 1 or v[ch] != 1:
        raise ValueError("Pooling over the batch or depth dimension is not supported by lens (%s=%r); "
                         "use 1 there" % (what, v))
    return v


def _pool_attrs(ksize, strides, padding, data_format):
    fmt = data_format or "NHWC"
    if fmt not in ("NHWC", "NCHW"):
        raise ValueError("data_format must be 'NHWC' or 'NCHW', got %r" % (data_format,))
    if isinstance(padding, bytes):
        padding = padding.decode()
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    return {"ksize": _four(ksize, fmt, "ksize"), "strides": _four(strides, fmt, "strides"),
            "padding": padding, "data_format": fmt}


def _pool(op_type, default_name, value, ksize, strides, padding, data_format, name):
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    with name_scope(name, default_name, [value]) as scope:
        x = convert_to_tensor(value, name="input")
        if x.shape.ndims not in (None, 4):
            raise ValueError("%s needs a 4-D input [batch, height, width, channels], got shape %s"
                             % (op_type, x.shape))
        if op_type == "AvgPool" and not x.dtype.is_floating:
            raise TypeError("avg_pool needs a float input, got %s" % x.dtype.name)
        return _raw(op_type, [(x, "value")], attrs, x.dtype.base_dtype, name=scope)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Max over ksize windows moved by strides (SAME pads with -inf, so padding never wins)."""
    value = input if value is None else value
    return _pool("MaxPool", "MaxPool", value, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Mean over ksize windows (SAME windows average only their real elements)."""
    value = input if value is None else value
    return _pool("AvgPool", "AvgPool", value, ksize, strides, padding, data_format, name)


max_pool2d = max_pool
avg_pool2d = avg_pool


def max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC", name=None):
    """MaxPool's gradient op: grad routed to each window's maximum."""
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    with name_scope(name, "MaxPoolGrad", [orig_input, orig_output, grad]) as scope:
        x = convert_to_tensor(orig_input, name="orig_input")
        return _raw("MaxPoolGrad", [(x, "orig_input"), (orig_output, "orig_output"), (grad, "grad")], attrs,
                    x.dtype.base_dtype, name=scope)


def avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC", name=None):
    """AvgPool's gradient op: grad spread evenly over each window's real elements."""
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    with name_scope(name, "AvgPoolGrad", [orig_input_shape, grad]) as scope:
        g = convert_to_tensor(grad, name="grad")
        s = convert_to_tensor(orig_input_shape, dtype=_dt.int32, name="orig_input_shape")
        return _raw("AvgPoolGrad", [(s, "orig_input_shape"), (g, "grad")], attrs, g.dtype.base_dtype, name=scope)


def _pool1d(fn, value, ksize, strides, padding, data_format, name, default):
    nwc = (data_format or "NWC") in ("NWC", "NHWC")
    k = ksize if isinstance(ksize, numbers.Integral) else list(ksize)[-2 if nwc else -1]
    s = strides if isinstance(strides, numbers.Integral) else list(strides)[-2 if nwc else -1]
    with name_scope(name, default, [value]) as scope:
        x = A.expand_dims(convert_to_tensor(value, name="input"), 1 if nwc else 2)
        y = fn(x, [1, int(k)], [1, int(s)], padding, data_format="NHWC" if nwc else "NCHW")
        return A.squeeze(y, [1 if nwc else 2], name=scope)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D max pooling over [N, W, C] (via MaxPool)."""
    return _pool1d(max_pool, input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D average pooling over [N, W, C] (via AvgPool)."""
    return _pool1d(avg_pool, input, ksize, strides, padding, data_format, name, "AvgPool1D")


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None,  # noqa: A002
         data_format=None):
    """tf.nn.pool for 2-D windows without dilation: MAX or AVG."""
    if dilation_rate is not None and any(int(d) != 1 for d in np.ravel(dilation_rate)):
        raise ValueError("lens's tf.nn.pool does not support dilation_rate > 1")
    fn = {"MAX": max_pool, "AVG": avg_pool}.get(pooling_type)
    if fn is None:
        raise ValueError("pooling_type must be 'MAX' or 'AVG', got %r" % (pooling_type,))
    if len(list(window_shape)) != 2:
        raise ValueError("lens's tf.nn.pool supports 2-D windows, got %r" % (window_shape,))
    return fn(input, list(window_shape), list(strides or window_shape), padding, data_format=data_format,
              name=name or pooling_type.lower() + "_pool")
