"""Debugger V2 runs under a logdir and TensorBoard's JSON answers about them.

Every directory under the logdir holding a `*.metadata` DebugEvent file is one run, named by
its path relative to the logdir; a logdir that is itself a dump is TensorBoard's
`__default_debugger_run__`. Requests TensorBoard refuses raise RequestError with TensorBoard's
message (the board answers 400 with it).
"""

import os
import threading

from lens.events.debug_events.data import ALERT_LIMIT, DebugData
from lens.events.debug_events.files import METADATA_SUFFIX
from lens.events.debug_events.v1 import RUN_DIR_RE, V1DumpData, is_dump_root
from lens.events.fsio import is_url

DEFAULT_RUN = "__default_debugger_run__"


class RequestError(Exception):
    """A request TensorBoard answers with 400 and {"error": message}."""


def invalid(message):
    return RequestError("Invalid argument: " + message)


def not_found(message):
    return RequestError("Not found: " + message)


def find_dump_dirs(logdir):
    """{run name: (directory, reader class)} for every dump under logdir: DebugEvent file
    sets, and tfdbg v1 dumps (a session root of run_* folders, or a lone dump root)."""
    out = {}

    def add(directory, kind):
        rel = os.path.relpath(directory, logdir)
        out[DEFAULT_RUN if rel == "." else rel.replace(os.sep, "/")] = (directory, kind)

    for root, dirs, files in os.walk(logdir):
        dirs.sort()
        if any(f.endswith(METADATA_SUFFIX) for f in files):
            add(root, DebugData)
        elif is_dump_root(root):
            dirs[:] = []  # device folders hold only dump files
            parent = os.path.dirname(root)
            session_root = RUN_DIR_RE.match(os.path.basename(root)) and \
                os.path.relpath(parent, logdir) != ".."
            add(parent if session_root else root, V1DumpData)
    return out


def check_begin_end(begin, end, total):
    """TensorBoard's begin/end rules; returns the effective end."""
    if begin < 0:
        raise invalid("Invalid begin index (%d)" % begin)
    if end > total:
        raise invalid("end index (%d) out of bounds (%d)" % (end, total))
    if 0 <= end < begin:
        raise invalid("end index (%d) is unexpectedly less than begin index (%d)" % (end, begin))
    return total if end < 0 else end


def _data_range(begin, end, total):
    # TensorFlow's reader treats end == 0 as "to the end" (`end or len`) for data objects.
    return range(begin, end or total)


