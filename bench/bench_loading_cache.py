"""The board at scale with its cache dir: cold and warm start until every series answers,
resident memory, one full-resolution series; side by side with RustBoard when installed.

Logdirs are RUNSx5x50000 scalars written by loading_data.fast_scalar_file (default 40 runs =
10M scalars; quick mode 2x5x5000). Override: LENS_BENCH_CACHE_SIZES="400x5x50000,...";
LENS_BENCH_NO_RUSTBOARD=1 skips RustBoard (it takes minutes at 100M).
Each lens start is a fresh process through the DataProvider the board uses (cache dir, 1024 MB
cap, loading in its background thread); the clock runs from process start.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from bench.bench_loading import _rustboard
from bench.loading_data import fast_logdir, total_bytes

DEFAULT_SIZES = ("40x5x50000",)
QUICK_SIZES = ("2x5x5000",)
FIRST_STEP = 1 << 14

_BOARD = r"""
import json, sys, time, threading
t0 = float(sys.argv[4])
from lens.events.cached_logdir import anon_rss
peak = [0]
stop = threading.Event()
def sample():
    while not stop.wait(0.01):
        peak[0] = max(peak[0], anon_rss())
threading.Thread(target=sample, daemon=True).start()
from lens.board.app import create_app
from lens.events.provider import DataProvider
steps = int(sys.argv[3])
imported = time.time() - t0
cpu_imported = time.process_time()
# Every point is in and the answer is the downsampled series: rows counted and the last one
# read from the text (a browser parses the JSON itself; the clock is the server's).
def full_answer(body, most, total):
    rows = body.count(b"],[") + 1 if len(body) > 2 else 0
    last = json.loads(body[body.rfind(b"[", 0, len(body) - 1):-1]) if rows else None
    return (total == str(steps) and 0 < rows <= most and last[1] == %d + steps - 1
            and body.startswith(b"[[") and body.endswith(b"]]"))
p = DataProvider(sys.argv[1], reload_interval=0, cache_dir=sys.argv[2] or None,
                 max_memory_mb=1024 if sys.argv[2] else None)
client = create_app(p, reload_interval=0).test_client()
p.start()
first = None
served = set()
while True:
    done = p.progress()["done"]
    for run, tags in p.list_tags("scalars").items():
        for tag in tags:
            if (run, tag) in served:
                continue
            res = client.get("/data/plugin/scalars/scalars",
                             query_string={"run": run, "tag": tag, "downsample": 1000})
            if full_answer(res.get_data(), 1000, res.headers.get("X-Lens-Total-Points")):
                served.add((run, tag))
                first = first or time.time() - t0
    if done and len(served) == sum(len(t) for t in p.list_tags("scalars").values()):
        break
    time.sleep(0.005)
every = time.time() - t0
cpu_every = time.process_time()
run, tag = sorted(served)[0]
from lens.board.scalar_json import BODIES
times, cpu_full = [], []
for _ in range(7):
    with BODIES._lock:  # every request encodes the series again (no body kept from before)
        BODIES._bodies.clear()
        BODIES._bytes = 0
    a, c = time.perf_counter(), time.process_time()
    res = client.get("/data/plugin/scalars/scalars", query_string={"run": run, "tag": tag})
    body = res.get_data()
    times.append(time.perf_counter() - a)
    cpu_full.append(time.process_time() - c)
    assert len(json.loads(body)) == steps
direct = []
for _ in range(7):
    a = time.perf_counter()
    assert len(p.scalars(run, tag)[0]) == steps
    direct.append(time.perf_counter() - a)
