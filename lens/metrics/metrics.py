"""tf.metrics: streaming metrics returning (value, update_op) over local metric variables.

Each metric keeps running sums in variables of LOCAL_VARIABLES/METRIC_VARIABLES named as TF1
(`accuracy/total`, `accuracy/count`, `precision/true_positives/count`, ...). `update_op`
adds a batch to the sums and returns the metric over everything seen so far; `value` reads
the sums without changing them.
"""
from lens.framework import dtypes as _dt
from lens.framework.graph import control_dependencies
from lens.metrics.auc import auc
from lens.metrics.common import (add_collections, broadcast_weights, metric_variable,
                                        remove_squeezable_dimensions, to_float32)
from lens.ops.array import cast, size
from lens.ops.logic import equal, greater, logical_and, where
from lens.ops.math import abs as _abs, add, div, div_no_nan, maximum, multiply, sqrt, \
    squared_difference, subtract
from lens.ops.reduce import reduce_sum
from lens.ops.variable_scope import variable_scope
from lens.ops.variables import assign_add

__all__ = ["accuracy", "auc", "mean", "mean_absolute_error", "mean_squared_error",
           "root_mean_squared_error", "precision", "recall", "true_positives", "false_positives",
           "true_negatives", "false_negatives"]


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """Streaming (weighted) mean of values: (mean, update_op) over `mean/total`, `mean/count`."""
    with variable_scope(name, "mean", (values, weights)):
        values = to_float32(values)
        total = metric_variable([], _dt.float32, name="total")
        count = metric_variable([], _dt.float32, name="count")
        if weights is None:
            num_values = to_float32(size(values))
        else:
            values, _, weights = remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(to_float32(weights), values)
            values = multiply(values, weights)
            num_values = reduce_sum(weights)
        update_total = assign_add(total, reduce_sum(values))
        with control_dependencies([values]):
            update_count = assign_add(count, num_values)
        value = div_no_nan(total, maximum(count, 0.0), name="value")
        update_op = div_no_nan(update_total, maximum(update_count, 0.0), name="update_op")
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """How often predictions equal labels: (accuracy, update_op)."""
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype.base_dtype != predictions.dtype.base_dtype:
        predictions = cast(predictions, labels.dtype.base_dtype)
    is_correct = to_float32(equal(predictions, labels))
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """Streaming mean of |predictions - labels|."""
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
    errors = _abs(subtract(predictions, labels))
    return mean(errors, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """Streaming mean of (labels - predictions)^2."""
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
    errors = squared_difference(labels, predictions)
    return mean(errors, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """sqrt of the streaming mean squared error (variables `root_mean_squared_error/total|count`)."""
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse = mean_squared_error(labels, predictions, weights, None, None,
                                         name or "root_mean_squared_error")
    value, update_op = sqrt(mse), sqrt(update_mse)
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


# ---------------------------------------------------------------- counts of a condition
def _count_condition(values, weights, metrics_collections, updates_collections):
    """Weighted count of True values in one `count` variable."""
    count = metric_variable([], _dt.float32, name="count")
    values = to_float32(values)
    if weights is not None:
        values = multiply(values, to_float32(weights))
    # +0 snapshots the count: lens updates variables in place, and an Identity would alias the
    # array that this run's update_op is about to change.
    value = add(count, 0.0, name="value")
    update_op = assign_add(count, reduce_sum(values))
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def _bool_inputs(labels, predictions, weights):
    return remove_squeezable_dimensions(cast(predictions, _dt.bool), cast(labels, _dt.bool), weights)


def _confusion_count(scope, want_label, want_pred):
    def metric(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
               name=None):
        with variable_scope(name, scope, (predictions, labels, weights)):
            predictions, labels, weights = _bool_inputs(labels, predictions, weights)
            hit = logical_and(equal(labels, want_label), equal(predictions, want_pred))
            return _count_condition(hit, weights, metrics_collections, updates_collections)
    metric.__name__ = scope
    metric.__doc__ = "Streaming weighted count of %s: (count, update_op)." % scope.replace("_", " ")
    return metric


true_positives = _confusion_count("true_positives", True, True)
false_positives = _confusion_count("false_positives", False, True)
true_negatives = _confusion_count("true_negatives", False, False)
false_negatives = _confusion_count("false_negatives", True, False)


def _ratio(hits, misses, name):
    """hits / (hits + misses), or 0 when both are 0 (TF1's precision/recall formula)."""
    both = add(hits, misses)
    return where(greater(both, 0.0), div(hits, both), 0.0, name=name)


def _ratio_metric(scope, other, labels, predictions, weights, metrics_collections,
                  updates_collections, name):
    with variable_scope(name, scope, (predictions, labels, weights)):
        predictions, labels, weights = _bool_inputs(labels, predictions, weights)
        tp, tp_update = true_positives(labels, predictions, weights)
        miss, miss_update = other(labels, predictions, weights)
        value = _ratio(tp, miss, "value")
        update_op = _ratio(tp_update, miss_update, "update_op")
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def precision(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
              name=None):
    """Streaming tp / (tp + fp): (precision, update_op)."""
    return _ratio_metric("precision", false_positives, labels, predictions, weights,
                         metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
           name=None):
    """Streaming tp / (tp + fn): (recall, update_op)."""
    return _ratio_metric("recall", false_negatives, labels, predictions, weights,
                         metrics_collections, updates_collections, name)


