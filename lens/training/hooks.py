"""TF1's SessionRunHook protocol and the basic hooks (stop at step, NaN loss, logging, counting).

A hook sees each MonitoredSession.run: before_run may ask for extra fetches, feeds and
RunOptions (a SessionRunArgs); after_run gets their values (SessionRunValues) and may
request a stop through the SessionRunContext.
"""
import collections
import logging
import math
import time

import numpy as np

from lens.framework.graph import Tensor, get_default_graph

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
           "SecondOrStepTimer", "StopAtStepHook", "NanTensorHook", "NanLossDuringTrainingError",
           "LoggingTensorHook", "StepCounterHook", "FeedFnHook", "FinalOpsHook"]

_log = logging.getLogger("lens")
GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


class SessionRunHook:
    """Base class of hooks: every method is a no-op; override the ones you need."""

    def begin(self):
        """Called once before the session exists; the graph may still be changed here."""

    def after_create_session(self, session, coord):
        """Called once the session is created and initialized (graph finalized)."""

    def before_run(self, run_context):
        """Called before each run; return None or SessionRunArgs to add fetches/feeds/options."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each successful run with the values of what before_run asked for."""

    def end(self, session):
        """Called at the end of a session that ended without an error (or with OutOfRange)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: fetches, a feed_dict and RunOptions (each may be None)."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """What a hook gets back: the values of its fetches, the merged RunOptions, RunMetadata."""


class SessionRunContext:
    """The run being made: the caller's arguments, the raw session, and a stop request flag."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    original_args = property(lambda self: self._original_args, doc="SessionRunArgs of the caller.")
    session = property(lambda self: self._session, doc="The raw session (runs without hooks).")
    stop_requested = property(lambda self: self._stop_requested, doc="Whether a hook asked to stop.")

    def request_stop(self):
        """Ask the MonitoredSession to stop after this run (should_stop() becomes True)."""
        self._stop_requested = True


