"""tf.contrib.layers: regularizers, apply_regularization, flatten and fully_connected."""
import numbers

from lens.ops import init_ops
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, get_default_graph, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import nn as N
from lens.ops.reduce import reduce_sum
from lens.ops.variable_scope import get_variable, variable_scope

__all__ = ["l1_regularizer", "l2_regularizer", "l1_l2_regularizer", "sum_regularizer", "apply_regularization",
           "flatten", "fully_connected", "xavier_initializer", "xavier_initializer_conv2d",
           "variance_scaling_initializer"]


def _check_scale(scale):
    if isinstance(scale, numbers.Integral) and not isinstance(scale, bool):
        raise ValueError("scale cannot be an integer: %s; pass a float such as %s.0" % (scale, scale))
    if not isinstance(scale, numbers.Real):
        raise ValueError("scale must be a float, got %r" % (scale,))
    if scale < 0.0:
        raise ValueError("Setting a scale less than 0 on a regularizer: %g" % scale)
    return float(scale)


def _scaled(kind, scale, scope, body):
    """A regularizer fn(weights) = scale * body(weights) in a '<kind>' name scope (None for scale 0)."""
    scale = _check_scale(scale)
    if scale == 0.0:
        return lambda _: None

    def regularizer(weights, name=None):
        with name_scope(scope, kind, [weights]) as sc:
            w = convert_to_tensor(weights)
            my_scale = convert_to_tensor(scale, dtype=w.dtype.base_dtype, name="scale")
            return M.multiply(my_scale, body(w), name=sc)
    return regularizer


def l1_regularizer(scale, scope=None):
    """fn(weights) = scale * sum(|weights|)."""
    return _scaled("l1_regularizer", scale, scope, lambda w: reduce_sum(M.abs(w)))


def l2_regularizer(scale, scope=None):
    """fn(weights) = scale * sum(weights ** 2) / 2 (an L2Loss op)."""
    return _scaled("l2_regularizer", scale, scope, lambda w: N.l2_loss(w))


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """fn(weights) = l1(weights) + l2(weights)."""
    if isinstance(scale_l1, numbers.Real) and isinstance(scale_l2, numbers.Real) \
            and scale_l1 == 0.0 and scale_l2 == 0.0:
        return lambda _: None
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope or "l1_l2_regularizer")


def sum_regularizer(regularizer_list, scope=None):
    """fn(weights) = the sum of every regularizer's penalty (None when the list is empty)."""
    regs = [r for r in regularizer_list if r]
    if not regs:
        return None

    def regularizer(weights):
        with name_scope(scope, "sum_regularizer", [weights]) as sc:
            parts = [p for p in (r(weights) for r in regs) if p is not None]
            if not parts:
                return None
            return M.add_n(parts, name=sc)
    return regularizer


def apply_regularization(regularizer, weights_list=None):
    """Sum of regularizer(w) over weights_list (default: the WEIGHTS collection), added to REGULARIZATION_LOSSES."""
    g = get_default_graph()
    if not weights_list:
        weights_list = g.get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize: pass weights_list or add variables to "
                         "tf.GraphKeys.WEIGHTS.")
    with name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else convert_to_tensor(0.0) for p in penalties]
        for p in penalties:
            if p.shape.ndims not in (None, 0):
                raise ValueError("regularizer must return a scalar Tensor instead of a Tensor with rank %d."
                                 % p.shape.ndims)
        total = M.add_n(penalties, name=scope)
        g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, total)
        return total


def xavier_initializer(uniform=True, seed=None, dtype=None):
    """Glorot initializer (uniform, or truncated normal when uniform=False)."""
    return init_ops.glorot_uniform_initializer(seed=seed) if uniform else init_ops.glorot_normal_initializer(seed=seed)


xavier_initializer_conv2d = xavier_initializer


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=None):
    """contrib's He-style initializer expressed with tf.variance_scaling_initializer."""
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]" % mode)
    return init_ops.variance_scaling_initializer(scale=factor, mode=mode.lower(),
                                                 distribution="uniform" if uniform else "truncated_normal", seed=seed)


def flatten(inputs, outputs_collections=None, scope=None):
    """Reshape [batch, ...] to [batch, k]."""
    with name_scope(scope, "Flatten", [inputs]) as sc:
        x = convert_to_tensor(inputs)
        dims = x.shape.as_list() if x.shape.ndims is not None else None
        if dims is None or len(dims) < 2:
            raise ValueError("Inputs must have a least 2 dimensions, got shape %s" % x.shape)
        if all(d is not None for d in dims[1:]):
            n = 1
            for d in dims[1:]:
                n *= d
            return A.reshape(x, [-1, n], name=sc)
        return A.reshape(x, A.stack([A.shape(x)[0], convert_to_tensor(-1)]), name=sc)


def fully_connected(inputs, num_outputs, activation_fn=N.relu, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=None, weights_regularizer=None,
                    biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                    variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """activation_fn(inputs @ weights + biases) with variables `fully_connected/weights`, `.../biases`."""
    from lens.ops.linalg import matmul
    x = convert_to_tensor(inputs)
    n_in = x.shape.as_list()[-1] if x.shape.ndims else None
    if n_in is None:
        raise ValueError("fully_connected needs inputs with a known last dimension, got %s" % x.shape)
    with variable_scope(scope, default_name="fully_connected", values=[x], reuse=reuse):
        collections = [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES]
        w = get_variable("weights", [n_in, int(num_outputs)], dtype=x.dtype.base_dtype,
                         initializer=weights_initializer or xavier_initializer(),
                         regularizer=weights_regularizer, trainable=trainable, collections=collections)
        y = matmul(x, w)
        if normalizer_fn is not None:
            y = normalizer_fn(y, **(normalizer_params or {}))
        elif biases_initializer is not None:
            b = get_variable("biases", [int(num_outputs)], dtype=x.dtype.base_dtype, initializer=biases_initializer,
                             regularizer=biases_regularizer, trainable=trainable, collections=collections)
            y = N.bias_add(y, b)
        if activation_fn is not None:
            y = activation_fn(y)
        return y
