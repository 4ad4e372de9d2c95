"""The writing fast paths give the bytes the protobuf route gives: Event bytes put together around
a Summary's, scalar Summaries packed after a cached tag head, and batch framing with cached headers."""
import math
import random

import pytest

from lens.events import summary_builders as sb
from lens.events.event_file_writer import frame_records
from lens.events.records import encode_records, iter_records
from lens.events.writer import FileWriter, event_bytes, varint
from lens.proto import event_pb2, summary_pb2

from writer_test_helpers import read_events

STEPS = [0, 1, 127, 128, 16383, 16384, 2 ** 21 - 1, 2 ** 21, 2 ** 35, 2 ** 63 - 1, -1, -2 ** 63]


def _proto_summary(tag, value):
    s = summary_pb2.Summary()
    v = s.value.add()
    v.tag = tag
    v.simple_value = value
    return s.SerializeToString()


@pytest.mark.parametrize("step", STEPS)
def test_event_bytes_equal_the_protos(step):
    summary = sb.scalar("train/loss", 0.25)
    e = event_pb2.Event(wall_time=1732530000.123, step=step)
    e.summary.MergeFromString(summary)
    assert event_bytes(1732530000.123, step, summary) == e.SerializeToString()


def test_varint_equals_protobufs():
    for n in STEPS[1:] + [300, 2 ** 28, 2 ** 56]:   # (step 0 is left out of the Event)
        e = event_pb2.Event(step=n).SerializeToString()
        assert e == b"\x10" + varint(n)


TAGS = ["a", "train/loss", "x" * 127, "y" * 128, "z" * 300, "ü/é", "", "q" * 20000]
VALUES = [0.0, -0.0, 1.5, 3, -7, 1e-45, 1e-50, 3.4028235e38, 3.4028236e38, 1e39, 10 ** 40,
          math.inf, -math.inf, 2 ** 70, 0.1, True]


@pytest.mark.parametrize("tag", TAGS, ids=lambda t: t[:12] or "empty")
def test_scalar_bytes_equal_the_protos(tag):
    for value in VALUES:
        assert sb.scalar(tag, value) == _proto_summary(tag, value), value
    rng = random.Random(0)
    for _ in range(2000):
        value = rng.uniform(-1e6, 1e6) * 10.0 ** rng.randint(-40, 40)
        assert sb.scalar(tag, value) == _proto_summary(tag, value), value


def test_scalar_nan_and_too_big_int():
    nan = summary_pb2.Summary.FromString(sb.scalar("t", math.nan)).value[0].simple_value
    assert math.isnan(nan)
    with pytest.raises((OverflowError, ValueError, TypeError)):
        _proto_summary("t", 10 ** 400)
    with pytest.raises((OverflowError, ValueError, TypeError)):
        sb.scalar("t", 10 ** 400)


def test_frame_records_equals_encode_records():
    rng = random.Random(1)
    items = [bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 19, 19, 40, 300])))
             for _ in range(300)]
    assert frame_records(items) == encode_records(items)


def test_fast_add_summary_reads_back(tmp_path):
    w = FileWriter(str(tmp_path))
    for step in [0, 5, 2 ** 40, -3]:
        w.add_summary(sb.scalar("loss", step * 0.5), step)
    w.add_summary(sb.scalar("loss", 1.0))                   # no step: step 0
    w.add_summary(sb.scalar("loss", 2.0), global_step=7.0)   # a float step still becomes an int
    w.close()
    events = [e for e in read_events(str(tmp_path)) if e.HasField("summary")]
    assert [e.step for e in events] == [0, 5, 2 ** 40, -3, 0, 7]
    assert [e.summary.value[0].simple_value for e in events] == [0.0, 2.5, 2 ** 39, -1.5, 1.0, 2.0]
    assert all(e.wall_time > 1.7e9 for e in events)


def test_fast_add_summary_rejects_garbage_and_bad_steps(tmp_path):
    w = FileWriter(str(tmp_path))
    with pytest.raises(ValueError, match="not a serialized Summary"):
        w.add_summary(b"\xff\xff\xff", 1)
    with pytest.raises(TypeError, match="global_step"):
        w.add_summary(sb.scalar("loss", 1.0), "x")
    with pytest.raises(ValueError):
        w.add_summary(sb.scalar("loss", 1.0), 2 ** 64)
    w.close()
    events = [e for e in read_events(str(tmp_path)) if e.HasField("summary")]
    assert events == []


def test_scalar_bytes_are_recognised_without_a_parse():
    data = sb.scalar("recognised/tag", 1.25)
    assert sb.is_scalar_bytes(data)
    assert not sb.is_scalar_bytes(data[:-1])
    assert not sb.is_scalar_bytes(b"\xff" + data[1:])
    assert not sb.is_scalar_bytes(_proto_summary("never/built/here", 1.0))
    # any float bits after a known head still make a valid Summary
    for tail in [b"\x00\x00\xc0\x7f", b"\xff\xff\xff\xff", b"\x01\x02\x03\x04"]:
        forged = data[:-4] + tail
        assert sb.is_scalar_bytes(forged)
        assert summary_pb2.Summary.FromString(forged).value[0].tag == "recognised/tag"
