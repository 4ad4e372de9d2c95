"""run_check: one pass over a run of records gives the per-record path's diff mask and CRC verdict."""

import google_crc32c
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lens.events import reader as reader_mod, run_check
from lens.events.crc_batch import combine, diff_mask, unmask
from lens.events.reader import EventFileReader
from lens.events.records import encode_record
from tests.events.loading_helpers import read_all, tb_scalar_event, write_events


def _run_bytes(rng, pattern, periods, vary=8):
    """`periods` blocks of framed records of lengths `pattern` whose first `vary` data bytes
    are random (the rest constant), as an uint8 array."""
    records = []
    for _ in range(periods):
        for length in pattern:
            data = bytearray(b"\x11" * length)
            data[:vary] = rng.integers(0, 256, size=min(vary, length), dtype=np.uint8).tobytes()
            records.append(encode_record(bytes(data)))
    return np.frombuffer(b"".join(records), np.uint8).copy()


@given(a=st.binary(max_size=300), b=st.binary(max_size=300))
def test_combine_gives_the_crc_of_the_concatenation(a, b):
    assert combine(google_crc32c.value(a), google_crc32c.value(b), len(b)) == \
        google_crc32c.value(a + b)


@pytest.mark.parametrize("pattern,periods", [((39,), 1), ((39,), 1000), ((5, 80, 5), 77),
                                             ((1,), 4097)])
def test_good_crc_is_the_crc_of_good_records_with_their_crcs_unmasked(pattern, periods):
    arr = _run_bytes(np.random.default_rng(0), pattern, periods)
    at = 0
    for _ in range(periods):
        for length in pattern:
            field = arr[at + 12 + length:at + 16 + length].view("<u4")
            field[...] = unmask(field)
            at += length + 16
    assert google_crc32c.value(arr) == run_check.good_crc(pattern, periods)


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=st.lists(st.integers(1, 70), min_size=1, max_size=4),
       periods=st.integers(1, 200), vary=st.integers(0, 12), small=st.booleans())
def test_mask_and_verdict_match_the_per_record_path(monkeypatch, pattern, periods, vary, small):
    """Each phase's mask is diff_mask of its records; good records pass (copies of any size)."""
    if small:
        monkeypatch.setattr(run_check, "_BLOCK_BYTES", 64)  # many copies, odd row counts
    pattern = tuple(pattern)
    arr = _run_bytes(np.random.default_rng(periods), pattern, periods, vary)
    stride = sum(pattern) + 16 * len(pattern)
    mask, ok = run_check.check_run(arr, 0, stride, periods, pattern)
    assert ok
    at = 0
    for length in pattern:
        np.testing.assert_array_equal(mask[at + 12:at + 12 + length],
                                      diff_mask(arr, at + 12, stride, periods, length))
        at += length + 16


@settings(max_examples=60, deadline=None, database=None)
@given(periods=st.integers(2, 300), data=st.data())
def test_any_wrong_record_fails_the_run(periods, data):
    """One flipped bit anywhere in a record's data or CRC, or the same flip in several
    records (their errors are equal: they must not cancel), fails the whole-run check."""
    pattern = (23, 40)
    arr = _run_bytes(np.random.default_rng(periods), pattern, periods)
    stride = sum(pattern) + 32
    phase = data.draw(st.sampled_from([0, 39]))
    length = pattern[phase > 0]
    offset = data.draw(st.integers(12, 12 + length + 3))  # data or data CRC
    bit = data.draw(st.integers(0, 7))
    blocks = data.draw(st.lists(st.integers(0, periods - 1), min_size=1, max_size=4, unique=True))
    for block in blocks:
        arr[block * stride + phase + offset] ^= 1 << bit
    assert not run_check.check_run(arr, 0, stride, periods, pattern)[1]


def _no_run_check(arr, start, stride, periods, pattern):
    return None, False


def test_reader_results_are_the_same_with_and_without_the_run_check(tmp_path, monkeypatch):
    names = ["loss", "acc_", "lr__"]
    events = [tb_scalar_event(names[i % 3], i // 3, float(np.sin(i)), wall=1e9 + i)
              for i in range(3000)]
    path = str(tmp_path / "events.out.tfevents.1.h")
    write_events(path, events)
    fast_reader = EventFileReader(path)
    fast, _ = read_all(fast_reader)
    monkeypatch.setattr(reader_mod, "check_run", _no_run_check)
    plain_reader = EventFileReader(path)
    plain, _ = read_all(plain_reader)
    assert fast == plain and sum(map(len, fast.values())) == 3000
    assert fast_reader.records == plain_reader.records == 3000


def test_identically_corrupted_records_each_cost_only_themselves(tmp_path):
    """Records broken the same way, far apart in one long run: exactly those are dropped."""
    events = [tb_scalar_event("t%d" % (i % 2), i, float(i), wall=5.0 + i) for i in range(4000)]
    path = tmp_path / "events.out.tfevents.2.h"
    offsets = write_events(str(path), events)
    blob = bytearray(path.read_bytes())
    broken = [17, 1500, 1502, 3999]
    for i in broken:
        blob[offsets[i] + 14] ^= 0x20  # the same data byte of each record
    path.write_bytes(bytes(blob))
    reader = EventFileReader(str(path))
    points, _ = read_all(reader)
    got = sorted(s for tag in points for s, _, _ in points[tag])
    assert got == sorted(set(range(4000)) - set(broken))
    assert reader.corrupt == len(broken)
