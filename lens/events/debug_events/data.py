"""What a DebugEvent file set says: graphs and ops, source files, stack frames, executions,
graph-execution traces and inf/nan alerts, in the JSON shapes TensorBoard's Debugger V2 serves
(TensorFlow's DebugDataReader + InfNanMonitor semantics)."""

import threading

import numpy as np

from lens.events.debug_events.files import DebugEventFileSet, read_record_at
from lens.proto import tensor_util

FULL_TENSOR, NO_TENSOR = 7, 1
CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH = 2, 3, 4
ALERT_LIMIT = 1000  # TensorBoard's DEFAULT_PER_TYPE_ALERT_LIMIT


def _tuple_or_none(values):
    return list(values) if values else None


def parse_values(tensor_proto):
    """A TensorProto's values as a (nested) list, or None when it holds nothing parseable."""
    try:
        return tensor_util.make_ndarray(tensor_proto).tolist()
    except (TypeError, ValueError, KeyError):
        return None


class Graph:
    """A DebuggedGraph: its ops (creation digests as dicts) and data-edge consumers."""

    def __init__(self, name, graph_id, outer_graph_id):
        self.name = name
        self.graph_id = graph_id
        self.outer_graph_id = outer_graph_id
        self.inner_graph_ids = []
        self.ops = {}  # op name -> creation dict
        self.consumers = {}  # op name -> [(src slot, dst op, dst slot)]

    def to_json(self):
        """TensorBoard's graph_info answer."""
        return {"name": self.name, "graph_id": self.graph_id,
                "outer_graph_id": self.outer_graph_id, "inner_graph_ids": self.inner_graph_ids}


class Alert:
    """An InfNanAlert."""

    __slots__ = ("op_type", "output_slot", "size", "num_neg_inf", "num_pos_inf", "num_nan",
                 "execution_index", "graph_execution_trace_index")

    def __init__(self, op_type, output_slot, size=None, num_neg_inf=None, num_pos_inf=None,
                 num_nan=None, execution_index=None, graph_execution_trace_index=None):
        self.op_type, self.output_slot = op_type, output_slot
        self.size, self.num_neg_inf, self.num_pos_inf, self.num_nan = (
            size, num_neg_inf, num_pos_inf, num_nan)
        self.execution_index = execution_index
        self.graph_execution_trace_index = graph_execution_trace_index

    def to_json(self):
        """TensorBoard's alert JSON."""
        return {"alert_type": "InfNanAlert", "op_type": self.op_type,
                "output_slot": self.output_slot, "size": self.size,
                "num_neg_inf": self.num_neg_inf, "num_pos_inf": self.num_pos_inf,
                "num_nan": self.num_nan, "execution_index": self.execution_index,
                "graph_execution_trace_index": self.graph_execution_trace_index}


def _alert_from_summary(mode, values, op_type, slot, **index):
    """An Alert when a health summary reports inf/nan (SHAPE and NO_TENSOR never do)."""
    if not values:
        return None
    if mode == CURT_HEALTH:
        return Alert(op_type, slot, **index) if values[1] else None
    if mode == CONCISE_HEALTH:
        _, size, neg, pos, nan = values
    elif mode == FULL_HEALTH:
        size, neg, pos, nan = values[4:8]
    else:
        return None
    if neg or pos or nan:
        return Alert(op_type, slot, size, neg, pos, nan, **index)
    return None


def _alert_from_tensor(array, op_type, slot, **index):
    """An Alert when a full tensor value holds inf/nan."""
    if array is None or not array.size or not np.issubdtype(array.dtype, np.floating):
        return None
    inf = np.isinf(array)
    neg = int(np.count_nonzero(inf & (array < 0)))
    pos = int(np.count_nonzero(inf & (array > 0)))
    nan = int(np.count_nonzero(np.isnan(array)))
    if neg or pos or nan:
        return Alert(op_type, slot, int(array.size), neg, pos, nan, **index)
    return None


