"""--max_memory_mb holds: a board loading and serving 5M scalars stays under a 100 MB cap of
anonymous resident memory (measured in its own process), and keeps every point."""

import json
import os
import subprocess
import sys

from bench.loading_data import fast_scalar_file

RUNS, TAGS, STEPS = 2, 5, 500_000  # 5M scalars in two big runs: each alone would pass the cap

_BOARD = r"""
import json, sys, threading, time
from lens.events.cached_logdir import anon_rss
peak = [anon_rss()]
stop = threading.Event()
def sample():
    while not stop.wait(0.002):
        peak[0] = max(peak[0], anon_rss())
threading.Thread(target=sample, daemon=True).start()
from lens.events.provider import DataProvider
p = DataProvider(sys.argv[1], reload_interval=0, cache_dir=sys.argv[2],
                 max_memory_mb=float(sys.argv[3]))
p.reload()
points = full = 0
for run, tags in p.list_tags("scalars").items():
    for tag in tags:
        points += len(p.scalars(run, tag, max_points=1000)[0])
        steps, walls, values = p.scalars(run, tag)
        full += len(steps)
        assert steps[0] == 1 << 14 and steps[-1] == (1 << 14) + len(steps) - 1
stop.set()
peak[0] = max(peak[0], anon_rss())
print(json.dumps({"peak": peak[0], "full": full, "points": points,
                  "cache": p.progress()["cache"]}))
"""


def _serve(logdir, cache, cap_mb):
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", _BOARD, logdir, cache, str(cap_mb)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_a_5m_scalar_logdir_is_served_under_a_100_mb_cap(tmp_path):
    names = ["train/metric_%02d" % t for t in range(TAGS)]
    for r in range(RUNS):
        fast_scalar_file(str(tmp_path / "logs" / ("run_%02d" % r) / "events.out.tfevents.1.h"),
                         names, STEPS)
    logdir, cache = str(tmp_path / "logs"), str(tmp_path / "cache")
    for start in ("cold", "warm"):
        got = _serve(logdir, cache, 100)
        assert got["full"] == RUNS * TAGS * STEPS, start  # no point dropped
        assert got["points"] <= RUNS * TAGS * 1000
        assert got["cache"]["ok"] and got["cache"]["rebuilt"] == 0
        assert got["peak"] <= 100 << 20, "%s start peaked at %.1f MB" % (start, got["peak"] / 2**20)
