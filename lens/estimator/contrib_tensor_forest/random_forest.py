"""tf.contrib.tensor_forest.client.random_forest.TensorForestEstimator: a classification forest
(tensor_forest's RandomForestGraphs) as a tf.contrib.learn estimator (fit / evaluate / predict).

The head sees log-probabilities as logits, so its predictions are the forest's averaged class
probabilities; a train step grows every tree on the batch and counts one global step. Training
stops after early_stopping_rounds steps whose forest size (TF's stand-in loss, minus the average
tree size) improved by less than early_stopping_loss_threshold, as TF's TensorForestLossHook.
"""
from lens.estimator.canned.head_classification import BinaryClassHead, MultiClassHead
from lens.estimator.estimator import Estimator
from lens.framework.graph import control_dependencies
from lens.losses.losses import Reduction
from lens.ops import math as M
from lens.ops.core import group
from lens.ops.variables import assign_add
from lens.tensor_forest.python.tensor_forest import RandomForestGraphs
from lens.training.hooks import SessionRunArgs, SessionRunHook
from lens.training.training_util import get_global_step

__all__ = ["TensorForestEstimator", "TensorForestLossHook"]


class TensorForestLossHook(SessionRunHook):
    """Requests a stop once the loss has not improved by threshold for early_stopping_rounds steps."""

    def __init__(self, loss, early_stopping_rounds=100, early_stopping_loss_threshold=0.001):
        self._loss, self._rounds, self._threshold = loss, early_stopping_rounds, early_stopping_loss_threshold
        self._best, self._since = None, 0

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        loss = float(run_values.results)
        if self._best is None or loss < self._best - self._threshold:
            self._best, self._since = loss, 0
        else:
            self._since += 1
            if self._since >= self._rounds:
                run_context.request_stop()


def _model_fn(features, labels, mode, params, graph_builder_class, rounds, threshold, feature_columns):
    if feature_columns:
        raise NotImplementedError("lens's TensorForestEstimator takes dense features (a tensor or a dict of "
                                  "them), not feature_columns")
    data = features if not isinstance(features, dict) or len(features) != 1 else next(iter(features.values()))
    forest = graph_builder_class(params)
    probs = forest.inference_graph(data)[0]
    logits = M.log(M.maximum(probs, 1e-12))
    head = (BinaryClassHead(loss_reduction=Reduction.SUM_OVER_BATCH_SIZE) if params.num_classes == 2 else
            MultiClassHead(params.num_classes, loss_reduction=Reduction.SUM_OVER_BATCH_SIZE))
    if params.num_classes == 2:
        logits = M.subtract(logits[:, 1:], logits[:, :1])     # the binary head's one logit: log p1/p0
    forest_loss = forest.training_loss(data, labels)

    def train_op_fn(loss):
        grow = forest.training_graph(data, labels)
        with control_dependencies([grow]):
            return group(assign_add(get_global_step(), 1))

    spec = head.create_estimator_spec(features=features if isinstance(features, dict) else {"": features},
                                      mode=mode, labels=labels, logits=logits, train_op_fn=train_op_fn)
    if mode == "train":
        spec = spec._replace(training_hooks=tuple(spec.training_hooks) +
                             (TensorForestLossHook(forest_loss, rounds, threshold),))
    return spec


class TensorForestEstimator(Estimator):
    """A random forest classifier estimator with tf.contrib.learn's fit / evaluate / predict."""

    def __init__(self, params, device_assigner=None, model_dir=None, feature_engineering_fn=None,
                 graph_builder_class=RandomForestGraphs, config=None, weight_column=None, keys_column=None,
                 feature_columns=None, early_stopping_rounds=100, early_stopping_loss_threshold=0.001,
                 num_trainers=1, trainer_id=0, report_feature_importances=False, local_eval=False,
                 version=None, head=None, include_all_in_serving=False):
        if getattr(params, "regression", False):
            raise NotImplementedError("lens's TensorForestEstimator classifies (regression=True is not supported)")
        if head is not None or weight_column is not None or keys_column is not None:
            raise NotImplementedError("lens's TensorForestEstimator takes no head, weight_column or keys_column")
        if not hasattr(params, "num_output_columns"):
            raise ValueError("TensorForestEstimator needs filled params: pass ForestHParams(...).fill()")

        def model_fn(features, labels, mode, config):
            return _model_fn(features, labels, mode, params, graph_builder_class, early_stopping_rounds,
                             early_stopping_loss_threshold, feature_columns)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)

    def fit(self, x=None, y=None, input_fn=None, steps=None, batch_size=None, monitors=None, max_steps=None):
        """tf.contrib.learn's fit: train on input_fn."""
        if x is not None or y is not None or input_fn is None:
            raise ValueError("fit needs input_fn (wrap arrays with tf.estimator.inputs.numpy_input_fn)")
        self.train(input_fn, hooks=monitors, steps=steps, max_steps=max_steps)
        return self

    def evaluate(self, x=None, y=None, input_fn=None, feed_fn=None, batch_size=None, steps=None, metrics=None,
                 name=None, checkpoint_path=None, hooks=None):
        """tf.contrib.learn's evaluate: the head's metrics ('accuracy', 'loss', ...) on input_fn."""
        if x is not None or y is not None or input_fn is None or metrics:
            raise ValueError("evaluate needs input_fn and no extra metrics in lens")
        return super().evaluate(input_fn, steps=steps, hooks=hooks, checkpoint_path=checkpoint_path, name=name)

    def predict(self, x=None, input_fn=None, axis=None, batch_size=None, outputs=None, as_iterable=True,
                **kwargs):
        """tf.contrib.learn's predict: an iterator of dicts ('probabilities', 'class_ids', ...)."""
        if x is not None or input_fn is None or not as_iterable:
            raise ValueError("predict needs input_fn and as_iterable=True in lens")
        return super().predict(input_fn, predict_keys=outputs, **kwargs)
