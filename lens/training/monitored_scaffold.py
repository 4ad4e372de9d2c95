"""Scaffold (the ops a monitored session needs) and the session creators that prepare sessions."""
import importlib
import logging

import numpy as np

from lens.framework.graph import GraphKeys, get_default_graph
from lens.training.session_manager import SessionManager

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator"]

_log = logging.getLogger("lens")
_SAVER_MISSING = ("tf.train.Saver is not available in this lens build (lens/training/saver.py "
                  "is missing), so checkpoints are neither restored nor saved.")


def saver_module():
    """lens.training.saver, or None while it does not exist."""
    try:
        return importlib.import_module("lens.training.saver")
    except ModuleNotFoundError as e:
        if e.name != "lens.training.saver":
            raise
        return None


def _default_saver():
    """The graph's only saver in SAVERS, or a new Saver of every variable (None without Saver)."""
    savers = get_default_graph().get_collection(GraphKeys.SAVERS)
    if len(savers) > 1:
        raise RuntimeError("More than one item in collection %s. Please indicate which one to use "
                           "by passing it to the constructor." % GraphKeys.SAVERS)
    if savers:
        return savers[0]
    mod = saver_module()
    if mod is None:
        return None
    try:
        saver = mod.Saver(allow_empty=True)
    except TypeError:  # a Saver without TF1's allow_empty argument
        saver = mod.Saver()
    get_default_graph().add_to_collection(GraphKeys.SAVERS, saver)
    return saver


class Scaffold:
    """Holds init_op, ready_op, local_init_op, summary_op and saver; finalize() fills defaults."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None, saver=None,
                 copy_from_scaffold=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            c = copy_from_scaffold
            init_op = init_op if init_op is not None else c.init_op
            init_feed_dict = init_feed_dict if init_feed_dict is not None else c._init_feed_dict
            init_fn = init_fn if init_fn is not None else c._user_init_fn
            ready_op = ready_op if ready_op is not None else c.ready_op
            ready_for_local_init_op = ready_for_local_init_op if ready_for_local_init_op is not None \
                else c.ready_for_local_init_op
            local_init_op = local_init_op if local_init_op is not None else c.local_init_op
            summary_op = summary_op if summary_op is not None else c.summary_op
            saver = saver if saver is not None else c.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op, self._init_feed_dict = init_op, init_feed_dict
        self._ready_op, self._ready_for_local_init_op = ready_op, ready_for_local_init_op
        self._local_init_op, self._summary_op, self._saver = local_init_op, summary_op, saver

    init_op = property(lambda self: self._init_op, doc="Op initializing the global variables.")
    init_feed_dict = property(lambda self: self._init_feed_dict, doc="Feeds for init_op.")
    init_fn = property(lambda self: self._init_fn, doc="init_fn(session) run after init_op.")
    ready_op = property(lambda self: self._ready_op, doc="Names of uninitialized variables.")
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op,
                                       doc="Names of uninitialized global variables.")
    local_init_op = property(lambda self: self._local_init_op, doc="Op initializing local variables.")
    summary_op = property(lambda self: self._summary_op, doc="The merged summary op (or None).")
    saver = property(lambda self: self._saver, doc="The Saver (None without lens's Saver).")

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The single op in collection_key, or a new default op added to it."""
        g = get_default_graph()
        elements = g.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError('More than one item in the collection "%s". Please indicate which '
                                   "one to use by passing it to the tf.Scaffold constructor as: "
                                   "tf.Scaffold(%s=item to use)" % (collection_key, arg_name))
            return elements[0]
        op = default_constructor()
        if op is not None:
            g.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables (metrics, input pipelines) and the lookup tables, as TF1."""
        from lens.ops.core import group
        from lens.ops.lookup_ops import tables_initializer
        from lens.ops.variables import local_variables_initializer
        return group(local_variables_initializer(), tables_initializer())

    def finalize(self):
        """Create the missing ops and finalize the graph; returns self."""
        from lens.ops import variables as v
        from lens.ops.core import group
        from lens.events.summary_ops import merge_all
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", GraphKeys.INIT_OP, lambda: group(v.global_variables_initializer()))
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, v.report_uninitialized_variables)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: v.report_uninitialized_variables(v.global_variables()))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP, merge_all)
        if self._saver is None:
            self._saver = _default_saver()
        if self._saver is not None and hasattr(self._saver, "build"):
            self._saver.build()
        get_default_graph().finalize()
        _log.info("Graph was finalized.")
        return self


def _not_ready(session, op):
    """None when op (a list of uninitialized names) is empty, else a message naming them."""
    if op is None:
        return None
    names = np.asarray(session.run(op)).ravel()
    if names.size == 0:
        return None
    return "Variables not initialized: " + ", ".join(
        n.decode() if isinstance(n, bytes) else str(n) for n in names)


def _op_name(op):
    return getattr(op, "name", op)


class SessionCreator:
    """Creates a ready-to-use session for a MonitoredSession."""

    def create_session(self):
        """A new initialized session."""
        raise NotImplementedError("create_session is not implemented for %s." % type(self).__name__)


class ChiefSessionCreator(SessionCreator):
    """Finalizes the scaffold, restores the latest checkpoint or runs init_op, then local init."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._scaffold = scaffold or Scaffold()
        self._master, self._config = master, config
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_path = checkpoint_filename_with_path

    def _restore(self, sess):
        """True when variables were restored from a checkpoint."""
        if not (self._checkpoint_path or self._checkpoint_dir):
            return False
        saver = self._scaffold.saver
        if saver is None:
            _log.warning(_SAVER_MISSING)
            return False
        path = self._checkpoint_path
        if path is None:
            path = saver_module().latest_checkpoint(self._checkpoint_dir)
            if not path:
                return False
        saver.restore(sess, path)
        _log.info("Restored model from %s", path)
        return True

    def create_session(self):
        """Finalize the graph and return an initialized Session."""
        from lens.client.session import Session
        s = self._scaffold.finalize()
        sess = Session(self._master, graph=get_default_graph(), config=self._config)
        if not self._restore(sess):
            if s.init_op is None and not s.init_fn and s.local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                                   "local_init_op was given")
            if s.init_op is not None:
                sess.run(s.init_op, feed_dict=s.init_feed_dict)
            if s.init_fn:
                s.init_fn(sess)
        _run_local_init(sess, s, "Init op: %s, init fn: %s" % (_op_name(s.init_op), s.init_fn))
        return sess


