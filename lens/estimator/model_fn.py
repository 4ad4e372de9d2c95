"""ModeKeys and EstimatorSpec: what a model_fn returns, checked as TF1.15 checks it."""
import collections

from lens.framework.graph import Operation, Tensor, get_default_graph
from lens.ops import array as A
from lens.training.hooks import SessionRunHook
from lens.training.monitored_scaffold import Scaffold

__all__ = ["ModeKeys", "EstimatorSpec", "LOSS_METRIC_KEY", "AVERAGE_LOSS_METRIC_KEY"]

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"


class ModeKeys:
    """The three modes a model_fn is called in."""
    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_SPEC_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
                "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
                "prediction_hooks"]


def _check_tensor(x, name):
    if not isinstance(x, Tensor):
        raise TypeError("{} must be Tensor, given: {}".format(name, x))
    return x


def _check_in_graph(x, name):
    x = getattr(x, "_as_graph_element", lambda: x)()
    graph = x.graph if isinstance(x, (Tensor, Operation)) else None
    if graph is not None and graph is not get_default_graph():
        raise ValueError("{0} must be from the default graph. Possible causes of this error are: 1) {0} "
                         "was created outside the context of the default graph. 2) The object passed "
                         "through to EstimatorSpec was not created in the most recent call to "
                         '"model_fn".'.format(name))


def _check_hooks(hooks, what):
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook) and not all(
                hasattr(hook, m) for m in ("begin", "before_run", "after_run")):
            raise TypeError("All hooks must be SessionRunHook instances, given: {}".format(hook))
    return hooks


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _SPEC_FIELDS)):
    """Ops and objects returned by a model_fn; which fields are required depends on mode."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None, scaffold=None,
                evaluation_hooks=None, prediction_hooks=None):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError("mode={} unrecognized; use one of tf.estimator.ModeKeys "
                             "(TRAIN, EVAL, PREDICT).".format(mode))
        if predictions is None and mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        if loss is None and mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        if train_op is None and mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        if loss is not None:
            loss = _check_tensor(getattr(loss, "_as_graph_element", lambda: loss)(), "loss")
            n = loss.shape.num_elements()
            if n not in (None, 1):
                raise ValueError("Loss must be scalar, given: {}".format(loss))
            if loss.shape.ndims != 0:
                loss = A.reshape(loss, [])
            _check_in_graph(loss, "loss")
        if train_op is not None:
            element = getattr(train_op, "_as_graph_element", lambda: train_op)()
            if not isinstance(element, (Tensor, Operation)):
                raise TypeError("train_op must be Operation or Tensor, given: {}".format(train_op))
            _check_in_graph(element, "train_op")
        predictions = {} if predictions is None else predictions
        if isinstance(predictions, dict):
            for key, value in predictions.items():
                _check_tensor(value, "predictions[{}]".format(key))
                _check_in_graph(value, "prediction values")
        else:
            _check_tensor(predictions, "predictions")
            _check_in_graph(predictions, "prediction values")
        eval_metric_ops = {} if eval_metric_ops is None else eval_metric_ops
        if not isinstance(eval_metric_ops, dict):
            raise TypeError("eval_metric_ops must be a dict, given: {}".format(eval_metric_ops))
        for key, value in eval_metric_ops.items():
            if not isinstance(value, tuple) or len(value) != 2:
                raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) tuples, "
                                "given: {} for key: {}".format(value, key))
            _check_in_graph(value[0], "eval_metric_ops")
        scaffold = scaffold or Scaffold()
        if not isinstance(scaffold, Scaffold):
            raise TypeError("scaffold must be tf.train.Scaffold. Given: {}".format(scaffold))
        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=eval_metric_ops, export_outputs=export_outputs,
            training_chief_hooks=_check_hooks(training_chief_hooks, "training_chief_hooks"),
            training_hooks=_check_hooks(training_hooks, "training_hooks"), scaffold=scaffold,
            evaluation_hooks=_check_hooks(evaluation_hooks, "evaluation_hooks"),
            prediction_hooks=_check_hooks(prediction_hooks, "prediction_hooks"))

    def _replace(self, **kwds):
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        return EstimatorSpec(**dict(self._asdict(), **kwds))
