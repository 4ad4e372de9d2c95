"""tf.contrib.estimator: head factories, multi_head, and head-based DNN / linear estimators."""
from lens.estimator.canned.dnn import _DNNEstimator
from lens.estimator.canned.head import RegressionHead
from lens.estimator.canned.head_classification import BinaryClassHead, MultiClassHead
from lens.estimator.canned.linear import _LinearEstimator
from lens.estimator.canned.multi_head import multi_head
from lens.estimator.estimator import Estimator, fn_args
from lens.estimator.model_fn import ModeKeys
from lens.losses.losses import Reduction
from lens.ops.nn import relu

__all__ = ["regression_head", "binary_classification_head", "multi_class_head", "multi_head",
           "DNNEstimator", "LinearEstimator", "add_metrics"]

_METRIC_FN_ARGS = ("features", "labels", "predictions", "config")


def _no_loss_fn(loss_fn):
    if loss_fn is not None:
        raise NotImplementedError("custom loss_fn in contrib heads is not supported by lens yet")


def regression_head(weight_column=None, label_dimension=1, loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
                    loss_fn=None, inverse_link_fn=None, name=None):
    """Mean squared error head (contrib's default reduction: SUM_OVER_BATCH_SIZE)."""
    _no_loss_fn(loss_fn)
    if inverse_link_fn is not None:
        raise NotImplementedError("regression_head(inverse_link_fn=...) is not supported by lens yet")
    return RegressionHead(label_dimension, weight_column, loss_reduction, name)


def binary_classification_head(weight_column=None, thresholds=None, label_vocabulary=None,
                               loss_reduction=Reduction.SUM_OVER_BATCH_SIZE, loss_fn=None, name=None):
    """Sigmoid cross entropy head."""
    _no_loss_fn(loss_fn)
    return BinaryClassHead(weight_column, thresholds, label_vocabulary, loss_reduction, name)


def multi_class_head(n_classes, weight_column=None, label_vocabulary=None,
                     loss_reduction=Reduction.SUM_OVER_BATCH_SIZE, loss_fn=None, name=None):
    """Softmax cross entropy head."""
    _no_loss_fn(loss_fn)
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction, name)


class DNNEstimator(_DNNEstimator):
    """A DNN with a given head (e.g. a multi_head)."""

    def __init__(self, head, hidden_units, feature_columns, model_dir=None, optimizer="Adagrad",
                 activation_fn=relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, batch_norm=False):
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer, activation_fn, dropout,
                         config, warm_start_from, batch_norm)


class LinearEstimator(_LinearEstimator):
    """A linear model with a given head."""

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None, partitioner=None,
                 sparse_combiner="sum", warm_start_from=None):
        super().__init__(head, feature_columns, model_dir, optimizer, config, warm_start_from, sparse_combiner)


def add_metrics(estimator, metric_fn):
    """A copy of estimator whose evaluation also reports metric_fn's {name: (value, update_op)}."""
    args = fn_args(metric_fn)
    if "predictions" not in args:
        raise ValueError("metric_fn (%s) must include predictions argument." % metric_fn)
    unexpected = sorted(set(args) - set(_METRIC_FN_ARGS) - {"self"})
    if unexpected:
        raise ValueError("metric_fn (%s) has following not expected args: %s" % (metric_fn, unexpected))

    def new_model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        available = {"features": features, "labels": labels, "predictions": spec.predictions, "config": config}
        new_metrics = metric_fn(**{k: available[k] for k in args if k in available})
        all_metrics = dict(spec.eval_metric_ops or {})
        all_metrics.update(new_metrics)
        return spec._replace(eval_metric_ops=all_metrics)
    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir, config=estimator.config,
                     warm_start_from=estimator._warm_start_settings)
