"""Streaming confusion counts at thresholds for pr_curve.streaming_op (tf.metrics semantics:
local variables, a prediction is positive at a threshold when strictly greater)."""

from lens.framework import dtypes
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys
from lens.ops import array, core, logic, math, reduce, variables


def _local_counter(num_thresholds, name):
    """A zero-initialized float32 [num_thresholds] local (metric) variable."""
    return variables.Variable(lambda: array.zeros([num_thresholds], dtypes.float32),
                              trainable=False, name=name,
                              collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def counts(labels, predictions, num_thresholds, weights=None):
    """((tp, fp, tn, fn) variables, update_op) over thresholds i / (num_thresholds - 1)."""
    thresholds = [i / float(num_thresholds - 1) for i in range(num_thresholds)]
    predictions = math.cast(convert_to_tensor(predictions), dtypes.float32)
    labels = math.cast(convert_to_tensor(labels), dtypes.bool)
    column = array.reshape(predictions, [1, -1])
    is_positive = logic.greater(column, array.reshape(
        convert_to_tensor(thresholds, dtype=dtypes.float32), [-1, 1]))  # [T, N]
    truth = array.tile(array.reshape(labels, [1, -1]), [num_thresholds, 1])
    weight_row = None
    if weights is not None:
        weights = math.cast(convert_to_tensor(weights), dtypes.float32)
        weight_row = array.reshape(weights * array.ones_like(predictions), [1, -1])
    kinds = (("true_positives", truth, is_positive),
             ("false_positives", logic.logical_not(truth), is_positive),
             ("true_negatives", logic.logical_not(truth), logic.logical_not(is_positive)),
             ("false_negatives", truth, logic.logical_not(is_positive)))
    counters, updates = [], []
    for name, want_label, want_prediction in kinds:
        hit = math.cast(logic.logical_and(want_label, want_prediction), dtypes.float32)
        if weight_row is not None:
            hit = hit * weight_row
        var = _local_counter(num_thresholds, name)
        counters.append(var)
        updates.append(variables.assign_add(var, reduce.reduce_sum(hit, axis=1)))
    return tuple(v.value() if hasattr(v, "value") else v for v in counters), core.group(*updates)
