"""Loading a scalar logdir: lens's DataProvider vs TensorBoard's EventAccumulator and RustBoard.

Sizes are RUNSxTAGSxSTEPS (default 4x5x50000 = 1M scalars and 10x10x100000 = 10M scalars;
quick mode 2x2x2000). Override with LENS_BENCH_LOADING="4x5x50000,..." or on the command line:
    python -m bench.bench_loading 4x5x50000
"""

import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from bench.loading_data import logdir as cached_logdir, total_bytes

DEFAULT_SIZES = ("4x5x50000", "10x10x100000")
QUICK_SIZES = ("2x2x2000",)
EA_FULL_LIMIT = 2_000_000  # above this many scalars, time EventAccumulator on one run only

_LENS_SCRIPT = r"""
import sys
from lens.events.provider import DataProvider
p = DataProvider(sys.argv[1], reload_interval=0)
p.reload()
total = 0
for run, tags in p.list_tags("scalars").items():
    for tag in tags:
        total += len(p.scalars(run, tag)[2])
import resource
print(total, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url):
    """(status, headers, body) of one GET, or (None, {}, b'') while the server is not up."""
    try:
        with urllib.request.urlopen(url, timeout=600) as res:
            return res.status, dict(res.headers), res.read()
    except urllib.error.HTTPError as err:
        return err.code, {}, b""
    except OSError:
        return None, {}, b""


def _served(cmd, port, series, steps, points, timeout=600):
    """Seconds from starting `cmd` (a board on `port`) until each of `series` scalar series
    answers over HTTP with its last step: `points` 'all' (every point, lens), 'sample' (what
    the server serves by default: TensorBoard's 1000) or N (?downsample=N, lens)."""
    base = "http://127.0.0.1:%d/data/plugin/scalars/" % port
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu.ru_utime + cpu.ru_stime
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        done = set()
        while len(done) < series:
            if proc.poll() is not None or time.perf_counter() - start > timeout:
                raise RuntimeError("%s stopped or timed out" % cmd[:3])
            status, _, body = _get(base + "tags")
            listing = json.loads(body) if status == 200 else {}
            for run, tags in listing.items():
                for tag in tags:
                    if (run, tag) in done:
                        continue
                    query = {"run": run, "tag": tag}
                    if points not in ("all", "sample"):
                        query["downsample"] = points
                    status, head, body = _get(base + "scalars?" + urllib.parse.urlencode(query))
                    if status != 200 or len(body) < 4:
                        continue
                    rows = body.count(b"],[") + 1
                    last = json.loads(body[body.rfind(b"[", 0, len(body) - 1):-1])
                    full = rows == steps if points == "all" else rows <= (
                        1000 if points == "sample" else int(points))
                    if last[1] == steps - 1 and full:
                        done.add((run, tag))
            time.sleep(0.01)
        return time.perf_counter() - start
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        _CPU.append(used.ru_utime + used.ru_stime - cpu)


_CPU = []  # CPU seconds of each server measured by _served (to its end), newest last


def _lens_board(root, series, steps, points):
    """`lens board` on a fresh cache dir (what a first start does), served over HTTP."""
    cache = tempfile.mkdtemp(prefix="lens-bench-cache-")
    port = _free_port()
    try:
        return _served([sys.executable, "-m", "lens.board", "--logdir", root, "--port", str(port),
                        "--reload_interval", "0", "--cache_dir", cache], port, series, steps,
                       points)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _tensorboard(root, series, steps):
    """TensorBoard with its Rust data server (--load_fast=true), or None when not installed."""
    try:
        from tensorboard.data import server_ingester
        server_ingester.get_server_binary()
    except Exception:  # no tensorboard, or no data server binary for this platform
        return None
    port = _free_port()
    return _served([sys.executable, "-m", "tensorboard.main", "--logdir", root, "--port",
                    str(port), "--host", "127.0.0.1", "--load_fast=true", "--reload_interval",
                    "0"], port, series, steps, "sample")


def _median(values):
    return sorted(values)[len(values) // 2]


def _board_rows(spec, root, runs, tags, steps, repeats=3):
    """Issue 19's rows: `lens board` from process start, 1000 points and every point of every
    series over HTTP, against TensorBoard with its Rust data server (median of `repeats`)."""
    series = runs * tags
    cpu = {}

    def measure(name, start):
        del _CPU[:]
        times = [start() for _ in range(repeats)]
        cpu[name] = _median(_CPU) if _CPU else None
        return None if None in times else _median(times)

    _log("lens board, 1000 points per series (x%d)" % repeats)
    small = measure("small", lambda: _lens_board(root, series, steps, "1000"))
    _log("lens board, every point (x%d)" % repeats)
    full = measure("full", lambda: _lens_board(root, series, steps, "all"))
    _log("TensorBoard --load_fast=true (x%d)" % repeats)
    peer = measure("peer", lambda: _tensorboard(root, series, steps))
    spent = "; CPU s (server process, to its exit): lens %.2f / %.2f, TensorBoard %s" % (
        cpu["small"], cpu["full"], "%.2f" % cpu["peer"] if cpu["peer"] is not None else "n/a")
    note = "" if peer else "; TensorBoard's Rust data server not installed (n/a)"
    return [
        {"name": "lens board from start, 1000 points per series %s" % spec, "lens": small,
         "other": peer, "other_name": "TensorBoard+Rust", "unit": "s",
         "note": "process start until every series answers over HTTP (fresh cache dir); "
                 "median of %d; goal <= 0.3x%s%s" % (repeats, note, spent)},
        {"name": "lens board from start, every point %s" % spec, "lens": full,
         "other": peer, "other_name": "TensorBoard+Rust (1000-point samples)", "unit": "s",
         "note": "all %d points as JSON over HTTP; median of %d; goal <= 1.5 s (TensorBoard "
                 "serves samples only)" % (series * steps, repeats)},
    ]


def _log(msg):
    print("bench_loading: " + msg, file=sys.stderr, flush=True)


def _lens_in_process(root):
    """(seconds, scalars, bytes per scalar in the series arrays) for a full in-process load."""
    from lens.events.provider import DataProvider

    start = time.perf_counter()
    provider = DataProvider(root, reload_interval=0)
    provider.reload()
    total = 0
    for run, tags in provider.list_tags("scalars").items():
        for tag in tags:
            total += len(provider.scalars(run, tag)[0])
    seconds = time.perf_counter() - start
    stores = provider._watcher.stores.values()  # bench-only peek at the memory held
    held = sum(s.scalar_bytes() for s in stores) / max(1, sum(s.scalar_count() for s in stores))
    return seconds, total, held


def _lens_end_to_end(root):
    """(seconds, scalars, peak RSS) for a fresh `python` process: start, load, read every series."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _LENS_SCRIPT, root],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError("lens load in a fresh process failed:\n" + proc.stderr[-2000:])
    out = proc.stdout.split()
    return time.perf_counter() - start, int(out[0]), int(out[1])


def _event_accumulator(run_dirs):
    """(seconds, scalars) for TensorBoard's EventAccumulator keeping everything, run by run."""
    from tensorboard.backend.event_processing import event_accumulator as ea

    start = time.perf_counter()
    total = 0
    for run_dir in run_dirs:
        acc = ea.EventAccumulator(run_dir, size_guidance=ea.STORE_EVERYTHING_SIZE_GUIDANCE)
        acc.Reload()
        total += sum(len(acc.Scalars(tag)) for tag in acc.Tags()["scalars"])
    return time.perf_counter() - start, total


def _rustboard(root, expected, tags, steps, first_step=0, num_points=None, samples="all"):
    """(seconds, peak RSS bytes) from starting RustBoard until every series is served (in full,
    or its `num_points` sample with `samples` None: RustBoard's default reservoir of 1000),
    or None when the installed tensorboard-data-server has no binary."""
    try:
        import grpc
        from tensorboard.data import server_ingester
        from tensorboard.data.proto import data_provider_pb2 as pb, data_provider_pb2_grpc as pbg
        binary = server_ingester.get_server_binary()
    except Exception:  # no binary for this platform, or no grpc
        return None
    with tempfile.TemporaryDirectory() as tmp:
        port_file = os.path.join(tmp, "port")
        start = time.perf_counter()
        flags = ["--samples-per-plugin", "scalars=" + samples] if samples else []
        proc = subprocess.Popen([binary.path, "--logdir", root, "--port", "0", "--port-file",
                                 port_file, "--reload", "once", *flags, "--die-after-stdin"],
                                stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            while not (os.path.exists(port_file) and open(port_file).read().endswith("\n")):
                time.sleep(0.005)
            port = int(open(port_file).read())
            channel = grpc.insecure_channel("localhost:%d" % port, options=[
                ("grpc.max_receive_message_length", -1)])
            stub = pbg.TensorBoardDataProviderStub(channel)
            want_max = first_step + steps - 1
            while True:  # wait until every series reports its last step, then read all
                listing = stub.ListScalars(pb.ListScalarsRequest(
                    experiment_id="", plugin_filter=pb.PluginFilter(plugin_name="scalars")))
                done = sum(1 for r in listing.runs for t in r.tags if t.metadata.max_step == want_max)
                if done == expected // min(steps, num_points or steps):
                    got = 0
                    for r in listing.runs:
                        req = pb.ReadScalarsRequest(experiment_id="", downsample=pb.Downsample(
                            num_points=num_points or steps + 1),
                            plugin_filter=pb.PluginFilter(plugin_name="scalars"))
                        req.run_tag_filter.runs.names.append(r.run_name)
                        res = stub.ReadScalars(req)
                        got += sum(len(t.data.step) for rr in res.runs for t in rr.tags)
                    if got == expected:
                        break
                time.sleep(0.02)
            seconds = time.perf_counter() - start
            rss = 0
            with open("/proc/%d/status" % proc.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        rss = int(line.split()[1]) * 1024
            return seconds, rss
        finally:
            proc.stdin.close()
            proc.kill()
            proc.wait()


def bench_size(spec, quick=False):
    """Rows for one RUNSxTAGSxSTEPS logdir."""
    runs, tags, steps = (int(x) for x in spec.split("x"))
    expected = runs * tags * steps
    root = cached_logdir(runs, tags, steps)
    size_mb = total_bytes(root) / 1e6
    label = "%s (%.2gM scalars, %.0f MB)" % (spec, expected / 1e6, size_mb)
    _log("lens in-process on %s" % label)
    lens_s, lens_n, held = _lens_in_process(root)
    assert lens_n == expected, "lens read %d scalars, expected %d" % (lens_n, expected)
    run_dirs = sorted(os.path.join(root, d) for d in os.listdir(root) if d.startswith("run_"))
    if expected <= EA_FULL_LIMIT:
        _log("EventAccumulator on all %d runs" % runs)
        ea_s, ea_n = _event_accumulator(run_dirs)
        ea_note = "EventAccumulator measured on every run"
    else:
        _log("EventAccumulator on 1 of %d runs (extrapolated)" % runs)
        ea_s, ea_n = _event_accumulator(run_dirs[:1])
        ea_s, ea_n = ea_s * runs, ea_n * runs
        ea_note = "EventAccumulator EXTRAPOLATED x%d from 1 run measured" % runs
    assert ea_n == expected, "EventAccumulator read %d scalars, expected %d" % (ea_n, expected)
    rows = [
        {"name": "load %s" % label, "lens": lens_s, "other": ea_s, "other_name": "EventAccumulator",
         "unit": "s", "note": ea_note + "; goal lens/other <= 0.05"},
        {"name": "load rate %s" % spec, "lens": expected / lens_s, "other": expected / ea_s,
         "other_name": "EventAccumulator", "unit": "events/s", "note": ea_note},
    ]
    if quick:
        rows.append({"name": "end to end %s" % spec, "lens": None, "other": None,
                     "other_name": "RustBoard", "unit": "s", "note": "skipped in quick mode"})
        rows.append({"name": "memory %s" % spec, "lens": held, "other": None, "other_name": "",
                     "unit": "bytes/scalar", "note": "series arrays; goal <= 32"})
        return rows
    _log("lens end to end (fresh process)")
    e2e_s, e2e_n, e2e_rss = _lens_end_to_end(root)
    assert e2e_n == expected
    _log("RustBoard end to end")
    rust = _rustboard(root, expected, tags, steps)
    rows.append({"name": "end to end %s" % spec, "lens": e2e_s,
                 "other": rust[0] if rust else None, "other_name": "RustBoard",
                 "unit": "s", "note": "process start until every series is served in full" +
                 ("" if rust else "; RustBoard binary not installed (n/a)")})
    rows.append({"name": "memory %s" % spec, "lens": held, "other": None, "other_name": "",
                 "unit": "bytes/scalar", "note": "series arrays; goal <= 32"})
    if expected <= EA_FULL_LIMIT:  # issue 19's 1M-scalar rows
        rows.extend(_board_rows(spec, root, runs, tags, steps))
    rows.append({"name": "peak RSS %s" % spec, "lens": e2e_rss / expected,
                 "other": rust[1] / expected if rust else None, "other_name": "RustBoard",
                 "unit": "bytes/scalar", "note": "whole process incl. interpreter and buffers"})
    return rows


def run(quick, sizes=None):
    """Rows for each size (quick: one tiny logdir, no subprocesses)."""
    if sizes is None:
        env = os.environ.get("LENS_BENCH_LOADING")
        sizes = env.split(",") if env else (QUICK_SIZES if quick else DEFAULT_SIZES)
    rows = []
    for spec in sizes:
        rows.extend(bench_size(spec, quick))
    return rows


if __name__ == "__main__":
    from bench.run import format_table

    print(format_table(run(False, sys.argv[1:] or None)))