class DebuggerRuns:
    """The Debugger V2 runs of one logdir, re-scanned and re-read on reload()."""

    def __init__(self, logdir):
        """logdir: a directory, or [(run prefix or None, directory)] (a logdir_spec)."""
        self.roots = [(None, logdir)] if isinstance(logdir, (str, os.PathLike)) else logdir
        self._lock = threading.Lock()
        self._runs = {}  # name -> DebugData
        self._errors = {}  # name -> why the dump can't be opened

    def reload(self):
        """Find new dumps and read what was appended to every known one."""
        found = {}
        for prefix, root in self.roots:
            if not os.path.isdir(root):
                continue
            for name, where in find_dump_dirs(root).items():
                if prefix is not None:
                    name = prefix if name == DEFAULT_RUN else prefix + "/" + name
                found[name] = where
        with self._lock:
            for name, (directory, kind) in found.items():
                if name in self._runs:
                    continue
                try:
                    self._runs[name] = kind(directory)
                    self._errors.pop(name, None)
                except (OSError, ValueError) as e:
                    self._errors[name] = str(e)
            runs = list(self._runs.values())
        for data in runs:
            data.update()

    @classmethod
    def for_provider(cls, data_provider):
        """The Debugger V2 runs under the local directories a DataProvider watches."""
        watcher = getattr(data_provider, "_watcher", None)  # None: a provider without a logdir
        roots = [(prefix, root) for prefix, fs, root in getattr(watcher, "roots", ())
                 if not is_url(root)]
        return cls(roots)

    def has_dumps(self):
        """True when any dump lies under the roots (a directory walk; nothing is read)."""
        return any(os.path.isdir(root) and find_dump_dirs(root) for _, root in self.roots)

    def run_names(self):
        with self._lock:
            return sorted(self._runs)

    def data(self, run):
        """The DebugData of a run; RequestError for an unknown one."""
        with self._lock:
            data = self._runs.get(run)
        if data is None:
            raise RequestError('There is no debugger run named "%s" (known runs: %s)'
                               % (run, ", ".join(sorted(self._runs)) or "none"))
        return data

    # -- TensorBoard's routes --------------------------------------------------------------

    def runs(self):
        """/runs: {run: {"start_time": seconds}}."""
        with self._lock:
            items = sorted(self._runs.items())
        return {name: {"start_time": data.starting_wall_time} for name, data in items}

    def alerts(self, run, begin, end, alert_type=None):
        data = self.data(run)
        with data.lock:
            alerts = list(data.alerts)
        breakdown = {"InfNanAlert": len(alerts)} if alerts else {}
        if alert_type is not None and alert_type not in breakdown:
            raise invalid("Filtering of alerts failed: alert type %s does not exist" % alert_type)
        end = check_begin_end(begin, end, len(alerts))
        return {"begin": begin, "end": end, "alert_type": alert_type, "num_alerts": len(alerts),
                "alerts_breakdown": breakdown, "per_type_alert_limit": ALERT_LIMIT,
                "alerts": [a.to_json() for a in alerts[begin:end]]}

    def execution_digests(self, run, begin, end):
        data = self.data(run)
        total = len(data.executions)
        end = check_begin_end(begin, end, total)
        return {"begin": begin, "end": end, "num_digests": total,
                "execution_digests": [data.execution_digest_json(i) for i in range(begin, end)]}

    def execution_data(self, run, begin, end):
        data = self.data(run)
        total = len(data.executions)
        checked = check_begin_end(begin, end, total)
        return {"begin": begin, "end": checked, "executions": [
            data.execution_json(i) for i in _data_range(begin, checked, total)]}

    def graph_execution_digests(self, run, begin, end):
        data = self.data(run)
        total = len(data.traces)
        end = check_begin_end(begin, end, total)
        return {"begin": begin, "end": end, "num_digests": total,
                "graph_execution_digests": [data.trace_digest_json(i)
                                            for i in range(begin, end)]}

    def graph_execution_data(self, run, begin, end):
        data = self.data(run)
        total = len(data.traces)
        checked = check_begin_end(begin, end, total)
        return {"begin": begin, "end": checked, "graph_executions": [
            data.trace_json(i) for i in _data_range(begin, checked, total)]}

    def graph_info(self, run, graph_id):
        data = self.data(run)
        graph = data.graphs.get(graph_id)
        if graph is None:
            raise not_found('There is no graph with ID "%s"' % graph_id)
        return graph.to_json()

    def _op_object(self, data, graph, op):
        out = dict(op)
        graph_id = out.pop("graph_id")
        out["graph_ids"] = data.graph_ids(graph_id)
        out["num_outputs"] = len(op["output_tensor_ids"] or ())
        inputs = out.pop("input_names") or ()
        out["inputs"] = []
        for name in inputs:
            src, _, slot = name.partition(":")
            out["inputs"].append({"op_name": src, "output_slot": int(slot or 0)})
        out["consumers"] = [[] for _ in range(out["num_outputs"])]
        for src_slot, dst, dst_slot in graph.consumers.get(op["op_name"], ()):
            out["consumers"][src_slot].append({"op_name": dst, "input_slot": dst_slot})
        return out

    def op_info(self, run, graph_id, op_name):
        data = self.data(run)
        graph = data.graphs.get(graph_id)
        if graph is None:
            raise not_found('There is no graph with ID "%s"' % graph_id)
        op = graph.ops.get(op_name)
        if op is None:
            raise not_found('There is no op named "%s" in graph with ID "%s"'
                            % (op_name, graph_id))
        out = self._op_object(data, graph, op)
        for spec in out["inputs"]:
            other = graph.ops.get(spec["op_name"])
            if other is not None:
                spec["data"] = self._op_object(data, graph, other)
        for slot_specs in out["consumers"]:
            for spec in slot_specs:
                other = graph.ops.get(spec["op_name"])
                if other is not None:
                    spec["data"] = self._op_object(data, graph, other)
        return out

    def source_files_list(self, run):
        data = self.data(run)
        return [list(key) for key in data.source_files]

    def source_file(self, run, index):
        data = self.data(run)
        keys = list(data.source_files)
        if not 0 <= index < len(keys):
            # TensorFlow indexes a tuple: negative indices count from the end.
            if -len(keys) <= index < 0:
                index += len(keys)
            else:
                raise not_found("There is no source-code file at index %d" % index)
        host, path = keys[index]
        return {"host_name": host, "file_path": path, "lines": data.source_lines(host, path)}

    def stack_frames(self, run, frame_ids):
        data = self.data(run)
        frames = []
        for frame_id in frame_ids:
            frame = data.stack_frames.get(frame_id)
            if frame is None:
                raise not_found("Cannot find stack frame with ID %s" % frame_id)
            frames.append(list(frame))
        return {"stack_frames": frames}

    def damage(self, run):
        """{file: problem} for a run's damaged files (lens's addition)."""
        return self.data(run).files.damage()

    def health_pills(self, run, graph_id, execution=-1):
        """Per op of a graph, the health of its last trace (within Session.run `execution`
        when >= 0): {"graph_id", "executions", "pills": {op: {...}}} (lens's addition)."""
        data = self.data(run)
        with data.lock:
            if graph_id is None:
                graph_id = next((t[6] for t in data.traces), None)
            lo, hi = execution_window(data, execution)
            pills = {}
            for i, trace in enumerate(data.traces):
                wall, op_name, slot = trace[0], trace[4], trace[5]
                if trace[6] != graph_id or not lo < wall <= hi:
                    continue
                mode, values, _ = data.trace_values[i]
                pill = health_pill(mode, values)
                if pill is not None:
                    pill.update({"output_slot": slot, "trace_index": i, "op_type": trace[3]})
                    pills["%s:%d" % (op_name, slot)] = pill
            return {"graph_id": graph_id, "executions": len(data.executions), "pills": pills}


def execution_window(data, k):
    """(after, until] wall times of the traces that belong to Session.run k (all when k < 0)."""
    if k < 0 or k >= len(data.executions):
        return float("-inf"), float("inf")
    lo = data.executions[k - 1][0] if k > 0 else float("-inf")
    return lo, data.executions[k][0]


def health_pill(mode, values):
    """Counts of -inf, +inf, nan, negative, zero, positive from a health summary (None when
    the mode says nothing about them)."""
    if not values:
        return None
    if mode == 4:  # FULL_HEALTH
        size, neg_inf, pos_inf, nan, neg, zero, pos = values[4:11]
        counts = [neg_inf, pos_inf, nan, neg, zero, pos]
    elif mode == 3:  # CONCISE_HEALTH: finite values are not split by sign
        _, size, neg_inf, pos_inf, nan = values
        counts = [neg_inf, pos_inf, nan, None, None, None]
    elif mode == 2:  # CURT_HEALTH: only whether anything is bad
        size = None
        counts = [None, None, None, None, None, None]
        return {"size": size, "any_inf_nan": bool(values[1]), "counts": counts}
    else:
        return None
    return {"size": size, "any_inf_nan": bool(neg_inf or pos_inf or nan), "counts": counts}
