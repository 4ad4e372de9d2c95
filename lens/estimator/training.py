"""tf.estimator.train_and_evaluate with TrainSpec / EvalSpec (TF1.15's local mode).

Training runs once; an evaluation follows every new checkpoint (at most every throttle_secs)
and always the last one, through a CheckpointSaverListener, as TF1.15's local executor does."""
import collections
import logging
import os

from lens.estimator.estimator import Estimator, _check_hooks_type
from lens.estimator.exporter import Exporter
from lens.training.hooks import SecondOrStepTimer
from lens.training.hooks_checkpoint import CheckpointSaverListener

__all__ = ["TrainSpec", "EvalSpec", "train_and_evaluate"]

_log = logging.getLogger("lens")


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """What to train on and until which global step."""

    def __new__(cls, input_fn, max_steps=None, hooks=None):
        if not callable(input_fn):
            raise TypeError("`input_fn` must be callable, given: {}".format(input_fn))
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        return super().__new__(cls, input_fn, max_steps, tuple(_check_hooks_type(hooks)))


class EvalSpec(collections.namedtuple("EvalSpec", ["input_fn", "steps", "name", "hooks", "exporters",
                                                   "start_delay_secs", "throttle_secs"])):
    """What to evaluate on, for how many steps, and how often."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None, start_delay_secs=120,
                throttle_secs=600):
        if not callable(input_fn):
            raise TypeError("`input_fn` must be callable, given: {}".format(input_fn))
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if name is not None and not isinstance(name, str):
            raise TypeError("`name` must be string, given: {}".format(name))
        if start_delay_secs < 0:
            raise ValueError("Must specify start_delay_secs >= 0, given: {}".format(start_delay_secs))
        if throttle_secs < 0:
            raise ValueError("Must specify throttle_secs >= 0, given: {}".format(throttle_secs))
        return super().__new__(cls, input_fn, steps, name, tuple(_check_hooks_type(hooks)),
                               _check_exporters(exporters), start_delay_secs, throttle_secs)


def _check_exporters(exporters):
    if exporters is None:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    names = []
    for exporter in exporters:
        if not isinstance(exporter, Exporter):
            raise TypeError("`exporters` must be an Exporter, an iterable of Exporter, or `None`, found "
                            "{}.".format(exporter))
        if not exporter.name or not exporter.name.strip():
            raise ValueError("An Exporter cannot have a name that is `None` or empty.")
        names.append(exporter.name)
    if len(set(names)) != len(names):
        raise ValueError("`exporters` must have unique names. Such a name cannot be `None`. {} exporters "
                         "provided.".format(names))
    return tuple(exporters)


class _EvaluateOnCheckpoint(CheckpointSaverListener):
    """Evaluates after saves (throttled) and after the last one."""

    def __init__(self, estimator, eval_spec, max_steps):
        self._estimator, self._spec, self._max_steps = estimator, eval_spec, max_steps
        self._timer = SecondOrStepTimer(every_secs=eval_spec.throttle_secs)
        self.metrics = None
        self.export_results = []

    def _evaluate(self, step):
        self.metrics = self._estimator.evaluate(self._spec.input_fn, steps=self._spec.steps,
                                                name=self._spec.name, hooks=list(self._spec.hooks))
        if "global_step" not in self.metrics:
            raise ValueError("Internal error: `Estimator.evaluate` result should have `global_step` in "
                             "result. Given {}".format(self.metrics))
        self._timer.update_last_triggered_step(step)
        final = self._max_steps is not None and int(self.metrics["global_step"]) >= self._max_steps
        for exporter in self._spec.exporters:
            path = os.path.join(self._estimator.model_dir, "export", exporter.name)
            self.export_results.append(exporter.export(
                estimator=self._estimator, export_path=path, checkpoint_path=self._estimator.latest_checkpoint(),
                eval_result=self.metrics, is_the_final_export=final))

    def after_save(self, session, global_step_value):
        if global_step_value == 0:
            return  # the model is not trained yet
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Train estimator per train_spec, evaluating per eval_spec; returns (metrics, export results)."""
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`, given {}".format(type(estimator)))
    if not isinstance(train_spec, TrainSpec):
        raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. Got: {}".format(type(train_spec)))
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {}".format(type(eval_spec)))
    cfg = estimator.config
    _log.info("Start train and evaluate loop. The evaluate will happen after every checkpoint. Checkpoint "
              "frequency is determined based on RunConfig arguments: save_checkpoints_steps %s or "
              "save_checkpoints_secs %s.", cfg.save_checkpoints_steps, cfg.save_checkpoints_secs)
    listener = _EvaluateOnCheckpoint(estimator, eval_spec, train_spec.max_steps)
    estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=train_spec.max_steps,
                    saving_listeners=[listener])
    return listener.metrics, listener.export_results
