"""CheckpointSaverHook: saves checkpoints every N steps or seconds, and at the end (needs Saver)."""
import logging
import os

from lens.framework.graph import GraphKeys, get_default_graph
from lens.training.hooks import (SecondOrStepTimer, SessionRunArgs, SessionRunHook, due_step,
                                     global_step_read)
from lens.training.monitored_scaffold import _SAVER_MISSING, saver_module

__all__ = ["CheckpointSaverHook", "CheckpointSaverListener"]

_log = logging.getLogger("lens")


class CheckpointSaverListener:
    """Callbacks around each save; after_save may return True to stop training."""

    def begin(self):
        """Called once before the session exists."""

    def before_save(self, session, global_step_value):
        """Called before each save."""

    def after_save(self, session, global_step_value):
        """Called after each save; return True to request a stop."""

    def end(self, session, global_step_value):
        """Called once after the last save."""


class CheckpointSaverHook(SessionRunHook):
    """Saves `<checkpoint_dir>/<basename>-<step>` every save_steps steps or save_secs seconds."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        if saver is None and scaffold is None and saver_module() is None:
            raise RuntimeError("CheckpointSaverHook cannot save: " + _SAVER_MISSING)
        self._saver, self._scaffold = saver, scaffold
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = list(listeners or [])
        self._writer = None

    def begin(self):
        """Open the checkpoint directory's event writer; find the global step."""
        from lens.events.writer import FileWriterCache
        self._writer = FileWriterCache.get(self._checkpoint_dir)
        self._step = global_step_read()
        if self._step is None:
            raise RuntimeError("Global step should be created to use CheckpointSaverHook. Call "
                               "tf.train.get_or_create_global_step() before building the session.")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        """Write graph.pbtxt and the graph event, then save the initial checkpoint."""
        from google.protobuf import text_format
        step = int(session.run(self._step))
        graph_def = get_default_graph().as_graph_def(add_shapes=True)
        os.makedirs(self._checkpoint_dir, exist_ok=True)
        with open(os.path.join(self._checkpoint_dir, "graph.pbtxt"), "w") as f:
            f.write(text_format.MessageToString(graph_def))
        self._writer.add_graph(get_default_graph())
        self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context):
        """Fetch the global step."""
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        """Save when the timer fires."""
        step = due_step(self._timer, self._step, run_context, int(run_values.results))
        if step is not None:
            self._timer.update_last_triggered_step(step)
            if self._save(run_context.session, step):
                run_context.request_stop()

    def end(self, session):
        """Save the last step unless it was just saved."""
        step = int(session.run(self._step))
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None and self._scaffold.saver is not None:
            return self._scaffold.saver
        savers = get_default_graph().get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError("No items in collection %s. Please add a saver to the collection or "
                               "provide a saver or scaffold." % GraphKeys.SAVERS)
        if len(savers) > 1:
            raise RuntimeError("More than one item in collection %s. Please indicate which one to "
                               "use by passing it to the constructor." % GraphKeys.SAVERS)
        self._saver = savers[0]
        return self._saver

    def _save(self, session, step):
        """Save; True when a listener asks to stop."""
        from lens.proto import event_pb2
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        path = self._get_saver().save(session, self._save_path, global_step=step)
        self._writer.add_session_log(event_pb2.SessionLog(
            status=event_pb2.SessionLog.CHECKPOINT, checkpoint_path=path or self._save_path), step)
        stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _log.info("A CheckpointSaverListener requested that training be stopped. "
                          "listener: %s", listener)
                stop = True
        return stop
