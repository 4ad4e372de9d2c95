"""tf.layers.BatchNormalization: gamma/beta, moving statistics, update ops in UPDATE_OPS."""
from lens.ops import init_ops
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.layers.base import Layer, blend, static_bool
from lens.ops import array as A
from lens.ops import nn as N
from lens.ops import nn_extra as X
from lens.framework.tensor_shape import TensorShape
from lens.ops.variables import assign_sub

__all__ = ["BatchNormalization"]


class BatchNormalization(Layer):
    """Normalize over every axis but `axis` with batch statistics (training) or moving ones (inference)."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                 moving_mean_initializer=init_ops.zeros_initializer(),
                 moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, renorm=False,
                 renorm_clipping=None, renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise ValueError("lens's batch_normalization does not support renorm, virtual_batch_size or adjustment")
        self.axis = axis
        self.momentum, self.epsilon = float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.fused = fused

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.ndims is None:
            raise ValueError("Input has undefined rank: %s" % shape)
        nd = shape.ndims
        axes = self.axis if isinstance(self.axis, (list, tuple)) else [self.axis]
        axes = sorted(set(a % nd for a in axes))
        if len(axes) != 1:
            raise ValueError("lens's batch_normalization normalizes along one axis, got axis=%r" % (self.axis,))
        self._axis = axes[0]
        c = shape.as_list()[self._axis]
        if c is None:
            raise ValueError("Axis %d of input tensor should have a defined dimension but the layer received an "
                             "input with shape %s." % (self._axis, shape))
        can_fuse = nd == 4 and self._axis in (1, 3)
        if self.fused is None:
            self.fused = can_fuse
        elif self.fused and not can_fuse:
            raise ValueError("fused=True needs a 4-D input normalized along axis 1 or 3 (got rank %d, axis %d)"
                             % (nd, self._axis))
        self.gamma = self.add_weight("gamma", [c], initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, constraint=self.gamma_constraint) \
            if self.scale else None
        self.beta = self.add_weight("beta", [c], initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, constraint=self.beta_constraint) \
            if self.center else None
        self.moving_mean = self.add_weight("moving_mean", [c], initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", [c], initializer=self.moving_variance_initializer,
                                               trainable=False)
        self._channels = c

    def _fused(self, x, training):
        fmt = "NCHW" if self._axis == 1 else "NHWC"
        t = x.dtype.base_dtype
        gamma = self.gamma if self.gamma is not None else A.ones([self._channels], dtype=t)
        beta = self.beta if self.beta is not None else A.zeros([self._channels], dtype=t)
        if training:
            return X.fused_batch_norm(x, gamma, beta, epsilon=self.epsilon, data_format=fmt)
        return X.fused_batch_norm(x, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                                  epsilon=self.epsilon, data_format=fmt, is_training=False)

    def _plain(self, x, training):
        nd = x.shape.ndims
        red = [i for i in range(nd) if i != self._axis]
        bshape = [1] * nd
        bshape[self._axis] = self._channels

        def b(v):   # broadcast a per-channel vector along self._axis
            return v if v is None or self._axis == nd - 1 else A.reshape(v, bshape)
        if training:
            mean, var = N.moments(x, red)
        else:
            mean, var = self.moving_mean, self.moving_variance
        y = X.batch_normalization(x, b(mean), b(var), b(self.beta), b(self.gamma), self.epsilon)
        return y, mean, var

    def _forward(self, x, training):
        return self._fused(x, training) if self.fused else self._plain(x, training)

    def _assign_moving_average(self, variable, value, momentum):
        with name_scope(None, "AssignMovingAvg", [variable, value]) as scope:
            t = variable.dtype.base_dtype
            decay = _decay(momentum, t)
            delta = (variable - A.cast(value, t)) * decay
            return assign_sub(variable, delta, name=scope)

    def call(self, inputs, training=False):
        x = inputs
        flag = static_bool(training)
        if flag is False:
            return self._forward(x, False)[0]
        y, mean, var = self._forward(x, True)
        momentum = self.momentum
        if flag is None:
            pred = convert_to_tensor(training)
            y = blend(pred, y, self._forward(x, False)[0])
            # Not training: momentum 1, so the moving averages stay put.
            momentum = blend(pred, convert_to_tensor(self.momentum, dtype=x.dtype.base_dtype),
                             convert_to_tensor(1.0, dtype=x.dtype.base_dtype))
        self.add_update(self._assign_moving_average(self.moving_mean, mean, momentum))
        self.add_update(self._assign_moving_average(self.moving_variance, var, momentum))
        return y


def _decay(momentum, dtype):
    """The decay 1 - momentum as a tensor named 'decay' (a Python float or a tensor momentum)."""
    if isinstance(momentum, float):
        return convert_to_tensor(1.0 - momentum, dtype=dtype, name="decay")
    from lens.ops import math as M
    return M.subtract(convert_to_tensor(1.0, dtype=dtype), momentum, name="decay")
