"""`lens export`: files read back with the csv module and pyarrow, and the bad-input exits."""

import csv
import json
import math
import os

import pyarrow.parquet as pq
import pytest

from lens.cli import main as lens_main
from tests.events.loading_helpers import tb_scalar_event, tb_tensor_scalar_event, write_events

# (run, tag) -> [(step, wall, value)] as written; 'eval' has fewer steps, one NaN, and 'train'
# writes step 3 of loss twice (the second write is what the wide table keeps).
WRITTEN = {
    ("train", "loss"): [(s, 100.0 + s, 1.0 / (s + 1)) for s in range(6)] + [(3, 200.0, 0.125)],
    ("train", "acc"): [(s, 100.5 + s, 0.1 * s) for s in range(6)],
    ("eval", "loss"): [(0, 300.0, 0.75), (4, 304.0, float("nan"))],
    ("eval/sub", "loss"): [(2, 400.0, 1.5)],
}


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("export_logdir")
    by_run = {}
    for (run, tag), points in WRITTEN.items():
        by_run.setdefault(run, [])
        for step, wall, value in points:
            # acc as a TF2 tensor scalar, the rest as TF1 simple_values: both export.
            make = tb_tensor_scalar_event if tag == "acc" else tb_scalar_event
            by_run[run].append(make(tag, step, value, wall=wall))
    for run, events in by_run.items():
        events.sort(key=lambda ev: ev.wall_time)
        write_events(str(root / run / "events.out.tfevents.1.host"), events)
    return str(root)


def expected_long(runs=None, tags=None):
    rows = []
    for (run, tag), points in sorted(WRITTEN.items()):
        if (runs and run not in runs) or (tags and tag not in tags):
            continue
        rows += [(run, tag, s, w, v) for s, w, v in sorted(points, key=lambda p: p[0])]
    return rows


def same(a, b):
    """Floats equal as float32 round trips (acc is a float32 tensor), NaN equal to NaN."""
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-6 * max(1.0, abs(b))
    return a == b


