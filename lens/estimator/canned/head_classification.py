"""TF1.15's classification heads: binary (sigmoid) and multi-class (softmax) cross entropy."""
from lens.estimator.canned.head import (DEFAULT_SERVING_KEY, BaseHead, example_weights, identity_with_deps,
                                        labels_like_logits, summary_key)
from lens.estimator.export import ClassificationOutput, PredictOutput, RegressionOutput
from lens.framework import dtypes as _dt
from lens.framework.convert import constant
from lens.losses.losses import Reduction
from lens.metrics import accuracy, auc, mean as metric_mean, precision, recall
from lens.ops import array as A
from lens.ops.logic import equal
from lens.ops.math import maximum, sigmoid, subtract
from lens.ops.nn import sigmoid_cross_entropy_with_logits, softmax, sparse_softmax_cross_entropy_with_logits
from lens.ops.reduce import argmax, reduce_all, reduce_any
from lens.ops.string_ops import as_string

__all__ = ["BinaryClassHead", "MultiClassHead", "classification_head"]


def _label_ids(labels, vocabulary, n_classes):
    """Integer class ids of labels: looked up in vocabulary, else checked to lie in [0, n_classes)."""
    from lens.ops.control_flow import Assert
    if vocabulary is not None:
        if labels.dtype.base_dtype != _dt.string:
            raise ValueError("Labels dtype should be string if there is a vocabulary. Given: {}".format(labels.dtype))
        vocab = constant([v.encode() if isinstance(v, str) else v for v in vocabulary], _dt.string)
        hits = equal(A.expand_dims(labels, -1), vocab)
        check = Assert(reduce_all(reduce_any(hits, -1)), ["Labels must be in label_vocabulary", labels],
                       name="class_id_lookup_check")
        return identity_with_deps(argmax(A.cast(hits, _dt.int32), -1), [check])
    if labels.dtype.base_dtype == _dt.string:
        raise ValueError("Labels dtype should be integer. Instead got {}.".format(labels.dtype))
    ids = A.cast(labels, _dt.int64) if labels.dtype.is_integer else labels
    from lens.ops.logic import greater_equal, less_equal, logical_and
    ok = reduce_all(logical_and(greater_equal(ids, A.cast(0, ids.dtype.base_dtype)),
                                less_equal(ids, A.cast(n_classes - 1, ids.dtype.base_dtype))))
    check = Assert(ok, ["Labels must <= n_classes - 1 and >= 0", ids], name="assert_range")
    return identity_with_deps(ids, [check])


def _classes(class_ids, vocabulary):
    if vocabulary is None:
        return as_string(class_ids, name="str_classes")
    from lens.ops.indexing import gather
    return gather(constant([v.encode() if isinstance(v, str) else v for v in vocabulary], _dt.string), class_ids)


def _all_classes(logits, n_classes, vocabulary):
    batch = A.shape(logits)[0:1]
    ids = A.tile(A.expand_dims(constant(list(range(n_classes)), _dt.int32), 0),
                 A.concat([batch, constant([1])], 0))
    labels = vocabulary if vocabulary else [str(i) for i in range(n_classes)]
    names = constant([v.encode() if isinstance(v, str) else v for v in labels], _dt.string)
    return ids, A.tile(A.expand_dims(names, 0), A.concat([batch, constant([1])], 0))


