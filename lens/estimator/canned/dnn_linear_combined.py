"""DNNLinearCombinedClassifier / Regressor (TF1.15 v1): a `dnn/` tower plus a `linear/` model."""
from lens.estimator.canned.dnn import add_hidden_layer_summary, dnn_logits, set_slot_prefixes
from lens.estimator.canned.head import RegressionHead
from lens.estimator.canned.head_classification import classification_head
from lens.estimator.canned.linear import linear_learning_rate, linear_logits
from lens.estimator.canned.optimizers import get_optimizer_instance
from lens.estimator.estimator import Estimator
from lens.framework.graph import GraphKeys, control_dependencies, get_collection
from lens.losses.losses import Reduction
from lens.ops.core import group
from lens.ops.nn import relu
from lens.ops.variable_scope import variable_scope
from lens.ops.variables import assign_add
from lens.training.training_util import get_global_step

__all__ = ["DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor"]

_DNN_LEARNING_RATE = 0.001


def combined_model_fn(features, labels, mode, head, linear_columns, linear_optimizer, dnn_columns,
                      dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, linear_sparse_combiner,
                      batch_norm=False):
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}".format(type(features)))
    if not linear_columns and not dnn_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    dnn_part = linear_part = None
    if dnn_columns:
        if not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is specified.")
        dnn_opt = get_optimizer_instance(dnn_optimizer, learning_rate=_DNN_LEARNING_RATE)
        with variable_scope("dnn", values=list(features.values())) as scope:
            dnn_part = (dnn_logits(features, mode, head.logits_dimension, dnn_hidden_units, dnn_columns,
                                   dnn_activation_fn, dnn_dropout, batch_norm), scope.name, dnn_opt)
    if linear_columns:
        lin_opt = get_optimizer_instance(linear_optimizer, learning_rate=linear_learning_rate(len(linear_columns)))
        with variable_scope("linear", values=list(features.values())) as scope:
            logits = linear_logits(features, head.logits_dimension, linear_columns, linear_sparse_combiner)
            add_hidden_layer_summary(logits, scope.name)
            linear_part = (logits, scope.name, lin_opt)
    parts = [p for p in (dnn_part, linear_part) if p is not None]
    for _, scope_name, _ in parts:
        set_slot_prefixes(scope_name)
    logits = parts[0][0] if len(parts) == 1 else parts[0][0] + parts[1][0]

    def train_op_fn(loss):
        ops = [opt.minimize(loss, var_list=get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=scope_name))
               for _, scope_name, opt in parts]
        with control_dependencies([group(*ops)]):
            return assign_add(get_global_step(), 1).op
    return head.create_estimator_spec(features=features, mode=mode, labels=labels, train_op_fn=train_op_fn,
                                      logits=logits)


class _Combined(Estimator):
    def __init__(self, head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                 dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, config, warm_start_from,
                 linear_sparse_combiner, batch_norm):
        linear_columns = tuple(linear_feature_columns or [])
        dnn_columns = tuple(dnn_feature_columns or [])
        if not linear_columns and not dnn_columns:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")

        def _model_fn(features, labels, mode, config):
            return combined_model_fn(features, labels, mode, head, linear_columns, linear_optimizer, dnn_columns,
                                     dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                     linear_sparse_combiner, batch_norm)
        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class DNNLinearCombinedRegressor(_Combined):
    """Wide (linear, Ftrl) and deep (DNN, Adagrad) regression."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, label_dimension=1, weight_column=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, batch_norm=False, linear_sparse_combiner="sum"):
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                         dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, config,
                         warm_start_from, linear_sparse_combiner, batch_norm)


class DNNLinearCombinedClassifier(_Combined):
    """Wide (linear, Ftrl) and deep (DNN, Adagrad) classification."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, batch_norm=False, linear_sparse_combiner="sum"):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                         dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, config,
                         warm_start_from, linear_sparse_combiner, batch_norm)
