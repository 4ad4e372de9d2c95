"""tf.train.SessionManager: sessions that are ready to use; non-chief workers wait for the chief."""
import logging
import time

import numpy as np

from lens.client.session import Session
from lens.framework import errors
from lens.framework.graph import get_default_graph
from lens.training.saver_format import latest_checkpoint

_log = logging.getLogger("lens")


def _ready(op, sess, what):
    """(True, None) when op reports no uninitialized variable, else (False, a message naming them)."""
    if op is None:
        return True, None
    try:
        names = np.asarray(sess.run(op)).ravel()
    except errors.FailedPreconditionError as e:
        return False, "%s: %s" % (what, e.message)
    if names.size == 0:
        return True, None
    return False, "Variables not initialized: " + ", ".join(
        n.decode() if isinstance(n, bytes) else str(n) for n in names)


class SessionManager:
    """Creates sessions whose model is ready: restored or initialized (chief), or waited for (workers)."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        if ready_op is None and ready_for_local_init_op is not None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a ready_op")
        self._local_init_op, self._ready_op = local_init_op, ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph or get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_run_options, self._local_init_feed_dict = local_init_run_options, local_init_feed_dict

    def _try_run_local_init_op(self, sess):
        """(True, None) after running local_init_op, or (False, why) when the globals are not ready."""
        if self._local_init_op is None:
            return True, None
        ok, msg = _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")
        if not ok:
            return False, msg
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                 options=self._local_init_run_options)
        return True, None

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None, init_feed_dict=None,
                        init_fn=None):
        """A session restored from a checkpoint or initialized with init_op / init_fn, then local init."""
        sess = Session(master, graph=self._graph, config=config)
        path = checkpoint_filename_with_path
        if path is None and checkpoint_dir and saver is not None:
            path = latest_checkpoint(checkpoint_dir)
        if saver is not None and path:
            saver.restore(sess, path)
        else:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ok, msg = self._try_run_local_init_op(sess)
        if not ok:
            raise RuntimeError("Init operations did not make model ready for local_init. Init op: %s, "
                               "init fn: %s, error: %s" % (getattr(init_op, "name", None), init_fn, msg))
        ok, msg = _ready(self._ready_op, sess, "Model not ready")
        if not ok:
            raise RuntimeError("Init operations did not make model ready. Init op: %s, init fn: %s, "
                               "local_init_op: %s, error: %s" % (getattr(init_op, "name", None), init_fn,
                                                                 getattr(self._local_init_op, "name", None), msg))
        return sess

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A session once another task (the chief) has initialized the model; DeadlineExceededError after max_wait_secs."""
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        deadline = time.monotonic() + max_wait_secs
        while True:
            sess = Session(master, graph=self._graph, config=config)
            ok, not_ready_local = self._try_run_local_init_op(sess)
            not_ready = None
            if ok:
                ok, not_ready = _ready(self._ready_op, sess, "Model not ready")
                if ok:
                    return sess
            sess.close()
            if deadline - time.monotonic() - self._recovery_wait_secs < 0:
                raise errors.DeadlineExceededError(None, None, "Session was not ready after waiting %d secs."
                                                   % max_wait_secs)
            _log.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                      not_ready_local, not_ready)
            time.sleep(self._recovery_wait_secs)
