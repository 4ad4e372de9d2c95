"""PR curve summaries: TensorBoard's `pr_curve.summary` (op, pb, raw_data_op, raw_data_pb,
streaming_op), writing a float32 [6, num_thresholds] tensor (TP, FP, TN, FN, precision, recall)
under the tag '<name>/pr_curves' with plugin 'pr_curves'."""

import numpy as np

from lens.events import summary_builders as B
from lens.events import summary_ops
from lens.events.plugins import pr_streaming
from lens.framework import dtypes
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array, indexing, math, reduce, scan_ops
from lens.proto import pr_curve_plugin_data_pb2, summary_pb2

PLUGIN_NAME = "pr_curves"
DEFAULT_NUM_THRESHOLDS = 201
MINIMUM_COUNT = 1e-7  # keeps precision/recall finite when a threshold has no predictions
TRUE_POSITIVES_INDEX, FALSE_POSITIVES_INDEX, TRUE_NEGATIVES_INDEX = 0, 1, 2
FALSE_NEGATIVES_INDEX, PRECISION_INDEX, RECALL_INDEX = 3, 4, 5


def _check_thresholds(num_thresholds):
    if num_thresholds is None:
        return DEFAULT_NUM_THRESHOLDS
    if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, (int, np.integer)):
        raise TypeError("num_thresholds must be a Python int (a constant, not a tensor), got %r"
                        % (num_thresholds,))
    if num_thresholds < 2:
        raise ValueError("num_thresholds must be >= 2 (thresholds are spread over [0, 1]), got %d"
                         % num_thresholds)
    return int(num_thresholds)


def create_summary_metadata(display_name, description, num_thresholds):
    """SummaryMetadata with the pr_curves plugin data (version 0, num_thresholds)."""
    content = pr_curve_plugin_data_pb2.PrCurvePluginData(version=0, num_thresholds=num_thresholds)
    return summary_pb2.SummaryMetadata(
        display_name=display_name, summary_description=description,
        plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name=PLUGIN_NAME, content=content.SerializeToString()))


def parse_plugin_metadata(content):
    """PrCurvePluginData from plugin_data.content bytes."""
    return pr_curve_plugin_data_pb2.PrCurvePluginData.FromString(bytes(content))


def compute_curve(labels, predictions, num_thresholds=None, weights=None):
    """(tp, fp, tn, fn, precision, recall) arrays from labels and [0, 1] predictions in NumPy.

    A prediction p falls in bucket floor(p * (num_thresholds - 1)); a threshold counts every
    bucket at or above it (TensorBoard's pb)."""
    num_thresholds = _check_thresholds(num_thresholds)
    labels = np.asarray(labels)
    predictions = np.asarray(predictions, dtype=np.float64)
    if labels.shape != predictions.shape:
        raise ValueError("labels shape %s and predictions shape %s must match"
                         % (list(labels.shape), list(predictions.shape)))
    weights = 1.0 if weights is None else np.asarray(weights, dtype=np.float64)
    buckets = np.floor(predictions * (num_thresholds - 1)).astype(np.int32)
    truth = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets = np.histogram(buckets, bins=num_thresholds, range=span,
                              weights=np.broadcast_to(truth * weights, buckets.shape))[0]
    fp_buckets = np.histogram(buckets, bins=num_thresholds, range=span,
                              weights=np.broadcast_to((1.0 - truth) * weights, buckets.shape))[0]
    tp = np.cumsum(tp_buckets[::-1])[::-1]
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(MINIMUM_COUNT, tp + fn)
    return tp, fp, tn, fn, precision, recall


def pb(name, labels, predictions, num_thresholds=None, weights=None, display_name=None,
       description=None):
    """A Summary proto with the PR curve of NumPy labels (bool) and predictions in [0, 1]."""
    num_thresholds = _check_thresholds(num_thresholds)
    tp, fp, tn, fn, precision, recall = compute_curve(labels, predictions, num_thresholds,
                                                      weights)
    return raw_data_pb(name, tp, fp, tn, fn, precision, recall, num_thresholds=num_thresholds,
                       display_name=display_name, description=description)


