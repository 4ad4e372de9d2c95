"""Profile dashboard routes (lens's own; TensorBoard's profile plugin reads other files): the
step stats of every tagged RunMetadata (Session.run with FULL_TRACE) as a trace and a top-ops
table.

GET /data/plugin/profile/runs
    {"run": ["step_10", ...]}                    runs with RunMetadata, tags in written order
GET /data/plugin/profile/trace?run=a&tag=step_10
    {"devices": [{"name": "/job:localhost/.../cpu:0", "ops": [{"name", "type", "start_us",
      "duration_us", "thread", "memory_bytes", "label"}]}], "start_us": t0, "end_us": t1}
    start_us is relative to the earliest op of the step.
GET /data/plugin/profile/top_ops?run=a&tag=step_10&by=time|memory&limit=20
    [{"name", "type", "device", "calls", "time_us", "memory_bytes"}] summed per op name.
A RunMetadata that cannot be parsed is a 400 naming the run and tag; other tags still load.
"""

from flask import Blueprint, request
from werkzeug.exceptions import BadRequest

from lens.board.params import json_response, optional_int, provider, required
from lens.proto import config_pb2

PLUGIN = "profile"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")


def is_active(data_provider):
    """Active when any run holds RunMetadata with step stats."""
    return any(data_provider.run_metadata_tags(run) for run in data_provider.runs())


def _micros(rel_micros, rel_nanos):
    return float(rel_micros) if rel_micros else rel_nanos / 1000.0


def op_type(node_stats):
    """The op type from a timeline label 'name = Type(inputs)', else ''."""
    label = node_stats.timeline_label
    if " = " in label:
        return label.split(" = ", 1)[1].split("(", 1)[0].strip()
    return ""


def parse(data_provider, run, tag):
    """The RunMetadata proto of (run, tag); BadRequest when its bytes are not one."""
    data = data_provider.run_metadata(run, tag)
    try:
        return config_pb2.RunMetadata.FromString(data)
    except Exception as exc:  # protobuf's DecodeError
        raise BadRequest("run %r: run metadata %r is not a RunMetadata proto (%s)"
                         % (run, tag, exc)) from None


def trace(run_metadata):
    """Per device, each op's start (relative to the step's first op), duration and memory."""
    devices, starts, ends = [], [], []
    for dev in run_metadata.step_stats.dev_stats:
        ops = []
        for ns in dev.node_stats:
            start = float(ns.all_start_micros) if ns.all_start_micros else ns.all_start_nanos / 1e3
            duration = _micros(ns.all_end_rel_micros, ns.all_end_rel_nanos)
            ops.append({"name": ns.node_name, "type": op_type(ns), "start_us": start,
                        "duration_us": duration, "thread": ns.thread_id,
                        "memory_bytes": sum(m.total_bytes for m in ns.memory if m.total_bytes > 0),
                        "label": ns.timeline_label})
            starts.append(start)
            ends.append(start + duration)
        devices.append({"name": dev.device, "ops": ops})
    t0 = min(starts) if starts else 0.0
    for dev in devices:
        for op in dev["ops"]:
            op["start_us"] -= t0
    return {"devices": devices, "start_us": 0.0, "end_us": (max(ends) - t0) if ends else 0.0}


def top_ops(run_metadata, by="time", limit=20):
    """Ops summed by name (a node may run several times), heaviest first."""
    totals = {}
    for dev in run_metadata.step_stats.dev_stats:
        for ns in dev.node_stats:
            entry = totals.setdefault(ns.node_name, {"name": ns.node_name, "type": op_type(ns),
                                                     "device": dev.device, "calls": 0,
                                                     "time_us": 0.0, "memory_bytes": 0})
            entry["calls"] += 1
            entry["time_us"] += _micros(ns.all_end_rel_micros, ns.all_end_rel_nanos)
            entry["memory_bytes"] += sum(m.total_bytes for m in ns.memory if m.total_bytes > 0)
    key = "time_us" if by == "time" else "memory_bytes"
    ranked = sorted(totals.values(), key=lambda e: (-e[key], e["name"]))
    return ranked[:limit] if limit else ranked


@bp.route("/runs")
def runs_route():
    data_provider = provider()
    return json_response({run: data_provider.run_metadata_tags(run)
                          for run in data_provider.runs() if data_provider.run_metadata_tags(run)})


@bp.route("/trace")
def trace_route():
    return json_response(trace(parse(provider(), required("run"), required("tag"))))


@bp.route("/top_ops")
def top_ops_route():
    by = request.args.get("by", "time")
    if by not in ("time", "memory"):
        raise BadRequest("by must be 'time' or 'memory', got %r" % by)
    limit = optional_int("limit", default=20, minimum=0)
    return json_response(top_ops(parse(provider(), required("run"), required("tag")), by, limit))
