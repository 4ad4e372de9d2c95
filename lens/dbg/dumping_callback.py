"""tf.debugging.experimental.enable_dump_debug_info / disable_dump_debug_info for graph Sessions.

While enabled, every Session.run runs watched: each executed op output (filtered by op_regex
on the op type and tensor_dtypes, and by what the tensor debug mode can summarize) becomes one
GraphExecutionTrace, and the run itself one Execution event. The session's graph, its ops
(GraphOpCreation with inputs, device, output tensor ids and creation stack), the stack frames
and the source files they point into are written the first time a run sees them. Ops that
TensorFlow's op callbacks skip (Identity, Switch, Merge, ...) are recorded but not traced.
"""

import atexit
import os
import re
import sys
import threading
import time
import uuid
import weakref

import numpy as np

from lens.client import session as session_module
from lens.events.debug_events import health
from lens.dbg.debug_events_writer import (DebugEventsWriter, float64_vector_proto,
                                          trace_prefix, trace_record, _field)
from lens.dbg.device_names import canonical_device
from lens.framework import dtypes as dtypes_module
from lens.framework.graph import Operation, Tensor
from lens.framework.sources import is_lens_file
from lens.proto import debug_event_pb2, tensor_pb2, tensor_util
from lens.proto.graph_debug_info_pb2 import GraphDebugInfo

# Op types TensorFlow's dumping callback never instruments (op_callbacks_common).
SKIP_OP_TYPES = frozenset({
    "Enter", "Exit", "Identity", "If", "LoopCond", "Merge", "NextIteration", "StatelessIf",
    "StatefulPartitionedCall", "Switch", "While", "RemoteCall", "DestroyResourceOp"})
SESSION_RUN_OP_TYPE = "Session.run"
# NO_TENSOR traces carry an empty float32 vector (what TF's DebugIdentityV2 receives).
_EMPTY_FLOAT_PROTO = b"\x08\x01" + _field(b"\x12", _field(b"\x12", b""))

_lock = threading.Lock()
_state = None  # the enabled _DumpingState, or None


def _version():
    try:
        from importlib.metadata import version
        return "lens " + version("lens")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "lens"


class _GraphRecord:
    """What has been written about one graph: its id, how many ops, their tensor ids."""

    def __init__(self, graph_id):
        self.graph_id = graph_id
        self.written = 0
        self.tensor_ids = {}  # Operation -> [symbolic tensor id per output]
        self.traced = {}  # Operation -> per-slot (prefix bytes, tensor id) or None


class _DumpingState:
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
        """Write the graph and any op not written yet; returns its _GraphRecord."""
        rec = self.graphs.get(graph)
        writer = self.get_writer()
        if rec is None:
            rec = self.graphs[graph] = _GraphRecord(str(uuid.uuid4()))
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


class DumpWatch:
    """The engine's watch hook for one dumped Session.run: each output -> one trace."""

    def __init__(self, state, rec):
        self.state = state
        self.rec = rec
        self.key = state.key()
        self._add = state.get_writer().add_trace_record
        self._mode = state.mode

    def selects(self, op):
        """True if any output of op is traced."""
        return any(s is not None for s in self.state.traced_slots(self.rec, op))

    def before_update(self, *buffers):
        """Values are summarized as they arrive: nothing to copy before updates."""

    def on_output(self, op, slot, value, timestamp_us):
        """Summarize one output and queue its GraphExecutionTrace."""
        traced = self.rec.traced.get(op)
        if traced is None:
            traced = self.state.traced_slots(self.rec, op)
        entry = traced[slot]
        if entry is None:
            return
        prefix, tensor_id, device = entry
        proto = tensor_proto_bytes(self._mode, tensor_id, value)
        self._add(trace_record(timestamp_us / 1e6, prefix, proto, device))


def _flatten(fetches, results, out):
    """Pair each fetched graph element with its value, in fetch order."""
    if isinstance(fetches, dict):
        for k in fetches:
            _flatten(fetches[k], results[k], out)
    elif isinstance(fetches, (list, tuple)) and not hasattr(fetches, "_as_graph_element"):
        for f, r in zip(fetches, results):
            _flatten(f, r, out)
    else:
        out.append((fetches, results))


