"""Writing scalars: lens FileWriter.add_summary vs tensorboardX SummaryWriter.add_scalar."""
import os
import shutil
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
    """Rows: scalars/s for lens (prebuilt and built per step) and for tensorboardX."""
    n = 5_000 if quick else 200_000
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="bench_writer_", dir=CACHE)
    try:
        print("bench_writer: %d scalars with tensorboardX..." % n, file=sys.stderr, flush=True)
        tbx_rate = n / _time_tensorboardx(os.path.join(work, "tbx"), n)
        rows = []
        for prebuilt, label in [(True, "add_summary(prebuilt bytes)"),
                                (False, "scalar()+add_summary")]:
            print("bench_writer: %d scalars with lens %s..." % (n, label), file=sys.stderr,
                  flush=True)
            logdir = os.path.join(work, "lens_%d" % prebuilt)
            rate = n / _time_lens(logdir, n, prebuilt)
            written = _count_events(logdir) - 1  # minus file_version
            if written != n:
                raise RuntimeError("lens wrote %d of %d scalars" % (written, n))
            rows.append({"name": "write %dk scalars: %s" % (n // 1000, label), "lens": rate,
                         "other": tbx_rate, "other_name": "tensorboardX add_scalar",
                         "unit": "scalars/s",
                         "note": "higher is better; goal >= 20x tensorboardX"})
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        ratio = row["lens"] / row["other"]
        print("%-50s lens %10.0f  %s %10.0f  %s  x%.1f" % (
            row["name"], row["lens"], row["other_name"], row["other"], row["unit"], ratio))
