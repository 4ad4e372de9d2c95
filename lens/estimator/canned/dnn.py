"""DNNClassifier and DNNRegressor (TF1.15 v1): `dnn/hiddenlayer_N/{kernel,bias}`, `dnn/logits/...`."""
from lens.estimator.canned.head import RegressionHead
from lens.estimator.canned.head_classification import classification_head
from lens.estimator.canned.optimizers import get_optimizer_instance
from lens.estimator.estimator import Estimator
from lens.estimator.model_fn import ModeKeys
from lens.events.summary_ops import histogram, scalar
from lens.feature_column import input_layer
from lens.framework.graph import GraphKeys, get_collection
from lens.layers import batch_normalization, dense, dropout as dropout_layer
from lens.losses.losses import Reduction
from lens.ops import array as A
from lens.ops import init_ops
from lens.ops.logic import equal
from lens.ops.nn import relu
from lens.ops.reduce import reduce_mean
from lens.ops.variable_scope import get_variable_scope, variable_scope

__all__ = ["DNNClassifier", "DNNRegressor", "dnn_logits"]

_LEARNING_RATE = 0.05


def add_hidden_layer_summary(value, tag):
    """`<tag>/fraction_of_zero_values` and the `<tag>/activation` histogram, as TF1's canned DNN."""
    zero_fraction = reduce_mean(A.cast(equal(value, 0.0), value.dtype.base_dtype))
    scalar("%s/fraction_of_zero_values" % tag, zero_fraction)
    histogram("%s/activation" % tag, value)


def dnn_logits(features, mode, units, hidden_units, feature_columns, activation_fn, dropout, batch_norm=False):
    """The DNN tower inside the current 'dnn' scope: input layer, hidden layers, logits."""
    with variable_scope("input_from_feature_columns", values=list(features.values())):
        net = input_layer(features, feature_columns)
    outer = get_variable_scope().name
    for layer_id, n in enumerate(hidden_units):
        name = "hiddenlayer_%d" % layer_id
        net = dense(net, units=n, activation=activation_fn,
                    kernel_initializer=init_ops.glorot_uniform_initializer(), name=name)
        if dropout is not None and mode == ModeKeys.TRAIN:
            net = dropout_layer(net, rate=dropout, training=True)
        if batch_norm:
            # TF1.15 normalizes after the activation, momentum 0.999: `hiddenlayer_N/batchnorm_N/...`.
            with variable_scope(name):
                net = batch_normalization(net, momentum=0.999, training=mode == ModeKeys.TRAIN,
                                          name="batchnorm_%d" % layer_id)
        add_hidden_layer_summary(net, "%s/%s" % (outer, name) if outer else name)
    logits = dense(net, units=units, activation=None, kernel_initializer=init_ops.glorot_uniform_initializer(),
                   name="logits")
    add_hidden_layer_summary(logits, "%s/logits" % outer if outer else "logits")
    return logits


def _check_features(features):
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}".format(type(features)))


def dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns, optimizer, activation_fn,
                 dropout, batch_norm=False):
    _check_features(features)
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    with variable_scope("dnn", values=list(features.values())) as scope:
        logits = dnn_logits(features, mode, head.logits_dimension, hidden_units, feature_columns,
                            activation_fn, dropout, batch_norm)
    set_slot_prefixes(scope.name)
    return head.create_estimator_spec(features=features, mode=mode, labels=labels, optimizer=optimizer,
                                      logits=logits)


def set_slot_prefixes(scope_name):
    """Name optimizer slots as TF1.15's canned estimators do (their variables were partitioned):
    `dnn/hiddenlayer_0/kernel/t_0/Adagrad`, `linear/linear_model/x/weights/part_0/Ftrl`."""
    for var in get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=scope_name + "/"):
        name = var.op.name
        tower = scope_name == "dnn" and "/input_from_feature_columns/" not in name
        var._slot_prefix = name + ("/t_0" if tower else "/part_0")


class _DNNEstimator(Estimator):
    def __init__(self, head, hidden_units, feature_columns, model_dir, optimizer, activation_fn, dropout,
                 config, warm_start_from, batch_norm=False):
        feature_columns = tuple(feature_columns or [])
        if not feature_columns:
            raise ValueError("feature_columns must not be empty.")

        def _model_fn(features, labels, mode, config):
            return dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns, optimizer,
                                activation_fn, dropout, batch_norm)
        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class DNNRegressor(_DNNEstimator):
    """A feed-forward regressor: relu hidden layers, mean squared error, Adagrad(0.05)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Adagrad", activation_fn=relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False):
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer, activation_fn, dropout,
                         config, warm_start_from, batch_norm)


class DNNClassifier(_DNNEstimator):
    """A feed-forward classifier: relu hidden layers, sigmoid/softmax cross entropy, Adagrad(0.05)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Adagrad", activation_fn=relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, batch_norm=False):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer, activation_fn, dropout,
                         config, warm_start_from, batch_norm)
