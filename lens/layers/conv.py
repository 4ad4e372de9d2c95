"""Convolution and pooling tf.layers: Conv2D, Conv2DTranspose, MaxPooling2D, AveragePooling2D."""
import numbers

from lens.ops import init_ops
from lens.layers.base import InputSpec, Layer
from lens.layers.core import set_kernel_bias_options
from lens.ops import array as A
from lens.ops import conv as C
from lens.ops import pool as P
from lens.ops.nn import bias_add

__all__ = ["Conv2D", "Conv2DTranspose", "MaxPooling2D", "AveragePooling2D"]


def pair(v, what):
    """An int or a 2-sequence as a 2-tuple of positive ints."""
    if isinstance(v, numbers.Integral):
        v = (int(v), int(v))
    v = tuple(int(x) for x in v)
    if len(v) != 2 or min(v) < 1:
        raise ValueError("The `%s` argument must be an int or a tuple of 2 positive ints, got %r" % (what, v))
    return v


def padding_of(padding):
    p = str(padding).upper()
    if p not in ("SAME", "VALID"):
        raise ValueError("padding must be 'valid' or 'same', got %r" % (padding,))
    return p


def format_of(data_format):
    fmt = data_format or "channels_last"
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError("data_format must be 'channels_last' or 'channels_first', got %r" % (data_format,))
    return "NHWC" if fmt == "channels_last" else "NCHW"


def four(p, fmt):
    return [1, 1, p[0], p[1]] if fmt == "NCHW" else [1, p[0], p[1], 1]


class _Conv(Layer):
    """Shared arguments of the 2-D convolution layers."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if int(filters) <= 0:
            raise ValueError("filters must be a positive integer, got %r" % (filters,))
        self.filters = int(filters)
        self.kernel_size = pair(kernel_size, "kernel_size")
        self.strides = pair(strides, "strides")
        self.padding = padding_of(padding)
        self.fmt = format_of(data_format)
        self.dilation_rate = pair(dilation_rate, "dilation_rate")
        set_kernel_bias_options(self, activation, use_bias, kernel_initializer, bias_initializer,
                                kernel_regularizer, bias_regularizer, activity_regularizer,
                                kernel_constraint, bias_constraint)
        self.input_spec = InputSpec(ndim=4)

    def _channels(self, input_shape):
        dims = list(input_shape)
        c = dims[1] if self.fmt == "NCHW" else dims[-1]
        c = getattr(c, "value", c)
        if c is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        return int(c)

    def _make_weights(self, kernel_shape):
        self.kernel = self.add_weight("kernel", kernel_shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def _finish(self, y):
        if self.use_bias:
            y = bias_add(y, self.bias, data_format=self.fmt)
        if self.activation is not None:
            y = self.activation(y)
        if self.activity_regularizer is not None:
            self.add_loss(self.activity_regularizer(y))
        return y


class Conv2D(_Conv):
    """2-D convolution layer: variables `<name>/kernel` [kh, kw, in, filters] and `<name>/bias`."""

    def build(self, input_shape):
        self._make_weights(list(self.kernel_size) + [self._channels(input_shape), self.filters])

    def call(self, inputs):
        y = C.conv2d(inputs, self.kernel, four(self.strides, self.fmt), self.padding, data_format=self.fmt,
                     dilations=four(self.dilation_rate, self.fmt), name="Conv2D")
        return self._finish(y)


def _deconv_length(size, k, stride, padding):
    if size is None:
        return None
    return size * stride if padding == "SAME" else size * stride + max(k - stride, 0)


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution layer: kernel [kh, kw, filters, in]."""

    def build(self, input_shape):
        self._make_weights(list(self.kernel_size) + [self.filters, self._channels(input_shape)])

    def call(self, inputs):
        if self.dilation_rate != (1, 1):
            raise ValueError("lens's Conv2DTranspose supports dilation_rate=(1, 1) only")
        dims = inputs.shape.as_list()
        h_ax, w_ax = (2, 3) if self.fmt == "NCHW" else (1, 2)
        dyn = A.shape(inputs)
        out_h = _deconv_length(dims[h_ax], self.kernel_size[0], self.strides[0], self.padding)
        out_w = _deconv_length(dims[w_ax], self.kernel_size[1], self.strides[1], self.padding)
        if out_h is None or out_w is None:
            raise ValueError("Conv2DTranspose needs inputs with known height and width, got %s" % inputs.shape)
        spatial = [out_h, out_w]
        parts = [dyn[0], self.filters] + spatial if self.fmt == "NCHW" else [dyn[0]] + spatial + [self.filters]
        out_shape = A.stack(parts)
        y = C.conv2d_transpose(inputs, self.kernel, out_shape, four(self.strides, self.fmt), self.padding,
                               data_format=self.fmt)
        static = [dims[0], self.filters] + spatial if self.fmt == "NCHW" else [dims[0]] + spatial + [self.filters]
        y.set_shape(static)
        return self._finish(y)


class _Pool(Layer):
    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = pair(pool_size, "pool_size")
        self.strides = pair(self.pool_size if strides is None else strides, "strides")
        self.padding = padding_of(padding)
        self.fmt = format_of(data_format)
        self.input_spec = InputSpec(ndim=4)


class MaxPooling2D(_Pool):
    """Max pooling layer (op `<name>/MaxPool`)."""

    def call(self, inputs):
        return P.max_pool(inputs, four(self.pool_size, self.fmt), four(self.strides, self.fmt), self.padding,
                          data_format=self.fmt, name="MaxPool")


class AveragePooling2D(_Pool):
    """Average pooling layer (op `<name>/AvgPool`)."""

    def call(self, inputs):
        return P.avg_pool(inputs, four(self.pool_size, self.fmt), four(self.strides, self.fmt), self.padding,
                          data_format=self.fmt, name="AvgPool")
