"""tf.train.QueueRunner, add_queue_runner, start_queue_runners: threads that keep a queue filled."""
import logging
import threading

from lens.framework import errors
from lens.framework.graph import GraphKeys, Operation, add_to_collection, get_collection, get_default_graph
from lens.framework.default_session import get_default_session

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

_log = logging.getLogger("tensorflow")


class QueueRunner:
    """Runs enqueue_ops in one thread each; closes the queue when they run out (OutOfRangeError)."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def is not None:
            raise ValueError("queue_runner_def (a QueueRunnerDef proto) is not supported by lens: build the "
                             "QueueRunner from its queue and enqueue_ops")
        if queue is None or not enqueue_ops:
            raise ValueError("Queue and enqueue_ops are required: got queue=%r, enqueue_ops=%r" % (queue, enqueue_ops))
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        types = queue_closed_exception_types or (errors.OutOfRangeError,)
        if not all(isinstance(t, type) and issubclass(t, errors.OpError) for t in types):
            raise TypeError("queue_closed_exception_types, when provided, must be a tuple of tf.error types, "
                            "but saw: %r" % (types,))
        self._queue_closed_exception_types = tuple(types)
        self._lock = threading.Lock()
        self._runs_per_session = {}
        self._exceptions_raised = []

    queue = property(lambda self: self._queue, doc="The queue this runner fills.")
    enqueue_ops = property(lambda self: self._enqueue_ops, doc="The ops run by the threads.")
    close_op = property(lambda self: self._close_op, doc="Closes the queue once every enqueue op ran out.")
    cancel_op = property(lambda self: self._cancel_op, doc="Closes the queue cancelling pending enqueues.")
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types,
                                            doc="Errors meaning the input ran out.")
    exceptions_raised = property(lambda self: list(self._exceptions_raised),
                                 doc="Errors the threads raised (when run without a coordinator).")
    name = property(lambda self: self._queue.name, doc="The queue's name.")

    def _run(self, sess, enqueue_op, coord):
        """Run enqueue_op until it runs out, the coordinator stops, or it fails."""
        counted = True
        try:
            while not (coord is not None and coord.should_stop()):
                try:
                    sess.run(enqueue_op)
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        counted = False
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - the queue may be gone already
                                _log.debug("Ignored exception: %s", e)
                    return
        except Exception as e:  # noqa: BLE001 - every other failure stops the coordinator
            if coord is not None:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if counted:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, coord):
        """Wait for the coordinator's stop, then close the queue and cancel pending enqueues."""
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be closed already
            _log.debug("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread per enqueue op (plus one closing the queue on coord's stop); [] if already running."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), daemon=daemon,
                                    name="QueueRunnerThread-%s-%s" % (self.name, op.name))
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord), daemon=daemon,
                                            name="QueueRunnerThread-%s-close_on_stop" % self.name))
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if start:
                t.start()
        return threads


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Add qr to the graph's queue runners (start_queue_runners starts them)."""
    add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=GraphKeys.QUEUE_RUNNERS):
    """Start the threads of every queue runner in collection; returns them."""
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if not hasattr(sess, "run"):
        raise TypeError("sess must be a `tf.Session` object. Given class: %s" % type(sess))
    graph = getattr(sess, "graph", None) or get_default_graph()
    with graph.as_default():
        threads = []
        for qr in get_collection(collection):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


def _is_op(x):
    return isinstance(x, Operation)
