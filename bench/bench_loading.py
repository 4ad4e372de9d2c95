"""Loading a scalar logdir: lens's DataProvider vs TensorBoard's EventAccumulator and RustBoard.

Sizes are RUNSxTAGSxSTEPS (default 4x5x50000 = 1M scalars and 10x10x100000 = 10M scalars;
quick mode 2x2x2000). Override with LENS_BENCH_LOADING="4x5x50000,..." or on the command line:
    python -m bench.bench_loading 4x5x50000
"""

import os
import subprocess
import sys
import tempfile
import time

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


def _rustboard(root, expected, tags, steps, first_step=0):
    """(seconds, peak RSS bytes) from starting RustBoard until every series is served in full,
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
        proc = subprocess.Popen([binary.path, "--logdir", root, "--port", "0", "--port-file",
                                 port_file, "--reload", "once", "--samples-per-plugin",
                                 "scalars=all", "--die-after-stdin"],
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
                if done == expected // steps:
                    got = 0
                    for r in listing.runs:
                        req = pb.ReadScalarsRequest(experiment_id="", downsample=pb.Downsample(
                            num_points=steps + 1), plugin_filter=pb.PluginFilter(plugin_name="scalars"))
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
