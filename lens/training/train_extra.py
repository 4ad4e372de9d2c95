"""More of tf.train: ProfilerHook (Chrome traces through lens.client.timeline), GlobalStepWaiterHook,
noisy_linear_cosine_decay, piecewise_constant_decay, assert_global_step and the SequenceExample protos."""
import logging
import math
import os
import time

from lens.client import timeline
from lens.events import gfile
from lens.events.writer import FileWriterCache
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import math as M
from lens.ops.random import random_normal
from lens.ops.variables import Variable
from lens.proto import config_pb2
from lens.proto.example_pb2 import SequenceExample
from lens.proto.feature_pb2 import FeatureList, FeatureLists
from lens.training.decay import piecewise_constant
from lens.training.hooks import SecondOrStepTimer, SessionRunArgs, SessionRunHook
from lens.training.training_util import get_global_step

__all__ = ["ProfilerHook", "GlobalStepWaiterHook", "noisy_linear_cosine_decay", "piecewise_constant_decay",
           "assert_global_step", "SequenceExample", "FeatureList", "FeatureLists"]

_log = logging.getLogger("lens")
piecewise_constant_decay = piecewise_constant


class ProfilerHook(SessionRunHook):
    """Every save_steps steps (or save_secs seconds) trace one run fully and write output_dir/timeline-<step>.json
    in Chrome's trace format; the RunMetadata also goes to output_dir's event file as step_<step>."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir)
        self._show_dataflow, self._show_memory = show_dataflow, show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use ProfilerHook.")

    def before_run(self, run_context):
        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(self._next_step)
        opts = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=opts)

    def after_run(self, run_context, run_values):
        stale = run_values.results["global_step"]
        if self._next_step is None:
            # The first run only tells the step: the timer starts from it.
            self._timer.update_last_triggered_step(stale)
        step = stale + 1
        if self._request_summary:
            step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(step)
            self._save(step, self._output_file.format(step), run_values.run_metadata.step_stats)
            self._file_writer.add_run_metadata(run_values.run_metadata, "step_%d" % step)
        self._next_step = step + 1

    def _save(self, step, path, step_stats):
        _log.info("Saving timeline for %d into '%s'.", step, path)
        trace = timeline.Timeline(step_stats).generate_chrome_trace_format(
            show_dataflow=self._show_dataflow, show_memory=self._show_memory)
        with gfile.GFile(path, "w") as f:
            f.write(trace)


class GlobalStepWaiterHook(SessionRunHook):
    """Hold a worker's first run until the global step reaches wait_until_step (polls every 0.5 s)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use _GlobalStepWaiterHook.")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged = None
        while True:
            current = run_context.session.run(self._global_step_tensor)
            if current >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current != last_logged:
                _log.info("Waiting for global step %d before starting training. Current step is %d.",
                          self._wait_until_step, current)
                last_logged = current
            time.sleep(0.5)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """Linear cosine decay with Gaussian noise of variance initial_variance / (1 + step)^variance_decay
    added to the linear part (a fresh draw on every evaluation)."""
    if global_step is None:
        raise ValueError("noisy linear cosine decay requires global_step")
    with name_scope(name, "NoisyLinearCosineDecay",
                    [learning_rate, global_step, initial_variance, variance_decay, num_periods, alpha, beta]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        step = M.minimum(M.cast(global_step, dtype), convert_to_tensor(decay_steps, dtype=dtype))
        steps = convert_to_tensor(decay_steps, dtype=dtype)
        linear = M.divide(M.subtract(steps, step), steps)
        variance = M.divide(convert_to_tensor(initial_variance, dtype=dtype),
                            M.pow(M.add(convert_to_tensor(1.0, dtype=dtype), step),
                                  convert_to_tensor(variance_decay, dtype=dtype)))
        noisy = M.add(linear, random_normal([], stddev=M.sqrt(variance), dtype=dtype))
        fraction = M.multiply(convert_to_tensor(2.0 * num_periods, dtype=dtype), M.divide(step, steps))
        cosine = M.multiply(convert_to_tensor(0.5, dtype=dtype),
                            M.add(convert_to_tensor(1.0, dtype=dtype),
                                  M.cos(M.multiply(convert_to_tensor(math.pi, dtype=dtype), fraction))))
        decayed = M.add(M.multiply(M.add(convert_to_tensor(alpha, dtype=dtype), noisy), cosine),
                        convert_to_tensor(beta, dtype=dtype))
        return M.multiply(lr, decayed, name=scope)


def assert_global_step(global_step_tensor):
    """TypeError unless global_step_tensor is an integer scalar Variable or Tensor."""
    if not (isinstance(global_step_tensor, (Variable, Tensor)) or hasattr(global_step_tensor, "_as_graph_element")):
        raise TypeError("Existing \"global_step\" must be a Variable or Tensor: %s." % global_step_tensor)
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError("Existing \"global_step\" does not have integer type: %s" % global_step_tensor.dtype)
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError("Existing \"global_step\" is not scalar: %s" % shape)

