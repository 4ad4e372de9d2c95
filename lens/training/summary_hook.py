"""tf.train.SummarySaverHook: runs the summary op every N steps or N seconds and writes it."""
from lens.training.hooks import SecondOrStepTimer, SessionRunArgs, SessionRunHook, global_step_read

__all__ = ["SummarySaverHook"]


class SummarySaverHook(SessionRunHook):
    """Writes summaries (summary_op, or the scaffold's merged op) at the global step.

    save_steps / save_secs: how often (exactly one). output_dir or summary_writer: where (with
    neither, summaries are fetched but not written, as in TF1). A SessionLog START marks the
    first step written.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._scaffold = scaffold
        self._writer = summary_writer
        self._output_dir = output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        """Open the writer (FileWriterCache for output_dir); find the global step."""
        if self._writer is None and self._output_dir:
            from lens.events.writer import FileWriterCache
            self._writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._step = global_step_read()
        if self._step is None:
            raise RuntimeError("Global step should be created to use SummarySaverHook. Call "
                               "tf.train.get_or_create_global_step() before building the session.")

    def _summary_ops(self):
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return list(op) if isinstance(op, (list, tuple)) else [op]

    def before_run(self, run_context):
        """Ask for the global step, and for the summaries when they are due."""
        self._request_summary = self._next_step is None or \
            self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._step}
        if self._request_summary:
            ops = self._summary_ops()
            if ops is not None:
                requests["summary"] = ops
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        """Write the fetched summaries at the current global step."""
        if not self._writer:
            return
        results = run_values.results
        step = int(results["global_step"]) + 1
        if self._next_step is None or self._request_summary:
            step = int(run_context.session.run(self._step))
        if self._next_step is None:
            from lens.proto import event_pb2
            self._writer.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), step)
        if self._request_summary:
            self._timer.update_last_triggered_step(step)
            for summary in results.get("summary", ()):
                self._writer.add_summary(summary, step)
        self._next_step = step + 1

    def end(self, session=None):
        """Flush the writer."""
        if self._writer:
            self._writer.flush()
