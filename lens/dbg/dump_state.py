"""What one enable_dump_debug_info writes about graphs: ids of graphs, ops and tensors, the
GraphOpCreation events with their stack frames and source files, and which op outputs a
tensor debug mode traces (as pre-encoded trace prefixes)."""

import os
import re
import sys
import threading
import uuid
import weakref

import numpy as np

from lens.dbg.debug_events_writer import (DebugEventsWriter, float64_vector_proto,
                                          trace_prefix, _field)
from lens.dbg.device_names import canonical_device
from lens.events.debug_events import health
from lens.framework.sources import is_lens_file
from lens.proto import debug_event_pb2, tensor_util
from lens.proto.graph_debug_info_pb2 import GraphDebugInfo

# Op types TensorFlow's dumping callback never instruments (op_callbacks_common).
SKIP_OP_TYPES = frozenset({
    "Enter", "Exit", "Identity", "If", "LoopCond", "Merge", "NextIteration", "StatelessIf",
    "StatefulPartitionedCall", "Switch", "While", "RemoteCall", "DestroyResourceOp"})
SESSION_RUN_OP_TYPE = "Session.run"
# NO_TENSOR traces carry an empty float32 vector (what TF's DebugIdentityV2 receives).
_EMPTY_FLOAT_PROTO = b"\x08\x01" + _field(b"\x12", _field(b"\x12", b""))


def _version():
    try:
        from importlib.metadata import version
        return "lens " + version("lens")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "lens"


class GraphRecord:
    """What has been written about one graph: its id, how many ops, their tensor ids."""

    def __init__(self, graph_id):
        self.graph_id = graph_id
        self.written = 0
        self.tensor_ids = {}  # Operation -> [symbolic tensor id per output]
        self.traced = {}  # Operation -> per-slot (prefix bytes, tensor id) or None


