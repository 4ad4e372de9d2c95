"""tf.estimator.BoostedTreesClassifier / BoostedTreesRegressor (TF1.15): gradient boosted trees grown
layer by layer from bucketized features (kernels and the split rule in boosted_trees_ops)."""
import numpy as np

from lens.estimator.canned import boosted_trees_ops as bt
from lens.estimator.canned.head import RegressionHead
from lens.estimator.canned.head_classification import BinaryClassHead
from lens.estimator.estimator import Estimator
from lens.feature_column import input_layer
from lens.feature_column.dense import _BucketizedColumn, _IndicatorColumn
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
from lens.training.hooks import SessionRunArgs, SessionRunHook
from lens.training.training_util import get_global_step

__all__ = ["BoostedTreesClassifier", "BoostedTreesRegressor"]


def _dense_features(features, feature_columns):
    """(raw float values [n, F], per-feature boundaries): bucketized columns by their boundaries, each
    indicator dimension a 0/1 feature split at 0.5, in TF's column order (sorted by name)."""
    values, boundaries = [], []
    for col in feature_columns:
        if isinstance(col, _BucketizedColumn):
            src = col.source_column
            raw = M.cast(convert_to_tensor(features[src.key]), _dt.float32)
            width = int(np.prod(src.shape))
            values.append(A.reshape(raw, [-1, width]))
            boundaries += [list(col.boundaries)] * width
        elif isinstance(col, _IndicatorColumn):
            dense = input_layer(features, [col])
            values.append(dense)
            boundaries += [[0.5]] * col.variable_shape.num_elements()
        else:
            raise ValueError("BoostedTrees takes bucketized_column and indicator_column feature columns; got %r "
                             "(wrap a numeric_column in tf.feature_column.bucketized_column(column, boundaries))"
                             % (getattr(col, "name", col),))
    return (values[0] if len(values) == 1 else A.concat(values, 1)), boundaries


def ensemble_variables(n_trees, max_depth, logits_dim=1):
    nodes = 2 ** (max_depth + 1) - 1

    def var(name, shape, dtype, value=0):
        return Variable(A.fill(shape, convert_to_tensor(value, dtype=dtype)), trainable=False, name=name)
    return {"feature": var("tree_feature", [n_trees, nodes], _dt.int32, -1),
            "threshold": var("tree_threshold", [n_trees, nodes], _dt.int32),
            "left": var("tree_left", [n_trees, nodes], _dt.int32),
            "value": var("tree_value", [n_trees, nodes, logits_dim], _dt.float32, 0.0),
            "size": var("tree_size", [n_trees], _dt.int32, 1),
            "state": var("ensemble_state", [4], _dt.int64)}


class _StopAfterTreesHook(SessionRunHook):
    """Stops training once n_trees trees are finalized (TF's stop-at-attempts hook)."""

    def __init__(self, state, n_trees):
        self._state, self._n_trees = state, n_trees

    def before_run(self, run_context):
        return SessionRunArgs(self._state)

    def after_run(self, run_context, run_values):
        # The fetched state is from before this step's growth; the next step sees it finished.
        if run_values.results[bt.FINALIZED] >= self._n_trees:
            run_context.request_stop()


def _model_fn(features, labels, mode, head, feature_columns, tree_params, config):
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}".format(type(features)))
    p = tree_params
    with variable_scope("boosted_trees"):
        raw, boundaries = _dense_features(features, feature_columns)
        buckets = bt.bucketize(raw, boundaries)
        num_buckets = [len(b) + 1 for b in boundaries]
        ensemble = ensemble_variables(p["n_trees"], p["max_depth"], head.logits_dimension)
        logits = bt.ensemble_logits(buckets, ensemble)

    def train_op_fn(loss):
        grads = gradients(loss, logits, name="Gradients")[0]
        hess = gradients(grads, logits, name="Hessians")[0]
        grow = bt.grow_layer(buckets, grads, hess, ensemble, p["learning_rate"], p["l1_regularization"],
                             p["l2_regularization"], p["tree_complexity"], p["min_node_weight"],
                             p["n_batches_per_layer"], p["max_depth"], num_buckets)
        with control_dependencies([grow]):
            return group(assign_add(get_global_step(), 1))

    return tree_estimator_spec(head, features, mode, labels, logits, train_op_fn, ensemble, p["n_trees"])


