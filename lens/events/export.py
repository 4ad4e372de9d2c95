"""Scalars as one table: `lens export` and the board's per-tag download.

Long layout: one row per point, columns run, tag, step, wall_time, value.
Wide layout: one row per step, a `run/tag` value column per series (empty where a series has
no point at that step; the last value written at a step wins, as the charts show it).
Formats: csv (floats written with repr, so they read back exactly), parquet (pyarrow) and
json (a list of row objects; non-finite values as the strings "NaN", "Infinity", "-Infinity"
as the board's routes send them, nulls for missing wide cells).
"""

import argparse
import csv
import json
import math
import os
import re
import sys
import tempfile

import numpy as np

from lens.events.cache import default_cache_dir
from lens.events.provider import DataProvider

FORMATS = ("csv", "parquet", "json")
LAYOUTS = ("long", "wide")
LONG_COLUMNS = ("run", "tag", "step", "wall_time", "value")
EXIT_USAGE = 2
EXIT_NO_DATA = 1


def compile_pattern(pattern, flag):
    """A regex for --run/--tag (matched with re.search), or ValueError naming the flag."""
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"{flag} {pattern!r} is not a valid regular expression ({err}); "
                         "escape special characters such as ( [ + with a backslash") from None


def check_choice(value, choices, flag):
    """value if it is one of choices, else ValueError naming the flag and the choices."""
    if value not in choices:
        raise ValueError(f"{flag} must be one of {', '.join(choices)}, got {value!r}")
    return value


def select_series(provider, run_regex=None, tag_regex=None):
    """[(run, tag)] of the scalar series whose run and tag match (re.search), sorted."""
    runs_re = compile_pattern(run_regex, "--run") if isinstance(run_regex, str) else run_regex
    tags_re = compile_pattern(tag_regex, "--tag") if isinstance(tag_regex, str) else tag_regex
    picked = []
    for run, tags in sorted(provider.list_tags("scalars").items()):
        if runs_re is not None and not runs_re.search(run):
            continue
        picked += [(run, tag) for tag in sorted(tags) if tags_re is None or tags_re.search(tag)]
    return picked


def iter_series(provider, series):
    """(run, tag, steps, wall_times, values) for each (run, tag), every point kept."""
    for run, tag in series:
        steps, walls, values = provider.scalars(run, tag)
        yield run, tag, steps, walls, values


def _json_number(x):
    """A float for JSON: non-finite values as the board's strings."""
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def wide_table(columns):
    """(steps, [(name, values float64, present bool)]) aligned on the union of steps."""
    columns = list(columns)
    if not columns:
        return np.zeros(0, np.int64), []
    steps = np.unique(np.concatenate([c[1] for c in columns]))
    out = []
    for name, col_steps, col_values in columns:
        values = np.full(len(steps), np.nan)
        present = np.zeros(len(steps), bool)
        at = np.searchsorted(steps, col_steps)
        # The series is in step order: at a repeated step keep the last point written.
        last = np.ones(len(at), bool)
        last[:-1] = at[:-1] != at[1:]
        values[at[last]] = col_values[last]
        present[at] = True
        out.append((name, values, present))
    return steps, out


def _wide_columns(rows):
    """('run/tag', steps, values) from iter_series rows."""
    for run, tag, steps, _walls, values in rows:
        yield f"{run}/{tag}", steps, values


