"""HParamsHook: a MonitoredSession hook that records one session's hparams for the board."""

from lens.events.plugins import hparams as summaries
from lens.events.writer import FileWriter, FileWriterCache
from lens.proto import hparams_api_pb2 as api_pb2
from lens.training.hooks import SessionRunHook


class HParamsHook(SessionRunHook):
    """Writes the session start (hparam values, group) when the session is created and the
    session end (STATUS_SUCCESS) when it ends: TensorBoard's KerasCallback for TF1 loops.

    writer_or_logdir: a FileWriter, or a logdir (the cached FileWriter for it is used)."""

    def __init__(self, writer_or_logdir, hparams, trial_id=None):
        if not isinstance(writer_or_logdir, (str, FileWriter)) and \
                not hasattr(writer_or_logdir, "add_summary"):
            raise TypeError("writer_or_logdir must be a FileWriter or a logdir path, got %r"
                            % (writer_or_logdir,))
        self._target = writer_or_logdir
        self._hparams = dict(hparams)
        self._trial_id = trial_id
        summaries.hparams_pb(self._hparams, trial_id)  # bad values fail here, not mid-training
        self._writer = None

    def begin(self):
        """Resolve the writer (FileWriterCache for a logdir)."""
        target = self._target
        self._writer = FileWriterCache.get(target) if isinstance(target, str) else target

    def after_create_session(self, session, coord):
        """Record the session start."""
        self._writer.add_summary(summaries.hparams_pb(self._hparams, self._trial_id), 0)
        self._writer.flush()

    def end(self, session):
        """Record a successful end."""
        self._writer.add_summary(summaries.session_end_pb(api_pb2.STATUS_SUCCESS), 0)
        self._writer.flush()