class DebugData:
    """Everything read so far from one dump directory; update() reads what is new."""

    def __init__(self, directory):
        self.files = DebugEventFileSet(directory)
        self.lock = threading.RLock()
        self.source_files = {}  # (host, path) -> offset, in file order
        self.stack_frames = {}  # id -> (host, path, line, func)
        self._pending_frames = {}
        self.graphs = {}
        self.devices = {}
        # Digests as tuples: executions (wall_time, offset, op_type, device ids or None);
        # traces (wall_time, file index, offset, op_type, op_name, slot, graph_id).
        self.executions = []
        self.traces = []
        self.trace_values = []  # per trace: (mode, debug value list or None, device name)
        self.alerts = []

    @property
    def starting_wall_time(self):
        return self.files.starting_wall_time

    def update(self):
        """Read every new record of every file (TensorFlow's order of kinds)."""
        with self.lock:
            self._load_source_files()
            self._load_stack_frames()
            self._load_graphs()
            self._load_traces()
            self._load_executions()

    def _load_source_files(self):
        for offset, event in self.files.files["source_files"].records():
            sf = event.source_file
            self.source_files[(sf.host_name, sf.file_path)] = offset

    def _load_stack_frames(self):
        for _, event in self.files.files["stack_frames"].records():
            frame = event.stack_frame_with_id
            self._pending_frames[frame.id] = frame.file_line_col
        if not self._pending_frames:
            return
        keys = list(self.source_files)
        for frame_id, flc in list(self._pending_frames.items()):
            if flc.file_index < len(keys):  # its source file is known: resolve it
                host, path = keys[flc.file_index]
                self.stack_frames[frame_id] = (host, path, flc.line, flc.func)
                del self._pending_frames[frame_id]

    def _load_graphs(self):
        for offset, event in self.files.files["graphs"].records():
            which = event.WhichOneof("what")
            if which == "graph_op_creation":
                c = event.graph_op_creation
                graph = self.graphs.get(c.graph_id)
                if graph is None:  # an op before its graph: keep it under a nameless graph
                    graph = self.graphs[c.graph_id] = Graph(None, c.graph_id, None)
                graph.ops[c.op_name] = {
                    "wall_time": event.wall_time, "graph_id": c.graph_id, "op_type": c.op_type,
                    "op_name": c.op_name,
                    "output_tensor_ids": _tuple_or_none(c.output_tensor_ids),
                    "host_name": c.code_location.host_name,
                    "stack_frame_ids": list(c.code_location.stack_frame_ids),
                    "input_names": _tuple_or_none(c.input_names), "device_name": None}
                for dst_slot, name in enumerate(c.input_names):
                    src, _, slot = name.partition(":")
                    graph.consumers.setdefault(src, []).append(
                        (int(slot or 0), c.op_name, dst_slot))
            elif which == "debugged_graph":
                g = event.debugged_graph
                graph = Graph(g.graph_name or None, g.graph_id, g.outer_context_id or None)
                old = self.graphs.get(g.graph_id)
                if old is not None:
                    graph.ops, graph.consumers = old.ops, old.consumers
                self.graphs[g.graph_id] = graph
                outer = self.graphs.get(g.outer_context_id) if g.outer_context_id else None
                if outer is not None:
                    outer.inner_graph_ids.append(g.graph_id)
            elif which == "debugged_device":
                d = event.debugged_device
                self.devices[d.device_id] = d.device_name

    def op_type(self, graph_id, op_name):
        """The type of an op, or None when its creation was not recorded."""
        graph = self.graphs.get(graph_id)
        op = graph.ops.get(op_name) if graph is not None else None
        return op["op_type"] if op is not None else None

    def _load_traces(self):
        for index, f in enumerate(self.files.trace_files):
            for offset, event in f.records():
                t = event.graph_execution_trace
                op_type = self.op_type(t.tfdbg_context_id, t.op_name)
                self.traces.append((event.wall_time, index, offset, op_type, t.op_name,
                                    t.output_slot, t.tfdbg_context_id))
                mode = t.tensor_debug_mode
                values = None if mode == FULL_TENSOR else parse_values(t.tensor_proto)
                self.trace_values.append((mode, values or None, t.device_name or None))
                if len(self.alerts) >= ALERT_LIMIT:
                    continue
                where = {"graph_execution_trace_index": len(self.traces) - 1}
                if mode == FULL_TENSOR:
                    alert = _alert_from_tensor(_array(t.tensor_proto), op_type,
                                               t.output_slot, **where)
                else:
                    alert = _alert_from_summary(mode, values, op_type, t.output_slot, **where)
                if alert is not None:
                    self.alerts.append(alert)

    def _load_executions(self):
        for offset, event in self.files.files["execution"].records():
            e = event.execution
            self.executions.append((event.wall_time, offset, e.op_type,
                                    _tuple_or_none(e.output_tensor_device_ids)))
            if len(self.alerts) >= ALERT_LIMIT:
                continue
            where = {"execution_index": len(self.executions) - 1}
            if e.tensor_debug_mode == FULL_TENSOR:
                for slot, proto in enumerate(e.tensor_protos):
                    alert = _alert_from_tensor(_array(proto), e.op_type, slot, **where)
                    if alert is not None:
                        self.alerts.append(alert)
            elif e.tensor_debug_mode != NO_TENSOR:
                for slot, proto in enumerate(e.tensor_protos):
                    alert = _alert_from_summary(e.tensor_debug_mode, parse_values(proto),
                                                e.op_type, slot, **where)
                    if alert is not None:
                        self.alerts.append(alert)

    # -- JSON objects ----------------------------------------------------------------------

    def execution_digest_json(self, i):
        wall, _, op_type, devices = self.executions[i]
        return {"wall_time": wall, "op_type": op_type, "output_tensor_device_ids": devices}

    def execution_json(self, i):
        """The full Execution object of execution i (read back from its file)."""
        out = self.execution_digest_json(i)
        e = read_record_at(self.files.files["execution"].path, self.executions[i][1]).execution
        values = None
        if e.tensor_debug_mode not in (FULL_TENSOR, NO_TENSOR):
            values = [parse_values(p) for p in e.tensor_protos]
        out.update({"host_name": e.code_location.host_name,
                    "stack_frame_ids": list(e.code_location.stack_frame_ids),
                    "tensor_debug_mode": e.tensor_debug_mode, "graph_id": e.graph_id,
                    "input_tensor_ids": _tuple_or_none(e.input_tensor_ids),
                    "output_tensor_ids": _tuple_or_none(e.output_tensor_ids),
                    "debug_tensor_values": _tuple_or_none(values)})
        return out

    def trace_digest_json(self, i):
        wall, _, _, op_type, op_name, slot, graph_id = self.traces[i]
        return {"wall_time": wall, "op_type": op_type, "op_name": op_name,
                "output_slot": slot, "graph_id": graph_id}

    def graph_ids(self, graph_id):
        """Outermost-to-innermost ids of the graphs enclosing graph_id (itself last)."""
        ids = [graph_id]
        graph = self.graphs.get(graph_id)
        while graph is not None and graph.outer_graph_id:
            ids.insert(0, graph.outer_graph_id)
            graph = self.graphs.get(graph.outer_graph_id)
        return ids

    def trace_json(self, i):
        out = self.trace_digest_json(i)
        mode, values, device = self.trace_values[i]
        out.update({"graph_ids": self.graph_ids(out["graph_id"]), "tensor_debug_mode": mode,
                    "debug_tensor_value": values, "device_name": device})
        return out

    def trace_tensor(self, i):
        """The full value of a FULL_TENSOR trace as a NumPy array (None for other modes)."""
        _, index, offset = self.traces[i][:3]
        event = read_record_at(self.files.trace_files[index].path, offset)
        return _array(event.graph_execution_trace.tensor_proto)

    def source_lines(self, host, path):
        event = read_record_at(self.files.files["source_files"].path,
                               self.source_files[(host, path)])
        return list(event.source_file.lines)


def _array(proto):
    try:
        return tensor_util.make_ndarray(proto)
    except (TypeError, ValueError, KeyError):
        return None
