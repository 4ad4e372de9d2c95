"""tf.summary.FileWriter and FileWriterCache: TF1's summary-writing API over EventFileWriter."""
import os
import struct
import threading
import time

from lens.events.event_file_writer import EventFileWriter
from lens.events.summary_builders import is_scalar_bytes as _is_scalar_bytes
from lens.framework.graph import get_default_graph
from lens.proto import config_pb2, event_pb2, graph_pb2, meta_graph_pb2, summary_pb2

Summary = summary_pb2.Summary
_METADATA_KEY = b"J"  # wire key of Summary.Value.metadata (field 9, length-delimited)
_parse_summary = Summary.FromString
_WALL_TIME = struct.Struct("<Bd").pack   # Event.wall_time: key 0x09, then a little-endian double
_now = time.time
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def varint(n):
    """Protobuf's base-128 varint of an int64 (negatives as their 64-bit two's complement)."""
    if 0 <= n < 0x200000:   # the usual steps and lengths, without the loop
        if n < 0x80:
            return bytes((n,))
        if n < 0x4000:
            return bytes(((n & 0x7F) | 0x80, n >> 7))
        return bytes(((n & 0x7F) | 0x80, ((n >> 7) & 0x7F) | 0x80, n >> 14))
    n &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def event_bytes(wall_time, step, summary):
    """A serialized Event{wall_time, step, summary} built from the Summary's bytes, byte for byte
    what Event.SerializeToString gives (fields in number order; proto3 omits a zero step)."""
    head = _WALL_TIME(9, wall_time)
    if step:
        head += b"\x10" + varint(step)
    return head + b"*" + varint(len(summary)) + summary


def _graph_def_of(graph):
    """A GraphDef from a GraphDef or from any object with as_graph_def() (the engine's Graph)."""
    if isinstance(graph, graph_pb2.GraphDef):
        return graph
    as_graph_def = getattr(graph, "as_graph_def", None)
    if as_graph_def is None:
        raise TypeError("The passed graph must be an instance of `Graph` or the deprecated "
                        "`GraphDef`, got %s" % type(graph).__name__)
    try:
        # TF1 writes the graph with _output_shapes so the board can label edges.
        return as_graph_def(add_shapes=True)
    except TypeError:
        return as_graph_def()


def _step(global_step):
    """int(global_step), accepting numpy integers; None stays None."""
    if global_step is None:
        return None
    try:
        return int(global_step)
    except (TypeError, ValueError):
        raise TypeError("global_step must be an integer, got %r" % (global_step,)) from None