def _caller_frames():
    """The Python stack of the Session.run call, outermost first."""
    frames = []
    f = sys._getframe(2)
    while f is not None:
        frames.append((f.f_code.co_filename, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    return frames[::-1]


def _execution(state, rec, graph, fetches, feed_dict, results, frames):
    """The Execution event of one Session.run: fed/fetched tensor ids and fetched values."""
    pairs = []
    _flatten(fetches, results, pairs)
    out_ids, protos = [], []
    for fetch, value in pairs:
        try:
            element = graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except (TypeError, ValueError, KeyError):
            continue
        if not isinstance(element, Tensor):
            continue
        tid = rec.tensor_ids[element.op][element.value_index]
        out_ids.append(tid)
        if state.mode == health.NO_TENSOR:
            continue
        if value is not None and state.dumps(element.op.type, element.dtype):
            data = tensor_proto_bytes(state.mode, tid, value)
            protos.append(tensor_pb2.TensorProto.FromString(data))
        else:
            protos.append(tensor_pb2.TensorProto())
    in_ids = []
    for key in (feed_dict or ()):
        element = _feed_tensor(graph, key)
        if element is not None and element.op in rec.tensor_ids:
            in_ids.append(rec.tensor_ids[element.op][element.value_index])
    device = state.device_id(canonical_device(""))
    return debug_event_pb2.Execution(
        op_type=SESSION_RUN_OP_TYPE, num_outputs=len(out_ids), graph_id=rec.graph_id,
        input_tensor_ids=in_ids, output_tensor_ids=out_ids, tensor_debug_mode=state.mode,
        tensor_protos=protos, code_location=state.code_location(frames),
        output_tensor_device_ids=[device] * len(out_ids))


def _feed_tensor(graph, key):
    try:
        element = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
    except (TypeError, ValueError, KeyError):
        return None
    return element if isinstance(element, Tensor) else None


def _trace_feeds(state, rec, graph, feed_dict, watch):
    """Fed tensors are traced as their placeholders' outputs (TF traces placeholders)."""
    for key, value in (feed_dict or {}).items():
        t = _feed_tensor(graph, key)
        if t is None or not isinstance(t.op, Operation):
            continue
        try:
            array = np.asarray(value, dtype=t.dtype.base_dtype.as_numpy_dtype)
        except (TypeError, ValueError):
            continue
        watch.on_output(t.op, t.value_index, array, time.time_ns() // 1000)


def _dumped_run(session, fetches, feed_dict, options, run_metadata):
    """Session.run while dumping is enabled (registered with the client)."""
    state = _state
    if state is None:  # disabled between the check and the call
        session_module.register_run_interceptor(None)
        return session.run(fetches, feed_dict, options, run_metadata)
    return run_dumped(state, session, fetches, feed_dict, options, run_metadata)


def make_state(dump_root, tensor_debug_mode, circular_buffer_size=1000, op_regex=None,
               tensor_dtypes=None):
    """A dumping state that is not installed for every Session.run (see run_dumped)."""
    return _DumpingState(dump_root, health.MODE_NAMES[tensor_debug_mode], circular_buffer_size,
                         op_regex, _check_dtypes(tensor_dtypes))


def run_dumped(state, session, fetches, feed_dict=None, options=None, run_metadata=None):
    """One Session.run dumped through `state`: traces, then its Execution event."""
    frames = _caller_frames()
    graph = session.graph
    with state.lock:
        rec = state.register(graph)
    watch = DumpWatch(state, rec)
    _trace_feeds(state, rec, graph, feed_dict, watch)
    results = session._run_watched(fetches, feed_dict, options, run_metadata, watch)
    with state.lock:
        writer = state.get_writer()
        writer.write_execution(_execution(state, rec, graph, fetches, feed_dict, results, frames))
        if writer.circular_buffer_size <= 0:
            writer.flush_execution_files()  # unbuffered: readers may tail every run
    return results


def _check_dtypes(tensor_dtypes):
    if tensor_dtypes is None:
        return None
    if not isinstance(tensor_dtypes, (list, tuple)) and not callable(tensor_dtypes):
        raise ValueError(
            "If specified, tensor_dtypes is expected to be a list, a tuple, or a callable that "
            "takes a DType argument and returns a boolean, but received %s" % (tensor_dtypes,))
    if isinstance(tensor_dtypes, (list, tuple)):
        return [dtypes_module.as_dtype(d).base_dtype for d in tensor_dtypes]
    return tensor_dtypes


def enable_dump_debug_info(dump_root, tensor_debug_mode="NO_TENSOR", circular_buffer_size=1000,
                           op_regex=None, tensor_dtypes=None):
    """Dump every following Session.run to dump_root in tfdbg v2's DebugEvent format.

    Returns the DebugEventsWriter (FlushNonExecutionFiles / FlushExecutionFiles)."""
    global _state
    if tensor_debug_mode not in health.ALL_MODE_NAMES:
        raise ValueError("Invalid value in tensor_debug_mode ('%s'). Valid options are: %s"
                         % (tensor_debug_mode, health.ALL_MODE_NAMES))
    if tensor_debug_mode not in health.MODE_NAMES:
        raise NotImplementedError("tfdbg dumping: support for tensor debug mode %s is not "
                                  "implemented yet" % tensor_debug_mode)
    mode = health.MODE_NAMES[tensor_debug_mode]
    tensor_dtypes = _check_dtypes(tensor_dtypes)
    with _lock:
        if _state is not None:
            if _state.circular_buffer_size != circular_buffer_size:
                raise ValueError(
                    "There is already a dumping callback configured with a different "
                    "circular-buffer size (%d). Therefore the newly request circular-buffer "
                    "size (%d) will not be honored." % (_state.circular_buffer_size,
                                                        circular_buffer_size))
            if _state.mode != mode:
                raise ValueError(
                    "There is already a dumping callback configured for dump root %s with a "
                    "different tensor-debug mode (%s). Therefore the newly request tensor-debug "
                    "mode (%s) size will not be honored." % (
                        _state.dump_root, health.ALL_MODE_NAMES[_state.mode], tensor_debug_mode))
            if _state.dump_root != dump_root:
                with _state.lock:
                    if _state.writer is not None:
                        _state.writer.close()
                    _state.writer = None
                    _state.dump_root = dump_root
                    # A new file set starts from scratch: graphs and sources are written again.
                    _state.graphs = weakref.WeakKeyDictionary()
                    _state.source_index, _state.frame_ids, _state.devices = {}, {}, {}
        else:
            _state = _DumpingState(dump_root, mode, circular_buffer_size, op_regex, tensor_dtypes)
            session_module.register_run_interceptor(_dumped_run)
            atexit.register(disable_dump_debug_info)
        return _state.get_writer()


def disable_dump_debug_info():
    """Stop dumping; flush and close the files (a no-op when not enabled)."""
    global _state
    with _lock:
        state, _state = _state, None
        session_module.register_run_interceptor(None)
    if state is not None and state.writer is not None:
        with state.lock:
            state.writer.close()


__all__ = ["enable_dump_debug_info", "disable_dump_debug_info"]