# Per-request cost of a 1000-point answer (what each series costs a start), split into the
# provider's downsample plus total count, and the floor of the Flask app (/data/environment).
def per_call(fn, k=101):
    ts = []
    for _ in range(k):
        a = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - a)
    return sorted(ts)[k // 2]
small_route = per_call(lambda: client.get("/data/plugin/scalars/scalars", query_string={
    "run": run, "tag": tag, "downsample": 1000}).get_data())
small_provider = per_call(lambda: (p.scalars(run, tag, max_points=1000), p.scalars(run, tag)))
floor = per_call(lambda: client.get("/data/environment").get_data())
stop.set()
import os, resource
kids = os.times()
workers_cpu = kids.children_user + kids.children_system
workers_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
hwm = 0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        hwm = int(line.split()[1]) * 1024
print(json.dumps({"first": first, "every": every, "series": len(served), "full": sorted(times)[3],
                  "cpu_full": sorted(cpu_full)[3],
                  "full_first": times[0], "small_route": small_route,
                  "small_provider": small_provider, "floor": floor,
                  "direct": sorted(direct)[3], "imported": imported,
                  "anon": max(peak[0], anon_rss()), "hwm": hwm,
                  "parsed": p._watcher.records_parsed, "cpu_every": cpu_every,
                  "cpu_imported": cpu_imported, "workers_cpu": workers_cpu,
                  "workers_peak": workers_peak}))
""" % FIRST_STEP


def _log(msg):
    print("bench_loading_cache: " + msg, file=sys.stderr, flush=True)


def _start(root, cache, steps):
    """One board start in a fresh process; its measurements."""
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-c", _BOARD, root, cache, str(steps), repr(t0)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError("board start failed:\n" + proc.stderr[-3000:])
    return json.loads(proc.stdout)


def bench_size(spec, quick=False):
    """Rows for one RUNSxTAGSxSTEPS logdir."""
    runs, tags, steps = (int(x) for x in spec.split("x"))
    expected = runs * tags * steps
    _log("building/using %s" % spec)
    root = fast_logdir(runs, tags, steps)
    label = "%s (%.3gM scalars, %.0f MB)" % (spec, expected / 1e6, total_bytes(root) / 1e6)
    cache = tempfile.mkdtemp(prefix="lens-bench-cache-")
    try:
        plain = {"every": None, "hwm": None}  # quick mode: only the cached starts
        if not quick:
            _log("start without a cache dir on %s" % label)
            plain = _start(root, "", steps)
        _log("cold start")
        cold = _start(root, cache, steps)
        _log("warm start")
        warm = _start(root, cache, steps)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    assert cold["series"] == warm["series"] == runs * tags and warm["parsed"] == 0
    rust = None
    if not quick and not os.environ.get("LENS_BENCH_NO_RUSTBOARD"):
        _log("RustBoard")
        rust = _rustboard(root, expected, tags, steps, FIRST_STEP)
    note = "" if rust or quick else ("; RustBoard skipped (LENS_BENCH_NO_RUSTBOARD)"
                                      if os.environ.get("LENS_BENCH_NO_RUSTBOARD")
                                      else "; RustBoard binary not installed (n/a)")
    rows = [
        {"name": "cold start, every series %s" % label, "lens": cold["every"],
         "other": rust[0] if rust else None, "other_name": "RustBoard", "unit": "s",
         "note": "process start until every series answers (1000 points); goal <= 0.15x; "
                 "CPU s until then: %.2f (%.2f of it imports) + %.2f in worker processes"
                 % (cold["cpu_every"], cold["cpu_imported"], cold["workers_cpu"]) + note},
        {"name": "start without cache dir, every series %s" % spec, "lens": plain["every"],
         "other": rust[0] if rust else None, "other_name": "RustBoard", "unit": "s",
         "note": "the same board with no cache dir and no cap (what a cold start costs extra)"},
        {"name": "peak RSS without cache dir %s" % spec,
         "lens": plain["hwm"] and plain["hwm"] / 2**20,
         "other": None, "other_name": "", "unit": "MB", "note": "VmHWM"},
        {"name": "cold start, first series %s" % spec, "lens": cold["first"],
         "other": cold["first"] - cold["imported"], "other_name": "after imports", "unit": "s",
         "note": "goal < 1 s; imports took %.2f s on this busy machine" % cold["imported"]},
        {"name": "warm start, every series %s" % spec, "lens": warm["every"],
         "other": warm["every"] - warm["imported"], "other_name": "after imports", "unit": "s",
         "note": "unchanged logdir, nothing parsed; goal <= 2 s; CPU s until then: %.2f "
                 "(%.2f of it imports)" % (warm["cpu_every"], warm["cpu_imported"])},
        {"name": "warm start, first series %s" % spec, "lens": warm["first"],
         "other": warm["first"] - warm["imported"], "other_name": "after imports", "unit": "s",
         "note": "imports took %.2f s" % warm["imported"]},
        {"name": "full-resolution %d-point series %s" % (steps, spec), "lens": warm["full"] * 1e3,
         "other": warm["full_first"] * 1e3, "other_name": "first request", "unit": "ms",
         "note": "HTTP route until the JSON body is out, encoded anew each time (the body "
                 "cache emptied), median of 7 (CPU %.1f ms); goal < 50 ms" % (
                     warm["cpu_full"] * 1e3)},
        {"name": "one 1000-point answer, warm %s" % spec, "lens": warm["small_route"] * 1e3,
         "other": warm["small_provider"] * 1e3, "other_name": "provider calls", "unit": "ms",
         "note": "HTTP route, median of 101; the route's own floor (/data/environment): "
                 "%.2f ms" % (warm["floor"] * 1e3)},
        {"name": "full-resolution %d-point series, provider %s" % (steps, spec),
         "lens": warm["direct"] * 1e3, "other": None, "other_name": "", "unit": "ms",
         "note": "DataProvider.scalars from the mapped column file, median of 7"},
        {"name": "peak RSS cold %s" % spec, "lens": cold["hwm"] / 2**20,
         "other": rust[1] / 2**20 if rust else None, "other_name": "RustBoard", "unit": "MB",
         "note": "whole process (VmHWM) incl. ~50 MB of shared library pages"},
        {"name": "peak anon RSS cold / warm %s" % spec, "lens": cold["anon"] / 2**20,
         "other": "%.0f" % (warm["anon"] / 2**20), "other_name": "warm start", "unit": "MB",
         "note": "what --max_memory_mb (1024) bounds, with the worker processes' share; the "
                 "largest worker peaked at %.0f MB (VmHWM)" % (cold["workers_peak"] / 2**20)},
    ]
    return rows


def run(quick, sizes=None):
    """Rows for each size."""
    if sizes is None:
        env = os.environ.get("LENS_BENCH_CACHE_SIZES")
        sizes = env.split(",") if env else (QUICK_SIZES if quick else DEFAULT_SIZES)
    rows = []
    for spec in sizes:
        rows.extend(bench_size(spec, quick))
    return rows


if __name__ == "__main__":
    from bench.run import format_table

    print(format_table(run(False, sys.argv[1:] or None)))
