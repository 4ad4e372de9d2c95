"""Long records (TF2 histograms, images) load whole, and one bad record or batch costs only itself."""

import io
import logging

import google_crc32c
import numpy as np
from PIL import Image

from lens.events import crc_batch
from lens.events import reader as reader_module
from lens.events.provider import DataProvider
from tests.events.loading_helpers import tb_scalar_event, write_events


def _png(seed):
    pixels = (np.random.RandomState(seed).rand(24, 32, 3) * 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def _tf2_image_event(tag, step, png):
    """A TF2 `tf.summary.image`-style event: a string tensor [width, height, png] (plugin images)."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.plugins.image import metadata as image_metadata
    from tensorboard.util import tensor_util

    tensor = tensor_util.make_tensor_proto(np.array([b"32", b"24", png], dtype=object))
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=(
        image_metadata.create_summary_metadata(display_name="", description="")))
    return event_pb2.Event(wall_time=100.0 + step, step=step,
                           summary=summary_pb2.Summary(value=[value]))


def _write_tf2_run(run_dir, steps=50):
    """A TF2-style run written by TensorBoard's own writer: scalar, histogram and image tensors."""
    from tensorboard.compat.proto import event_pb2
    from tensorboard.plugins.histogram import summary_v2 as histogram_v2
    from tensorboard.plugins.scalar import summary_v2 as scalar_v2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(run_dir))
    rng = np.random.RandomState(0)
    for step in range(steps):
        wall = 100.0 + step
        writer.add_event(event_pb2.Event(wall_time=wall, step=step,
                                         summary=scalar_v2.scalar_pb("loss", 1.0 / (step + 1))))
        # 30 buckets x 3 doubles: every record of this tag has one (long) length.
        histo = histogram_v2.histogram_pb("weights", rng.randn(1000) + step, buckets=30)
        writer.add_event(event_pb2.Event(wall_time=wall, step=step, summary=histo))
        writer.add_event(_tf2_image_event("input", step, _png(step % 3)))
    writer.close()


def _loaded(logdir):
    provider = DataProvider(str(logdir), reload_interval=0)
    provider.reload()
    return provider


def test_tf2_histograms_and_images_load_with_every_scalar(tmp_path):
    _write_tf2_run(tmp_path / "tf2")
    provider = _loaded(tmp_path)
    steps, _, values = provider.scalars("tf2", "loss")
    assert steps.tolist() == list(range(50))
    assert np.allclose(values, [1.0 / (s + 1) for s in range(50)])
    histos = provider.histograms("tf2", "weights")
    assert [step for _, step, _ in histos] == list(range(50))
    assert all(h["num"] == 1000 for _, _, h in histos)
    images = provider.images("tf2", "input")
    assert len(images) == 10  # TensorBoard's default sample of 10 images, the newest kept
    assert images[-1]["step"] == 49 and images[-1]["encoded"] == _png(49 % 3)
    assert provider.progress()["errors"] == {}


def test_batch_crc_of_long_records_with_few_or_all_bytes_varying():
    rng = np.random.RandomState(1)
    length, count = 200_000, 20
    rows = np.tile(rng.randint(0, 256, length).astype(np.uint8), (count, 1))
    rows[:, [3, 4, 17, 150_000]] = rng.randint(0, 256, (count, 4))  # the table path
    noisy = rng.randint(0, 256, (count, length)).astype(np.uint8)  # the one-by-one path
    for records in (rows, noisy):
        buf = np.concatenate([records, np.zeros((count, 4), np.uint8)], axis=1).tobytes()
        got = crc_batch.batch_crc(np.frombuffer(buf, np.uint8), 0, length + 4, count, length)
        assert got.tolist() == [google_crc32c.value(r.tobytes()) for r in records]


def test_crc_table_for_a_byte_followed_by_ten_million_zeros():
    zeros = bytes(10_000_000)
    # lin(b, zeros) = crc(b + zeros) ^ crc(0 + zeros): CRC-32C is affine.
    expect = [google_crc32c.value(bytes([b]) + zeros) ^ google_crc32c.value(bytes(1) + zeros)
              for b in (1, 0x80, 0xFF)]
    assert crc_batch._byte_table(len(zeros))[[1, 0x80, 0xFF]].tolist() == expect


def _poison_scalar_event(tag, step):
    """A tensor scalar whose shape claims 2**50 elements: decoding it runs out of memory."""
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
    from tensorboard.plugins.scalar import metadata as scalar_metadata

    tensor = tensor_pb2.TensorProto(dtype=1, float_val=[1.0], tensor_shape=(
        tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=2 ** 50)])))
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor,
                                      metadata=scalar_metadata.create_summary_metadata("", ""))
    return event_pb2.Event(wall_time=5.0, step=step, summary=summary_pb2.Summary(value=[value]))


def test_an_unreadable_value_costs_only_itself(tmp_path, caplog):
    events = [tb_scalar_event("loss", s, float(s)) for s in range(100)]
    events[40:40] = [_poison_scalar_event("huge", 40)]
    write_events(str(tmp_path / "bad" / "events.out.tfevents.1.h"), events)
    write_events(str(tmp_path / "good" / "events.out.tfevents.1.h"),
                 [tb_scalar_event("loss", s, -float(s)) for s in range(30)])
    with caplog.at_level(logging.WARNING, logger="lens.events"):
        provider = _loaded(tmp_path)
        provider.reload()  # nothing new: no new error, no new log line
    assert provider.scalars("bad", "loss")[0].tolist() == list(range(100))
    assert provider.scalars("good", "loss")[0].tolist() == list(range(30))
    errors = provider.progress()["errors"]
    assert list(errors) == ["bad"]
    assert errors["bad"]["count"] == 1 and errors["bad"]["skipped"] == 1
    assert "'huge' at step 40" in errors["bad"]["first"]
    assert "MemoryError" in errors["bad"]["first"]
    assert len([r for r in caplog.records if "'huge'" in r.getMessage()]) == 1