def raw_data_pb(name, true_positive_counts, false_positive_counts, true_negative_counts,
                false_negative_counts, precision, recall, num_thresholds=None, display_name=None,
                description=None):
    """A Summary proto from counts and precision/recall already computed (rank-1, one per
    threshold)."""
    rows = [np.asarray(r, dtype=np.float32).reshape(-1) for r in (
        true_positive_counts, false_positive_counts, true_negative_counts, false_negative_counts,
        precision, recall)]
    if num_thresholds is None:
        num_thresholds = len(rows[0])
    num_thresholds = _check_thresholds(num_thresholds)
    for label, row in zip(("true_positive_counts", "false_positive_counts",
                           "true_negative_counts", "false_negative_counts", "precision",
                           "recall"), rows):
        if len(row) != num_thresholds:
            raise ValueError("%s holds %d values but num_thresholds is %d: give one value per "
                             "threshold" % (label, len(row), num_thresholds))
    meta = create_summary_metadata(display_name if display_name is not None else name,
                                   description or "", num_thresholds)
    value = summary_pb2.Summary.Value(tag="%s/pr_curves" % name, metadata=meta,
                                      tensor=B._tensor_proto(np.stack(rows)))
    return summary_pb2.Summary(value=[value])


def _tensor_summary(name, rows, num_thresholds, display_name, description, collections):
    """The TensorSummaryV2 op named 'pr_curves' inside the caller's scope."""
    meta = create_summary_metadata(display_name if display_name is not None else name,
                                   description or "", num_thresholds)
    data = array.stack([math.cast(r, dtypes.float32) for r in rows])
    return summary_ops.tensor_summary("pr_curves", data, collections=collections,
                                      summary_metadata=meta)


def op(name, labels, predictions, num_thresholds=None, weights=None, display_name=None,
       description=None, collections=None):
    """A summary op with the PR curve of a bool `labels` tensor and [0, 1] `predictions`."""
    num_thresholds = _check_thresholds(num_thresholds)
    weights = 1.0 if weights is None else weights
    with name_scope(name, values=[labels, predictions, weights]):
        labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
        if labels.dtype.base_dtype != dtypes.bool:
            raise TypeError("labels must be a bool tensor, got %s %s: compare your integer "
                            "labels with 1 (labels > 0) first" % (labels.name, labels.dtype.name))
        dtype = predictions.dtype.base_dtype
        f_labels = math.cast(labels, dtype)
        predictions = math.minimum(1.0, math.maximum(0.0, predictions))
        true_labels = array.reshape(f_labels * weights, [-1, 1])
        false_labels = array.reshape((1.0 - f_labels) * weights, [-1, 1])
        predictions = array.reshape(predictions, [-1])
        buckets = math.cast(math.floor(predictions * (num_thresholds - 1)), dtypes.int32)
        one_hot = indexing.one_hot(buckets, depth=num_thresholds, dtype=dtype)
        tp = scan_ops.cumsum(reduce.reduce_sum(one_hot * true_labels, axis=0), reverse=True,
                             name="tp")
        fp = scan_ops.cumsum(reduce.reduce_sum(one_hot * false_labels, axis=0), reverse=True,
                             name="fp")
        tn, fn = fp[0] - fp, tp[0] - tp
        precision = tp / math.maximum(MINIMUM_COUNT, tp + fp)
        recall = tp / math.maximum(MINIMUM_COUNT, tp + fn)
        return _tensor_summary(name, (tp, fp, tn, fn, precision, recall), num_thresholds,
                               display_name, description, collections)


def raw_data_op(name, true_positive_counts, false_positive_counts, true_negative_counts,
                false_negative_counts, precision, recall, num_thresholds=None, display_name=None,
                description=None, collections=None):
    """A summary op from count and precision/recall tensors computed elsewhere."""
    num_thresholds = _check_thresholds(num_thresholds)
    rows = (true_positive_counts, false_positive_counts, true_negative_counts,
            false_negative_counts, precision, recall)
    with name_scope(name, values=list(rows)):
        return _tensor_summary(name, rows, num_thresholds, display_name, description,
                               collections)


def streaming_op(name, labels, predictions, num_thresholds=None, weights=None,
                 metrics_collections=None, updates_collections=None, display_name=None,
                 description=None):
    """(summary, update_op): a PR curve over every batch the update op has seen since the
    local variables were initialized (tf.metrics style; a prediction counts at a threshold
    when it is strictly greater)."""
    num_thresholds = _check_thresholds(num_thresholds)
    with name_scope(name, values=[labels, predictions, weights]):
        (tp, fp, tn, fn), update = pr_streaming.counts(labels, predictions, num_thresholds,
                                                       weights)
        precision = tp / math.maximum(MINIMUM_COUNT, tp + fp)
        recall = tp / math.maximum(MINIMUM_COUNT, tp + fn)
        summary = _tensor_summary(name, (tp, fp, tn, fn, precision, recall), num_thresholds,
                                  display_name, description, metrics_collections)
        for key in updates_collections or []:
            update.graph.add_to_collection(key, update)
        return summary, update
