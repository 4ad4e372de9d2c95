"""Core tf.layers classes: Dense, Flatten, Dropout."""
import numpy as np

from lens.ops import init_ops
from lens.framework.convert import convert_to_tensor
from lens.layers.base import InputSpec, Layer, blend, static_bool
from lens.ops import array as A
from lens.ops.core import identity
from lens.ops.linalg import matmul
from lens.ops.nn import bias_add, dropout
from lens.framework.tensor_shape import TensorShape

__all__ = ["Dense", "Flatten", "Dropout"]


def set_kernel_bias_options(layer, activation, use_bias, kernel_initializer, bias_initializer,
                            kernel_regularizer, bias_regularizer, activity_regularizer,
                            kernel_constraint, bias_constraint):
    """The kernel/bias settings Dense and the conv layers share."""
    layer.activation = activation_of(activation)
    layer.use_bias = use_bias
    layer.kernel_initializer, layer.bias_initializer = kernel_initializer, bias_initializer
    layer.kernel_regularizer, layer.bias_regularizer = kernel_regularizer, bias_regularizer
    layer.activity_regularizer = activity_regularizer
    layer.kernel_constraint, layer.bias_constraint = kernel_constraint, bias_constraint


def activation_of(activation):
    """None or a callable (TF1 layers take functions like tf.nn.relu)."""
    if activation is None or callable(activation):
        return activation
    raise TypeError("activation must be a callable such as tf.nn.relu, got %r" % (activation,))


class Dense(Layer):
    """outputs = activation(inputs @ kernel + bias) with variables `<name>/kernel`, `<name>/bias`."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if int(units) <= 0:
            raise ValueError("Dense units must be a positive integer, got %r" % (units,))
        self.units = int(units)
        set_kernel_bias_options(self, activation, use_bias, kernel_initializer, bias_initializer,
                                kernel_regularizer, bias_regularizer, activity_regularizer,
                                kernel_constraint, bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        last = TensorShape(input_shape)[-1].value if TensorShape(input_shape).ndims else None
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        self.kernel = self.add_weight("kernel", [last, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def call(self, inputs):
        x = inputs
        rank = x.shape.ndims
        if rank is not None and rank > 2:
            # Fold the leading axes into the batch, multiply, and unfold again.
            lead = A.shape(x)[:-1]
            flat = A.reshape(x, [-1, x.shape.as_list()[-1]])
            y = matmul(flat, self.kernel)
            y = A.reshape(y, A.concat([lead, [self.units]], 0))
            y.set_shape(x.shape.as_list()[:-1] + [self.units])
        else:
            y = matmul(x, self.kernel)
        if self.use_bias:
            y = bias_add(y, self.bias)
        if self.activation is not None:
            y = self.activation(y)
        if self.activity_regularizer is not None:
            self.add_loss(self.activity_regularizer(y))
        return y

    def compute_output_shape(self, input_shape):
        return TensorShape(TensorShape(input_shape).as_list()[:-1] + [self.units])


class Flatten(Layer):
    """Reshape [batch, ...] to [batch, prod(...)]."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(min_ndim=2)

    def call(self, inputs):
        x = inputs
        if self.data_format == "channels_first" and (x.shape.ndims or 0) > 2:
            x = A.transpose(x, [0] + list(range(2, x.shape.ndims)) + [1])
        dims = x.shape.as_list() if x.shape.ndims is not None else None
        if dims is not None and all(d is not None for d in dims[1:]):
            n = int(np.prod(dims[1:]))
            y = A.reshape(x, [-1 if dims[0] is None else dims[0], n])
        else:
            y = A.reshape(x, A.stack([A.shape(x)[0], convert_to_tensor(-1)]))
        return y


class Dropout(Layer):
    """Dropout when training (a bool or a bool tensor), identity otherwise."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs, training=False):
        flag = static_bool(training)
        if flag is False:
            return identity(inputs)
        dropped = dropout(inputs, rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        if flag is True:
            return dropped
        return blend(convert_to_tensor(training), dropped, inputs)
