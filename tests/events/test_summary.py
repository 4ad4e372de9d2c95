"""Downsampling keeps each bucket's first, last, min, max and first NaN (checked against a
point-by-point reference); from block summaries it picks exactly the same points."""

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from lens.events.provider import DataProvider
from lens.events.series import downsample
from lens.events.summary import (MIN_POINTS, _summary_with_nans, block_summary,
                                  downsample_summarized)
from bench.loading_data import fast_scalar_file

_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, 1.0, -1.0]


@st.composite
def _series(draw):
    n = draw(st.integers(64, 1500))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    steps = np.sort(rng.integers(0, draw(st.sampled_from([n // 4 + 1, 5 * n])), n)).astype(np.int64)
    values = rng.normal(size=n).round(draw(st.sampled_from([0, 1, 6])))
    for _ in range(draw(st.integers(0, 30))):  # NaN, inf runs, ties
        at = int(rng.integers(0, n))
        values[at:at + int(rng.integers(1, 200))] = _SPECIAL[int(rng.integers(0, len(_SPECIAL)))]
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    return steps, values.astype(dtype)


@settings(max_examples=60, deadline=None)
@given(_series(), st.sampled_from([2, 4, 8, 16]), st.integers(4, 40), st.data())
def test_same_points_as_reading_every_one(series, block, max_points, data):
    steps, values = series
    n = len(steps)
    a = data.draw(st.integers(0, n // 3))
    b = data.draw(st.integers(2 * n // 3, n))
    summary = block_summary(values, block)
    got = downsample_summarized(steps, values, summary, a, b, max_points, block=block)
    want = downsample(steps[a:b], None, values[a:b], max_points)
    assert got.tolist() == want.tolist()


def _reference(steps, values, max_points):
    """downsample's rule, one bucket and one point at a time."""
    n = len(steps)
    if n <= max_points:
        return list(range(n))
    buckets = max(1, max_points // 4)
    edges = np.linspace(int(steps[0]), int(steps[-1]), buckets + 1)[1:-1]
    starts = sorted({0} | {int(np.searchsorted(steps, e, side="left")) for e in edges} - {n})
    keep = set()
    for b, start in enumerate(starts):
        end = starts[b + 1] if b + 1 < len(starts) else n
        seg = [float(x) for x in values[start:end]]
        keep |= {start, end - 1}
        finite = [x for x in seg if not math.isnan(x)]
        for extreme in ((min(finite), max(finite)) if finite else ()):
            keep.add(start + seg.index(extreme))
        nans = [i for i, x in enumerate(seg) if math.isnan(x)]
        if nans:
            keep.add(start + nans[0])
    return sorted(keep)


@settings(max_examples=60, deadline=None)
@given(_series(), st.integers(4, 80))
def test_downsample_keeps_first_last_min_max_and_first_nan_of_each_bucket(series, max_points):
    steps, values = series
    assert downsample(steps, None, values, max_points).tolist() == \
        _reference(steps, values, max_points)


def test_block_summary_fields():
    values = np.array([3.0, np.nan, 1.0, 1.0, np.nan, np.nan, 7.0, -2.0, np.nan, np.nan])
    s = block_summary(values, 4)
    assert s["min"].tolist() == [1.0, -2.0, np.inf] and s["min_at"].tolist() == [2, 7, -1]
    assert s["max"].tolist() == [3.0, 7.0, -np.inf] and s["max_at"].tolist() == [0, 6, -1]
    assert s["nan_at"].tolist() == [1, 4, 8]


def test_the_provider_serves_a_long_cached_series_from_its_summary(tmp_path):
    n = MIN_POINTS + 5000
    fast_scalar_file(str(tmp_path / "logs" / "r" / "events.out.tfevents.1.x"), ["x"], n)
    plain = DataProvider(str(tmp_path / "logs"), reload_interval=0)
    plain.reload()
    cached = DataProvider(str(tmp_path / "logs"), reload_interval=0, cache_dir=str(tmp_path / "c"))
    cached.reload()
    assert cached._watcher.stores["r"].scalars["x"].summarized() is not None
    first = 1 << 14
    for kw in ({"max_points": 1000}, {"max_points": 37, "step_range": (first + 1000, first + n - 2000)}):
        got, want = cached.scalars("r", "x", **kw), plain.scalars("r", "x", **kw)
        assert all(np.array_equal(g, w) for g, w in zip(got, want)) and len(got[0]) > 30


@settings(max_examples=80, deadline=None)
@given(_series(), st.sampled_from([2, 4, 16]), st.booleans())
def test_block_summary_of_series_without_nans_is_the_general_one(series, block, drop_nans):
    """The argmin/argmax path for whole blocks without NaN gives the general path's fields."""
    _, values = series
    if drop_nans:
        values = values[~np.isnan(values)]
    fast, general = block_summary(values, block), _summary_with_nans(values, block)
    assert fast.keys() == general.keys()
    for key in fast:
        assert fast[key].dtype == general[key].dtype, key
        np.testing.assert_array_equal(fast[key], general[key], err_msg=key)
