"""More of tf.metrics: the *_at_thresholds counts and ratios, sensitivity_at_specificity and
specificity_at_sensitivity, mean_iou, mean_per_class_accuracy, mean_relative_error, mean_cosine_distance,
percentage_below and mean_tensor (TF1.15's variables, names and formulas)."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import control_dependencies
from lens.metrics.auc import _KEPSILON, confusion_matrix_at_thresholds
from lens.metrics.common import (add_collections, broadcast_weights, metric_variable, remove_squeezable_dimensions,
                                 to_float32)
from lens.metrics.metrics import mean
from lens.ops.array import cast, ones_like, reshape, zeros_like
from lens.ops.indexing import gather
from lens.ops.linalg_extra import matrix_diag_part
from lens.ops.logic import equal, greater, less, not_equal, where
from lens.ops.math import abs as _abs, add, div, div_no_nan, maximum, multiply, subtract
from lens.ops.reduce import argmax, argmin, reduce_mean, reduce_min, reduce_sum
from lens.ops.scan_ops import cumsum
from lens.ops.scatter_ops import confusion_matrix
from lens.ops.state_scatter import scatter_add
from lens.ops.variable_scope import variable_scope
from lens.ops.variables import assign_add

__all__ = ["true_positives_at_thresholds", "false_positives_at_thresholds", "true_negatives_at_thresholds",
           "false_negatives_at_thresholds", "precision_at_thresholds", "recall_at_thresholds",
           "sensitivity_at_specificity", "specificity_at_sensitivity", "mean_iou", "mean_per_class_accuracy",
           "mean_relative_error", "mean_cosine_distance", "percentage_below", "mean_tensor"]

_EPSILON = 1e-7


def _count_at_thresholds(key, scope):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None,
               name=None):
        with variable_scope(name, scope, (predictions, labels, weights)):
            values, updates = confusion_matrix_at_thresholds(labels, predictions, thresholds, weights, (key,))
            add_collections(values[key], updates[key], metrics_collections, updates_collections)
            return values[key], updates[key]
    metric.__name__ = scope
    metric.__doc__ = "Per-threshold streaming %s: (counts, update_op)." % scope.replace("_at_thresholds", "")
    return metric


true_positives_at_thresholds = _count_at_thresholds("tp", "true_positives_at_thresholds")
false_positives_at_thresholds = _count_at_thresholds("fp", "false_positives_at_thresholds")
true_negatives_at_thresholds = _count_at_thresholds("tn", "true_negatives_at_thresholds")
false_negatives_at_thresholds = _count_at_thresholds("fn", "false_negatives_at_thresholds")


def _ratio_at_thresholds(scope, other):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None,
               name=None):
        with variable_scope(name, scope, (predictions, labels, weights)):
            values, updates = confusion_matrix_at_thresholds(labels, predictions, thresholds, weights, ("tp", other))

            def ratio(tp, miss, suffix):
                return div(tp, add(add(tp, miss), _EPSILON), name="%s_%s" % (scope.split("_")[0], suffix))
            value = ratio(values["tp"], values[other], "value")
            update_op = ratio(updates["tp"], updates[other], "update_op")
        add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op
    metric.__name__ = scope
    return metric


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp")
precision_at_thresholds.__doc__ = "Per-threshold streaming tp / (tp + fp + 1e-7): (precision, update_op)."
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn")
recall_at_thresholds.__doc__ = "Per-threshold streaming tp / (tp + fn + 1e-7): (recall, update_op)."


def _uniform_thresholds(num_thresholds):
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [1.0 + _KEPSILON]


def _at_rate(scope, target_name, compute):
    def metric(labels, predictions, target, weights=None, num_thresholds=200, metrics_collections=None,
               updates_collections=None, name=None):
        if num_thresholds <= 1:
            raise ValueError("`num_thresholds` must be > 1.")
        if target < 0 or target > 1:
            raise ValueError("`%s` must be in the range [0, 1]." % target_name)
        with variable_scope(name, scope, (predictions, labels, weights)):
            values, updates = confusion_matrix_at_thresholds(labels, predictions, _uniform_thresholds(num_thresholds),
                                                             weights)
            value = compute(values, target, "value")
            update_op = compute(updates, target, "update_op")
        add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op
    metric.__name__ = scope
    return metric


def _sensitivity(c, specificity, name):
    specificities = div(c["tn"], add(add(c["tn"], c["fp"]), _KEPSILON))
    i = cast(argmin(_abs(subtract(specificities, specificity)), 0), _dt.int32)
    tp, fn = gather(c["tp"], i), gather(c["fn"], i)
    return div(tp, add(add(tp, fn), _KEPSILON), name=name)


def _specificity(c, sensitivity, name):
    sensitivities = div(c["tp"], add(add(c["tp"], c["fn"]), _KEPSILON))
    gap = _abs(subtract(sensitivities, sensitivity))
    # the last threshold at the smallest gap: argmax of the running count of minima finds its first maximum
    at_min = cumsum(cast(equal(gap, reduce_min(gap)), _dt.int64))
    i = cast(argmax(at_min, 0), _dt.int32)
    tn, fp = gather(c["tn"], i), gather(c["fp"], i)
    return div(tn, add(add(tn, fp), _KEPSILON), name=name)


_sens = _at_rate("sensitivity_at_specificity", "specificity", _sensitivity)
_spec = _at_rate("specificity_at_sensitivity", "sensitivity", _specificity)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The recall at the threshold whose specificity is closest to `specificity`: (value, update_op)."""
    return _sens(labels, predictions, specificity, weights, num_thresholds, metrics_collections,
                 updates_collections, name)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The specificity at the (last) threshold whose recall is closest to `sensitivity`: (value, update_op)."""
    return _spec(labels, predictions, sensitivity, weights, num_thresholds, metrics_collections,
                 updates_collections, name)


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """Mean intersection-over-union over the classes seen: (mean_iou, update_op adding to the confusion matrix)."""
    with variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
        labels, predictions = reshape(labels, [-1]), reshape(predictions, [-1])
        if weights is not None:
            weights = reshape(weights, [-1])
        total_cm = metric_variable([num_classes, num_classes], _dt.float64, name="total_confusion_matrix")
        current = confusion_matrix(labels, predictions, num_classes, weights=weights, dtype=_dt.float64)
        update_op = assign_add(total_cm, current)
        rows, cols = to_float32(reduce_sum(total_cm, 0)), to_float32(reduce_sum(total_cm, 1))
        diag = to_float32(matrix_diag_part(total_cm))
        denominator = subtract(add(rows, cols), diag)
        valid = reduce_sum(cast(not_equal(denominator, 0.0), _dt.float32))
        denominator = where(greater(denominator, 0.0), denominator, ones_like(denominator))
        iou = div(diag, denominator)
        value = where(greater(valid, 0.0), div(reduce_sum(iou), maximum(valid, 1.0)), 0.0, name="mean_iou")
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The mean over classes of each class's accuracy: (mean, update_op giving the per-class accuracies)."""
    with variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = convert_to_tensor(labels)
        predictions = convert_to_tensor(predictions)
        if labels.dtype.base_dtype != predictions.dtype.base_dtype:
            predictions = cast(predictions, labels.dtype.base_dtype)
        predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
        labels, predictions = reshape(labels, [-1]), reshape(predictions, [-1])
        total = metric_variable([num_classes], _dt.float32, name="total")
        count = metric_variable([num_classes], _dt.float32, name="count")
        ones = to_float32(ones_like(labels))
        is_correct = to_float32(equal(predictions, labels))
        if weights is not None:
            weights = convert_to_tensor(weights)
            weights = to_float32(reshape(weights, [-1]) if (weights.shape.ndims or 0) > 1 else weights)
            is_correct = multiply(is_correct, weights)
            ones = multiply(ones, weights)
        update_total = scatter_add(total, labels, ones)
        update_count = scatter_add(count, labels, is_correct)
        value = reduce_mean(div_no_nan(count, total), name="mean_accuracy")
        update_op = div_no_nan(update_count, update_total, name="update_op")
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The streaming mean of |labels - predictions| / normalizer (0 where normalizer is 0)."""
    predictions, labels, weights = remove_squeezable_dimensions(to_float32(predictions), to_float32(labels), weights)
    predictions, normalizer, _ = remove_squeezable_dimensions(predictions, to_float32(normalizer))
    relative = where(equal(normalizer, 0.0), zeros_like(labels), div(_abs(subtract(labels, predictions)), normalizer))
    return mean(relative, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None, updates_collections=None,
                         name=None):
    """1 - the streaming mean of the dot products of (unit) labels and predictions along dim."""
    predictions, labels, weights = remove_squeezable_dimensions(to_float32(predictions), to_float32(labels), weights)
    radial = reduce_sum(multiply(predictions, labels), axis=[dim], keepdims=True)
    value, update_op = mean(radial, weights, None, None, name or "mean_cosine_distance")
    value, update_op = subtract(1.0, value), subtract(1.0, update_op)
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def percentage_below(values, threshold, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The streaming fraction of values below threshold."""
    below = to_float32(less(values, threshold))
    return mean(below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The streaming elementwise mean of values over batches: (mean tensor, update_op)."""
    with variable_scope(name, "mean", (values, weights)):
        values = to_float32(values)
        total = metric_variable(values.shape.as_list(), _dt.float32, name="total_tensor")
        count = metric_variable(values.shape.as_list(), _dt.float32, name="count_tensor")
        num_values = ones_like(values)
        if weights is not None:
            values, _, weights = remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(to_float32(weights), values)
            values = multiply(values, weights)
            num_values = multiply(num_values, weights)
        update_total = assign_add(total, values)
        with control_dependencies([values]):
            update_count = assign_add(count, num_values)
        value = div_no_nan(total, maximum(count, 0.0), name="value")
        update_op = div_no_nan(update_total, maximum(update_count, 0.0), name="update_op")
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op
