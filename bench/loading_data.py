"""Build (and cache) the scalar logdirs the loading benchmark reads, written with tensorboardX."""

import math
import os
import shutil
import sys
import time

CACHE = os.environ.get("LENS_BENCH_CACHE", "/tmp/lens-bench")


def _write_run(run_dir, tags, steps, progress=True):
    """Write one run of `tags` x `steps` scalars with tensorboardX's add_scalar, as training does."""
    from tensorboardX import SummaryWriter

    writer = SummaryWriter(run_dir, flush_secs=3600, max_queue=1000)
    names = ["train/metric_%02d" % t for t in range(tags)]
    started = time.time()
    for step in range(steps):
        for t, name in enumerate(names):
            # A smooth curve plus deterministic jitter, so values differ from point to point.
            value = math.sin(step * 1e-3 + t) + ((step * 7919 + t * 104729) % 1000) * 1e-4
            writer.add_scalar(name, value, step)
        if progress and step and step % 10000 == 0:
            done = step / steps
            eta = (time.time() - started) * (1 - done) / done
            print("  writing %s: %3.0f%%, %.0f s left" % (run_dir, 100 * done, eta),
                  file=sys.stderr, flush=True)
    writer.close()


def logdir(runs, tags, steps, progress=True):
    """Path of a cached logdir with runs x tags x steps scalars; built on first use.

    Only run_00 is written point by point with tensorboardX (about 14k scalars/s here); the
    other runs are byte copies of it, which costs a reader exactly as much as distinct runs."""
    name = "scalars_%dx%dx%d" % (runs, tags, steps)
    root = os.path.join(CACHE, name)
    marker = os.path.join(root, ".complete")
    if os.path.exists(marker):
        return root
    shutil.rmtree(root, ignore_errors=True)
    first = os.path.join(root, "run_00")
    if progress:
        print("building %s (cached for later runs)" % root, file=sys.stderr, flush=True)
    _write_run(first, tags, steps, progress)
    for r in range(1, runs):
        shutil.copytree(first, os.path.join(root, "run_%02d" % r))
    open(marker, "w").close()
    return root


def fast_scalar_file(path, tags, steps, first_step=1 << 14, wall0=1.6e9):
    """Write one event file of len(tags) x steps simple_value scalars in a second or so.

    The records are laid out with NumPy from one template (every step has a 3-byte varint, so
    every record has one length) and framed with TFRecord's masked CRC-32C, computed in bulk by
    crc_batch: byte for byte what a FileWriter writes for the same events."""
    import numpy as np

    from lens.events.crc_batch import batch_crc, mask
    from lens.events.records import encode_record
    from lens.proto import event_pb2

    if not (1 << 14 <= first_step and first_step + steps <= 1 << 21):
        raise ValueError("steps must stay within [2**14, 2**21) for a 3-byte varint")
    names = [t.encode() for t in tags]
    if len({len(t) for t in names}) != 1:
        raise ValueError("every tag must have the same length, got %r" % (tags,))
    tag_len = len(names[0])
    value_len = 2 + tag_len + 5  # tag field, simple_value field
    summary_len = 2 + value_len
    data_len = 9 + 4 + 2 + summary_len  # wall, step, summary field
    head = event_pb2.Event(wall_time=wall0, file_version="brain.Event:2").SerializeToString()
    count = len(tags) * steps
    rec = np.zeros((count, 12 + data_len + 4), np.uint8)
    rec[:, :8] = np.frombuffer(np.uint64(data_len).tobytes(), np.uint8)
    rec[:, 8:12] = np.frombuffer(np.uint32(mask(np.array([_crc_of(rec[0, :8])]))[0]).tobytes(), np.uint8)
    d = rec[:, 12:12 + data_len]
    step = np.repeat(np.arange(first_step, first_step + steps, dtype=np.int64), len(tags))
    tag_i = np.tile(np.arange(len(tags)), steps)
    d[:, 0] = 0x09
    d[:, 1:9] = (wall0 + step * 0.01).astype("<f8").view(np.uint8).reshape(count, 8)
    d[:, 9] = 0x10
    d[:, 10] = (step & 0x7F) | 0x80
    d[:, 11] = ((step >> 7) & 0x7F) | 0x80
    d[:, 12] = step >> 14
    d[:, 13], d[:, 14], d[:, 15], d[:, 16] = 0x2A, summary_len, 0x0A, value_len
    d[:, 17], d[:, 18] = 0x0A, tag_len
    d[:, 19:19 + tag_len] = np.frombuffer(b"".join(names), np.uint8).reshape(len(tags), tag_len)[tag_i]
    d[:, 19 + tag_len] = 0x15
    values = (np.sin(step * 1e-3 + tag_i) + ((step * 7919 + tag_i * 104729) % 1000) * 1e-4)
    d[:, 20 + tag_len:24 + tag_len] = values.astype("<f4").view(np.uint8).reshape(count, 4)
    flat = rec.reshape(-1)
    crcs = mask(batch_crc(flat, 12, rec.shape[1], count, data_len))
    rec[:, 12 + data_len:] = crcs.astype("<u4").view(np.uint8).reshape(count, 4)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(encode_record(head))
        f.write(rec.tobytes())


def _crc_of(data):
    import google_crc32c
    return google_crc32c.value(bytes(data))


def fast_logdir(runs, tags, steps):
    """Path of a cached logdir of runs x tags x steps scalars written by fast_scalar_file."""
    root = os.path.join(CACHE, "fast_%dx%dx%d" % (runs, tags, steps))
    if os.path.exists(os.path.join(root, ".complete")):
        return root
    shutil.rmtree(root, ignore_errors=True)
    names = ["train/metric_%02d" % t for t in range(tags)]
    for r in range(runs):
        fast_scalar_file(os.path.join(root, "run_%03d" % r, "events.out.tfevents.1.host"),
                         names, steps)
    open(os.path.join(root, ".complete"), "w").close()
    return root


def total_bytes(root):
    """Sum of the sizes of every event file under root."""
    total = 0
    for dirpath, _, files in os.walk(root):
        total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files if "tfevents" in f)
    return total


if __name__ == "__main__":
    for spec in sys.argv[1:] or ["4x5x50000", "10x10x100000"]:
        print(logdir(*map(int, spec.split("x"))))
