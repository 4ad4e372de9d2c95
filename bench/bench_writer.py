"""Writing scalars: lens FileWriter.add_summary vs tensorboardX SummaryWriter.add_scalar."""
import os
import shutil
import statistics
import sys
import tempfile
import time

CACHE = os.environ.get("LENS_BENCH_CACHE", "/tmp/lens-bench")


def _time_lens(logdir, n, prebuilt):
    """Seconds to add n scalars through FileWriter.add_summary and close (data on disk)."""
    from lens.events import summary_builders as sb
    from lens.events.writer import FileWriter

    payload = sb.scalar("train/loss", 0.5)
    scalar = sb.scalar
    start = time.perf_counter()
    writer = FileWriter(logdir)
    add = writer.add_summary
    if prebuilt:
        # The engine's summary op hands add_summary ready Summary bytes, as TF's does.
        for step in range(n):
            add(payload, step)
    else:
        for step in range(n):
            add(scalar("train/loss", step * 1e-3), step)
    writer.close()
    return time.perf_counter() - start


def _time_tensorboardx(logdir, n):
    """Seconds to add n scalars through tensorboardX's add_scalar and close."""
    from tensorboardX import SummaryWriter

    start = time.perf_counter()
    writer = SummaryWriter(logdir)
    for step in range(n):
        writer.add_scalar("train/loss", step * 1e-3, step)
    writer.close()
    return time.perf_counter() - start


def _count_events(logdir):
    """Events written (sanity check that every scalar reached the file)."""
    from lens.events.records import iter_records

    return sum(sum(1 for _ in iter_records(os.path.join(root, f)))
               for root, _, files in os.walk(logdir) for f in files if "tfevents" in f)


def run(quick):
    """Rows: scalars/s for lens (prebuilt and built per step) and for tensorboardX, measured in
    turns (tensorboardX, lens prebuilt, lens built per step) over several rounds, median rate of
    each: load from other processes falls on both sides alike."""
    n = 5_000 if quick else 200_000
    n_tbx = n if quick else 40_000     # tensorboardX is ~20x slower: fewer scalars, same rate
    rounds = 1 if quick else 3
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="bench_writer_", dir=CACHE)
    labels = [(True, "add_summary(prebuilt bytes)"), (False, "scalar()+add_summary")]
    rates = {"tbx": []}
    try:
        for r in range(rounds):
            print("bench_writer: round %d: %d scalars with tensorboardX, %d with lens twice..."
                  % (r + 1, n_tbx, n), file=sys.stderr, flush=True)
            rates["tbx"].append(n_tbx / _time_tensorboardx(os.path.join(work, "tbx%d" % r), n_tbx))
            for prebuilt, label in labels:
                logdir = os.path.join(work, "lens_%d_%d" % (prebuilt, r))
                rates.setdefault(label, []).append(n / _time_lens(logdir, n, prebuilt))
                written = _count_events(logdir) - 1  # minus file_version
                if written != n:
                    raise RuntimeError("lens wrote %d of %d scalars" % (written, n))
                shutil.rmtree(logdir, ignore_errors=True)
        tbx_rate = statistics.median(rates["tbx"])
        return [{"name": "write %dk scalars: %s" % (n // 1000, label),
                 "lens": statistics.median(rates[label]), "other": tbx_rate,
                 "other_name": "tensorboardX add_scalar", "unit": "scalars/s",
                 "note": "median of %d interleaved rounds; higher is better; goal >= 20x "
                         "tensorboardX" % rounds} for _, label in labels]
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        ratio = row["lens"] / row["other"]
        print("%-50s lens %10.0f  %s %10.0f  %s  x%.1f" % (
            row["name"], row["lens"], row["other_name"], row["other"], row["unit"], ratio))
