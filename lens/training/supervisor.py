"""tf.train.Supervisor: prepares a session (restore or initialize), runs the standard services (summaries,
steps/sec, timed checkpoints) and queue runners on one Coordinator, and stops them all; basic_train_loop."""
import contextlib
import logging
import os
import time

from lens.events.summary_ops import merge_all
from lens.events.writer import FileWriter
from lens.framework import eager
from lens.framework import errors
from lens.framework.graph import GraphKeys, get_default_graph
from lens.ops.core import group
from lens.ops.lookup_ops import tables_initializer
from lens.ops.variables import (global_variables, global_variables_initializer, local_variables_initializer,
                                report_uninitialized_variables)
from lens.proto.event_pb2 import SessionLog
from lens.proto.summary_pb2 import Summary
from lens.training import training_util
from lens.training.looper import LooperThread
from lens.training.meta_graph import export_meta_graph
from lens.training.monitored_coordinator import Coordinator
from lens.training.saver import Saver, write_graph
from lens.training.session_manager import SessionManager

__all__ = ["Supervisor", "basic_train_loop"]

_log = logging.getLogger("lens")


class Supervisor:
    """A training program's session, checkpoints, summaries and threads, as TF1's Supervisor (graph finalized)."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        if eager.executing_eagerly():
            raise RuntimeError("Supervisors are incompatible with eager execution.")
        graph = graph or get_default_graph()
        self._graph = graph
        with graph.as_default():
            self._ready_op = self._default(ready_op, GraphKeys.READY_OP, report_uninitialized_variables)
            self._ready_for_local_init_op = self._default(ready_for_local_init_op,
                                                          GraphKeys.READY_FOR_LOCAL_INIT_OP, None)
            self._init_op = self._default(init_op, GraphKeys.INIT_OP, global_variables_initializer)
            self._init_feed_dict = init_feed_dict
            self._local_init_op = self._default(
                local_init_op, GraphKeys.LOCAL_INIT_OP,
                lambda: group(local_variables_initializer(), tables_initializer()))
            self._saver = self._default(saver, GraphKeys.SAVERS, lambda: Saver() if global_variables() else None)
            self._summary_op = self._default(summary_op, GraphKeys.SUMMARY_OP, merge_all)
            self._global_step = self._default_global_step() if global_step is Supervisor.USE_DEFAULT else global_step
        self._meta_graph_def = export_meta_graph(graph=graph, saver_def=self._saver.saver_def if self._saver
                                                 else None)
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs, self._stop_grace_secs = recovery_wait_secs, stop_grace_secs
        self._init_fn, self._local_init_run_options = init_fn, local_init_run_options
        # Only a chief writes checkpoints and events.
        self._logdir = self._save_summaries_secs = self._save_model_secs = self._save_path = None
        self._summary_writer = None
        self._graph_added_to_summary = False
        if is_chief:
            self._logdir = logdir
            self._save_summaries_secs, self._save_model_secs = save_summaries_secs, save_model_secs
            if logdir:
                self._save_path = os.path.join(logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                self._summary_writer = FileWriter(logdir) if logdir else None
            else:
                self._summary_writer = summary_writer
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=graph,
            recovery_wait_secs=recovery_wait_secs, local_init_run_options=local_init_run_options)
        if not is_chief:
            for op in graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError("When using replicas, all Variables must have their device set: %s" % op)
        graph.finalize()

    def _default(self, value, key, make):
        """value, or (USE_DEFAULT) the first item of collection key, or make() added to it."""
        if value is not Supervisor.USE_DEFAULT:
            return value
        items = self._graph.get_collection(key)
        if items:
            return items[0]
        made = make() if make is not None else None
        if made is not None:
            self._graph.add_to_collection(key, made)
        return made

    def _default_global_step(self):
        items = self._graph.get_collection(GraphKeys.GLOBAL_STEP)
        if items:
            return items[0]
        try:
            step = self._graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
        return step if step.dtype.base_dtype.is_integer else None

    # ---- properties ------------------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief, doc="Whether this supervisor writes checkpoints and events.")
    session_manager = property(lambda self: self._session_manager, doc="The SessionManager it uses.")
    coord = property(lambda self: self._coord, doc="The Coordinator of its threads.")
    init_op = property(lambda self: self._init_op, doc="The op initializing the model.")
    init_feed_dict = property(lambda self: self._init_feed_dict, doc="Feeds for init_op.")
    ready_op = property(lambda self: self._ready_op, doc="Reports the uninitialized variables.")
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op,
                                       doc="Reports the variables local_init_op needs.")
    summary_writer = property(lambda self: self._summary_writer, doc="The FileWriter (chief with a logdir).")
    summary_op = property(lambda self: self._summary_op, doc="The summary op run every save_summaries_secs.")
    save_summaries_secs = property(lambda self: self._save_summaries_secs, doc="Seconds between summaries.")
    global_step = property(lambda self: self._global_step, doc="The global step tensor (or None).")
    saver = property(lambda self: self._saver, doc="The Saver of the timed checkpoints.")
    save_model_secs = property(lambda self: self._save_model_secs, doc="Seconds between checkpoints.")
    save_path = property(lambda self: self._save_path, doc="The checkpoint path prefix.")

    # ---- sessions ----------------------------------------------------------------------------------
    def _write_graph(self):
        if self._graph_added_to_summary or not self._is_chief:
            return
        if self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt")
        if self._summary_writer:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200,
                                    start_standard_services=True):
        """The chief restores or initializes the model (and starts the services); others wait for it."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_standard_services(self, sess):
        """Start the summary, steps/sec and checkpoint threads (chief only); returns them."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only chief "
                               "supervisors can write events.")
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        if self._summary_writer:
            step = training_util.global_step(sess, self._global_step) if self._global_step is not None else None
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), step)
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_StepCounterThread(self, sess))
        if self._saver and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def start_queue_runners(self, sess, queue_runners=None):
        """Start the graph's (or the given) queue runners on this supervisor's coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Start a LooperThread calling target every timer_interval_secs; returns it."""
        return LooperThread.loop(self._coord, timer_interval_secs, target, args=args, kwargs=kwargs)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stop every thread and wait for them (re-raising an exception given to request_stop)."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        """Ask the threads (and the training loop) to stop; ex is re-raised by stop()."""
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        """True once a stop was requested."""
        return self._coord.should_stop()

    def stop_on_exception(self):
        """A context manager requesting a stop when its block raises."""
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        """Block until a stop is requested."""
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Write a summary computed by the caller (at the current global step by default)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = training_util.global_step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """A prepared session; on exit (or an exception, re-raised after the stop) the threads stop and the
        session closes. OutOfRangeError counts as a clean end."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                    start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - handed to the coordinator, which re-raises it in stop()
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception:  # noqa: BLE001 - closing is best effort, as TF
                        pass


class _SummaryThread(LooperThread):
    """Runs the summary op every save_summaries_secs and writes it."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            _log.info("Recording summary at step %s.", step)
            self._sv.summary_writer.add_summary(summary, step)


class _StepCounterThread(LooperThread):
    """Writes <global step op>/sec every save_summaries_secs."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._step_counter = step_counter if step_counter is not None else sv.global_step
        self._tag = "%s/sec" % self._step_counter.op.name

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self):
        step = training_util.global_step(self._sess, self._step_counter)
        added, self._last_step = step - self._last_step, step
        now = time.time()
        elapsed, self._last_time = now - self._last_time, now
        rate = added / elapsed if elapsed > 0 else float("inf")
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(Summary(value=[Summary.Value(tag=self._tag, simple_value=rate)]), step)


class _CheckpointThread(LooperThread):
    """Saves a checkpoint every save_model_secs (the first one at once)."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        _log.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path), step)


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Call train_step_fn(sess, *args, **kwargs) until the supervisor stops (restarting after AbortedError)."""
    args, kwargs = args or [], kwargs or {}
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            # A restarted server of a cluster: run again.
            should_retry = True
