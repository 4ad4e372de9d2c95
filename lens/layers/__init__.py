"""tf.layers: layer classes and TF1's functional wrappers (dense, conv2d, batch_normalization, ...)."""
from lens.ops import init_ops
from lens.layers.base import InputSpec, Layer
from lens.layers.conv import AveragePooling2D, Conv2D, Conv2DTranspose, MaxPooling2D
from lens.layers.core import Dense, Dropout, Flatten
from lens.layers.normalization import BatchNormalization

__all__ = ["Layer", "InputSpec", "Dense", "Flatten", "Dropout", "Conv2D", "Conv2DTranspose", "MaxPooling2D",
           "AveragePooling2D", "BatchNormalization", "dense", "flatten", "dropout", "conv2d", "conv2d_transpose",
           "max_pooling2d", "average_pooling2d", "batch_normalization", "Convolution2D", "Convolution2DTranspose",
           "Deconvolution2D", "MaxPool2D", "AveragePooling2D", "AvgPool2D"]

Convolution2D = Conv2D
Convolution2DTranspose = Deconvolution2D = Conv2DTranspose
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
          reuse=None):
    """Densely connected layer: activation(inputs @ kernel + bias)."""
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer(inputs)


def flatten(inputs, name=None, data_format="channels_last"):
    """Flatten every axis but the batch axis."""
    return Flatten(name=name, data_format=data_format)(inputs)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout with drop probability rate when training (bool or bool tensor), identity otherwise."""
    return Dropout(rate=rate, noise_shape=noise_shape, seed=seed, name=name)(inputs, training=training)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """2-D convolution layer (variables `conv2d/kernel`, `conv2d/bias`)."""
    layer = Conv2D(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                   dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer(inputs)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None):
    """Transposed 2-D convolution layer (variables `conv2d_transpose/kernel`, `.../bias`)."""
    layer = Conv2DTranspose(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                            trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer(inputs)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """2-D max pooling layer."""
    return MaxPooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """2-D average pooling layer."""
    return AveragePooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, training=False,
                        trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """Batch normalization layer; with training, its moving-average updates go to UPDATE_OPS."""
    layer = BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                               beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                               moving_mean_initializer=moving_mean_initializer,
                               moving_variance_initializer=moving_variance_initializer,
                               beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                               beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
                               renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
                               trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
                               name=name, _scope=name, _reuse=reuse)
    return layer(inputs, training=training)
