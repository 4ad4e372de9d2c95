"""--max_memory_mb holds for sampled payloads too: a board keeping every histogram and text of
a logdir bigger than the cap moves them to spill files in its cache dir and serves them all."""

import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from lens.events.records import encode_record
from lens.proto import event_pb2, histogram_pb2, summary_pb2

RUNS, TAGS, STEPS, BUCKETS = 2, 8, 3000, 40

_BOARD = r"""
import json, sys, threading
from lens.events.cached_logdir import anon_rss
peak = [anon_rss()]
stop = threading.Event()
def sample():
    while not stop.wait(0.002):
        peak[0] = max(peak[0], anon_rss())
threading.Thread(target=sample, daemon=True).start()
from lens.events.provider import DataProvider
p = DataProvider(sys.argv[1], reload_interval=0, cache_dir=sys.argv[2] or None,
                 max_memory_mb=float(sys.argv[3]) if sys.argv[2] else None,
                 samples_per_plugin={"histograms": 0, "text": 0})
p.reload()
seen = {}
for run in p.runs():
    for tag in p.list_tags("histograms")[run]:  # one tag at a time, as the page asks
        histos = p.histograms(run, tag)
        seen[run + "/" + tag] = [len(histos), sum(h["num"] for _, _, h in histos),
                                 sum(sum(h["bucket"]) for _, _, h in histos)]
        del histos
    texts = p.text(run, "notes")
    seen[run + "/notes"] = [len(texts), str(texts[-1][2])]
    del texts
stop.set()
print(json.dumps({"peak": max(peak[0], anon_rss()), "seen": seen,
                  "cache": p.progress().get("cache")}))
"""


def _write_run(path, seed, steps=STEPS):
    """Write the run; returns what _BOARD should see of it (per tag: count, sums, last text)."""
    rng = np.random.default_rng(seed)
    seen = {}
    limits = list(np.linspace(-3, 3, BUCKETS))
    with open(path, "wb") as f:
        f.write(encode_record(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")
                              .SerializeToString()))
        for step in range(steps):
            values = []
            for t in range(TAGS):
                counts = rng.integers(0, 50, BUCKETS).astype(float)
                got = seen.setdefault("weights_%d" % t, [0, 0.0, 0.0])
                got[0] += 1
                got[1] += float(counts.sum())
                got[2] += float(counts.sum())
                values.append(summary_pb2.Summary.Value(tag="weights_%d" % t, histo=(
                    histogram_pb2.HistogramProto(min=-3, max=3, num=float(counts.sum()), sum=1.5,
                                                 sum_squares=2.5, bucket_limit=limits,
                                                 bucket=counts))))
            text = summary_pb2.Summary.Value(tag="notes", metadata=summary_pb2.SummaryMetadata(
                plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text")))
            text.tensor.dtype = 7  # DT_STRING
            text.tensor.string_val.append(("note %d " % step).encode() * 20)
            summary = summary_pb2.Summary(value=values + [text])
            f.write(encode_record(event_pb2.Event(wall_time=2.0 + step, step=step,
                                                  summary=summary).SerializeToString()))
    seen["notes"] = [steps, ("note %d " % (steps - 1)) * 20]
    return seen


def _serve(logdir, cache, cap_mb):
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", _BOARD, logdir, cache, str(cap_mb)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_histograms_and_text_are_served_whole_under_the_cap(tmp_path):
    expected = {}
    for r in range(RUNS):
        folder = tmp_path / "logs" / ("run_%d" % r)
        folder.mkdir(parents=True)
        written = _write_run(str(folder / "events.out.tfevents.1.h"), r)
        expected.update({"run_%d/%s" % (r, tag): v for tag, v in written.items()})
    logdir, cache = str(tmp_path / "logs"), str(tmp_path / "cache")
    # Kept in RAM (no cache dir, no cap) these payloads take about 310 MB (measured).
    cap = 100
    for start in ("cold", "warm"):
        got = _serve(logdir, cache, cap)
        assert got["seen"] == expected, start  # every payload, read back unchanged
        assert got["cache"]["ok"] and got["cache"]["rebuilt"] == 0, start
        assert got["peak"] <= cap << 20, "%s start peaked at %.1f MB" % (
            start, got["peak"] / 2**20)
    from lens.events.spill import SUFFIX
    assert glob.glob(os.path.join(cache, "runs", "*", "*" + SUFFIX))  # they went to disk


def _histograms(provider):
    return {(run, tag): [(w, s, h["bucket"]) for w, s, h in provider.histograms(run, tag)]
            for run, tags in provider.list_tags("histograms").items() for tag in tags}


def test_a_damaged_or_missing_spill_file_makes_the_run_read_again(tmp_path):
    from lens.events.provider import DataProvider
    from lens.events.spill import SUFFIX

    folder = tmp_path / "logs" / "run_0"
    folder.mkdir(parents=True)
    _write_run(str(folder / "events.out.tfevents.1.h"), 9, steps=40)
    logdir, cache = str(tmp_path / "logs"), str(tmp_path / "cache")

    def load(**kw):
        provider = DataProvider(logdir, reload_interval=0, **kw)
        provider.reload()
        return provider

    plain = _histograms(load())
    # A 1 MB cap is always passed: every payload goes to a spill file as soon as it is read.
    assert _histograms(load(cache_dir=cache, max_memory_mb=1)) == plain
    files = glob.glob(os.path.join(cache, "runs", "*", "*" + SUFFIX))
    assert files
    for damage in ("overwrite", "remove"):
        for path in files:
            if damage == "remove":
                os.remove(path)
            else:
                with open(path, "r+b") as f:
                    f.write(b"\0" * 64)
        warm = load(cache_dir=cache, max_memory_mb=1)
        if damage == "overwrite":  # found when a page asks: an error, then the run is re-read
            with pytest.raises(ValueError, match="spill file"):
                _histograms(warm)
            warm.reload()
        assert _histograms(warm) == plain, damage
        files = glob.glob(os.path.join(cache, "runs", "*", "*" + SUFFIX))
