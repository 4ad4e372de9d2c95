"""tf.losses.mean_pairwise_squared_error: the mean over pairs of entries within each example of the squared
difference between their prediction gap and their label gap (TF1.15's formula and weighting)."""
from lens.framework import dtypes as _dt
from lens.framework.graph import GraphKeys, name_scope
from lens.losses.losses import _check_broadcast, add_loss
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.logic import equal, greater, where
from lens.ops.reduce import reduce_sum
from lens.ops.sequence import range as _range

__all__ = ["mean_pairwise_squared_error"]


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES):
    """sum over examples of weight * [2 sum d^2 / (n - 1) - 2 (sum d)^2 / (n (n - 1))], d = predictions - labels
    over the n present (non-zero-weight) entries of each example."""
    if labels is None:
        raise ValueError("labels must not be None.")
    if predictions is None:
        raise ValueError("predictions must not be None.")
    with name_scope(scope, "mean_pairwise_squared_error", (predictions, labels, weights)):
        weights = M.cast(weights, _dt.float32)
        labels = M.cast(labels, _dt.float32)
        predictions = M.cast(predictions, _dt.float32)
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError("Shapes %s and %s are incompatible" % (predictions.shape, labels.shape))
        diffs = M.subtract(predictions, labels)
        _check_broadcast(weights, diffs)
        axis = _range(1, A.rank(diffs))
        sum_squares = reduce_sum(M.square(diffs), axis=axis, keepdims=True)
        with name_scope(None, "num_present", (diffs, weights)):
            present = where(equal(weights, 0.0), A.zeros_like(weights), A.ones_like(weights))
            present = M.multiply(present, A.ones_like(diffs))
            num_present = reduce_sum(present, axis=_range(1, A.rank(present)), keepdims=True)
        term1 = M.multiply(2.0, M.div_no_nan(sum_squares, M.maximum(M.subtract(num_present, 1.0), 0.0)))
        sum_diff = reduce_sum(diffs, axis=axis, keepdims=True)
        term2 = M.multiply(2.0, M.div_no_nan(M.square(sum_diff),
                                             M.maximum(M.multiply(num_present, M.subtract(num_present, 1.0)), 0.0)))
        loss = reduce_sum(M.multiply(M.subtract(term1, term2), weights))
        mean_loss = where(greater(reduce_sum(num_present), 0.0), loss, A.zeros_like(loss), name="value")
        add_loss(mean_loss, loss_collection)
        return mean_loss
