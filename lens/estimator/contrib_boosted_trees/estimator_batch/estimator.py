"""tf.contrib.boosted_trees' GradientBoostedDecisionTreeClassifier / Regressor (TF1.15, tf.contrib.learn style:
fit / evaluate / predict) on the layer-by-layer kernels of tf.estimator.BoostedTrees*.

Without feature_columns every feature is a dense float whose bucket boundaries are its distinct
quantiles (num_quantiles) in the first training batch; multi-class models use one tree per layer
with a logit per class and the diagonal of the hessian (DIAGONAL_HESSIAN).
"""
from lens.estimator.canned import boosted_trees_ops as bt
from lens.estimator.canned.boosted_trees import _dense_features, ensemble_variables, tree_estimator_spec
from lens.estimator.canned.head import RegressionHead
from lens.estimator.canned.head_classification import BinaryClassHead, MultiClassHead
from lens.estimator.estimator import Estimator
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import control_dependencies
from lens.losses.losses import Reduction
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.core import group
from lens.ops.gradients import gradients
from lens.ops.variable_scope import variable_scope
from lens.ops.variables import Variable, assign_add
from lens.proto import boosted_trees_learner_pb2 as learner_pb2
from lens.training.training_util import get_global_step

__all__ = ["GradientBoostedDecisionTreeClassifier", "GradientBoostedDecisionTreeRegressor"]

_CONFIG = learner_pb2.LearnerConfig


def _learner_params(config, num_trees, examples_per_layer):
    """The kernels' parameters from a LearnerConfig; NotImplementedError for what lens lacks."""
    tuner = config.learning_rate_tuner.WhichOneof("tuner")
    if tuner not in (None, "fixed"):
        raise NotImplementedError("learning_rate_tuner.%s is not supported by lens; use "
                                  "learning_rate_tuner.fixed.learning_rate" % tuner)
    if config.growing_mode == _CONFIG.WHOLE_TREE:
        raise NotImplementedError("growing_mode WHOLE_TREE is not supported by lens; use LAYER_BY_LAYER")
    if config.pruning_mode == _CONFIG.POST_PRUNE:
        raise NotImplementedError("pruning_mode POST_PRUNE is not supported by lens; use PRE_PRUNE")
    if config.num_classes > 2 and config.multi_class_strategy != _CONFIG.DIAGONAL_HESSIAN:
        raise NotImplementedError("multi_class_strategy %s is not supported by lens; set "
                                  "learner_config.multi_class_strategy = LearnerConfig.DIAGONAL_HESSIAN"
                                  % _CONFIG.MultiClassStrategy.Name(config.multi_class_strategy))
    if num_trees is None or int(num_trees) < 1:
        raise ValueError("num_trees must be a positive number of trees in lens (got %r)" % (num_trees,))
    if int(examples_per_layer) < 1:
        raise ValueError("examples_per_layer must be positive, got %r" % (examples_per_layer,))
    reg = config.regularization
    pre = config.pruning_mode == _CONFIG.PRE_PRUNE
    return {"n_trees": int(num_trees), "max_depth": int(config.constraints.max_tree_depth or 6),
            "learning_rate": float(config.learning_rate_tuner.fixed.learning_rate or 0.1),
            "l1_regularization": float(reg.l1), "l2_regularization": float(reg.l2),
            "tree_complexity": float(reg.tree_complexity) if pre else 0.0,
            "min_node_weight": float(config.constraints.min_node_weight),
            "examples_per_layer": int(examples_per_layer)}


def _buckets(features, feature_columns, num_quantiles, training):
    """(bucket ids [n, F], bucket counts [F]) from feature columns or from every dense float feature."""
    if feature_columns:
        raw, boundaries = _dense_features(features, sorted(feature_columns, key=lambda c: c.name))
        return bt.bucketize(raw, boundaries), [len(b) + 1 for b in boundaries]
    cols = []
    for key in sorted(features):
        t = M.cast(convert_to_tensor(features[key], name=key), _dt.float32)
        cols.append(t if t.shape.ndims == 2 else A.reshape(t, [-1, 1]))
    raw = cols[0] if len(cols) == 1 else A.concat(cols, 1)
    width = raw.shape.as_list()[-1]
    if width is None:
        raise ValueError("GradientBoostedDecisionTree* needs features of a known width; got %s" % raw.shape)
    bounds = Variable(A.fill([width, int(num_quantiles)], convert_to_tensor(float("nan"), _dt.float32)),
                      trainable=False, name="quantile_boundaries")
    return bt.quantile_bucketize(raw, bounds, learn=training)