def test_a_failing_fast_path_falls_back_to_reading_record_by_record(tmp_path, monkeypatch, caplog):
    # Fault injection: the fast scalar parser throws on any group holding a 'poison' record,
    # as it would on a bug; every record must still arrive through the one-by-one path.
    real_parse = reader_module.fastscalar.parse_group

    def parse_group(src, base, stride, count, length, dmask, order):
        if b"poison" in bytes(src[base:base + stride * count]):
            raise RuntimeError("injected fast-path failure")
        return real_parse(src, base, stride, count, length, dmask, order)

    monkeypatch.setattr(reader_module.fastscalar, "parse_group", parse_group)
    path = tmp_path / "run" / "events.out.tfevents.1.h"
    write_events(str(path), [tb_scalar_event("poison" if s % 2 else "normal", s, float(s))
                             for s in range(200)])
    with caplog.at_level(logging.WARNING, logger="lens.events"):
        provider = _loaded(tmp_path)
        write_events(str(path), [tb_scalar_event("poison", s, float(s)) for s in range(201, 301, 2)],
                     mode="ab")
        provider.reload()
    assert provider.scalars("run", "normal")[0].tolist() == list(range(0, 200, 2))
    assert provider.scalars("run", "poison")[0].tolist() == list(range(1, 301, 2))
    errors = provider.progress()["errors"]["run"]
    # Each group of same-length records fell back (one or more per read); no record was lost.
    assert errors["count"] >= 2 and errors["skipped"] == 0
    assert "injected fast-path failure" in errors["first"] and "one by one" in errors["first"]
    assert len([r for r in caplog.records if "injected" in r.getMessage()]) == 1  # logged once


def test_a_failing_bulk_grouping_reads_the_whole_chunk_record_by_record(tmp_path, monkeypatch):
    # Fault injection outside any one group: gathering scattered same-length records throws.
    def gather(*args):
        raise IndexError("injected gather failure")

    monkeypatch.setattr(reader_module, "_gather", gather)
    rng = np.random.RandomState(3)
    tags = ["a", "bb", "ccc", "dddd"]
    events = [tb_scalar_event(tags[rng.randint(4)], s, float(s)) for s in range(400)]
    path = tmp_path / "run" / "events.out.tfevents.1.h"
    write_events(str(path), events)
    provider = _loaded(tmp_path)
    for tag in tags:
        want = [e.step for e in events if e.summary.value[0].tag == tag]
        assert provider.scalars("run", tag)[0].tolist() == want
    errors = provider.progress()["errors"]["run"]
    assert errors["count"] == 1 and errors["skipped"] == 0
    assert str(path) in errors["first"] and "IndexError: injected gather failure" in errors["first"]


def test_records_a_wrong_batch_crc_rejects_are_checked_again_and_kept(tmp_path, monkeypatch):
    # Fault injection: the bulk CRC is wrong for every other record (as wrong tables would make
    # it); each record's own CRC is right, so every record must still load and none is counted bad.
    real = reader_module.batch_crc

    def batch_crc(*args, **kwargs):
        crcs = real(*args, **kwargs).copy()
        crcs[::2] ^= np.uint32(1)
        return crcs

    monkeypatch.setattr(reader_module, "batch_crc", batch_crc)
    path = tmp_path / "run" / "events.out.tfevents.1.h"
    write_events(str(path), [tb_scalar_event("loss", s, float(s)) for s in range(500)])
    provider = _loaded(tmp_path)
    assert provider.scalars("run", "loss")[0].tolist() == list(range(500))
    assert "run" not in provider.progress()["errors"]


def test_zero_powers_grown_from_several_threads_are_the_squares_in_order(monkeypatch):
    # Two threads appending the same square would shift every later power: growth is locked.
    import sys
    import threading
    expect = list(crc_batch._POWERS[:1])
    for _ in range(12):
        expect.append(crc_batch._apply(expect[-1], expect[-1]))
    monkeypatch.setattr(crc_batch, "_POWERS", crc_batch._POWERS[:1])
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=crc_batch._zero_power, args=(12,)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert len(crc_batch._POWERS) == 13
    assert all((a == b).all() for a, b in zip(crc_batch._POWERS, expect))


def test_a_file_that_fails_to_read_is_retried_and_the_others_load(tmp_path, monkeypatch):
    # Fault injection in the framer, below every per-record guard: the first read of 'b' fails.
    real_frame = reader_module.frame
    calls = []

    def frame(buf, pos=0, resyncing=False):
        calls.append(1)
        if len(calls) == 2:
            raise MemoryError("injected framing failure")
        return real_frame(buf, pos, resyncing)

    monkeypatch.setattr(reader_module, "frame", frame)
    for name in ("a", "b", "c"):
        write_events(str(tmp_path / "run" / ("events.out.tfevents.1.%s" % name)),
                     [tb_scalar_event(name, s, float(s)) for s in range(20)])
    provider = _loaded(tmp_path)
    assert "b" not in provider.list_tags("scalars")["run"]
    assert provider.scalars("run", "c")[0].tolist() == list(range(20))  # the next file loads
    provider.reload()
    provider.reload()
    assert provider.scalars("run", "b")[0].tolist() == list(range(20))  # retried: all there
    errors = provider.progress()["errors"]["run"]
    assert errors["count"] == 1 and "tfevents.1.b stopped at offset 0" in errors["first"]