# ---- writers: each takes iter_series rows and a binary or text file -----------------------
def write_csv_long(rows, out):
    """Long CSV to a text file."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LONG_COLUMNS)
    for run, tag, steps, walls, values in rows:
        n = len(steps)
        writer.writerows(zip([run] * n, [tag] * n, steps.tolist(), walls.tolist(),
                             values.tolist()))


def write_csv_wide(rows, out):
    """Wide CSV to a text file: step, then one column per series."""
    steps, columns = wide_table(_wide_columns(rows))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["step"] + [name for name, _, _ in columns])
    cells = [np.where(present, values.astype(object), "") for _, values, present in columns]
    writer.writerows(zip(steps.tolist(), *[c.tolist() for c in cells]))


def write_json_long(rows, out):
    """Long JSON (a list of row objects) to a text file, written series by series."""
    out.write("[")
    first = True
    for run, tag, steps, walls, values in rows:
        for s, w, v in zip(steps.tolist(), walls.tolist(), values.tolist()):
            out.write(("" if first else ",\n") + json.dumps(
                {"run": run, "tag": tag, "step": s, "wall_time": w, "value": _json_number(v)}))
            first = False
    out.write("]\n")


def write_json_wide(rows, out):
    """Wide JSON: [{"step": s, "run/tag": value or null, ...}] to a text file."""
    steps, columns = wide_table(_wide_columns(rows))
    lists = [(name, values.tolist(), present.tolist()) for name, values, present in columns]
    out.write("[")
    for i, step in enumerate(steps.tolist()):
        row = {"step": step}
        for name, values, present in lists:
            row[name] = _json_number(values[i]) if present[i] else None
        out.write(("" if i == 0 else ",\n") + json.dumps(row))
    out.write("]\n")


def _pyarrow():
    """pyarrow and pyarrow.parquet, or a clear error saying how to get them."""
    try:
        import pyarrow
        import pyarrow.parquet as parquet
    except ImportError:
        raise ValueError("--format parquet needs pyarrow: pip install pyarrow") from None
    return pyarrow, parquet


ROW_GROUP = 1 << 17  # rows per Parquet row group: small series share one, memory stays bounded


def write_parquet_long(rows, path):
    """Long Parquet file, series gathered into row groups of about ROW_GROUP rows."""
    pa, pq = _pyarrow()
    schema = pa.schema([("run", pa.string()), ("tag", pa.string()), ("step", pa.int64()),
                        ("wall_time", pa.float64()), ("value", pa.float64())])
    pending, count = [], 0
    with pq.ParquetWriter(path, schema) as writer:
        for run, tag, steps, walls, values in rows:
            n = len(steps)
            pending.append(pa.table({
                "run": pa.array([run] * n, pa.string()), "tag": pa.array([tag] * n, pa.string()),
                "step": pa.array(steps, pa.int64()), "wall_time": pa.array(walls, pa.float64()),
                "value": pa.array(values, pa.float64())}, schema=schema))
            count += n
            if count >= ROW_GROUP:
                writer.write_table(pa.concat_tables(pending), row_group_size=count)
                pending, count = [], 0
        if pending:
            writer.write_table(pa.concat_tables(pending), row_group_size=max(count, 1))


def write_parquet_wide(rows, path):
    """Wide Parquet file: step, then one nullable float64 column per series."""
    pa, pq = _pyarrow()
    steps, columns = wide_table(_wide_columns(rows))
    arrays = {"step": pa.array(steps, pa.int64())}
    for name, values, present in columns:
        arrays[name] = pa.array(values, pa.float64(), mask=~present)
    pq.write_table(pa.table(arrays), path)


TEXT_WRITERS = {("csv", "long"): write_csv_long, ("csv", "wide"): write_csv_wide,
                ("json", "long"): write_json_long, ("json", "wide"): write_json_wide}
FILE_WRITERS = {("parquet", "long"): write_parquet_long, ("parquet", "wide"): write_parquet_wide}


def write_table(rows, fmt, layout, out_path):
    """Write rows to out_path through a temporary file, so a failure leaves nothing behind."""
    check_choice(fmt, FORMATS, "--format")
    check_choice(layout, LAYOUTS, "--layout")
    if fmt == "parquet":
        _pyarrow()  # fail before creating anything
    folder = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(folder):
        raise ValueError(f"the output folder {folder!r} does not exist; create it first")
    fd, tmp = tempfile.mkstemp(prefix=".lens-export-", dir=folder)
    try:
        if fmt == "parquet":
            os.close(fd)
            FILE_WRITERS[(fmt, layout)](rows, tmp)
        else:
            with os.fdopen(fd, "w", newline="", encoding="utf-8") as out:
                TEXT_WRITERS[(fmt, layout)](rows, out)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as a plain open() would have made it, not mkstemp's 0600
        os.replace(tmp, out_path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def export_logdir(logdir, out_path, fmt="csv", layout="long", run_regex=None, tag_regex=None,
                  cache_dir=None):
    """Read a logdir once and write its matching scalars to out_path; returns (series, points).

    cache_dir: the board's cache of that logdir (`lens board --cache_dir`), reused and brought
    up to date (None: read every event file, keep nothing)."""
    runs_re = compile_pattern(run_regex, "--run")
    tags_re = compile_pattern(tag_regex, "--tag")
    check_choice(fmt, FORMATS, "--format")
    check_choice(layout, LAYOUTS, "--layout")
    if "://" not in str(logdir) and not os.path.isdir(logdir):
        raise ValueError(f"--logdir {logdir!r} is not a folder; give the folder holding the "
                         "event files (or their run subfolders)")
    provider = DataProvider(logdir, reload_interval=0, cache_dir=cache_dir or None)
    provider.reload()
    series = select_series(provider, runs_re, tags_re)
    if not series:
        known = sorted(provider.list_tags("scalars"))
        raise LookupError(f"no scalar series in {logdir!r} match --run {run_regex or '.*'!r} "
                          f"--tag {tag_regex or '.*'!r}; runs with scalars: "
                          f"{', '.join(known) or 'none'}")
    counted = []

    def rows():
        for row in iter_series(provider, series):
            counted.append(len(row[2]))
            yield row

    write_table(rows(), fmt, layout, out_path)
    return len(series), sum(counted)


def parser():
    """The `lens export` argument parser."""
    p = argparse.ArgumentParser(
        prog="lens export", description="Write every scalar of a logdir (or the runs and tags "
        "matching --run/--tag, regexes matched anywhere in the name) to one table.")
    p.add_argument("--logdir", required=True, help="folder of event files or run subfolders")
    p.add_argument("--run", default=None, help="regex: keep runs whose name matches")
    p.add_argument("--tag", default=None, help="regex: keep tags whose name matches")
    p.add_argument("--format", required=True, help="csv, parquet or json")
    p.add_argument("--layout", default="long",
                   help="long (run,tag,step,wall_time,value rows; default) or wide "
                   "(one row per step, a run/tag column per series)")
    p.add_argument("--cache_dir", default=None,
                   help="the board's cache dir for this logdir (default: the one `lens board` "
                   "uses, so a logdir the board has read is not parsed again; '' for none)")
    p.add_argument("out", help="the file to write")
    return p


def main(argv=None):
    """`lens export ...`: 0 on success, 2 on bad arguments, 1 when nothing matched."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as done:
        return done.code
    cache_dir = args.cache_dir
    if cache_dir is None:
        cache_dir = default_cache_dir(args.logdir)
    try:
        n_series, n_points = export_logdir(args.logdir, args.out, args.format, args.layout,
                                           args.run, args.tag, cache_dir)
    except ValueError as err:
        print(f"lens export: {err}", file=sys.stderr)
        return EXIT_USAGE
    except LookupError as err:
        print(f"lens export: {err}", file=sys.stderr)
        return EXIT_NO_DATA
    print(f"lens export: wrote {n_points} points of {n_series} series to {args.out}",
          file=sys.stderr)
    return 0
