"""tfdbg v1 dump directories (DumpingDebugWrapperSession / DumpingDebugHook, lens's or
TensorFlow's) seen as Debugger V2 data: one execution per Session.run (run directory), one
graph per device (its partition GraphDef), one trace per DebugIdentity dump with FULL_HEALTH
values computed from the dumped tensor, inf/nan alerts from those values.

Dump files are raw Event protos (no record framing): summary.value[0].tensor is the value,
files are `<node base>_<slot>_<debug op>_<µs>` under `_tfdbg_device_<device>/<scopes>/`.
"""

import os
import re
import threading

import numpy as np

from lens.events.debug_events import health
from lens.events.debug_events.data import Alert, Graph, _alert_from_summary
from lens.proto import event_pb2, graph_pb2, tensor_util

DEVICE_PREFIX = "_tfdbg_device_"
GRAPH_PREFIX = "_tfdbg_graph_"
RUN_DIR_RE = re.compile(r"^run_(\d+)_(\d+)$")
DUMP_RE = re.compile(r"^(.+)_(\d+)_([A-Za-z][A-Za-z0-9]*)_(\d+)(?:-\d+)?$")
SESSION_RUN = "Session.run"


def is_dump_root(path):
    """True for a directory holding `_tfdbg_device_*` folders (one debugged run)."""
    try:
        return any(n.startswith(DEVICE_PREFIX) for n in os.listdir(path))
    except OSError:
        return False


def device_name(dirname):
    """'_tfdbg_device_,job_localhost,replica_0,task_0,device_CPU_0' -> '/job:localhost/...'."""
    parts = dirname[len(DEVICE_PREFIX):].split(",")
    out = []
    for part in parts:
        if part.startswith("device_"):
            kind, _, index = part[len("device_"):].rpartition("_")
            out.append("device:%s:%s" % (kind, index))
        else:
            out.append(part.replace("_", ":", 1))
    return "/".join(out)


class _Damage:
    def __init__(self):
        self.problems = {}

    def damage(self):
        return dict(self.problems)


