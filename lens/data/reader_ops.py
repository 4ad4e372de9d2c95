"""TF1's readers: TFRecordReader, TextLineReader, FixedLengthRecordReader, WholeFileReader, IdentityReader.

A reader op outputs a handle; its state (current file, records produced, files finished) lives in the
session's context resources. read() takes file names (work units) from a queue as it needs them.
"""
import threading

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.data_flow_ops import queue_of_handle
from lens.data import record_sources

__all__ = ["ReaderBase", "TFRecordReader", "TextLineReader", "FixedLengthRecordReader", "WholeFileReader",
           "IdentityReader"]


class ReaderState:
    """One reader in one session: the record generator of its current work unit and its counters."""

    def __init__(self, records_of):
        self.records_of = records_of        # work (str) -> iterator of (key str, value bytes)
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.current = None
        self.produced = 0
        self.completed = 0

    def read(self, queue, n):
        """Up to n (key, value) pairs, taking new work from queue as files end; fewer only when it runs out."""
        out = []
        with self.lock:
            while len(out) < n:
                if self.current is None:
                    try:
                        work = queue.dequeue(1, False)[0][0]
                    except errors.OutOfRangeError:
                        if out:
                            break
                        raise
                    work = work[()] if isinstance(work, np.ndarray) else work
                    self.current = iter(self.records_of(work.decode() if isinstance(work, bytes) else str(work)))
                for key, value in self.current:
                    out.append((key, value))
                    if len(out) == n:
                        break
                else:
                    self.current = None
                    self.completed += 1
                    if out:
                        break  # as TF: read_up_to returns what it has when a work unit ends
            self.produced += len(out)
        return out


def _reader_make(op, ctx):
    key = op._attrs.get("shared_name") or op.name
    handle = np.array(key, dtype=object)

    def run():
        slot = ("reader", key)
        if slot not in ctx.resources:
            ctx.resources[slot] = ReaderState(_SOURCES[op._type](op._attrs))
        return handle
    return run


def _state(ctx, handle):
    h = np.asarray(handle, dtype=object)[()]
    return ctx.resources[("reader", h.decode() if isinstance(h, bytes) else str(h))]


def _as_bytes(s):
    return s.encode() if isinstance(s, str) else bytes(s)


def _read_make(op, ctx):
    def run(handle, queue_handle):
        (k, v), = _state(ctx, handle).read(queue_of_handle(ctx, queue_handle), 1)
        return np.array(_as_bytes(k), dtype=object), np.array(_as_bytes(v), dtype=object)
    return run


def _read_up_to_make(op, ctx):
    def run(handle, queue_handle, n):
        n = int(n)
        if n <= 0:
            raise errors.InvalidArgumentError(None, op, "num_records (%d) must be > 0" % n)
        pairs = _state(ctx, handle).read(queue_of_handle(ctx, queue_handle), n)
        keys = np.empty(len(pairs), dtype=object)
        values = np.empty(len(pairs), dtype=object)
        for i, (k, v) in enumerate(pairs):
            keys[i], values[i] = _as_bytes(k), _as_bytes(v)
        return keys, values
    return run


def _counter_make(field):
    return lambda op, ctx: lambda handle: np.int64(getattr(_state(ctx, handle), field))


def _reset_make(op, ctx):
    def run(handle):
        state = _state(ctx, handle)
        with state.lock:
            state.reset()
    return run


_SOURCES = {
    "TFRecordReaderV2": lambda a: lambda w: record_sources.tfrecords(w, a.get("compression_type", "")),
    "TextLineReaderV2": lambda a: lambda w: record_sources.text_lines(w, a.get("skip_header_lines", 0)),
    "FixedLengthRecordReaderV2": lambda a: lambda w: record_sources.fixed_length_records(
        w, a["record_bytes"], a.get("header_bytes", 0), a.get("footer_bytes", 0), a.get("hop_bytes", 0),
        a.get("encoding", "")),
    "WholeFileReaderV2": lambda a: record_sources.whole_file,
    "IdentityReaderV2": lambda a: lambda w: iter([(w, w)]),
}
for _t in _SOURCES:
    register_op(_t, make=_reader_make, not_differentiable=True, stateful=True, shape=lambda op: [TensorShape([])])
