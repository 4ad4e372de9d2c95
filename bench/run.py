"""Runs every bench/bench_*.py module's run(quick) and prints one table: lens, peer, ratio per row.

Peers are measured, never quoted: TensorFlow's side runs in a subprocess (bench/peers.py) when a
Python with TensorFlow is at hand ($LENS_BENCH_TF_PYTHON or this one), else the row says so.
"""
import argparse
import importlib
import pkgutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def discover():
    """Names of the benchmark modules (bench_<name>.py -> <name>)."""
    return sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(HERE)])
                  if m.name.startswith("bench_"))


def run_one(name, quick):
    """Rows of one benchmark module."""
    mod = importlib.import_module("bench.bench_" + name)
    return mod.run(quick=quick)


def _fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.3g" % v


def format_table(rows):
    """One text table: name, lens, other, ratio, unit, note."""
    head = ("benchmark", "lens", "peer", "peer is", "lens/peer", "unit", "note")
    lines = [head]
    for r in rows:
        other = r.get("other")
        ratio = None if other in (None, 0) or r["lens"] is None or isinstance(other, str) else r["lens"] / other
        lines.append((r["name"], _fmt(r["lens"]), _fmt(other), r.get("other_name", ""),
                      "n/a" if ratio is None else "%.2fx" % ratio, r.get("unit", ""), r.get("note", "")))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    out = []
    for i, line in enumerate(lines):
        out.append("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def main(argv=None):
    """Parse arguments, run the chosen benchmarks, print the table."""
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    ap.add_argument("names", nargs="*", help="benchmarks to run (default: all): %s" % ", ".join(discover()))
    ap.add_argument("--quick", action="store_true", help="tiny sizes, only to check the benchmarks run")
    ap.add_argument("--only", metavar="NAME", help="one benchmark (e.g. mlp), or BENCH/TEXT for its "
                    "rows whose name contains TEXT (e.g. 'engine/y=x*2+1')")
    args = ap.parse_args(argv)
    names = args.names or discover()
    pick = None
    if args.only:
        names, _, pick = args.only.partition("/")
        names = [names]
    unknown = [n for n in names if n not in discover()]
    if unknown:
        ap.error("unknown benchmark(s) %s; choose from %s" % (", ".join(unknown), ", ".join(discover())))
    rows = []
    for name in names:
        t0 = time.perf_counter()
        print("running %s ..." % name, file=sys.stderr, flush=True)
        rows.extend(r for r in run_one(name, args.quick) if not pick or pick.lower() in r["name"].lower())
        print("  %s done in %.1f s" % (name, time.perf_counter() - t0), file=sys.stderr, flush=True)
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    main()
