"""The 1-D and 3-D convolution and pooling tf.layers and the separable convolutions: Conv1D, Conv3D,
Conv3DTranspose, MaxPooling1D/3D, AveragePooling1D/3D, SeparableConv1D/2D (TF1.15's variable names)."""
import numbers

from lens.layers.base import InputSpec, Layer
from lens.layers.conv import _Conv, _deconv_length, format_of, padding_of
from lens.layers.core import set_kernel_bias_options
from lens.ops import array as A
from lens.ops import conv as C
from lens.ops import conv3d as C3
from lens.ops import init_ops
from lens.ops import pool as P
from lens.ops.nn import bias_add


def tuple_of(v, n, what):
    """An int or an n-sequence as an n-tuple of positive ints."""
    if isinstance(v, numbers.Integral):
        v = (int(v),) * n
    v = tuple(int(x) for x in v)
    if len(v) != n or min(v) < 1:
        raise ValueError("The `%s` argument must be an int or a tuple of %d positive ints, got %r" % (what, n, v))
    return v


class _ConvN(_Conv):
    """_Conv with rank-n kernel sizes, strides and dilation rates."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, **kwargs):
        n = self.rank
        super().__init__(filters, (1, 1), padding=padding, data_format=data_format, **kwargs)
        self.kernel_size = tuple_of(kernel_size, n, "kernel_size")
        self.strides = tuple_of(strides, n, "strides")
        self.dilation_rate = tuple_of(dilation_rate, n, "dilation_rate")
        self.channels_first = format_of(data_format) == "NCHW"
        self.input_spec = InputSpec(ndim=n + 2)

    def _channels(self, input_shape):
        dims = list(input_shape)
        c = dims[1] if self.channels_first else dims[-1]
        c = getattr(c, "value", c)
        if c is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        return int(c)

    def _finish(self, y):
        if self.use_bias:
            fmt = "NCHW" if self.channels_first else "NHWC"
            if self.rank == 3 and self.channels_first:   # bias_add takes 4-D NCHW: fold the depth axis
                shape = A.shape(y)
                y = A.reshape(bias_add(A.reshape(y, A.stack([shape[0], self.filters, -1, shape[4]])), self.bias,
                                       data_format="NCHW"), shape)
            else:
                y = bias_add(y, self.bias, data_format=fmt)
        if self.activation is not None:
            y = self.activation(y)
        if self.activity_regularizer is not None:
            self.add_loss(self.activity_regularizer(y))
        return y


class Conv1D(_ConvN):
    """1-D convolution layer: kernel [k, in, filters] over [batch, length, channels] inputs."""

    rank = 1

    def build(self, input_shape):
        self._make_weights(list(self.kernel_size) + [self._channels(input_shape), self.filters])

    def call(self, inputs):
        y = C.conv1d(inputs, self.kernel, self.strides[0], self.padding,
                     data_format="NCW" if self.channels_first else "NWC", dilations=self.dilation_rate[0])
        return self._finish(y)


def _five(v, channels_first):
    return [1, 1] + list(v) if channels_first else [1] + list(v) + [1]


class Conv3D(_ConvN):
    """3-D convolution layer: kernel [kd, kh, kw, in, filters]."""

    rank = 3

    def build(self, input_shape):
        self._make_weights(list(self.kernel_size) + [self._channels(input_shape), self.filters])

    def call(self, inputs):
        fmt = "NCDHW" if self.channels_first else "NDHWC"
        y = C3.conv3d(inputs, self.kernel, _five(self.strides, self.channels_first), self.padding, data_format=fmt,
                      dilations=_five(self.dilation_rate, self.channels_first), name="Conv3D")
        return self._finish(y)


class Conv3DTranspose(_ConvN):
    """Transposed 3-D convolution layer: kernel [kd, kh, kw, filters, in]."""

    rank = 3

    def build(self, input_shape):
        self._make_weights(list(self.kernel_size) + [self.filters, self._channels(input_shape)])

    def call(self, inputs):
        if self.dilation_rate != (1, 1, 1):
            raise ValueError("Conv3DTranspose supports dilation_rate=(1, 1, 1) only (as TF1.15)")
        dims = inputs.shape.as_list()
        axes = (2, 3, 4) if self.channels_first else (1, 2, 3)
        spatial = [_deconv_length(dims[a], k, s, self.padding) for a, k, s in zip(axes, self.kernel_size,
                                                                                   self.strides)]
        if None in spatial:
            raise ValueError("Conv3DTranspose needs inputs with known spatial dimensions, got %s" % inputs.shape)
        batch = A.shape(inputs)[0]
        parts = [batch, self.filters] + spatial if self.channels_first else [batch] + spatial + [self.filters]
        fmt = "NCDHW" if self.channels_first else "NDHWC"
        y = C3.conv3d_transpose(inputs, self.kernel, A.stack(parts), _five(self.strides, self.channels_first),
                                self.padding, data_format=fmt)
        y.set_shape([dims[0], self.filters] + spatial if self.channels_first else [dims[0]] + spatial + [self.filters])
        return self._finish(y)


class _PoolN(Layer):
    rank = 1

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = tuple_of(pool_size, self.rank, "pool_size")
        self.strides = tuple_of(self.pool_size if strides is None else strides, self.rank, "strides")
        self.padding = padding_of(padding)
        self.channels_first = format_of(data_format) == "NCHW"
        self.input_spec = InputSpec(ndim=self.rank + 2)


class MaxPooling1D(_PoolN):
    """1-D max pooling layer."""

    def call(self, inputs):
        return P.max_pool1d(inputs, self.pool_size[0], self.strides[0], self.padding,
                            data_format="NCW" if self.channels_first else "NWC")


class AveragePooling1D(_PoolN):
    """1-D average pooling layer."""

    def call(self, inputs):
        return P.avg_pool1d(inputs, self.pool_size[0], self.strides[0], self.padding,
                            data_format="NCW" if self.channels_first else "NWC")


class MaxPooling3D(_PoolN):
    """3-D max pooling layer (op `<name>/MaxPool3D`)."""

    rank = 3

    def call(self, inputs):
        return C3.max_pool3d(inputs, _five(self.pool_size, self.channels_first),
                             _five(self.strides, self.channels_first), self.padding,
                             data_format="NCDHW" if self.channels_first else "NDHWC", name="MaxPool3D")


class AveragePooling3D(_PoolN):
    """3-D average pooling layer (op `<name>/AvgPool3D`)."""

    rank = 3

    def call(self, inputs):
        return C3.avg_pool3d(inputs, _five(self.pool_size, self.channels_first),
                             _five(self.strides, self.channels_first), self.padding,
                             data_format="NCDHW" if self.channels_first else "NDHWC", name="AvgPool3D")


class _Separable(_ConvN):
    """Depthwise then pointwise convolution: `depthwise_kernel`, `pointwise_kernel`, `bias`."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer, self.pointwise_initializer = depthwise_initializer, pointwise_initializer
        self.depthwise_regularizer, self.pointwise_regularizer = depthwise_regularizer, pointwise_regularizer
        self.depthwise_constraint, self.pointwise_constraint = depthwise_constraint, pointwise_constraint

    def build(self, input_shape):
        c = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", list(self.kernel_size) + [c, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", [1] * self.rank + [c * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def _separable(self, x, dw, pw, strides, rates):
        fmt = "NCHW" if self.channels_first else "NHWC"
        st = [1, 1] + list(strides) if self.channels_first else [1] + list(strides) + [1]
        return C.separable_conv2d(x, dw, pw, st, self.padding, rate=list(rates), data_format=fmt)


class SeparableConv2D(_Separable):
    """Depthwise-separable 2-D convolution layer."""

    rank = 2

    def call(self, inputs):
        return self._finish(self._separable(inputs, self.depthwise_kernel, self.pointwise_kernel, self.strides,
                                            self.dilation_rate))


class SeparableConv1D(_Separable):
    """Depthwise-separable 1-D convolution layer (run as 2-D over a unit height, as TF1.15)."""

    rank = 1

    def call(self, inputs):
        axis = 2 if self.channels_first else 1
        x = A.expand_dims(inputs, axis)
        dw = A.expand_dims(self.depthwise_kernel, 0)
        pw = A.expand_dims(self.pointwise_kernel, 0)
        y = self._separable(x, dw, pw, (1, self.strides[0]), (1, self.dilation_rate[0]))
        return self._finish(A.squeeze(y, [axis]))


Convolution1D, Convolution3D = Conv1D, Conv3D
Convolution3DTranspose = Deconvolution3D = Conv3DTranspose
MaxPool1D, MaxPool3D, AvgPool1D, AvgPool3D = MaxPooling1D, MaxPooling3D, AveragePooling1D, AveragePooling3D
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D

_ = set_kernel_bias_options


def _layer_fn(cls, doc):
    def fn(inputs, *args, **kwargs):
        name, reuse = kwargs.pop("name", None), kwargs.pop("reuse", None)
        return cls(*args, name=name, _scope=name, _reuse=reuse, **kwargs)(inputs)
    fn.__doc__ = doc
    return fn


def _pool_fn(cls, doc):
    def fn(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
        return cls(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)
    fn.__doc__ = doc
    return fn


conv1d = _layer_fn(Conv1D, "1-D convolution layer (variables `conv1d/kernel`, `conv1d/bias`).")
conv3d = _layer_fn(Conv3D, "3-D convolution layer (variables `conv3d/kernel`, `conv3d/bias`).")
conv3d_transpose = _layer_fn(Conv3DTranspose, "Transposed 3-D convolution layer.")
separable_conv1d = _layer_fn(SeparableConv1D, "Depthwise-separable 1-D convolution layer.")
separable_conv2d = _layer_fn(SeparableConv2D, "Depthwise-separable 2-D convolution layer.")
max_pooling1d = _pool_fn(MaxPooling1D, "1-D max pooling layer.")
max_pooling3d = _pool_fn(MaxPooling3D, "3-D max pooling layer.")
average_pooling1d = _pool_fn(AveragePooling1D, "1-D average pooling layer.")
average_pooling3d = _pool_fn(AveragePooling3D, "3-D average pooling layer.")

__all__ = ["Conv1D", "Conv3D", "Conv3DTranspose", "MaxPooling1D", "MaxPooling3D", "AveragePooling1D",
           "AveragePooling3D", "SeparableConv1D", "SeparableConv2D", "Convolution1D", "Convolution3D",
           "Convolution3DTranspose", "Deconvolution3D", "MaxPool1D", "MaxPool3D", "AvgPool1D", "AvgPool3D",
           "SeparableConvolution1D", "SeparableConvolution2D", "conv1d", "conv3d", "conv3d_transpose",
           "separable_conv1d", "separable_conv2d", "max_pooling1d", "max_pooling3d", "average_pooling1d",
           "average_pooling3d"]
