"""tf.estimator.Estimator: train / evaluate / predict a model_fn in fresh graphs and sessions.

Each call builds a new Graph, calls input_fn then model_fn in the call's mode, and runs a
MonitoredTrainingSession (train) or MonitoredSession (evaluate, predict) with TF1.15's hooks:
NaN and loss logging, step counter (`global_step/sec`), summaries and checkpoints every N
steps into model_dir, and evaluation results as events in model_dir/eval.
"""
import copy
import inspect
import logging
import os
import tempfile

import numpy as np

from lens.data.dataset import Dataset
from lens.estimator import evaluation, exporting
from lens.estimator.model_fn import LOSS_METRIC_KEY, EstimatorSpec, ModeKeys
from lens.estimator.run_config import RunConfig
from lens.estimator.warm_starting import WarmStartSettings, warm_start_scaffold
from lens.events.summary_ops import scalar as summary_scalar
from lens.framework.graph import Graph, GraphKeys, add_to_collection, get_collection
from lens.metrics import mean as metric_mean
from lens.ops.core import group
from lens.ops.random import set_random_seed
from lens.training import saver as saver_lib
from lens.training.hooks import LoggingTensorHook, NanTensorHook, StopAtStepHook
from lens.training.hooks_checkpoint import CheckpointSaverHook
from lens.training.monitored import MonitoredSession, MonitoredTrainingSession
from lens.training.monitored_scaffold import ChiefSessionCreator
from lens.training.training_util import get_global_step, get_or_create_global_step

__all__ = ["Estimator"]

_log = logging.getLogger("lens")
_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}


def fn_args(fn):
    """The argument names of a function, method, functools.partial or callable object."""
    return tuple(inspect.signature(fn).parameters)


def _verify_model_fn_args(model_fn, params):
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError("model_fn (%s) must include features argument." % model_fn)
    if params is not None and "params" not in args:
        raise ValueError("model_fn (%s) does not include params argument, but params (%s) is passed to "
                         "Estimator." % (model_fn, params))
    if params is None and "params" in args:
        _log.warning("Estimator's model_fn (%s) includes params argument, but params are not passed to "
                     "Estimator.", model_fn)
    extra = sorted(args - _VALID_MODEL_FN_ARGS)
    if extra:
        raise ValueError("model_fn (%s) has following not expected args: %s" % (model_fn, extra))


def _check_hooks_type(hooks):
    hooks = list(hooks or [])
    for h in hooks:
        if not all(hasattr(h, m) for m in ("begin", "before_run", "after_run", "end")):
            raise TypeError("Hooks must be a SessionRunHook, given: {}".format(h))
    return hooks


def _config_with_model_dir(config, model_dir):
    config = RunConfig() if config is None else config
    if not isinstance(config, RunConfig):
        raise ValueError("config must be an instance of `RunConfig`, but provided %s." % config)
    if model_dir:
        if config.model_dir and config.model_dir != model_dir:
            raise ValueError("`model_dir` are set both in constructor and `RunConfig`, but with different "
                             "values. In constructor: '{}', in `RunConfig`: '{}' ".format(
                                 model_dir, config.model_dir))
        return config.replace(model_dir=model_dir)
    if not config.model_dir:
        model_dir = tempfile.mkdtemp()
        _log.warning("Using temporary folder as model directory: %s", model_dir)
        return config.replace(model_dir=model_dir)
    return config


def _global_step_from_checkpoint_dir(model_dir):
    path = saver_lib.latest_checkpoint(model_dir)
    if not path:
        return 0
    try:
        return int(saver_lib.load_variable(path, GraphKeys.GLOBAL_STEP))
    except Exception:  # noqa: BLE001 - a checkpoint without a global step starts at 0, as in TF1
        return 0


