"""tfdbg v2's DebugEvent file set: `<prefix>.metadata`, `.source_files`, `.stack_frames`,
`.graphs`, `.execution` and `.graph_execution_traces`, each a TFRecord file of DebugEvents.

Execution events and graph-execution traces go through circular buffers as in TensorFlow:
only the last `circular_buffer_size` of each kind are kept, and they reach the disk when the
execution files are flushed (on disable_dump_debug_info, or at exit). A size <= 0 writes them
as they come. Traces are encoded by hand (their layout is fixed) and framed only when written,
so a buffered trace costs a few byte joins.
"""

import os
import socket
import struct
import threading
import time
from collections import deque

from lens.dbg.dump_encoding import varint
from lens.events.records import encode_record, encode_records
from lens.proto import debug_event_pb2

FILE_VERSION = "debug.Event:1"
SUFFIXES = ("metadata", "source_files", "stack_frames", "graphs", "execution",
            "graph_execution_traces")
_DOUBLE = struct.Struct("<d")
_VECTOR_HEADS = {}  # length -> (TensorProto bytes before the values, their Struct)


def _field(tag, payload):
    """A length-delimited field: tag byte, length, payload."""
    return tag + varint(len(payload)) + payload


def trace_prefix(context_id, op_name, output_slot, mode):
    """The GraphExecutionTrace fields before tensor_proto (fixed for one op output)."""
    out = _field(b"\x0a", context_id.encode()) + _field(b"\x12", op_name.encode())
    if output_slot:
        out += b"\x18" + varint(output_slot)
    return out + b"\x20" + varint(mode)


def float64_vector_proto(values):
    """A serialized 1-D DT_DOUBLE TensorProto holding `values` in tensor_content."""
    n = len(values)
    head = _VECTOR_HEADS.get(n)
    if head is None:
        dim = _field(b"\x12", b"\x08" + varint(n) if n else b"")
        head = _VECTOR_HEADS[n] = (b"\x08\x02" + _field(b"\x12", dim)
                                   + (b"\x22" + varint(8 * n) if n else b""), struct.Struct(
                                       "<%dd" % n))
    return head[0] + head[1].pack(*values)


def trace_record(wall_time, prefix, tensor_proto, device_suffix=b""):
    """One serialized DebugEvent{wall_time, graph_execution_trace}."""
    body = prefix + _field(b"\x2a", tensor_proto) + device_suffix
    return b"\x09" + _DOUBLE.pack(wall_time) + _field(b"\x52", body)


class DebugEventsWriter:
    """Writes one DebugEvent file set under dump_root (TF's DebugEventsWriter)."""

    def __init__(self, dump_root, tfdbg_run_id, circular_buffer_size=1000, version="lens"):
        os.makedirs(dump_root, exist_ok=True)
        self.dump_root = dump_root
        self.host_name = socket.gethostname()
        self.prefix = os.path.join(dump_root, "tfdbg_events.%d.%s" % (int(time.time()),
                                                                      self.host_name))
        self.circular_buffer_size = circular_buffer_size
        self._lock = threading.Lock()
        self._files = {s: open("%s.%s" % (self.prefix, s), "ab") for s in SUFFIXES}
        size = circular_buffer_size if circular_buffer_size > 0 else None
        self._buffers = {"execution": deque(maxlen=size), "graph_execution_traces":
                         deque(maxlen=size)} if size else None
        self._closed = False
        meta = debug_event_pb2.DebugEvent(wall_time=time.time())
        meta.debug_metadata.tensorflow_version = version
        meta.debug_metadata.file_version = FILE_VERSION
        meta.debug_metadata.tfdbg_run_id = tfdbg_run_id
        self._write("metadata", meta.SerializeToString())
        self.flush_non_execution_files()

    def _write(self, suffix, data):
        with self._lock:
            if not self._closed:
                self._files[suffix].write(encode_record(data))

    def _event(self, **fields):
        return debug_event_pb2.DebugEvent(wall_time=time.time(), **fields).SerializeToString()

    def write_source_file(self, source_file):
        """Append a SourceFile event."""
        self._write("source_files", self._event(source_file=source_file))

    def write_stack_frame_with_id(self, frame):
        """Append a StackFrameWithId event."""
        self._write("stack_frames", self._event(stack_frame_with_id=frame))

    def write_debugged_graph(self, graph):
        """Append a DebuggedGraph event."""
        self._write("graphs", self._event(debugged_graph=graph))

    def write_graph_op_creation(self, creation):
        """Append a GraphOpCreation event."""
        self._write("graphs", self._event(graph_op_creation=creation))

    def write_execution(self, execution):
        """Append (or buffer) an Execution event."""
        self.add_execution_record(self._event(execution=execution))

    def add_execution_record(self, data):
        """Buffer (or write) one serialized Execution DebugEvent."""
        if self._buffers is not None:
            self._buffers["execution"].append(data)
        else:
            self._write("execution", data)

    def add_trace_record(self, data):
        """Buffer (or write) one serialized GraphExecutionTrace DebugEvent."""
        if self._buffers is not None:
            self._buffers["graph_execution_traces"].append(data)
        else:
            self._write("graph_execution_traces", data)

    def flush_non_execution_files(self):
        """Push metadata, source files, stack frames and graphs to the disk."""
        with self._lock:
            if not self._closed:
                for suffix in SUFFIXES[:4]:
                    self._files[suffix].flush()

    def flush_execution_files(self):
        """Write out the circular buffers (emptying them) and push to the disk."""
        with self._lock:
            if self._closed:
                return
            if self._buffers is not None:
                for suffix, buf in self._buffers.items():
                    if buf:
                        self._files[suffix].write(encode_records(list(buf)))
                        buf.clear()
            for suffix in SUFFIXES[4:]:
                self._files[suffix].flush()

    # TensorFlow's method names (enable_dump_debug_info returns this writer).
    FlushNonExecutionFiles = flush_non_execution_files
    FlushExecutionFiles = flush_execution_files

    def close(self):
        """Flush everything and close the files (idempotent)."""
        self.flush_non_execution_files()
        self.flush_execution_files()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for f in self._files.values():
                f.close()

    Close = close