class V1DumpData:
    """A session root (run_* folders) or a single dump root, read incrementally."""

    def __init__(self, directory):
        self.directory = directory
        self.files = _Damage()
        self.lock = threading.RLock()
        self.source_files, self.stack_frames = {}, {}
        self.graphs = {}
        self.executions = []  # (wall_time, run dir, op_type, device ids)
        self._execution_extra = []  # (graph_id, output tensor ids)
        self.traces = []
        self.trace_values = []
        self.alerts = []
        self._tensor_ids = {}  # (graph_id, op, slot) -> id
        self._loaded = set()
        self.starting_wall_time = None

    def _run_dirs(self):
        if is_dump_root(self.directory):
            return [self.directory]
        runs = []
        for name in os.listdir(self.directory):
            match = RUN_DIR_RE.match(name)
            path = os.path.join(self.directory, name)
            if match and is_dump_root(path):
                runs.append((int(match.group(1)), int(match.group(2)), path))
        return [p for _, _, p in sorted(runs)]

    def update(self):
        """Load the run directories not read yet, in run order."""
        with self.lock:
            for run_dir in self._run_dirs():
                if run_dir not in self._loaded:
                    self._loaded.add(run_dir)
                    self._load_run(run_dir)

    def _note(self, path, exc):
        rel = os.path.relpath(path, self.directory)
        self.files.problems[rel] = "unreadable: %s: %s" % (type(exc).__name__, exc)

    def _event(self, path):
        try:
            with open(path, "rb") as f:
                return event_pb2.Event.FromString(f.read())
        except Exception as e:  # noqa: BLE001 - protobuf DecodeError, OSError
            self._note(path, e)
            return None

    def _load_run(self, run_dir):
        dumps, graph_id, last_wall = [], None, 0.0
        for dev in sorted(n for n in os.listdir(run_dir) if n.startswith(DEVICE_PREFIX)):
            gid = device_name(dev)
            graph_id = graph_id or gid
            graph = self.graphs.get(gid)
            if graph is None:
                graph = self.graphs[gid] = Graph(None, gid, None)
            root = os.path.join(run_dir, dev)
            for folder, _, names in os.walk(root):
                for name in sorted(names):
                    path = os.path.join(folder, name)
                    if name.startswith(GRAPH_PREFIX):
                        event = self._event(path)
                        if event is not None:  # each run's partition graph adds its ops
                            self._add_graph(graph, event)
                        continue
                    match = DUMP_RE.match(name)
                    if not match:
                        continue
                    scopes = os.path.relpath(folder, root)
                    node = match.group(1) if scopes == "." else \
                        scopes.replace(os.sep, "/") + "/" + match.group(1)
                    dumps.append((int(match.group(4)), gid, node, int(match.group(2)),
                                  match.group(3), path))
        first = len(self.traces)
        for ts, gid, node, slot, debug_op, path in sorted(dumps):
            self._add_trace(ts / 1e6, gid, node, slot, debug_op, path)
            last_wall = ts / 1e6
        wall = last_wall or os.path.getmtime(run_dir)
        if self.starting_wall_time is None:
            self.starting_wall_time = self.traces[first][0] if len(self.traces) > first else wall
        self.executions.append((wall, run_dir, SESSION_RUN, None))
        self._execution_extra.append((graph_id or "", None))

    def _add_graph(self, graph, event):
        try:
            graph_def = graph_pb2.GraphDef.FromString(event.graph_def)
        except Exception as e:  # noqa: BLE001
            self.files.problems[graph.graph_id + " graph"] = "unreadable GraphDef: %s" % e
            return
        # The debugger routes watched tensors through `__copy_<node>_<slot>`: see through it.
        copies = {n.name: n.input[0] for n in graph_def.node
                  if n.name.startswith("__copy_") and n.input}
        for node in graph_def.node:
            if node.name in graph.ops or node.name.startswith(("__copy_", "__dbg_")):
                continue  # known already, or the debugger's own instrumentation
            inputs = [copies.get(i.split(":")[0], i) for i in node.input if not i.startswith("^")]
            inputs = [i if ":" in i else i + ":0" for i in inputs]
            graph.ops[node.name] = {
                "wall_time": event.wall_time, "graph_id": graph.graph_id, "op_type": node.op,
                "op_name": node.name, "output_tensor_ids": None, "host_name": "",
                "stack_frame_ids": [], "input_names": inputs or None, "device_name": None}
            for dst_slot, name in enumerate(inputs):
                src, _, slot = name.rpartition(":")
                graph.consumers.setdefault(src, []).append((int(slot), node.name, dst_slot))
        for name, op in graph.ops.items():
            used = [s for s, _, _ in graph.consumers.get(name, ())]
            op["output_tensor_ids"] = [self._tensor_id(graph.graph_id, name, s)
                                       for s in range(max(used) + 1)] if used else None

    def _tensor_id(self, gid, node, slot):
        key = (gid, node, slot)
        tid = self._tensor_ids.get(key)
        if tid is None:
            tid = self._tensor_ids[key] = len(self._tensor_ids) + 1
        return tid

    def _add_trace(self, wall, gid, node, slot, debug_op, path):
        graph = self.graphs[gid]
        op = graph.ops.get(node)
        op_type = op["op_type"] if op is not None else None
        values, mode = None, health.NO_TENSOR
        if debug_op == "DebugIdentity":
            event = self._event(path)
            if event is None or not event.summary.value:
                return
            try:
                array = tensor_util.make_ndarray(event.summary.value[0].tensor)
            except Exception:  # noqa: BLE001 - uninitialized or string tensors
                array = None
            if isinstance(array, np.ndarray) and health.is_floating(array.dtype):
                mode = health.FULL_HEALTH
                values = health.full_health(self._tensor_id(gid, node, slot), array)
        self.traces.append((wall, 0, 0, op_type, node, slot, gid))
        self.trace_values.append((mode, values, gid))
        if len(self.alerts) < 1000 and values is not None:
            alert = _alert_from_summary(mode, values, op_type, slot,
                                        graph_execution_trace_index=len(self.traces) - 1)
            if isinstance(alert, Alert):
                self.alerts.append(alert)

    # -- the JSON objects runs.py asks for (DebugData's interface) -------------------------

    def execution_digest_json(self, i):
        wall, _, op_type, devices = self.executions[i]
        return {"wall_time": wall, "op_type": op_type, "output_tensor_device_ids": devices}

    def execution_json(self, i):
        out = self.execution_digest_json(i)
        graph_id, outputs = self._execution_extra[i]
        out.update({"host_name": "", "stack_frame_ids": [],
                    "tensor_debug_mode": health.FULL_HEALTH, "graph_id": graph_id,
                    "input_tensor_ids": None, "output_tensor_ids": outputs,
                    "debug_tensor_values": None})
        return out

    def trace_digest_json(self, i):
        wall, _, _, op_type, op_name, slot, graph_id = self.traces[i]
        return {"wall_time": wall, "op_type": op_type, "op_name": op_name,
                "output_slot": slot, "graph_id": graph_id}

    def graph_ids(self, graph_id):
        return [graph_id]

    def trace_json(self, i):
        out = self.trace_digest_json(i)
        mode, values, device = self.trace_values[i]
        out.update({"graph_ids": [out["graph_id"]], "tensor_debug_mode": mode,
                    "debug_tensor_value": values, "device_name": device})
        return out

    def source_lines(self, host, path):
        raise KeyError((host, path))