class BinaryClassHead(BaseHead):
    """Sigmoid cross entropy on [batch, 1] logits."""

    def __init__(self, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction=Reduction.SUM, name=None):
        thresholds = tuple(thresholds or ())
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise TypeError("label_vocabulary should be a list or tuple. Given type: {}".format(type(label_vocabulary)))
        for t in thresholds:
            if t <= 0.0 or t >= 1.0:
                raise ValueError("thresholds not in (0, 1): {}.".format((thresholds,)))
        super().__init__(weight_column, loss_reduction, name)
        self._thresholds, self._vocabulary = thresholds, label_vocabulary

    logits_dimension = property(lambda self: 1)

    def predictions(self, logits):
        from lens.framework.graph import name_scope
        with name_scope(None, "predictions"):
            logistic = sigmoid(logits, name="logistic")
            two_class = A.concat([A.zeros_like(logits), logits], -1, name="two_class_logits")
            class_ids = A.expand_dims(argmax(two_class, -1, name="class_ids"), -1)
            all_ids, all_classes = _all_classes(logits, 2, self._vocabulary)
            return {"logits": logits, "logistic": logistic,
                    "probabilities": softmax(two_class, name="probabilities"), "class_ids": class_ids,
                    "classes": _classes(class_ids, self._vocabulary), "all_class_ids": all_ids,
                    "all_classes": all_classes}

    def export_outputs(self, predictions):
        classify = ClassificationOutput(scores=predictions["probabilities"], classes=predictions["all_classes"])
        return {DEFAULT_SERVING_KEY: classify, "classification": classify,
                "regression": RegressionOutput(predictions["logistic"]), "predict": PredictOutput(predictions)}

    def create_loss(self, features, logits, labels):
        labels = labels_like_logits(labels, logits, 1)
        labels = A.cast(_label_ids(labels, self._vocabulary, 2), _dt.float32)
        unreduced = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        weights = example_weights(features, self._weight_column, logits)
        return self.reduce(unreduced, weights), unreduced, weights, labels

    def eval_metric_ops(self, labels, logits, predictions, weights, unreduced):
        w = None if isinstance(weights, float) else weights
        logistic, class_ids = predictions["logistic"], predictions["class_ids"]
        label_mean = metric_mean(labels, weights=w, name="label/mean")
        key = lambda k: summary_key(self._name, k)  # noqa: E731
        ops = {
            key("average_loss"): self.loss_mean_metric(unreduced, weights),
            key("accuracy"): accuracy(labels, class_ids, weights=w, name="accuracy"),
            key("precision"): precision(labels, class_ids, weights=w, name="precision"),
            key("recall"): recall(labels, class_ids, weights=w, name="recall"),
            key("prediction/mean"): metric_mean(logistic, weights=w, name="prediction/mean"),
            key("label/mean"): label_mean,
            key("accuracy_baseline"): _accuracy_baseline(label_mean),
            key("auc"): auc(labels, logistic, weights=w, name="auc"),
            key("auc_precision_recall"): auc(labels, logistic, weights=w, curve="PR",
                                             name="auc_precision_recall"),
        }
        for t in self._thresholds:
            predicted = A.cast(logistic >= t, _dt.float32)
            ops[key("accuracy/positive_threshold_%g" % t)] = accuracy(
                labels, predicted, weights=w, name="accuracy/positive_threshold_%g" % t)
            ops[key("precision/positive_threshold_%g" % t)] = precision(
                labels, predicted, weights=w, name="precision/positive_threshold_%g" % t)
            ops[key("recall/positive_threshold_%g" % t)] = recall(
                labels, predicted, weights=w, name="recall/positive_threshold_%g" % t)
        return ops


def _accuracy_baseline(label_mean):
    """max(label mean, 1 - label mean): the accuracy of always predicting one class."""
    value, update = label_mean
    return (maximum(value, subtract(1.0, value), name="value"),
            maximum(update, subtract(1.0, update), name="update_op"))


class MultiClassHead(BaseHead):
    """Softmax cross entropy on [batch, n_classes] logits."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None, loss_reduction=Reduction.SUM,
                 name=None):
        if n_classes is None or n_classes <= 2:
            raise ValueError("n_classes must be > 2: %s." % n_classes)
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise ValueError("label_vocabulary should be a list or a tuple. Given type: {}".format(
                type(label_vocabulary)))
        super().__init__(weight_column, loss_reduction, name)
        self._n_classes, self._vocabulary = n_classes, label_vocabulary

    logits_dimension = property(lambda self: self._n_classes)

    def predictions(self, logits):
        from lens.framework.graph import name_scope
        with name_scope(None, "predictions"):
            class_ids = A.expand_dims(argmax(logits, -1, name="class_ids"), -1)
            all_ids, all_classes = _all_classes(logits, self._n_classes, self._vocabulary)
            return {"logits": logits, "probabilities": softmax(logits, name="probabilities"),
                    "class_ids": class_ids, "classes": _classes(class_ids, self._vocabulary),
                    "all_class_ids": all_ids, "all_classes": all_classes}

    def export_outputs(self, predictions):
        classify = ClassificationOutput(scores=predictions["probabilities"], classes=predictions["all_classes"])
        return {DEFAULT_SERVING_KEY: classify, "classification": classify, "predict": PredictOutput(predictions)}

    def create_loss(self, features, logits, labels):
        labels = labels_like_logits(labels, logits, 1)
        ids = A.cast(_label_ids(labels, self._vocabulary, self._n_classes), _dt.int64)
        unreduced = A.expand_dims(sparse_softmax_cross_entropy_with_logits(
            labels=A.squeeze(ids, [-1]), logits=logits), -1)
        weights = example_weights(features, self._weight_column, logits)
        return self.reduce(unreduced, weights), unreduced, weights, ids

    def eval_metric_ops(self, labels, logits, predictions, weights, unreduced):
        w = None if isinstance(weights, float) else weights
        key = lambda k: summary_key(self._name, k)  # noqa: E731
        return {key("average_loss"): self.loss_mean_metric(unreduced, weights),
                key("accuracy"): accuracy(labels, predictions["class_ids"], weights=w, name="accuracy")}


def classification_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    """Binary head for n_classes == 2, else multi-class (TF1's _binary_logistic_or_multi_class_head)."""
    if n_classes == 2:
        return BinaryClassHead(weight_column, label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction)