class Estimator:
    """Trains, evaluates and predicts with a model_fn(features, labels, mode, params, config)."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        _verify_model_fn_args(model_fn, params)
        self._config = _config_with_model_dir(config, model_dir)
        self._model_dir = self._config.model_dir
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        if isinstance(warm_start_from, str):
            warm_start_from = WarmStartSettings(ckpt_to_initialize_from=warm_start_from)
        if warm_start_from is not None and not isinstance(warm_start_from, WarmStartSettings):
            raise ValueError("warm_start_from must be a string or a WarmStartSettings, instead got {}".format(
                type(warm_start_from)))
        self._warm_start_settings = warm_start_from

    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: copy.deepcopy(self._config))
    params = property(lambda self: copy.deepcopy(self._params))
    model_fn = property(lambda self: self._call_model_fn_simple)

    def _call_model_fn_simple(self, features, labels, mode, config):
        return self._call_model_fn(features, labels, mode, config)

    # ------------------------------------------------------------------ checkpoints
    def latest_checkpoint(self):
        """The newest checkpoint in model_dir, or None."""
        return saver_lib.latest_checkpoint(self._model_dir)

    def _require_checkpoint(self):
        if not self.latest_checkpoint():
            raise ValueError("Could not find trained model in model_dir: {}.".format(self._model_dir))

    def get_variable_names(self):
        """Names of the variables in the latest checkpoint."""
        self._require_checkpoint()
        return [name for name, _ in saver_lib.list_variables(self._model_dir)]

    def get_variable_value(self, name):
        """The value of variable name in the latest checkpoint."""
        self._require_checkpoint()
        return saver_lib.load_variable(self._model_dir, name)

    def eval_dir(self, name=None):
        """model_dir/eval, or model_dir/eval_<name>."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    # ------------------------------------------------------------------ calling user functions
    def _call_input_fn(self, input_fn, mode):
        args = fn_args(input_fn)
        kwargs = {}
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        if "mode" in args:
            kwargs["mode"] = mode
        result = input_fn(**kwargs)
        if isinstance(result, Dataset):
            result = result.make_one_shot_iterator().get_next()
        if isinstance(result, (list, tuple)):
            if len(result) != 2:
                raise ValueError("input_fn should return (features, labels) or features, got a sequence of "
                                 "{} items.".format(len(result)))
            return result[0], result[1]
        return result, None

    def _call_model_fn(self, features, labels, mode, config):
        args = fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        spec = self._model_fn(features=features, **kwargs)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return spec

    def _new_graph(self):
        g = Graph()
        with g.as_default():
            set_random_seed(self._config.tf_random_seed)
            get_or_create_global_step(g)
        return g

    # ------------------------------------------------------------------ train
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Train until input_fn runs out, steps more steps, or global step max_steps; returns self."""
        hooks = _check_hooks_type(hooks)
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        if max_steps is not None and max_steps <= _global_step_from_checkpoint_dir(self._model_dir):
            _log.info("Skipping training since max_steps has already saved.")
            return self
        if steps is not None or max_steps is not None:
            hooks.append(StopAtStepHook(steps, max_steps))
        loss = self._train_model(input_fn, hooks, list(saving_listeners or []))
        _log.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn, hooks, saving_listeners):
        g = self._new_graph()
        with g.as_default():
            features, labels = self._call_input_fn(input_fn, ModeKeys.TRAIN)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
            return self._train_with_spec(spec, hooks, saving_listeners)

    def _train_with_spec(self, spec, hooks, saving_listeners):
        cfg = self._config
        scaffold = spec.scaffold
        if self._warm_start_settings is not None:
            scaffold = warm_start_scaffold(scaffold, self._warm_start_settings)
        if not any(s.op.name == "loss" for s in get_collection(GraphKeys.SUMMARIES)):
            summary_scalar("loss", spec.loss)
        add_to_collection(GraphKeys.LOSSES, spec.loss)
        worker_hooks = list(hooks) + [NanTensorHook(spec.loss)]
        if cfg.log_step_count_steps:
            worker_hooks.append(LoggingTensorHook({"loss": spec.loss, "step": get_global_step()},
                                                  every_n_iter=cfg.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)
        if not (scaffold.saver or get_collection(GraphKeys.SAVERS)):
            add_to_collection(GraphKeys.SAVERS, saver_lib.Saver(
                sharded=True, max_to_keep=cfg.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=cfg.keep_checkpoint_every_n_hours, defer_build=True,
                save_relative_paths=True))
        all_hooks = worker_hooks + list(spec.training_chief_hooks)
        saver_hooks = [h for h in all_hooks if isinstance(h, CheckpointSaverHook)]
        chief_hooks = []
        if (cfg.save_checkpoints_secs or cfg.save_checkpoints_steps) and not saver_hooks:
            chief_hooks = [CheckpointSaverHook(self._model_dir, save_secs=cfg.save_checkpoints_secs,
                                               save_steps=cfg.save_checkpoints_steps, scaffold=scaffold)]
            saver_hooks = chief_hooks
        if saving_listeners:
            if not saver_hooks:
                raise ValueError("There should be a CheckpointSaverHook to use saving_listeners. Please set "
                                 "one of the RunConfig.save_checkpoints_steps or "
                                 "RunConfig.save_checkpoints_secs.")
            saver_hooks[0]._listeners.extend(saving_listeners)
        loss, any_step = None, False
        with MonitoredTrainingSession(
                checkpoint_dir=self._model_dir, scaffold=scaffold, hooks=worker_hooks,
                chief_only_hooks=chief_hooks + list(spec.training_chief_hooks),
                save_checkpoint_secs=0, save_summaries_steps=cfg.save_summary_steps,
                config=cfg.session_config, log_step_count_steps=cfg.log_step_count_steps) as sess:
            while not sess.should_stop():
                _, loss = sess.run([spec.train_op, spec.loss])
                any_step = True
        if not any_step:
            _log.warning("Training with estimator made no steps. Perhaps input is empty or misspecified.")
        return loss

    # ------------------------------------------------------------------ evaluate
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Metrics over input_fn (or steps batches) from the latest checkpoint; written to eval_dir."""
        hooks = _check_hooks_type(hooks)
        if steps is not None:
            if steps <= 0:
                raise ValueError("Must specify steps > 0, given: {}".format(steps))
            hooks.append(evaluation.StopAfterNEvalStepsHook(steps))
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                _log.info("Could not find trained model in model_dir: %s, running initialization to "
                          "evaluate.", self._model_dir)
        g = self._new_graph()
        with g.as_default():
            features, labels = self._call_input_fn(input_fn, ModeKeys.EVAL)
            spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
            metric_ops = dict(spec.eval_metric_ops)
            if LOSS_METRIC_KEY in metric_ops:
                raise ValueError('Metric with name "%s" is not allowed, because Estimator already defines a '
                                 "default metric with the same name." % LOSS_METRIC_KEY)
            metric_ops[LOSS_METRIC_KEY] = metric_mean(spec.loss)
            if GraphKeys.GLOBAL_STEP in metric_ops:
                raise ValueError("Metric with name `global_step` is not allowed, because Estimator already "
                                 "defines a default metric with the same name.")
            update_op = group(*[ops for _, ops in metric_ops.values()])
            eval_dict = {k: v for k, (v, _) in metric_ops.items()}
            eval_dict[GraphKeys.GLOBAL_STEP] = get_global_step()
            all_hooks = hooks + list(spec.evaluation_hooks)
            results = evaluation.evaluate_once(checkpoint_path, spec.scaffold, update_op, eval_dict,
                                               all_hooks, self._config.session_config)
        step = int(results[GraphKeys.GLOBAL_STEP])
        output_dir = self.eval_dir(name)
        evaluation.write_dict_to_summary(output_dir, results, step)
        if checkpoint_path:
            evaluation.write_checkpoint_path_to_summary(output_dir, checkpoint_path, step)
        return results

    # ------------------------------------------------------------------ predict
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yields predictions for every example (or batch) of input_fn, from the latest checkpoint."""
        hooks = _check_hooks_type(hooks)
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
        if not checkpoint_path:
            _log.info("Could not find trained model in model_dir: %s, running initialization to predict.",
                      self._model_dir)
        g = self._new_graph()
        with g.as_default():
            features, _ = self._call_input_fn(input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            predictions = _extract_keys(spec.predictions, predict_keys)
            creator = ChiefSessionCreator(scaffold=spec.scaffold, checkpoint_filename_with_path=checkpoint_path,
                                          config=self._config.session_config)
            with MonitoredSession(session_creator=creator, hooks=hooks + list(spec.prediction_hooks)) as sess:
                while not sess.should_stop():
                    values = sess.run(predictions)
                    if not yield_single_examples:
                        yield values
                    elif not isinstance(predictions, dict):
                        yield from values
                    else:
                        for i in range(_batch_length(values)):
                            yield {key: value[i] for key, value in values.items()}

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                           as_text=False, checkpoint_path=None, experimental_mode=ModeKeys.PREDICT):
        """Export the PREDICT graph and the latest checkpoint as a SavedModel; returns its dir (bytes)."""
        if experimental_mode != ModeKeys.PREDICT:
            raise NotImplementedError("lens exports the PREDICT mode only (experimental_mode={})".format(
                experimental_mode))
        return exporting.export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra, as_text,
                                  checkpoint_path)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                          as_text=False, checkpoint_path=None, strip_default_attrs=False):
        """TF1's older name of export_saved_model."""
        return self.export_saved_model(export_dir_base, serving_input_receiver_fn, assets_extra, as_text,
                                       checkpoint_path)


def _extract_keys(predictions, predict_keys):
    if predict_keys is None:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    existing = list(predictions)
    picked = {k: predictions[k] for k in predict_keys if k in predictions}
    if not picked:
        raise ValueError("Expected to run at least one output from {}, provided {}.".format(existing, predict_keys))
    return picked


def _batch_length(values):
    length = None
    for key, value in values.items():
        n = np.asarray(value).shape[0]
        length = length or n
        if n != length:
            raise ValueError("Batch length of predictions should be same. %s has different batch length "
                             "than others." % key)
    return length or 0