def _model_fn(features, labels, mode, head, params, feature_columns, num_quantiles):
    if not isinstance(features, dict):
        features = {"": features}
    with variable_scope("boosted_trees"):
        buckets, num_buckets = _buckets(features, feature_columns, num_quantiles, mode == "train")
        ensemble = ensemble_variables(params["n_trees"], params["max_depth"], head.logits_dimension)
        logits = bt.ensemble_logits(buckets, ensemble)

    def train_op_fn(loss):
        grads = gradients(loss, logits, name="Gradients")[0]
        if head.logits_dimension == 1:
            hess = gradients(grads, logits, name="Hessians")[0]
        else:
            # The diagonal of the hessian: d(grad_k)/d(logit_k) for each class k.
            hess = A.stack([gradients(grads[:, k], logits, name="Hessians_%d" % k)[0][:, k]
                            for k in range(head.logits_dimension)], axis=1)
        grow = bt.grow_layer(buckets, grads, hess, ensemble, params["learning_rate"], params["l1_regularization"],
                             params["l2_regularization"], params["tree_complexity"], params["min_node_weight"], 1,
                             params["max_depth"], num_buckets, examples_per_layer=params["examples_per_layer"])
        with control_dependencies([grow]):
            return group(assign_add(get_global_step(), 1))

    return tree_estimator_spec(head, features, mode, labels, logits, train_op_fn, ensemble, params["n_trees"])


class _GradientBoostedDecisionTree(Estimator):
    def __init__(self, head, learner_config, examples_per_layer, num_trees, feature_columns, model_dir, config,
                 center_bias, num_quantiles):
        if center_bias:
            raise NotImplementedError("center_bias=True is not supported by lens's boosted trees; pass "
                                      "center_bias=False")
        params = _learner_params(learner_config, num_trees, examples_per_layer)

        def model_fn(features, labels, mode, config):
            return _model_fn(features, labels, mode, head, params, feature_columns, num_quantiles)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)

    def fit(self, x=None, y=None, input_fn=None, steps=None, batch_size=None, monitors=None, max_steps=None):
        """tf.contrib.learn's fit: train on input_fn (x/y arrays are not supported here)."""
        if x is not None or y is not None or input_fn is None:
            raise ValueError("fit needs input_fn (lens does not take x/y here: wrap arrays with "
                             "tf.estimator.inputs.numpy_input_fn)")
        self.train(input_fn, hooks=monitors, steps=steps, max_steps=max_steps)
        return self

    def evaluate(self, x=None, y=None, input_fn=None, feed_fn=None, batch_size=None, steps=None, metrics=None,
                 name=None, checkpoint_path=None, hooks=None):
        """tf.contrib.learn's evaluate: the head's metrics ('accuracy', 'loss', ...) on input_fn."""
        if x is not None or y is not None or input_fn is None or metrics:
            raise ValueError("evaluate needs input_fn and no extra metrics in lens")
        return super().evaluate(input_fn, steps=steps, hooks=hooks, checkpoint_path=checkpoint_path, name=name)

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True, **kwargs):
        """tf.contrib.learn's predict: an iterator of prediction dicts over input_fn."""
        if x is not None or input_fn is None or not as_iterable:
            raise ValueError("predict needs input_fn and as_iterable=True in lens")
        return super().predict(input_fn, predict_keys=outputs, **kwargs)


class GradientBoostedDecisionTreeClassifier(_GradientBoostedDecisionTree):
    """A boosted-trees classifier; n_classes > 2 uses the diagonal hessian over one logit per class."""

    def __init__(self, learner_config, examples_per_layer, n_classes=2, num_trees=None, feature_columns=None,
                 weight_column_name=None, model_dir=None, config=None, label_keys=None,
                 feature_engineering_fn=None, logits_modifier_function=None, center_bias=True,
                 use_core_libs=False, output_leaf_index=False, override_global_step_value=None,
                 num_quantiles=100):
        if n_classes < 2:
            raise ValueError("n_classes must be >= 2, got %r" % (n_classes,))
        learner_config.num_classes = n_classes
        if n_classes == 2:
            head = BinaryClassHead(weight_column_name, label_vocabulary=label_keys,
                                   loss_reduction=Reduction.SUM_OVER_BATCH_SIZE)
        else:
            head = MultiClassHead(n_classes, weight_column_name, label_keys, Reduction.SUM_OVER_BATCH_SIZE)
        super().__init__(head, learner_config, examples_per_layer, num_trees, feature_columns, model_dir, config,
                         center_bias, num_quantiles)


class GradientBoostedDecisionTreeRegressor(_GradientBoostedDecisionTree):
    """A boosted-trees regressor (squared error)."""

    def __init__(self, learner_config, examples_per_layer, label_dimension=1, num_trees=None,
                 feature_columns=None, label_name=None, weight_column_name=None, model_dir=None, config=None,
                 feature_engineering_fn=None, logits_modifier_function=None, center_bias=True,
                 use_core_libs=False, output_leaf_index=False, override_global_step_value=None,
                 num_quantiles=100):
        if label_dimension != 1:
            raise ValueError("lens supports label_dimension=1, got %r" % (label_dimension,))
        learner_config.num_classes = 2
        head = RegressionHead(1, weight_column_name, Reduction.SUM_OVER_BATCH_SIZE)
        super().__init__(head, learner_config, examples_per_layer, num_trees, feature_columns, model_dir, config,
                         center_bias, num_quantiles)
