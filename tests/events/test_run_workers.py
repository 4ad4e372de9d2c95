"""Cold starts with worker processes: the same data as a board reading every run itself."""

import sys

import numpy as np

from lens.events import logdir as logdir_mod, run_workers
from lens.events.provider import DataProvider
from lens.proto import event_pb2
from tests.events.loading_helpers import tb_scalar_event, write_events


def _logdir(tmp_path):
    """Five runs; one restarts (SessionLog.START), one holds a corrupt record."""
    root = tmp_path / "logs"
    for r in range(5):
        events = [tb_scalar_event(tag, s, (r + 1) * s + i, wall=100.0 + s)
                  for s in range(400) for i, tag in enumerate(("loss", "acc"))]
        if r == 1:
            restart = event_pb2.Event(step=300, wall_time=900.0)
            restart.session_log.status = event_pb2.SessionLog.START
            events += [restart] + [tb_scalar_event("loss", s, -s) for s in range(300, 350)]
        offsets = write_events(str(root / ("run_%d" % r) / "events.out.tfevents.1.h"), events)
        if r == 2:
            path = root / "run_2" / "events.out.tfevents.1.h"
            blob = bytearray(path.read_bytes())
            blob[offsets[77] + 15] ^= 0xFF
            path.write_bytes(bytes(blob))
    return str(root)


def _answers(provider):
    """Every series' points and 1000-point JSON answer, the problems and the event counts."""
    out = {}
    for run, tags in provider.list_tags("scalars").items():
        for tag in tags:
            points = [a.tolist() for a in provider.scalars(run, tag)]
            out[run, tag] = points, provider.scalar_answer(run, tag, max_points=1000)
    progress = provider.progress()["per_run"]
    return out, provider.problems(), {run: p["events"] for run, p in progress.items()}


def _load(logdir, cache, monkeypatch, taken):
    monkeypatch.setattr(logdir_mod, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(run_workers, "MIN_BYTES", 1)
    real = run_workers.ParallelWatcher._take
    monkeypatch.setattr(run_workers.ParallelWatcher, "_take", lambda self, name, answer: (
        taken.append((name, answer)), real(self, name, answer))[1])
    provider = DataProvider(logdir, reload_interval=0, cache_dir=cache, max_memory_mb=1024)
    provider._watcher.read_while_starting = False
    provider.reload()
    return provider


def test_runs_read_by_workers_serve_what_the_board_reads_itself(tmp_path, monkeypatch):
    logdir = _logdir(tmp_path)
    plain = DataProvider(logdir, reload_interval=0)
    plain.reload()
    taken = []
    cold = _load(logdir, str(tmp_path / "cache"), monkeypatch, taken)
    assert sorted(name for name, _ in taken) == ["run_%d" % r for r in range(5)]
    assert all(answer["saved"] for _, answer in taken)  # every run came from a worker
    assert cold._watcher.records_parsed == plain._watcher.records_parsed
    assert _answers(cold) == _answers(plain)
    assert len(cold.problems()) == 1 and cold.problems()[0]["corrupt"] == 1
    assert cold.scalars("run_1", "loss")[2].tolist()[-1] == -349.0  # purged, then re-logged
    warm = DataProvider(logdir, reload_interval=0, cache_dir=str(tmp_path / "cache"))
    warm.reload()
    assert warm._watcher.records_parsed == 0 and _answers(warm) == _answers(cold)


def test_runs_of_a_worker_that_dies_are_read_by_the_board(tmp_path, monkeypatch):
    logdir = _logdir(tmp_path)
    plain = DataProvider(logdir, reload_interval=0)
    plain.reload()
    real_init = run_workers._Worker.__init__

    def broken(self):
        real_init(self)
        self.proc.kill()  # dies before answering anything
    monkeypatch.setattr(run_workers._Worker, "__init__", broken)
    taken = []
    cold = _load(logdir, str(tmp_path / "cache"), monkeypatch, taken)
    assert sorted(name for name, _ in taken) == ["run_%d" % r for r in range(5)]
    assert all(answer is None for _, answer in taken)
    assert _answers(cold) == _answers(plain)


def test_worker_answers_one_line_per_task(tmp_path):
    """The worker protocol itself: a bad task gets an error answer, the worker goes on."""
    import json
    import subprocess

    logdir = _logdir(tmp_path)
    tasks = [{"cache_root": str(tmp_path / "c"), "name": "x", "paths": [],
              "samples": {}, "cap_mb": None},
             {"cache_root": str(tmp_path / "c"), "name": "run_0",
              "paths": [logdir + "/run_0/events.out.tfevents.1.h"], "samples": {}, "cap_mb": None}]
    out = subprocess.run([sys.executable, "-m", "lens.events.run_workers"], check=True,
                         input="".join(json.dumps(t) + "\n" for t in tasks), text=True,
                         capture_output=True).stdout.splitlines()
    assert len(out) == 2 and "error" in json.loads(out[0])
    assert json.loads(out[1]) == {"parsed": 800, "saved": True}


def test_answers_that_arrive_together_are_all_taken():
    """Two answer lines in one read (a worker quicker than the board) are both seen: a
    buffered reader would hold the second where select() cannot see it, and the board
    would wait forever."""
    import subprocess

    worker = run_workers._Worker.__new__(run_workers._Worker)
    worker._pending = b""
    worker.proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdout.write('{\"a\": 1}\\n{\"b\": 2}\\n{\"c\"')"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    worker.proc.wait()
    assert worker.answers() == [{"a": 1}, {"b": 2}]
    assert worker.answers() is None and worker._pending == b'{"c"'