def assert_rows(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert all(same(x, y) for x, y in zip(g, w)), (g, w)


def run_export(tmp_path, logdir, *args, name="out", cache_dir=""):
    out = tmp_path / name
    code = lens_main(["export", "--logdir", logdir, "--cache_dir", cache_dir, *args, str(out)])
    return code, out


def test_cache_dir_is_reused_with_the_same_table(tmp_path, logdir):
    cache = tmp_path / "cache"
    first = run_export(tmp_path, logdir, "--format", "csv", name="a.csv", cache_dir=str(cache))
    assert first[0] == 0 and os.listdir(cache)  # the board's cache now holds the logdir
    second = run_export(tmp_path, logdir, "--format", "csv", name="b.csv", cache_dir=str(cache))
    assert second[0] == 0 and first[1].read_bytes() == second[1].read_bytes()
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(first[1]).st_mode & 0o777 == 0o666 & ~umask


def test_long_csv_reads_back(tmp_path, logdir):
    code, out = run_export(tmp_path, logdir, "--format", "csv")
    assert code == 0
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["run", "tag", "step", "wall_time", "value"]
    got = [(r[0], r[1], int(r[2]), float(r[3]), float(r[4])) for r in rows[1:]]
    # rows come grouped by run then tag; within a series in step order (stable for duplicates)
    assert sorted(got, key=lambda r: (r[0], r[1])) == got
    assert_rows(sorted(got, key=lambda r: (r[0], r[1], r[2], r[3])),
                sorted(expected_long(), key=lambda r: (r[0], r[1], r[2], r[3])))


def test_filters_are_regexes_searched_anywhere(tmp_path, logdir):
    code, out = run_export(tmp_path, logdir, "--run", "^eval", "--tag", "lo", "--format", "csv")
    assert code == 0
    with open(out, newline="") as f:
        runs = {row["run"] for row in csv.DictReader(f)}
    assert runs == {"eval", "eval/sub"}


def test_long_parquet_reads_back_with_pyarrow(tmp_path, logdir):
    code, out = run_export(tmp_path, logdir, "--tag", "^loss$", "--format", "parquet")
    assert code == 0
    table = pq.read_table(out)
    assert table.column_names == ["run", "tag", "step", "wall_time", "value"]
    assert str(table.schema.field("step").type) == "int64"
    got = sorted(zip(*[table.column(c).to_pylist() for c in table.column_names]),
                 key=lambda r: (r[0], r[2], r[3]))
    assert_rows(got, sorted(expected_long(tags={"loss"}), key=lambda r: (r[0], r[2], r[3])))


def test_wide_parquet_aligns_steps_with_nulls(tmp_path, logdir):
    code, out = run_export(tmp_path, logdir, "--format", "parquet", "--layout", "wide")
    assert code == 0
    table = pq.read_table(out).to_pydict()
    assert table["step"] == [0, 1, 2, 3, 4, 5]
    assert set(table) == {"step", "train/loss", "train/acc", "eval/loss", "eval/sub/loss"}
    assert table["eval/sub/loss"] == [None, None, 1.5, None, None, None]
    assert table["eval/loss"][0] == 0.75 and math.isnan(table["eval/loss"][4])
    assert table["eval/loss"][1] is None
    assert table["train/loss"][3] == 0.125  # the later write at step 3 wins
    assert same(table["train/acc"][5], 0.5)


def test_wide_csv_and_json(tmp_path, logdir):
    code, out = run_export(tmp_path, logdir, "--run", "eval", "--format", "csv", "--layout",
                           "wide", name="wide.csv")
    assert code == 0
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["step", "eval/loss", "eval/sub/loss"]
    assert rows[1] == ["0", "0.75", ""] and rows[2] == ["2", "", "1.5"]  # only steps present
    assert rows[3][0] == "4" and math.isnan(float(rows[3][1])) and len(rows) == 4
    code, out = run_export(tmp_path, logdir, "--run", "eval", "--format", "json", "--layout",
                           "wide", name="wide.json")
    assert code == 0
    data = json.loads(out.read_text())
    assert data[0] == {"step": 0, "eval/loss": 0.75, "eval/sub/loss": None}
    assert data[2]["eval/loss"] == "NaN"


def test_long_json_reads_back(tmp_path, logdir):
    code, out = run_export(tmp_path, logdir, "--run", "^train$", "--format", "json")
    assert code == 0
    data = json.loads(out.read_text())
    got = [(r["run"], r["tag"], r["step"], r["wall_time"], r["value"]) for r in data]
    assert_rows(sorted(got), sorted(expected_long(runs={"train"})))


@pytest.mark.parametrize("args, message", [
    (["--run", "(", "--format", "csv"], "--run '(' is not a valid regular expression"),
    (["--tag", "[a", "--format", "csv"], "--tag '[a' is not a valid regular expression"),
    (["--format", "xlsx"], "--format must be one of csv, parquet, json, got 'xlsx'"),
    (["--format", "csv", "--layout", "tall"], "--layout must be one of long, wide"),
])
def test_bad_arguments_exit_2_with_a_clear_message(tmp_path, logdir, capsys, args, message):
    code, out = run_export(tmp_path, logdir, *args)
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and os.listdir(tmp_path) == []  # nothing half-written


def test_missing_logdir_and_no_match(tmp_path, logdir, capsys):
    code, _ = run_export(tmp_path, str(tmp_path / "nope"), "--format", "csv")
    assert code == 2 and "is not a folder" in capsys.readouterr().err
    code, out = run_export(tmp_path, logdir, "--tag", "^zzz$", "--format", "csv")
    assert code == 1 and "no scalar series" in capsys.readouterr().err
    assert not out.exists()


def test_missing_required_flag_exits_2(tmp_path, logdir, capsys):
    assert lens_main(["export", "--logdir", logdir, "--cache_dir", "", str(tmp_path / "x")]) == 2
    assert "--format" in capsys.readouterr().err


def test_parquet_row_groups_gather_series(tmp_path, logdir, monkeypatch):
    from lens.events import export

    monkeypatch.setattr(export, "ROW_GROUP", 5)  # small groups: several series per group
    code, out = run_export(tmp_path, logdir, "--format", "parquet")
    assert code == 0
    parquet = pq.ParquetFile(out)
    assert parquet.num_row_groups > 1 and parquet.metadata.num_rows == len(expected_long())
    table = parquet.read()
    got = sorted(zip(*[table.column(c).to_pylist() for c in table.column_names]),
                 key=lambda r: (r[0], r[1], r[2], r[3]))
    assert_rows(got, sorted(expected_long(), key=lambda r: (r[0], r[1], r[2], r[3])))
