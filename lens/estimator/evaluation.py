"""The evaluation loop and what it writes: steps hook, one pass to the end, eval/ summaries."""
import logging
import time

import numpy as np

from lens.training.hooks import FinalOpsHook, SessionRunHook
from lens.training.monitored import MonitoredSession
from lens.training.monitored_scaffold import ChiefSessionCreator

_log = logging.getLogger("lens")


class StopAfterNEvalStepsHook(SessionRunHook):
    """Stops the evaluation after num_evals runs (TF1's _StopAfterNEvalStepsHook)."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals, self._log_progress = num_evals, log_progress
        self._done = 0

    def after_run(self, run_context, run_values):
        self._done += 1
        if self._log_progress:
            _log.info("Evaluation [%d/%d]", self._done, self._num_evals)
        if self._done >= self._num_evals:
            run_context.request_stop()


def evaluate_once(checkpoint_path, scaffold, eval_ops, final_ops, hooks, config):
    """Restore (or initialize), run eval_ops until the input ends or a hook stops, return final_ops."""
    final_hook = FinalOpsHook(final_ops)
    _log.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
                                  config=config)
    with MonitoredSession(session_creator=creator, hooks=list(hooks) + [final_hook]) as session:
        while not session.should_stop():
            session.run(eval_ops)
    _log.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))
    return final_hook.final_ops_values


def _scalar(value):
    arr = np.asarray(value)
    if arr.size == 1 and arr.dtype.kind in "fiub":
        return float(arr.reshape(()))
    return None


def write_dict_to_summary(output_dir, dictionary, global_step):
    """One Summary of the scalar results at global_step in output_dir (TF1's eval events)."""
    from lens.events.writer import FileWriterCache
    from lens.proto import summary_pb2
    _log.info("Saving dict for global step %d: %s", global_step,
              ", ".join("%s = %s" % (k, dictionary[k]) for k in sorted(dictionary)))
    summary = summary_pb2.Summary()
    for key in sorted(dictionary):
        if key == "global_step" or dictionary[key] is None:
            continue
        value = _scalar(dictionary[key])
        if value is None:
            _log.warning("Skipping summary for %s, must be a float, np.float32, np.int64, np.int32 or int.",
                         key)
            continue
        summary.value.add(tag=key, simple_value=value)
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, global_step)
    writer.flush()


def write_checkpoint_path_to_summary(output_dir, checkpoint_path, global_step):
    """The evaluated checkpoint's path as a text summary named checkpoint_path (TF1.15)."""
    from lens.events.writer import FileWriterCache
    from lens.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, tensor_shape=tensor_shape_pb2.TensorShapeProto(),
                                    string_val=[checkpoint_path.encode()])
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name="text"))
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="checkpoint_path", tensor=tensor,
                                                                   metadata=metadata)])
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, global_step)
    writer.flush()
