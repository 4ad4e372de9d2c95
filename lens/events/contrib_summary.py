"""tf.contrib.summary for eager code: a default writer, a recording condition, summaries written at once.

Each call writes its event straight away through the writer's FileWriter, with TF's contrib
layout (`simple_value` scalars, `histo` histograms, tags under the name scope and family).
Graph-mode programs keep using tf.summary's ops and FileWriter.
"""
import contextlib
import threading

import numpy as np

from lens.events import summary_builders
from lens.events.writer import FileWriter
from lens.framework.eager import executing_eagerly
from lens.framework.graph import GraphKeys, get_default_graph

_state = threading.local()


def _get(name, default):
    return getattr(_state, name, default)


class SummaryWriter:
    """A writer of one logdir (tf.contrib.summary's); make it the default with as_default()."""

    def __init__(self, logdir, max_queue=None, flush_millis=None, filename_suffix=None):
        self._writer = FileWriter(logdir, max_queue=10 if max_queue is None else max_queue,
                                  flush_secs=120 if flush_millis is None else flush_millis / 1000.0,
                                  filename_suffix=".v2" if filename_suffix is None else filename_suffix)

    def set_as_default(self):
        """Make this the default writer from now on."""
        _state.writer = self

    @contextlib.contextmanager
    def as_default(self):
        """Make this the default writer inside the block."""
        previous = _get("writer", None)
        _state.writer = self
        try:
            yield self
        finally:
            _state.writer = previous

    def init(self):
        """Nothing to do: the events file is open from the start."""

    def flush(self):
        """Write queued events to disk."""
        self._writer.flush()

    def close(self):
        """Flush and close the events file."""
        self._writer.close()

    def _write(self, serialized, step):
        self._writer.add_summary(serialized, global_step=step)


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """A SummaryWriter for logdir."""
    _require_eager("create_file_writer")
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)


@contextlib.contextmanager
def _recording(condition):
    previous = _get("condition", None)
    _state.condition = condition
    try:
        yield
    finally:
        _state.condition = previous


def always_record_summaries():
    """Summaries inside are written."""
    return _recording(lambda: True)


def never_record_summaries():
    """Summaries inside are not written."""
    return _recording(lambda: False)


def record_summaries_every_n_global_steps(n, global_step=None):
    """Summaries inside are written when the global step is a multiple of n."""
    def every_n():
        step = global_step if global_step is not None else _global_step()
        return step is not None and int(np.asarray(step)) % n == 0
    return _recording(every_n)


def should_record_summaries():
    """Whether a summary made now would be written."""
    condition = _get("condition", None)
    return condition is not None and bool(condition())


def _global_step():
    steps = get_default_graph().get_collection(GraphKeys.GLOBAL_STEP)
    return steps[0] if steps else None


def _require_eager(what):
    if not executing_eagerly():
        raise RuntimeError("lens implements tf.contrib.summary.%s for eager code (tf.enable_eager_execution()); "
                           "in graph mode use tf.summary's ops and tf.summary.FileWriter." % what)


def _emit(kind, build, name, tensor, family, step):
    _require_eager(kind)
    writer = _get("writer", None)
    if writer is None or not should_record_summaries():
        return False
    if step is None:
        step = _global_step()
        if step is None:
            raise ValueError("No step given and no global step exists: pass step= or create one with "
                             "tf.train.get_or_create_global_step().")
    scope = get_default_graph().get_name_scope()
    tag = "/".join(p for p in (scope, family, name) if p)
    writer._write(build(tag, np.asarray(tensor)), int(np.asarray(step)))
    return True


def scalar(name, tensor, family=None, step=None):
    """Write a scalar; True when written."""
    return _emit("scalar", summary_builders.scalar, name, tensor, family, step)


def histogram(name, tensor, family=None, step=None):
    """Write a histogram of the tensor's values; True when written."""
    return _emit("histogram", summary_builders.histogram, name, tensor, family, step)


def flush(writer=None, name=None):
    """Flush the given or default writer."""
    writer = writer or _get("writer", None)
    if writer is not None:
        writer.flush()
