"""TF1.15's canned heads (v1): loss, predictions, eval metrics and train op from logits.

Shared by the canned estimators and tf.contrib.estimator: a regression head (mean squared
error), a binary head (sigmoid cross entropy) and a multi-class head (softmax cross entropy),
with TF1.15's prediction keys, metric keys, summaries and default loss reduction (SUM)."""
from lens.estimator.export import PredictOutput, RegressionOutput
from lens.estimator.model_fn import AVERAGE_LOSS_METRIC_KEY, LOSS_METRIC_KEY, EstimatorSpec, ModeKeys
from lens.events.summary_ops import scalar as summary_scalar
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, control_dependencies, get_collection, name_scope
from lens.losses.losses import Reduction, compute_weighted_loss
from lens.metrics import mean as metric_mean
from lens.ops import array as A
from lens.ops.core import group, identity
from lens.ops.math import add_n, div, squared_difference
from lens.ops.reduce import reduce_sum
from lens.training.training_util import get_global_step

__all__ = ["RegressionHead", "check_reduction", "summary_key"]

DEFAULT_SERVING_KEY = "serving_default"


def summary_key(head_name, key):
    """key, or key/head_name for a named head (TF1's _summary_key)."""
    return "%s/%s" % (key, head_name) if head_name else key


def check_reduction(loss_reduction):
    if loss_reduction not in Reduction.all() or loss_reduction == Reduction.NONE:
        raise ValueError("Invalid loss_reduction: {}".format(loss_reduction))


def labels_like_logits(labels, logits, expected_dim):
    """Dense labels shaped [batch, expected_dim] (a rank-1 label gains its last axis)."""
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: "
                         "Check that your data contain your label feature. Check that your input_fn "
                         "properly parses and returns labels.")
    if isinstance(labels, dict):
        raise ValueError("labels must be a Tensor for this head, got a dict with keys {}".format(sorted(labels)))
    labels = convert_to_tensor(labels)
    with name_scope(None, "labels", (labels, logits)):
        if labels.shape.ndims == 1 or (labels.shape.ndims is not None and logits.shape.ndims is not None
                                       and labels.shape.ndims == logits.shape.ndims - 1):
            labels = A.expand_dims(labels, -1)
        last = labels.shape.as_list()[-1] if labels.shape.ndims else None
        if last is not None and last != expected_dim:
            raise ValueError("Mismatched label shape. Expected labels dimension=%s.  Received %s. Suggested "
                             "Fix: check your n_classes argument to the estimator and/or the shape of your "
                             "label." % (expected_dim, last))
        return labels


def example_weights(features, weight_column, logits):
    """Per-example weights [batch, 1] from features[weight_column], or 1.0."""
    if weight_column is None:
        return 1.0
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    if not isinstance(features, dict) or key not in features:
        raise ValueError("weight_column {} is not in features; features keys: {}".format(
            key, sorted(features) if isinstance(features, dict) else type(features).__name__))
    weights = A.cast(convert_to_tensor(features[key]), _dt.float32)
    if weights.shape.ndims == 1:
        weights = A.expand_dims(weights, -1)
    return weights


def append_update_ops(train_op):
    update_ops = get_collection(GraphKeys.UPDATE_OPS)
    return group(train_op, *update_ops) if update_ops else train_op


def make_train_op(loss, optimizer, train_op_fn):
    if optimizer is not None:
        if train_op_fn is not None:
            raise ValueError("train_op_fn and optimizer cannot both be set.")
        return append_update_ops(optimizer.minimize(loss, global_step=get_global_step()))
    if train_op_fn is None:
        raise ValueError("train_op_fn and optimizer cannot both be None.")
    return append_update_ops(train_op_fn(loss))


class BaseHead:
    """Shared spec building: predict, eval (metrics) and train (train op, loss summaries)."""

    def __init__(self, weight_column, loss_reduction, name):
        check_reduction(loss_reduction)
        self._weight_column, self._loss_reduction, self._name = weight_column, loss_reduction, name

    name = property(lambda self: self._name)

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              train_op_fn=None, regularization_losses=None):
        """The EstimatorSpec of this head for mode."""
        with name_scope(self._name, "head"):
            logits = convert_to_tensor(logits)
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(mode=mode, predictions=predictions,
                                     export_outputs=self.export_outputs(predictions))
            loss, unreduced, weights, processed = self.create_loss(features, logits, labels)
            reg = add_n(list(regularization_losses)) if regularization_losses else None
            total = add_n([loss, reg]) if reg is not None else loss
            if mode == ModeKeys.EVAL:
                with name_scope(None, "metrics"):
                    metrics = self.eval_metric_ops(processed, logits, predictions, weights, unreduced)
                    if reg is not None:
                        metrics[summary_key(self._name, "regularization_loss")] = metric_mean(
                            reg, name="regularization_loss")
                return EstimatorSpec(mode=mode, predictions=predictions, loss=total, eval_metric_ops=metrics)
            train_op = make_train_op(total, optimizer, train_op_fn)
            mean_loss = None
            if self._loss_reduction == Reduction.SUM:
                mean_loss = div(loss, reduce_sum(weights * A.ones_like(unreduced)))
        with name_scope(""):
            summary_scalar(summary_key(self._name, LOSS_METRIC_KEY), total)
            if mean_loss is not None:
                summary_scalar(summary_key(self._name, AVERAGE_LOSS_METRIC_KEY), mean_loss)
            if reg is not None:
                summary_scalar(summary_key(self._name, "regularization_loss"), reg)
        return EstimatorSpec(mode=mode, predictions=predictions, loss=total, train_op=train_op)

    def reduce(self, unreduced, weights):
        return compute_weighted_loss(unreduced, weights=weights, reduction=self._loss_reduction,
                                     loss_collection=None)

    def loss_mean_metric(self, unreduced, weights):
        return metric_mean(unreduced, weights=_none_if_one(weights), name=AVERAGE_LOSS_METRIC_KEY)


def _none_if_one(weights):
    return None if isinstance(weights, float) else weights


class RegressionHead(BaseHead):
    """Mean squared error on [batch, label_dimension] logits; predictions = logits."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=Reduction.SUM, name=None):
        if label_dimension < 1:
            raise ValueError("Invalid label_dimension %s." % label_dimension)
        super().__init__(weight_column, loss_reduction, name)
        self._logits_dimension = label_dimension

    logits_dimension = property(lambda self: self._logits_dimension)

    def predictions(self, logits):
        return {"predictions": logits}

    def export_outputs(self, predictions):
        regression = RegressionOutput(predictions["predictions"])
        return {DEFAULT_SERVING_KEY: regression, "regression": regression,
                "predict": PredictOutput(predictions)}

    def create_loss(self, features, logits, labels):
        labels = A.cast(labels_like_logits(labels, logits, self._logits_dimension), _dt.float32)
        unreduced = squared_difference(labels, logits)
        weights = example_weights(features, self._weight_column, logits)
        return self.reduce(unreduced, weights), unreduced, weights, labels

    def eval_metric_ops(self, labels, logits, predictions, weights, unreduced):
        w = _none_if_one(weights)
        return {
            summary_key(self._name, AVERAGE_LOSS_METRIC_KEY): self.loss_mean_metric(unreduced, weights),
            summary_key(self._name, "prediction/mean"): metric_mean(predictions["predictions"], weights=w,
                                                                    name="prediction/mean"),
            summary_key(self._name, "label/mean"): metric_mean(labels, weights=w, name="label/mean"),
        }


def identity_with_deps(x, deps):
    with control_dependencies(deps):
        return identity(x)