def tree_estimator_spec(head, features, mode, labels, logits, train_op_fn, ensemble, n_trees):
    """The head's EstimatorSpec; training also stops once the ensemble holds n_trees finished trees."""
    spec = head.create_estimator_spec(features=features, mode=mode, labels=labels, logits=logits,
                                      train_op_fn=train_op_fn)
    if mode == "train":
        spec = spec._replace(training_hooks=tuple(spec.training_hooks) +
                             (_StopAfterTreesHook(ensemble["state"], n_trees),))
    return spec


class _BoostedTrees(Estimator):
    def __init__(self, head, feature_columns, n_batches_per_layer, model_dir, n_trees, max_depth, learning_rate,
                 l1_regularization, l2_regularization, tree_complexity, min_node_weight, config, center_bias,
                 pruning_mode, quantile_sketch_epsilon, train_in_memory):
        feature_columns = sorted(feature_columns or [], key=lambda c: c.name)
        if not feature_columns:
            raise ValueError("feature_columns must not be empty.")
        if center_bias:
            raise NotImplementedError("center_bias=True is not supported by lens's BoostedTrees yet; pass "
                                      "center_bias=False")
        if pruning_mode not in ("none", "pre"):
            raise ValueError("pruning_mode must be 'none' or 'pre' in lens (got %r)" % (pruning_mode,))
        if pruning_mode == "pre" and tree_complexity <= 0:
            raise ValueError("tree_complexity must be positive if pruning is enabled")
        for name, v in (("l1_regularization", l1_regularization), ("l2_regularization", l2_regularization),
                        ("tree_complexity", tree_complexity), ("min_node_weight", min_node_weight)):
            if v < 0:
                raise ValueError("%s must be non-negative, got %r" % (name, v))
        if int(n_batches_per_layer) < 1 or int(n_trees) < 1 or int(max_depth) < 1:
            raise ValueError("n_batches_per_layer, n_trees and max_depth must be positive")
        params = {"n_trees": int(n_trees), "max_depth": int(max_depth), "learning_rate": float(learning_rate),
                  "l1_regularization": float(l1_regularization), "l2_regularization": float(l2_regularization),
                  "tree_complexity": float(tree_complexity) if pruning_mode == "pre" else 0.0,
                  "min_node_weight": float(min_node_weight), "n_batches_per_layer": int(n_batches_per_layer)}

        def model_fn(features, labels, mode, config):
            return _model_fn(features, labels, mode, head, feature_columns, params, config)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BoostedTreesClassifier(_BoostedTrees):
    """Binary classification by gradient boosted trees (TF1.15 supports n_classes=2)."""

    def __init__(self, feature_columns, n_batches_per_layer, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, n_trees=100, max_depth=6, learning_rate=0.1, l1_regularization=0.,
                 l2_regularization=0., tree_complexity=0., min_node_weight=0., config=None, center_bias=False,
                 pruning_mode="none", quantile_sketch_epsilon=0.01, train_in_memory=False):
        if n_classes != 2:
            raise ValueError("For now only binary classification is supported. n_classes given: {}".format(n_classes))
        head = BinaryClassHead(weight_column, label_vocabulary=label_vocabulary,
                               loss_reduction=Reduction.SUM_OVER_BATCH_SIZE)
        super().__init__(head, feature_columns, n_batches_per_layer, model_dir, n_trees, max_depth, learning_rate,
                         l1_regularization, l2_regularization, tree_complexity, min_node_weight, config,
                         center_bias, pruning_mode, quantile_sketch_epsilon, train_in_memory)


class BoostedTreesRegressor(_BoostedTrees):
    """Regression by gradient boosted trees (squared error)."""

    def __init__(self, feature_columns, n_batches_per_layer, model_dir=None, label_dimension=1, weight_column=None,
                 n_trees=100, max_depth=6, learning_rate=0.1, l1_regularization=0., l2_regularization=0.,
                 tree_complexity=0., min_node_weight=0., config=None, center_bias=False, pruning_mode="none",
                 quantile_sketch_epsilon=0.01, train_in_memory=False):
        if label_dimension != 1:
            raise ValueError("For now only label_dimension=1 is supported. label_dimension given: {}"
                             .format(label_dimension))
        head = RegressionHead(label_dimension, weight_column, Reduction.SUM_OVER_BATCH_SIZE)
        super().__init__(head, feature_columns, n_batches_per_layer, model_dir, n_trees, max_depth, learning_rate,
                         l1_regularization, l2_regularization, tree_complexity, min_node_weight, config,
                         center_bias, pruning_mode, quantile_sketch_epsilon, train_in_memory)