register_op("ReaderReadV2", make=_read_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([]), TensorShape([])])
register_op("ReaderReadUpToV2", make=_read_up_to_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([None]), TensorShape([None])])
register_op("ReaderNumRecordsProducedV2", make=_counter_make("produced"), not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([])])
register_op("ReaderNumWorkUnitsCompletedV2", make=_counter_make("completed"), not_differentiable=True,
            stateful=True, shape=lambda op: [TensorShape([])])
register_op("ReaderResetV2", make=_reset_make, not_differentiable=True, stateful=True)


class ReaderBase:
    """A reader of records from the work units (file names) of a queue."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    reader_ref = property(lambda self: self._reader_ref, doc="The reader's handle tensor.")
    supports_serialize = property(lambda self: self._supports_serialize,
                                  doc="Whether serialize_state/restore_state work (never, in lens).")

    def _op(self, op_type, name, inputs, dtypes):
        g = self._reader_ref.graph
        with g.as_default(), name_scope(name, op_type) as scope:
            op = g._create_op(op_type, [self._reader_ref] + inputs, dtypes, {}, scope, frames_skip=4)
        return op

    @staticmethod
    def _queue_ref(queue):
        return queue.queue_ref if hasattr(queue, "queue_ref") else convert_to_tensor(queue)

    def read(self, queue, name=None):
        """(key, value) scalar strings: the next record, taking a new file name from queue when one ends."""
        op = self._op("ReaderReadV2", name, [self._queue_ref(queue)], [_dt.string, _dt.string])
        return op._outputs[0], op._outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        """(keys, values) vectors of up to num_records records (fewer once the queue runs out)."""
        n = convert_to_tensor(num_records, dtype=_dt.int64, name="num_records")
        op = self._op("ReaderReadUpToV2", name, [self._queue_ref(queue), n], [_dt.string, _dt.string])
        return op._outputs[0], op._outputs[1]

    def num_records_produced(self, name=None):
        """An int64 tensor: records read so far."""
        return self._op("ReaderNumRecordsProducedV2", name, [], [_dt.int64])._outputs[0]

    def num_work_units_completed(self, name=None):
        """An int64 tensor: files finished so far."""
        return self._op("ReaderNumWorkUnitsCompletedV2", name, [], [_dt.int64])._outputs[0]

    def reset(self, name=None):
        """An op forgetting the current file and zeroing the counters."""
        return self._op("ReaderResetV2", name, [], [])


def _reader(op_type, name, attrs):
    attrs = dict(attrs, container="", shared_name="")
    op = get_default_graph()._create_op(op_type, [], [_dt.resource], attrs, name, frames_skip=4)
    return op._outputs[0]


class TFRecordReader(ReaderBase):
    """Records of TFRecord files (options: a TFRecordOptions or compression type); keys 'file:offset'."""

    def __init__(self, name=None, options=None):
        compression = ""
        if options is not None:
            compression = getattr(options, "compression_type", options)
            compression = {None: "", 0: "", 1: "ZLIB", 2: "GZIP"}.get(compression, compression)
        super().__init__(_reader("TFRecordReaderV2", name or "TFRecordReaderV2",
                                 {"compression_type": compression or ""}))


class TextLineReader(ReaderBase):
    """Lines of text files (without newline), after skip_header_lines; keys 'file:line number'."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(_reader("TextLineReaderV2", name or "TextLineReaderV2",
                                 {"skip_header_lines": int(skip_header_lines or 0)}))


class FixedLengthRecordReader(ReaderBase):
    """record_bytes-long records between header_bytes and footer_bytes; keys 'file:record index'."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None,
                 encoding=None):
        super().__init__(_reader("FixedLengthRecordReaderV2", name or "FixedLengthRecordReaderV2", {
            "record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
            "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0), "encoding": encoding or ""}))


class WholeFileReader(ReaderBase):
    """Each file whole: key the file name, value its contents."""

    def __init__(self, name=None):
        super().__init__(_reader("WholeFileReaderV2", name or "WholeFileReaderV2", {}))


class IdentityReader(ReaderBase):
    """Each work string as both key and value (for testing pipelines)."""

    def __init__(self, name=None):
        super().__init__(_reader("IdentityReaderV2", name or "IdentityReaderV2", {}))
