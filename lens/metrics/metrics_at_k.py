"""tf.metrics' top-k family: precision_at_k / recall_at_k (and their *_at_top_k forms on given indices),
sparse_precision_at_k, average_precision_at_k / sparse_average_precision_at_k (TF1.15's float64 counters,
names and formulas; labels are [D1.., num_labels] int ids or [D1..] single ids)."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.metrics.common import add_collections, broadcast_weights, metric_variable
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.logic import equal, greater, greater_equal, where
from lens.ops.nn_extra import top_k
from lens.ops.reduce import reduce_any, reduce_sum
from lens.ops.scan_ops import cumsum
from lens.ops.set_ops import set_difference, set_intersection, set_size
from lens.ops.variables import assign_add

__all__ = ["precision_at_k", "recall_at_k", "precision_at_top_k", "recall_at_top_k", "sparse_precision_at_k",
           "average_precision_at_k", "sparse_average_precision_at_k"]


def _at_k_name(name, k=None, class_id=None):
    name = "%s_at_%d" % (name, k) if k is not None else "%s_at_k" % name
    return name if class_id is None else "%s_class%d" % (name, class_id)


def _expand_labels(labels, predictions):
    labels = convert_to_tensor(labels, name="labels")
    if labels.shape.ndims is not None and predictions.shape.ndims is not None and \
            labels.shape.ndims == predictions.shape.ndims - 1:
        labels = A.expand_dims(labels, -1)
    return M.cast(labels, _dt.int64)


def _has_class(ids, class_id):
    return M.cast(reduce_any(equal(ids, convert_to_tensor(class_id, dtype=_dt.int64)), axis=-1), _dt.float64)


def _count(kind, labels, idx, class_id):
    """Per-row true positives, false positives or false negatives of the top-k ids against the labels."""
    if class_id is not None:
        in_labels, in_preds = _has_class(labels, class_id), _has_class(idx, class_id)
        if kind == "tp":
            return M.multiply(in_labels, in_preds)
        if kind == "fp":
            return M.multiply(M.subtract(1.0, in_labels), in_preds)
        return M.multiply(in_labels, M.subtract(1.0, in_preds))
    if kind == "tp":
        found = set_intersection(idx, labels)
    elif kind == "fp":
        found = set_difference(idx, labels, aminusb=True)
    else:
        found = set_difference(idx, labels, aminusb=False)
    return M.cast(set_size(found), _dt.float64)


def _streaming(kind, label, labels, idx, k, class_id, weights):
    """A float64 counter of the weighted per-row counts: (variable, update)."""
    var_name = _at_k_name(label, k, class_id)
    var = metric_variable([], _dt.float64, name=var_name)       # <metric scope>/<label>_at_<k>, as TF
    with name_scope(None, var_name, (idx, labels, weights)):
        counts = _count(kind, labels, idx, class_id)
        if weights is not None:
            counts = M.multiply(counts, broadcast_weights(M.cast(weights, _dt.float64), counts))
        return var, assign_add(var, reduce_sum(counts), name="update")


def _ratio_at_top_k(kind, other, other_label, labels, predictions_idx, k, class_id, weights, mc, uc, name):
    with name_scope(name, _at_k_name(kind, k, class_id), (predictions_idx, labels, weights)) as scope:
        idx = M.cast(predictions_idx, _dt.int64)
        labels = _expand_labels(labels, idx)
        tp, tp_update = _streaming("tp", "true_positive", labels, idx, k, class_id, weights)
        miss, miss_update = _streaming(other, other_label, labels, idx, k, class_id, weights)
        value = M.div(tp, M.add(tp, miss), name=scope.rstrip("/").rpartition("/")[2])
        update = M.div(tp_update, M.add(tp_update, miss_update), name="update")
    add_collections(value, update, mc, uc)
    return value, update


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """Streaming precision of given top-k class ids (for class_id: of predicting that class)."""
    return _ratio_at_top_k("precision", "fp", "false_positive", labels, predictions_idx, k, class_id, weights,
                           metrics_collections, updates_collections, name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """Streaming recall of given top-k class ids (for class_id: of finding that class)."""
    return _ratio_at_top_k("recall", "fn", "false_negative", labels, predictions_idx, k, class_id, weights,
                           metrics_collections, updates_collections, name)


def _top_k_metric(kind, fn):
    def metric(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with name_scope(name, _at_k_name(kind, k, class_id), (predictions, labels, weights)) as scope:
            _, idx = top_k(predictions, k)
            return fn(labels, idx, k=k, class_id=class_id, weights=weights, metrics_collections=metrics_collections,
                      updates_collections=updates_collections, name=scope)
    return metric


precision_at_k = _top_k_metric("precision", precision_at_top_k)
precision_at_k.__name__ = "precision_at_k"
precision_at_k.__doc__ = "Streaming precision of the k highest-scored classes: (precision, update_op)."
sparse_precision_at_k = precision_at_k
recall_at_k = _top_k_metric("recall", recall_at_top_k)
recall_at_k.__name__ = "recall_at_k"
recall_at_k.__doc__ = "Streaming recall of the k highest-scored classes: (recall, update_op)."


def _average_precision(labels, idx):
    """Per-row average precision of the ranked ids idx [..., k] against the labels [..., L]."""
    k = idx.shape.as_list()[-1]
    relevant = M.cast(reduce_any(equal(A.expand_dims(idx, -1), A.expand_dims(labels, -2)), axis=-1), _dt.float64)
    tp_per_k = cumsum(relevant, axis=-1)
    retrieved = cumsum(A.ones_like(relevant), axis=-1)
    precision_sum = reduce_sum(M.multiply(M.div(tp_per_k, retrieved), relevant), axis=[-1])
    num_labels = reduce_sum(where(greater_equal(labels, 0), A.ones_like(labels), A.zeros_like(labels)), axis=-1)
    num_relevant = M.cast(M.minimum(num_labels, k), _dt.float64)
    return M.div(precision_sum, num_relevant)


def _safe_div(num, den, name):
    return where(greater(den, 0.0), M.div(num, den), A.zeros_like(num), name=name)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None, updates_collections=None,
                           name=None):
    """Streaming mean of each row's average precision over its k highest-scored classes: (mean, update_op)."""
    if k < 1:
        raise ValueError("Invalid k=%s." % k)
    with name_scope(name, _at_k_name("average_precision", k), (predictions, labels, weights)) as scope:
        _, idx = top_k(predictions, k)
        idx = M.cast(idx, _dt.int64)
        labels = _expand_labels(labels, idx)
        ap = _average_precision(labels, idx)
        if weights is not None:
            weights = broadcast_weights(M.cast(weights, _dt.float64), ap)
            ap = M.multiply(ap, weights)
        max_var = metric_variable([], _dt.float64, name="max")
        total_var = metric_variable([], _dt.float64, name="total")
        with name_scope(None, "max", (ap,)):
            batch_max = M.cast(A.size(ap), _dt.float64) if weights is None else reduce_sum(weights)
            max_update = assign_add(max_var, batch_max, name="update")
        with name_scope(None, "total", (ap,)):
            total_update = assign_add(total_var, reduce_sum(ap), name="update")
        value = _safe_div(total_var, max_var, "mean")
        update = _safe_div(total_update, max_update, scope.rstrip("/").rpartition("/")[2])
    add_collections(value, update, metrics_collections, updates_collections)
    return value, update


sparse_average_precision_at_k = average_precision_at_k
