"""tf.debugging.experimental.enable_dump_debug_info / disable_dump_debug_info (Sessions and eager ops).

While enabled, every Session.run runs watched: each executed op output (filtered by op_regex
on the op type and tensor_dtypes, and by what the tensor debug mode can summarize) becomes one
GraphExecutionTrace, and the run itself one Execution event. The session's graph, its ops
(GraphOpCreation with inputs, device, output tensor ids and creation stack), the stack frames
and the source files they point into are written the first time a run sees them. Ops that
TensorFlow's op callbacks skip (Identity, Switch, Merge, ...) are recorded but not traced.
While executing eagerly each op is one Execution (its type, input and output tensor ids, the
output values summarized by the tensor debug mode, the creating code), as TF2 records eager ops.
"""

import atexit
import sys
import threading
import time
import weakref

import numpy as np

from lens.client import session as session_module
from lens.dbg.debug_events_writer import trace_record
from lens.dbg.device_names import canonical_device
from lens.dbg.dump_state import SESSION_RUN_OP_TYPE, DumpingState, tensor_proto_bytes
from lens.events.debug_events import health
from lens.framework import dtypes as dtypes_module
from lens.framework import eager
from lens.framework.graph import Operation, Tensor
from lens.proto import debug_event_pb2, tensor_pb2

_lock = threading.Lock()
_state = None  # the enabled DumpingState, or None


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
    return DumpingState(dump_root, health.MODE_NAMES[tensor_debug_mode], circular_buffer_size,
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


def _eager_tensor_id(state, t):
    """The id dumped for an eager tensor's value (inputs name the outputs that produced them)."""
    entry = state.eager_ids.get(id(t))
    return entry[1] if entry is not None and entry[0]() is t else None


def _eager_execution(op):
    """One eager op while dumping is enabled: an Execution with its outputs (TF2's eager events)."""
    state = _state
    if state is None:
        return
    frames = _caller_frames()
    with state.lock:
        writer = state.get_writer()
        if len(state.eager_ids) > 100000:   # forget tensors that are gone
            state.eager_ids = {k: v for k, v in state.eager_ids.items() if v[0]() is not None}
        out_ids, protos = [], []
        for t in op._outputs:
            state.tensor_counter += 1
            tid = state.tensor_counter
            state.eager_ids[id(t)] = (weakref.ref(t), tid)
            out_ids.append(tid)
            if state.mode == health.NO_TENSOR:
                continue
            if t._value is not None and state.dumps(op.type, t.dtype):
                protos.append(tensor_pb2.TensorProto.FromString(tensor_proto_bytes(state.mode, tid, t._value)))
            else:
                protos.append(tensor_pb2.TensorProto())
        in_ids = [i for i in (_eager_tensor_id(state, t) for t in op._inputs) if i is not None]
        device = state.device_id(canonical_device(""))
        writer.write_execution(debug_event_pb2.Execution(
            op_type=op.type, num_outputs=len(out_ids), input_tensor_ids=in_ids, output_tensor_ids=out_ids,
            tensor_debug_mode=state.mode, tensor_protos=protos, code_location=state.code_location(frames),
            output_tensor_device_ids=[device] * len(out_ids)))
        if writer.circular_buffer_size <= 0:
            writer.flush_execution_files()


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
                _state.move_to(dump_root)  # TF: a new dump root abolishes the previous one
        else:
            _state = DumpingState(dump_root, mode, circular_buffer_size, op_regex, tensor_dtypes)
            _state.eager_ids = {}     # id(eager tensor) -> (weakref, dumped tensor id)
            session_module.register_run_interceptor(_dumped_run)
            eager.add_recorder(_eager_execution)   # eager ops are Executions, as in TF2
            atexit.register(disable_dump_debug_info)
        return _state.get_writer()


def disable_dump_debug_info():
    """Stop dumping; flush and close the files (a no-op when not enabled)."""
    global _state
    with _lock:
        state, _state = _state, None
        session_module.register_run_interceptor(None)
        eager.remove_recorder(_eager_execution)
    if state is not None and state.writer is not None:
        with state.lock:
            state.writer.close()


__all__ = ["enable_dump_debug_info", "disable_dump_debug_info"]