class SecondOrStepTimer:
    """Triggers every N seconds or every N steps (exactly one of the two)."""

    def __init__(self, every_secs=None, every_steps=None):
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self):
        """Forget the last trigger."""
        self._last_time = None
        self._last_step = None

    def should_trigger_for_step(self, step):
        """True on the first call, then once the interval has passed (never twice per step)."""
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_time + self._every_secs:
            return True
        return self._every_steps is not None and step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Record a trigger at step; returns (elapsed secs, elapsed steps) or (None, None) at first."""
        now = time.time()
        if self._last_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_time, step - self._last_step)
        self._last_time, self._last_step = now, step
        return elapsed

    def last_triggered_step(self):
        """The step of the last trigger (None before the first)."""
        return self._last_step


def global_step_read(graph=None):
    """A `global_step/add` tensor (global_step + 0) read by hooks, created once per graph; or None."""
    from lens.training.training_util import get_global_step
    g = graph or get_default_graph()
    cached = g.get_collection(GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = get_global_step(g)
    if step is None:
        return None
    from lens.ops.math import add
    # +0 copies the value: the train op may bump the variable in place later in the same run.
    with g.as_default(), g.name_scope(None), g.name_scope(step.op.name + "/"):
        value = step.value() if hasattr(step, "value") else step
        read = add(value, 0, name="add")
    g.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read


def _require_global_step(hook_name):
    read = global_step_read()
    if read is None:
        raise RuntimeError("Global step should be created to use %s. Call "
                           "tf.train.get_or_create_global_step() before building the session."
                           % hook_name)
    return read


def due_step(timer, step_tensor, run_context, stale):
    """The fresh global step when timer is due at it, else None.

    stale is the step fetched with the run (read before the train op updated it), so the fresh
    value is only read from the session when the timer could fire at stale + 1."""
    if not timer.should_trigger_for_step(stale + 1):
        return None
    step = int(run_context.session.run(step_tensor))
    return step if timer.should_trigger_for_step(step) else None


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches last_step (or start + num_steps)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        if num_steps is not None and num_steps < 0:
            raise ValueError("num_steps must be non-negative, got %r" % (num_steps,))
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        """Find the global step."""
        self._step = _require_global_step("StopAtStepHook")

    def after_create_session(self, session, coord):
        """With num_steps, count from the step the session starts at."""
        if self._last_step is None:
            self._last_step = int(session.run(self._step)) + self._num_steps

    def before_run(self, run_context):
        """Fetch the global step (read before this run's update)."""
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        """Stop when the step after this run reaches last_step."""
        if int(run_values.results) + 1 >= self._last_step:
            # The fetched value predates this run's update: read the step again to be sure.
            if int(run_context.session.run(self._step)) >= self._last_step:
                run_context.request_stop()


class NanLossDuringTrainingError(RuntimeError):
    """The loss became NaN (raised by NanTensorHook)."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (or requests a stop) when the loss tensor is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss = loss_tensor
        self._fail = fail_on_nan_loss

    def before_run(self, run_context):
        """Fetch the loss."""
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        """Raise NanLossDuringTrainingError (or stop) on NaN."""
        value = run_values.results
        # A scalar loss (the usual case) is checked without a NumPy reduction: this runs every step.
        nan = math.isnan(value) if isinstance(value, (float, np.floating)) else bool(np.any(np.isnan(value)))
        if nan:
            message = "Model diverged with loss = NaN."
            if self._fail:
                _log.error(message)
                raise NanLossDuringTrainingError
            _log.warning(message)
            run_context.request_stop()


def _graph_element(x):
    """A fetchable graph element from a tensor, variable or tensor name."""
    g = get_default_graph()
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "_as_graph_element"):
        return x._as_graph_element()
    if isinstance(x, str):
        return g.as_graph_element(x if ":" in x else x + ":0", allow_tensor=True, allow_operation=False)
    raise TypeError("LoggingTensorHook logs tensors or tensor names, got %r" % (x,))


class LoggingTensorHook(SessionRunHook):
    """Logs the values of tensors every N local steps or N seconds, and/or at the end."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs "
                             "must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._log_at_end = at_end
        self._timer = None if only_log_at_end else SecondOrStepTimer(every_secs=every_n_secs,
                                                                     every_steps=every_n_iter)

    def begin(self):
        """Resolve names to tensors; restart the local step count."""
        if self._timer is not None:
            self._timer.reset()
        self._iter_count = 0
        self._current = {tag: _graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        """Fetch the tensors on the runs that log."""
        self._should_trigger = self._timer is not None and \
            self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current) if self._should_trigger else None

    def _log_tensors(self, values):
        elapsed = None
        if self._timer is not None:
            elapsed, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter is not None:
            _log.info(self._formatter(values))
            return
        with np.printoptions(suppress=True):
            stats = ", ".join("%s = %s" % (tag, values[tag]) for tag in self._tag_order)
        if elapsed is not None:
            _log.info("%s (%.3f sec)", stats, elapsed)
        else:
            _log.info("%s", stats)

    def after_run(self, run_context, run_values):
        """Log when this run fetched the tensors."""
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        """With at_end, log the final values."""
        if self._log_at_end:
            self._log_tensors(session.run(self._current))


class StepCounterHook(SessionRunHook):
    """Logs and records `global_step/sec` every N steps or N seconds."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._stuck_count = 0

    def begin(self):
        """Open the writer; find the global step."""
        if self._writer is None and self._output_dir:
            from lens.events.writer import FileWriterCache
            self._writer = FileWriterCache.get(self._output_dir)
        self._step = _require_global_step("StepCounterHook")
        from lens.training.training_util import get_global_step
        self._tag = get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        """Fetch the global step."""
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        """Record steps/sec when the timer fires; warn when the global step does not move."""
        stale = int(run_values.results)
        step = due_step(self._timer, self._step, run_context, stale)
        if step is not None:
            elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(step)
            if elapsed_time is not None:
                self._record(elapsed_steps / max(elapsed_time, 1e-12), step)
        if stale == self._last_global_step:
            self._stuck_count += 1
            if self._stuck_count % 20 == 0:
                _log.warning("It seems that global step (tf.train.get_global_step) has not been "
                             "increased. Current value (could be stable): %s vs previous value: %s. "
                             "You could increase the global step by passing "
                             "tf.train.get_global_step() to Optimizer.apply_gradients or "
                             "Optimizer.minimize.", stale, self._last_global_step)
        self._last_global_step = stale

    def _record(self, steps_per_sec, step):
        if self._writer is not None:
            from lens.proto import summary_pb2
            summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                tag=self._tag, simple_value=steps_per_sec)])
            self._writer.add_summary(summary, step)
        _log.info("%s: %g", self._tag, steps_per_sec)


class FeedFnHook(SessionRunHook):
    """Feeds the dict returned by feed_fn() into every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        """Add the feeds."""
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(SessionRunHook):
    """Runs final_ops when the session ends and keeps their values."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._feed = final_ops_feed_dict
        self._values = None

    final_ops_values = property(lambda self: self._values, doc="Values of final_ops after end().")

    def end(self, session):
        """Run the final ops."""
        if self._final_ops is not None:
            self._values = session.run(self._final_ops, feed_dict=self._feed)