class DumpingState:
    """One enable_dump_debug_info: where to, which mode, and what is written already."""

    def __init__(self, dump_root, mode, circular_buffer_size, op_regex, tensor_dtypes):
        self.dump_root = dump_root
        self.mode = mode
        self.circular_buffer_size = circular_buffer_size
        self.op_regex = op_regex
        self.op_re = re.compile(op_regex) if op_regex else None
        self.tensor_dtypes = tensor_dtypes
        self.tfdbg_run_id = uuid.uuid4().hex[:8]
        self.writer = None
        self.lock = threading.RLock()
        self.graphs = weakref.WeakKeyDictionary()
        self.source_index = {}  # file path -> index in .source_files
        self.frame_ids = {}  # (path, line, func) -> stack frame id
        self.devices = {}  # device name -> DebuggedDevice id
        self.tensor_counter = 0

    def move_to(self, dump_root):
        """Close this file set and start a new one under dump_root, from scratch."""
        with self.lock:
            if self.writer is not None:
                self.writer.close()
            self.writer = None
            self.dump_root = dump_root
            self.graphs = weakref.WeakKeyDictionary()
            self.source_index, self.frame_ids, self.devices = {}, {}, {}

    def get_writer(self):
        """The writer for the current dump root (created on first use)."""
        if self.writer is None:
            self.writer = DebugEventsWriter(self.dump_root, self.tfdbg_run_id,
                                            self.circular_buffer_size, _version())
        return self.writer

    def key(self):
        """Plan-cache key: what `selects` depends on."""
        return ("tfdbg2", id(self))

    # -- what gets traced ------------------------------------------------------------------

    def dumps(self, op_type, dtype):
        """True when a tensor of this op type and lens dtype is traced."""
        if self.op_re is not None and not self.op_re.match(op_type):
            return False
        base = dtype.base_dtype
        # Ref outputs are variable buffers (TF2's resource handles): traced where they're read.
        if dtype.is_ref_dtype or base.name in ("resource", "variant"):
            return False
        if self.tensor_dtypes is not None:
            if callable(self.tensor_dtypes):
                if not self.tensor_dtypes(base):
                    return False
            elif base not in self.tensor_dtypes:
                return False
        if base.name == "string":
            return self.mode in (health.NO_TENSOR, health.FULL_TENSOR)
        return health.dumpable(self.mode, np.dtype(base.as_numpy_dtype))

    # -- graphs, ops, stack frames, source files -------------------------------------------

    def _source_index(self, path):
        index = self.source_index.get(path)
        if index is None:
            lines = []
            if path.endswith(".py"):
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        lines = f.read().splitlines()
                except OSError as e:
                    print("lens.dbg: failed to read source code from path: %s. Reason: %s"
                          % (path, e), file=sys.stderr)
            self.get_writer().write_source_file(debug_event_pb2.SourceFile(
                file_path=path, host_name=self.writer.host_name, lines=lines))
            index = self.source_index[path] = len(self.source_index)
        return index

    def code_location(self, frames):
        """A CodeLocation for (path, line, func) frames, outermost first; lens's own dropped."""
        ids = []
        for path, line, func in frames:
            if is_lens_file(path):
                continue
            path = os.path.abspath(path)
            key = (path, line, func)
            frame_id = self.frame_ids.get(key)
            if frame_id is None:
                file_index = self._source_index(path)
                frame_id = self.frame_ids[key] = str(uuid.uuid4())
                self.writer.write_stack_frame_with_id(debug_event_pb2.StackFrameWithId(
                    id=frame_id, file_line_col=GraphDebugInfo.FileLineCol(
                        file_index=file_index, line=line, func=func)))
            ids.append(frame_id)
        return debug_event_pb2.CodeLocation(host_name=self.get_writer().host_name,
                                            stack_frame_ids=ids)

    def device_id(self, device):
        """The DebuggedDevice id of a device name (written on first use)."""
        device_id = self.devices.get(device)
        if device_id is None:
            device_id = self.devices[device] = len(self.devices)
            event = debug_event_pb2.DebuggedDevice(device_name=device, device_id=device_id)
            self.get_writer()._write("graphs", self.writer._event(debugged_device=event))
        return device_id

    def register(self, graph):
        """Write the graph and any op not written yet; returns its GraphRecord."""
        rec = self.graphs.get(graph)
        writer = self.get_writer()
        if rec is None:
            rec = self.graphs[graph] = GraphRecord(str(uuid.uuid4()))
            writer.write_debugged_graph(debug_event_pb2.DebuggedGraph(graph_id=rec.graph_id))
        ops = graph._ops
        if rec.written < len(ops):
            for op in ops[rec.written:]:
                self._write_op(rec, op)
            rec.written = len(ops)
            writer.flush_non_execution_files()
        return rec

    def _write_op(self, rec, op):
        ids = []
        for _ in op._outputs:
            self.tensor_counter += 1
            ids.append(self.tensor_counter)
        rec.tensor_ids[op] = ids
        frames = [(f, line, func) for f, line, func in reversed(op._frames or ())]
        creation = debug_event_pb2.GraphOpCreation(
            op_type=op.type, op_name=op.name, graph_id=rec.graph_id, device_name=op.device,
            input_names=[t.name for t in op.inputs], num_outputs=len(op._outputs),
            code_location=self.code_location(frames), output_tensor_ids=ids)
        self.writer.write_graph_op_creation(creation)

    def traced_slots(self, rec, op):
        """Per output slot: (trace prefix, tensor id), or None when that output isn't traced."""
        slots = rec.traced.get(op)
        if slots is None:
            slots = []
            # A variable's `read` Identity is TF2's ReadVariableOp: traced, unlike Identity.
            skip = op.type in SKIP_OP_TYPES and not (
                op.type == "Identity" and op.inputs and op.inputs[0].dtype.is_ref_dtype)
            device = canonical_device(op.device).encode()
            for slot, t in enumerate(op._outputs):
                if skip or not self.dumps(op.type, t.dtype):
                    slots.append(None)
                    continue
                prefix = trace_prefix(rec.graph_id, op.name, slot, self.mode)
                slots.append((prefix, rec.tensor_ids[op][slot], _field(b"\x32", device)))
            rec.traced[op] = slots
        return slots


def tensor_proto_bytes(mode, tensor_id, value):
    """The serialized TensorProto a trace of this mode carries for `value`."""
    if mode == health.NO_TENSOR:
        return _EMPTY_FLOAT_PROTO
    if mode == health.FULL_TENSOR:
        return tensor_util.make_tensor_proto(value).SerializeToString()
    a = value if type(value) is np.ndarray else np.asarray(value)
    return float64_vector_proto(health.SUMMARIES[mode](tensor_id, a))


