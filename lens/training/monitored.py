"""MonitoredSession, SingularMonitoredSession and MonitoredTrainingSession: sessions that
initialize themselves, run hooks around every run and end cleanly on OutOfRangeError.

    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=[...]) as sess:
        while not sess.should_stop():
            sess.run(train_op)
"""
import inspect
import logging

from lens.framework import errors
from lens.framework.graph import get_default_graph
from lens.proto import config_pb2
from lens.training.hooks import (SessionRunArgs, SessionRunContext, SessionRunValues,
                                     StepCounterHook)
from lens.training.monitored_coordinator import Coordinator
from lens.training.queue_runner import start_queue_runners
from lens.training.monitored_scaffold import (_SAVER_MISSING, ChiefSessionCreator, Scaffold,
                                                  SessionCreator, WorkerSessionCreator, saver_module)

__all__ = ["MonitoredSession", "SingularMonitoredSession", "MonitoredTrainingSession", "Scaffold",
           "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator", "Coordinator",
           "USE_DEFAULT"]

_log = logging.getLogger("lens")
USE_DEFAULT = object()
_CLEAN_END = (errors.OutOfRangeError, StopIteration)


class _StopRequested(Exception):
    """Raised by StepContext.request_stop to leave step_fn."""


def _merge_run_options(options, incoming):
    """Fold a hook's RunOptions into the run's (TF1's rules: max levels, concatenated watches)."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool, incoming.inter_op_thread_pool)
    options.output_partition_graphs = options.output_partition_graphs or incoming.output_partition_graphs
    options.debug_options.debug_tensor_watch_opts.extend(incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (options.debug_options.reset_disk_byte_usage
                                                   or incoming.debug_options.reset_disk_byte_usage)
    options.report_tensor_allocations_upon_oom = (options.report_tensor_allocations_upon_oom
                                                  or incoming.report_tensor_allocations_upon_oom)


def _feed_keys_clash(a, b):
    return any(k in b for k in a)


class StepContext:
    """What run_step_fn gives step_fn: the raw session, a hooked run, and request_stop()."""

    def __init__(self, session, run_with_hooks_fn):
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    session = property(lambda self: self._session, doc="The raw session (no hooks).")

    def run_with_hooks(self, *args, **kwargs):
        """Run like MonitoredSession.run, with the hooks."""
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        """Leave step_fn now and make should_stop() True."""
        raise _StopRequested("step_fn has requested the iterations to stop.")


class _MonitoredSession:
    """Shared machinery: hooks' begin, session creation, hooked runs, clean close."""

    StepContext = StepContext

    def __init__(self, session_creator, hooks, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._creator = session_creator or ChiefSessionCreator()
        if not isinstance(self._creator, SessionCreator) and not hasattr(self._creator, "create_session"):
            raise TypeError("session_creator must be a tf.train.SessionCreator, got %r" % (self._creator,))
        self._stop_grace_period_secs = stop_grace_period_secs
        self._sess = self._creator.create_session()
        self._coord = Coordinator(clean_stop_exception_types=[])
        self._should_stop = False
        # As TF's coordinated session: the graph's queue runners start with the session, under its coordinator.
        self._run_error = None
        self._queue_threads = start_queue_runners(self._sess, coord=self._coord)
        for h in self._hooks:
            h.after_create_session(self._sess, self._coord)

    @property
    def graph(self):
        """The graph the session runs."""
        return self._sess.graph if self._sess is not None else None

    def _check_open(self):
        if self._sess is None:
            raise RuntimeError("Attempted to use a closed MonitoredSession.")

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Run fetches with every hook's before_run/after_run around it."""
        self._check_open()
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict), session=self._sess)
        options = options if options is not None else config_pb2.RunOptions()
        hook_fetches, feed_dict = self._before_run(context, feed_dict, options)
        run_metadata = run_metadata if run_metadata is not None else config_pb2.RunMetadata()
        # Hooks' fetches go first: a stale read (e.g. of the global step) then sees the value
        # from before this run's train op, as TF1 hooks expect.
        actual = dict(hook_fetches)
        actual["caller"] = fetches
        # Default options ask for nothing (no trace, no watches, no timeout): the session's plain
        # path then runs the step, and run_metadata stays empty as it would anyway.
        plain = options.ByteSize() == 0
        try:
            outputs = self._sess.run(actual, feed_dict=feed_dict, options=None if plain else options,
                                     run_metadata=None if plain else run_metadata)
        except Exception as e:  # noqa: BLE001 - the stop flag must see every failure
            if not isinstance(e, _CLEAN_END):
                self._run_error = e
                self._coord.request_stop(e)
            raise
        for h in self._hooks:
            h.after_run(context, SessionRunValues(results=outputs.get(h), options=options,
                                                  run_metadata=run_metadata))
        self._should_stop = self._should_stop or context.stop_requested
        return outputs["caller"]

    def _before_run(self, context, user_feeds, options):
        hook_fetches, hook_feeds = {}, []
        for h in self._hooks:
            request = h.before_run(context)
            if request is None:
                continue
            if not isinstance(request, SessionRunArgs):
                raise TypeError("%s.before_run must return None or tf.train.SessionRunArgs, got %r"
                                % (type(h).__name__, request))
            if request.fetches is not None:
                hook_fetches[h] = request.fetches
            if request.feed_dict:
                hook_feeds.append(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return hook_fetches, user_feeds
        merged = dict(user_feeds or {})
        for i, feed in enumerate(hook_feeds):
            if _feed_keys_clash(feed, user_feeds or {}):
                raise RuntimeError("Same tensor is fed by a SessionRunHook and user.")
            if any(_feed_keys_clash(feed, other) for other in hook_feeds[:i]):
                raise RuntimeError("Same tensor is fed by two hooks.")
            merged.update(feed)
        return hook_fetches, merged

    def run_step_fn(self, step_fn):
        """Call step_fn(step_context); returns its value (None after step_context.request_stop())."""
        self._check_open()
        params = list(inspect.signature(step_fn).parameters)
        if params != ["step_context"] and params != ["self", "step_context"]:
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` and "
                             "`step_context` arguments if it's an instance method. Got %s instead."
                             % (tuple(params),))
        try:
            return step_fn(StepContext(self._sess, self.run))
        except _StopRequested:
            self._should_stop = True
            return None

    def should_stop(self):
        """True when closed, when a hook or step_fn requested a stop, or after a failed run."""
        return self._sess is None or self._should_stop or self._coord.should_stop()

    def close(self):
        """Call every hook's end(), then close the session."""
        self._close_internal(None)

    def _close_internal(self, exception_type):
        try:
            if not exception_type and self._sess is not None:
                for h in self._hooks:
                    h.end(self._sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                # Stop the queue runners first (their close_on_stop threads cancel blocked enqueues).
                try:
                    if self._queue_threads:
                        self._join_queue_runners()
                finally:
                    self._sess.close()
            finally:
                self._sess = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()

    def _join_queue_runners(self):
        """Stop and join the queue runners; re-raise a runner's error (not one run() already raised)."""
        self._coord.request_stop()
        try:
            self._coord.join(self._queue_threads, stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)
        except Exception as e:  # noqa: BLE001 - filtered below
            if e is not self._run_error:
                raise

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type is not None and issubclass(exception_type, _CLEAN_END):
            exception_type = None  # the input ran out: training ends normally
        self._close_internal(exception_type)
        return exception_type is None


class MonitoredSession(_MonitoredSession):
    """A session with hooks, created by session_creator (a ChiefSessionCreator by default)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A chief MonitoredSession that also exposes its raw session."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config,
                                      checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, stop_grace_period_secs)

    def raw_session(self):
        """The underlying Session (runs without hooks)."""
        self._check_open()
        return self._sess


def _pick(steps, secs, default_steps, default_secs):
    """TF1's defaults: when both are USE_DEFAULT use the defaults, else USE_DEFAULT means None."""
    if steps is USE_DEFAULT and secs is USE_DEFAULT:
        return default_steps, default_secs
    return (None if steps is USE_DEFAULT else steps), (None if secs is USE_DEFAULT else secs)


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None,  # noqa: N802
                             hooks=None, chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT, save_summaries_secs=USE_DEFAULT,
                             config=None, stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT, summary_dir=None):
    """A MonitoredSession for training: step counter, summary and checkpoint hooks when chief."""
    summary_steps, summary_secs = _pick(save_summaries_steps, save_summaries_secs, 100, None)
    ckpt_steps, ckpt_secs = _pick(save_checkpoint_steps, save_checkpoint_secs, None, 600)
    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                       max_wait_secs=max_wait_secs)
        return MonitoredSession(creator, hooks=hooks or [], stop_grace_period_secs=stop_grace_period_secs)
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master,
                                  config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps))
        if (summary_steps and summary_steps > 0) or (summary_secs and summary_secs > 0):
            from lens.training.summary_hook import SummarySaverHook
            all_hooks.append(SummarySaverHook(scaffold=scaffold, save_steps=summary_steps,
                                              save_secs=summary_secs, output_dir=summary_dir))
    if checkpoint_dir and ((ckpt_secs and ckpt_secs > 0) or (ckpt_steps and ckpt_steps > 0)):
        if saver_module() is None:
            _log.warning(_SAVER_MISSING)
        else:
            from lens.training.hooks_checkpoint import CheckpointSaverHook
            all_hooks.append(CheckpointSaverHook(checkpoint_dir, save_steps=ckpt_steps,
                                                 save_secs=ckpt_secs, scaffold=scaffold))
    all_hooks.extend(hooks or [])
    return MonitoredSession(creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