class FileWriter:
    """Writes Summary protos and graphs to an events file in logdir (TF1's tf.summary.FileWriter)."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        """Create logdir if needed and an events file in it; write the graph if one is given.

        `session` is accepted for TF1 compatibility; lens writes through the same writer either
        way.
        """
        if logdir is None or str(logdir) == "":
            raise ValueError("FileWriter needs a logdir (a directory path), got %r" % (logdir,))
        self._session = session
        self._seen_summary_tags = set()
        self._seen_run_metadata_tags = set()
        self._tags_lock = threading.Lock()
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            meta = meta_graph_pb2.MetaGraphDef(graph_def=_graph_def_of(
                graph_def if graph_def is not None else graph))
            self.add_meta_graph(meta)

    # -- summaries -------------------------------------------------------------------------
    def add_summary(self, summary, global_step=None):
        """Queue a Summary (proto or serialized bytes) at global_step."""
        if type(summary) is bytes and _METADATA_KEY not in summary:
            # The summary ops' case: no metadata to strip, so the Event's bytes are put together
            # directly around the Summary's (checked by parsing it, as the proto path does).
            step = global_step if type(global_step) is int else (
                0 if global_step is None else _step(global_step))
            if _INT64_MIN <= step <= _INT64_MAX:
                try:
                    if not _is_scalar_bytes(summary):  # scalar()'s own bytes need no parse
                        _parse_summary(summary)
                except Exception as exc:
                    raise ValueError("add_summary got bytes that are not a serialized Summary "
                                     "(%s); pass the output of a summary op or a Summary proto"
                                     % exc) from None
                head = _WALL_TIME(9, _now())    # event_bytes, inlined: this runs per scalar
                if step:
                    head += b"\x10" + varint(step)
                self.event_writer.add_event_bytes(head + b"*" + varint(len(summary)) + summary)
                return
        event = event_pb2.Event(wall_time=time.time())
        if global_step is not None:
            event.step = _step(global_step)
        if type(summary) is bytes:
            try:
                # Parsing now both builds the event and rejects garbage while the caller
                # can still see why.
                event.summary.MergeFromString(summary)
            except Exception as exc:
                raise ValueError("add_summary got bytes that are not a serialized Summary (%s); "
                                 "pass the output of a summary op or a Summary proto" % exc) from None
            maybe_metadata = _METADATA_KEY in summary
        elif isinstance(summary, Summary):
            event.summary.CopyFrom(summary)
            maybe_metadata = True
        elif hasattr(summary, "SerializeToString") and type(summary).__name__ == "Summary":
            event.summary.MergeFromString(summary.SerializeToString())  # e.g. TensorBoard's proto
            maybe_metadata = True
        elif hasattr(summary, "numpy") and getattr(summary, "dtype", None) is not None and \
                summary.dtype.base_dtype.name == "string":
            # An eager summary op's result (a string tensor holding the serialized Summary).
            return self.add_summary(bytes(summary.numpy()), global_step)
        else:
            raise TypeError("add_summary expects a Summary proto or its serialized bytes, got %s"
                            % type(summary).__name__)
        if maybe_metadata:  # no metadata key byte at all means there is nothing to strip
            self._strip_seen_metadata(event.summary)
        self.event_writer.add_owned_event(event)

    def _strip_seen_metadata(self, summary):
        """Drop Summary.Value.metadata for tags already written by this writer (TF1 behaviour)."""
        with self._tags_lock:
            for value in summary.value:
                if not value.HasField("metadata"):
                    continue
                if value.tag in self._seen_summary_tags:
                    value.ClearField("metadata")
                else:
                    self._seen_summary_tags.add(value.tag)

    # -- other events ----------------------------------------------------------------------
    def add_event(self, event):
        """Queue an Event proto as is."""
        self.event_writer.add_event(event)

    def _add_event(self, event, global_step):
        """Stamp wall time and step, then queue."""
        event.wall_time = time.time()
        step = _step(global_step)
        if step is not None:
            event.step = step
        self.event_writer.add_event(event)

    def add_session_log(self, session_log, global_step=None):
        """Queue a SessionLog (START/STOP/CHECKPOINT) at global_step."""
        if not isinstance(session_log, event_pb2.SessionLog):
            raise TypeError("add_session_log expects a SessionLog proto, got %s"
                            % type(session_log).__name__)
        self._add_event(event_pb2.Event(session_log=session_log), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Queue the graph (a Graph-like object with as_graph_def(), or a GraphDef)."""
        source = graph if graph is not None else graph_def
        if source is None:
            raise TypeError("add_graph needs a graph (or graph_def), got None")
        gd = _graph_def_of(source)
        self._add_event(event_pb2.Event(graph_def=gd.SerializeToString()), global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Queue a MetaGraphDef (the board falls back to its graph_def)."""
        if isinstance(meta_graph_def, bytes):
            meta_graph_def = meta_graph_pb2.MetaGraphDef.FromString(meta_graph_def)
        if not isinstance(meta_graph_def, meta_graph_pb2.MetaGraphDef):
            raise TypeError("add_meta_graph expects a MetaGraphDef, got %s"
                            % type(meta_graph_def).__name__)
        data = meta_graph_def.SerializeToString()
        self._add_event(event_pb2.Event(meta_graph_def=data), global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Queue RunMetadata under tag; each tag may be used once per writer, as in TF."""
        if not isinstance(run_metadata, config_pb2.RunMetadata):
            raise TypeError("add_run_metadata expects a RunMetadata proto, got %s"
                            % type(run_metadata).__name__)
        with self._tags_lock:
            if tag in self._seen_run_metadata_tags:
                raise ValueError("The provided tag was already used for this event type: %r "
                                 "(use a new tag per step, e.g. 'step%%d')" % (tag,))
            self._seen_run_metadata_tags.add(tag)
        tagged = event_pb2.TaggedRunMetadata(tag=tag,
                                             run_metadata=run_metadata.SerializeToString())
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    # -- lifecycle -------------------------------------------------------------------------
    def get_logdir(self):
        """The directory this writer writes into."""
        return self.event_writer.get_logdir()

    def flush(self):
        """Write every queued event to disk."""
        self.event_writer.flush()

    def close(self):
        """Flush and close the events file."""
        self.event_writer.close()

    def reopen(self):
        """Start a new events file after close()."""
        self.event_writer.reopen()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FileWriterCache:
    """One shared FileWriter per logdir (TF1's tf.summary.FileWriterCache)."""

    _cache = {}
    _lock = threading.Lock()

    @staticmethod
    def get(logdir):
        """The cached FileWriter for logdir, created (with the default graph, if any) on first use."""
        key = os.path.abspath(os.fspath(logdir))
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(key)
            if writer is None:
                writer = FileWriter(logdir, graph=get_default_graph())
                FileWriterCache._cache[key] = writer
            return writer

    @staticmethod
    def clear():
        """Close and forget every cached writer."""
        with FileWriterCache._lock:
            writers = list(FileWriterCache._cache.values())
            FileWriterCache._cache.clear()
        for writer in writers:
            writer.close()