def _run_local_init(sess, s, what):
    """Run local_init_op once the globals are ready; RuntimeError when the model is not ready."""
    if s.local_init_op is not None:
        msg = _not_ready(sess, s.ready_for_local_init_op)
        if msg is not None:
            raise RuntimeError("Init operations did not make model ready for local_init. %s, error: %s"
                               % (what, msg))
        sess.run(s.local_init_op)
    msg = _not_ready(sess, s.ready_op)
    if msg is not None:
        raise RuntimeError("Init operations did not make model ready. %s, local_init_op: %s, error: %s"
                           % (what, _op_name(s.local_init_op), msg))


class WorkerSessionCreator(SessionCreator):
    """A non-chief session: runs only local_init_op and expects the model ready (lens has no chief)."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master, self._config = master, config
        self._max_wait_secs = max_wait_secs
        self._recovery_wait_secs = 30     # SessionManager's default, as TF's WorkerSessionCreator

    def create_session(self):
        """Finalize the graph, run local init, check readiness (on a cluster: wait for the chief)."""
        from lens.client.session import Session
        s = self._scaffold.finalize()
        if self._master:
            # Another process (the chief) initializes the cluster's variables: wait for it, as TF.
            manager = SessionManager(local_init_op=s.local_init_op, ready_op=s.ready_op,
                                     ready_for_local_init_op=s.ready_for_local_init_op,
                                     graph=get_default_graph(), recovery_wait_secs=self._recovery_wait_secs)
            return manager.wait_for_session(self._master, config=self._config, max_wait_secs=self._max_wait_secs)
        sess = Session(self._master, graph=get_default_graph(), config=self._config)
        _run_local_init(sess, s, "A worker session initializes no global variables (lens runs in one "
                                 "process, so there is no chief to do it: use is_chief=True)")
        return sess
