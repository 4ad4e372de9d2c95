"""Every benchmark runs in quick mode and reports well-formed rows (timings are never asserted)."""
import importlib

import pytest

from bench.run import discover, format_table


@pytest.mark.parametrize("name", discover())
def test_benchmark_runs_quick(name):
    rows = importlib.import_module("bench.bench_" + name).run(quick=True)
    assert rows, "benchmark %s reported nothing" % name
    for row in rows:
        assert {"name", "lens"} <= set(row)
    assert name and format_table(rows).count("\n") == len(rows) + 1


def test_missing_peer_is_said_not_quoted(monkeypatch, capsys):
    from bench import peers, run
    monkeypatch.setenv(peers.ENV_VAR, "/nonexistent/python")
    monkeypatch.setattr(peers, "_cache", {})
    assert peers.tensorflow(["tiny"], quick=True) == {"tiny": peers.MISSING}
    rows = run.main(["--quick", "--only", "engine/y=x*2+1"])
    assert [r["name"] for r in rows] == ["Session.run y=x*2+1 (fed scalar)"]
    assert rows[0]["other"] == peers.MISSING
    assert peers.MISSING in capsys.readouterr().out
