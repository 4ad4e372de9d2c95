"""Chrome trace-event JSON from real traced runs: one event per op, processes, threads, flows, memory."""
import json

import numpy as np
import pytest

import lens as tf
from lens.client import timeline as lens_timeline
from lens.client import parallel

FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
PHASES = {"X", "M", "s", "t", "C", "N", "O", "D"}


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _traced_step(threads=1):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    with tf.device("/cpu:1"):
        w = tf.Variable(tf.ones([4, 3]), name="w")
        h = tf.matmul(x, w, name="h")
    out = tf.reduce_sum(tf.tanh(h) + tf.sin(h), name="out")
    cfg = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=threads)
    with tf.Session(config=cfg) as sess:
        sess.run(w.initializer)
        meta = tf.RunMetadata()
        sess.run(out, {x: np.ones((8, 4))}, options=FULL, run_metadata=meta)
    return meta


def _check_event_shape(ev):
    """The fields the trace-event format requires for each phase."""
    assert ev["ph"] in PHASES
    assert isinstance(ev["pid"], int) and isinstance(ev["name"], str)
    if ev["ph"] != "M":
        assert isinstance(ev["ts"], int)
    if ev["ph"] == "X":
        assert isinstance(ev["dur"], int) and ev["dur"] >= 0 and isinstance(ev["tid"], int)
    if ev["ph"] in "st":
        assert "id" in ev and ev["cat"] == "DataFlow"


def test_trace_is_valid_json_with_one_event_per_op():
    meta = _traced_step()
    trace = json.loads(lens_timeline.Timeline(meta.step_stats).generate_chrome_trace_format())
    events = trace["traceEvents"]
    for ev in events:
        _check_event_shape(ev)
    ops = [e for e in events if e["ph"] == "X"]
    stats = [ns for ds in meta.step_stats.dev_stats for ns in ds.node_stats]
    assert sorted(e["args"]["name"] for e in ops) == sorted(ns.node_name for ns in stats)
    h = next(e for e in ops if e["args"]["name"] == "h")
    assert h["name"] == "MatMul" and h["args"]["input0"] == "x" and h["args"]["input1"] == "w/read"
    procs = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(procs.values()) == sorted("%s Compute" % ds.device for ds in meta.step_stats.dev_stats)
    assert h["pid"] == next(p for p, n in procs.items() if "CPU:1" in n)
    names = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {(e["pid"], e["tid"]) for e in ops} <= names
    assert not [e for e in events if e["ph"] == "C"]     # no memory counters unless asked


def test_flow_arrows_follow_data_edges():
    meta = _traced_step()
    events = json.loads(lens_timeline.Timeline(meta.step_stats).generate_chrome_trace_format())["traceEvents"]
    ops = {e["args"]["name"]: e for e in events if e["ph"] == "X"}
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "t"}
    assert set(starts) == set(ends) and starts
    edges = set()
    for fid, s in starts.items():
        # The flow is named by its tensor; its producer must start where the arrow starts.
        src = s["name"].rsplit(":", 1)[0]
        assert (ops[src]["pid"], ops[src]["tid"], ops[src]["ts"]) == (s["pid"], s["tid"], s["ts"])
        t = ends[fid]
        assert t["name"] == s["name"]
        dst = [n for n, e in ops.items() if (e["pid"], e["tid"], e["ts"]) == (t["pid"], t["tid"], t["ts"])]
        edges.update((src, d) for d in dst)
    assert ("w/read", "h") in edges and ("h", "Tanh") in edges and ("h", "Sin") in edges
    off = json.loads(lens_timeline.Timeline(meta.step_stats).generate_chrome_trace_format(show_dataflow=False))
    assert not [e for e in off["traceEvents"] if e["ph"] in "st"]


def test_memory_counters_and_allocator_maximum():
    meta = _traced_step()
    tl = lens_timeline.Timeline(meta.step_stats)
    events = json.loads(tl.generate_chrome_trace_format(show_memory=True))["traceEvents"]
    counters = [e for e in events if e["ph"] == "C"]
    assert counters and all(e["name"] == "cpu" for e in counters)
    assert counters[-1]["args"]["cpu"] == 0          # everything is freed by the end of the step
    biggest = max(ns.memory[0].total_bytes for ds in meta.step_stats.dev_stats for ns in ds.node_stats
                  if ns.memory)
    peak = tl.analyze_step_stats(show_memory=True).allocator_maximums["cpu"]
    assert peak.num_bytes >= biggest and max(e["args"]["cpu"] for e in counters) == peak.num_bytes
    assert any(e["ph"] == "N" for e in events) and any(e["ph"] == "D" for e in events)


def test_parallel_step_shows_executor_threads(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_OVERLAP_FLOPS", 0)
    monkeypatch.setattr(parallel, "MIN_FLOPS_PER_OP", 0)
    meta = _traced_step(threads=2)
    events = json.loads(lens_timeline.Timeline(meta.step_stats).generate_chrome_trace_format())["traceEvents"]
    thread_names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert any(n.startswith("lens-inter-op") for n in thread_names), thread_names
    assert len([e for e in events if e["ph"] == "X"]) == sum(len(d.node_stats) for d in meta.step_stats.dev_stats)


def test_tf1_import_paths():
    from lens.python.client import timeline
    assert timeline is lens_timeline and tf.client.timeline is lens_timeline
    empty = json.loads(timeline.Timeline(tf.RunMetadata().step_stats).generate_chrome_trace_format())
    assert empty["traceEvents"] == []
