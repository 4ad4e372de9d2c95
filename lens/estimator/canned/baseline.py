"""BaselineClassifier / BaselineRegressor (TF1.15): a learned bias only, `baseline/bias`, Ftrl(0.3)."""
from lens.estimator.canned.head import RegressionHead
from lens.estimator.canned.head_classification import classification_head
from lens.estimator.canned.optimizers import get_optimizer_instance
from lens.estimator.estimator import Estimator
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.losses.losses import Reduction
from lens.ops import array as A
from lens.ops import init_ops
from lens.ops.math import multiply
from lens.ops.variable_scope import get_variable, variable_scope

__all__ = ["BaselineClassifier", "BaselineRegressor"]

_LEARNING_RATE = 0.3


def _batch_size(features):
    """Dimension 0 of the first feature (by key), which the baseline's logits are tiled to."""
    if not isinstance(features, dict) or not features:
        raise ValueError("features should be a non-empty dictionary of `Tensor`s. Given: {}".format(features))
    key = sorted(features)[0]
    value = features[key]
    dense = getattr(value, "dense_shape", None)
    return A.cast(dense[0], _dt.int32) if dense is not None else A.shape(convert_to_tensor(value))[0]


def baseline_model_fn(features, labels, mode, head, optimizer):
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    batch = _batch_size(features)
    with variable_scope("baseline"):
        bias = get_variable("bias", shape=[head.logits_dimension], dtype=_dt.float32,
                            initializer=init_ops.zeros_initializer())
        logits = multiply(bias, A.ones(A.stack([batch, head.logits_dimension])))
    return head.create_estimator_spec(features=features, mode=mode, labels=labels, optimizer=optimizer,
                                      logits=logits)


class _Baseline(Estimator):
    def __init__(self, head, model_dir, optimizer, config):
        def _model_fn(features, labels, mode, config):
            return baseline_model_fn(features, labels, mode, head, optimizer)
        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineRegressor(_Baseline):
    """Predicts the (weighted) mean label: a bias trained with Ftrl."""

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl", config=None,
                 loss_reduction=Reduction.SUM):
        super().__init__(RegressionHead(label_dimension, weight_column, loss_reduction), model_dir, optimizer,
                         config)


class BaselineClassifier(_Baseline):
    """Predicts the class prior: a bias per class trained with Ftrl."""

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None, optimizer="Ftrl",
                 config=None, loss_reduction=Reduction.SUM):
        super().__init__(classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
                         model_dir, optimizer, config)
