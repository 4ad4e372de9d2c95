"""Shared pieces of tf.metrics: metric variables, squeezable dimensions, weights, collections."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, add_to_collections
from lens.ops.array import expand_dims, ones_like, squeeze, zeros
from lens.ops.math import multiply
from lens.ops.variables import Variable


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialized local variable in LOCAL_VARIABLES and METRIC_VARIABLES (as TF1)."""
    return Variable(lambda: zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def _last_dim_is_one(shape):
    dims = shape.as_list()
    return dims[-1] is None or dims[-1] == 1


def remove_squeezable_dimensions(predictions, labels=None, weights=None):
    """Drop a trailing size-1 dimension so predictions, labels and weights line up (static ranks)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels = convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
        if p_rank is not None and l_rank is not None:
            if p_rank - l_rank == 1 and _last_dim_is_one(predictions.shape):
                predictions = squeeze(predictions, [-1])
            elif p_rank - l_rank == -1 and _last_dim_is_one(labels.shape):
                labels = squeeze(labels, [-1])
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError("Shapes %s and %s are incompatible: predictions and labels must have "
                             "the same shape (predictions %s, labels %s)"
                             % (predictions.shape, labels.shape, predictions.name, labels.name))
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w_rank, p_rank = weights.shape.ndims, predictions.shape.ndims
    if w_rank == 0 or w_rank is None or p_rank is None:
        return predictions, labels, weights
    if w_rank - p_rank == 1:
        weights = squeeze(weights, [-1])
    elif p_rank - w_rank == 1:
        weights = expand_dims(weights, -1)
    return predictions, labels, weights


def broadcast_weights(weights, values):
    """weights broadcast to the shape of values; ValueError when they cannot be (TF1's rule)."""
    weights = convert_to_tensor(weights)
    values = convert_to_tensor(values)
    w_shape, v_shape = weights.shape, values.shape
    if w_shape.ndims is not None and v_shape.ndims is not None and w_shape.ndims > 0:
        w_dims, v_dims = w_shape.as_list(), v_shape.as_list()
        ok = len(w_dims) == len(v_dims) and all(
            w is None or v is None or w == 1 or w == v for w, v in zip(w_dims, v_dims))
        if not ok:
            raise ValueError("weights can not be broadcast to values. values.rank=%d. weights.rank=%d."
                             " values.shape=%s. weights.shape=%s. Give weights the shape of values, "
                             "a scalar, or size-1 dimensions where values differ."
                             % (len(v_dims), len(w_dims), v_shape, w_shape))
        if w_shape.is_fully_defined() and w_shape == v_shape:
            return weights
    return multiply(weights, ones_like(values), name="broadcast_weights")


def to_float32(x):
    """x as a float32 tensor (TF1's metrics accumulate in float32)."""
    from lens.ops.array import cast
    x = convert_to_tensor(x)
    return x if x.dtype.base_dtype == _dt.float32 else cast(x, _dt.float32)


def add_collections(value, update_op, metrics_collections, updates_collections):
    """Record the value and update op in the caller's collections."""
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update_op)
