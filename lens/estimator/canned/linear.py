"""LinearClassifier and LinearRegressor (TF1.15 v1): `linear/linear_model/<column>/weights`."""
import math

from lens.estimator.canned.head import RegressionHead
from lens.estimator.canned.head_classification import classification_head
from lens.estimator.canned.dnn import set_slot_prefixes
from lens.estimator.canned.optimizers import get_optimizer_instance
from lens.estimator.estimator import Estimator
from lens.events.summary_ops import histogram, scalar
from lens.feature_column import linear_model
from lens.losses.losses import Reduction
from lens.ops import array as A
from lens.ops.logic import equal
from lens.ops.math import add_n, divide
from lens.ops.reduce import reduce_sum
from lens.ops.variable_scope import variable_scope

__all__ = ["LinearClassifier", "LinearRegressor", "linear_logits", "linear_learning_rate"]

_LEARNING_RATE = 0.2


def linear_learning_rate(num_columns):
    """TF1's default Ftrl rate: min(0.2, 1 / sqrt(number of columns))."""
    return min(_LEARNING_RATE, 1.0 / math.sqrt(num_columns))


def linear_logits(features, units, feature_columns, sparse_combiner):
    """linear_model in the current 'linear' scope, with the bias and zero-weight summaries."""
    cols_to_vars = {}
    logits = linear_model(features, feature_columns, units=units, sparse_combiner=sparse_combiner,
                          cols_to_vars=cols_to_vars)
    bias = cols_to_vars.pop("bias")[0]
    if units > 1:
        histogram("bias", bias)
    else:
        scalar("bias", A.reshape(bias, [-1])[0])
    weights = [v for vs in cols_to_vars.values() for v in vs]
    zeros = add_n([reduce_sum(A.cast(equal(w, 0.0), "float32")) for w in weights])
    total = sum(w.shape.num_elements() for w in weights)
    scalar("fraction_of_zero_weights", divide(zeros, float(total)))
    return logits


def linear_model_fn(features, labels, mode, head, feature_columns, optimizer, sparse_combiner):
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}".format(type(features)))
    optimizer = get_optimizer_instance(optimizer or "Ftrl",
                                       learning_rate=linear_learning_rate(len(feature_columns)))
    with variable_scope("linear", values=list(features.values())) as scope:
        logits = linear_logits(features, head.logits_dimension, feature_columns, sparse_combiner)
    set_slot_prefixes(scope.name)
    return head.create_estimator_spec(features=features, mode=mode, labels=labels, optimizer=optimizer,
                                      logits=logits)


class _LinearEstimator(Estimator):
    def __init__(self, head, feature_columns, model_dir, optimizer, config, warm_start_from, sparse_combiner):
        feature_columns = tuple(feature_columns or [])
        if not feature_columns:
            raise ValueError("feature_columns must not be empty.")

        def _model_fn(features, labels, mode, config):
            return linear_model_fn(features, labels, mode, head, feature_columns, optimizer, sparse_combiner)
        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class LinearRegressor(_LinearEstimator):
    """Linear regression over feature columns, trained with Ftrl by default."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config, warm_start_from, sparse_combiner)


class LinearClassifier(_LinearEstimator):
    """Logistic (or softmax) regression over feature columns, trained with Ftrl by default."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config, warm_start_from, sparse_combiner)
