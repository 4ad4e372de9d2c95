"""Op-table rows: cumsum/cumprod, sorted and unsorted segment reductions, unique, roll.
References use other formulas than the kernels: triangular masks, one-hot segment matrices,
index arithmetic and plain dict walks."""
import itertools

import numpy as np

from lens.ops import scan_ops as S
from optable_lib import FIX, F, Row


def _scan_mask(n, exclusive, reverse):
    """mask[i, j]: does element j enter the scan's output i."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    if reverse:
        return (j > i) if exclusive else (j >= i)
    return (j < i) if exclusive else (j <= i)


def _cumsum_ref(axis, exclusive, reverse):
    def ref(x):
        a = axis % x.ndim
        mask = _scan_mask(x.shape[a], exclusive, reverse).astype(x.dtype)
        return np.moveaxis(np.tensordot(mask, np.moveaxis(x, a, 0), axes=1), 0, a)
    return ref


def _cumprod_ref(axis, exclusive, reverse):
    def ref(x):
        a = axis % x.ndim
        mask = _scan_mask(x.shape[a], exclusive, reverse)
        xs = np.moveaxis(x, a, -1)[..., None, :]              # [..., 1, n] against mask [n, n]
        return np.moveaxis(np.where(mask, xs, 1).prod(axis=-1), -1, a).astype(x.dtype)
    return ref


def _scan_rows():
    rows = []
    for (ex, rv), axis in zip(itertools.product([False, True], [False, True]), [0, 1, -1, 1]):
        tag = "axis%d%s%s" % (axis, "-exclusive" if ex else "", "-reverse" if rv else "")
        kw = dict(axis=axis, exclusive=ex, reverse=rv)
        rows.append(Row("Cumsum", lambda x, kw=kw: S.cumsum(x, **kw), _cumsum_ref(axis, ex, rv),
                        [[F(3, 4)], [F(2, 3, 2)]], label="Cumsum-" + tag))
        # keep |x| >= 0.3 so the gradient's division by x stays well conditioned
        rows.append(Row("Cumprod", lambda x, kw=kw: S.cumprod(x, **kw), _cumprod_ref(axis, ex, rv),
                        [[F(3, 4, lo=-1.5, hi=1.5, away=[(0.0, 0.3)])]], label="Cumprod-" + tag))
    rows.append(Row("Cumsum", S.cumsum, _cumsum_ref(0, False, False),
                    [[FIX([[1, 2, 3], [4, 5, 6]], np.int32)], [FIX([7, -8, 9], np.int64)]], label="Cumsum-ints"))
    return rows


def _members(ids, rows):
    """member[k, i]: does data row i belong to segment k (negative ids belong nowhere)."""
    return np.asarray(ids)[None, :] == np.arange(rows)[:, None]


def _seg_reduce(kind, empty, rows=None):
    def ref(data, ids):
        n = rows if rows is not None else int(ids[-1]) + 1
        m = _members(ids.reshape(-1), n)
        flat = data.reshape((ids.size, -1))
        mm = m[:, :, None]
        if kind == "sum":
            out = m.astype(data.dtype) @ flat
        elif kind == "mean":
            counts = m.sum(axis=1, keepdims=True)
            out = (m.astype(data.dtype) @ flat) / np.maximum(counts, 1)
        elif kind == "max":
            out = np.where(mm, flat[None], -np.inf).max(axis=1)
        elif kind == "min":
            out = np.where(mm, flat[None], np.inf).min(axis=1)
        else:
            out = np.where(mm, flat[None], 1.0).prod(axis=1)
        out = np.where(m.any(axis=1)[:, None], out, empty)
        return out.reshape((n,) + data.shape[ids.ndim:]).astype(data.dtype)
    return ref


_SORTED = [[F(6, 2), FIX([0, 0, 1, 3, 3, 3], np.int32)], [F(5), FIX([1, 1, 2, 2, 4], np.int64)]]
# every segment gets a member: an empty one holds the dtype's lowest/highest, too big to difference
_UNSORTED = [[F(6, 2), FIX([3, 0, -1, 3, 1, 2], np.int32)], [F(2, 3, 2), FIX([[0, 2, 2], [-1, 1, 3]], np.int64)]]
_UNSORTED_GAPS = [[F(5, 2), FIX([3, 0, -1, 3, 1], np.int32)], [F(2, 3), FIX([[0, 4, 4], [-1, 0, 0]], np.int64)]]


def _seg_rows():
    big = np.finfo(np.float64).max
    return [
        Row("SegmentSum", S.segment_sum, _seg_reduce("sum", 0.0), _SORTED),
        Row("SegmentMean", S.segment_mean, _seg_reduce("mean", 0.0), _SORTED),
        Row("SegmentMax", S.segment_max, _seg_reduce("max", 0.0), _SORTED),
        Row("SegmentMin", S.segment_min, _seg_reduce("min", 0.0), _SORTED),
        Row("SegmentProd", S.segment_prod, _seg_reduce("prod", 1.0), _SORTED),
        Row("SegmentMean", S.segment_mean, lambda d, i: np.array([1, -1, 4], np.int32),
            [[FIX([1, 2, -1, -2, 4], np.int32), FIX([0, 0, 1, 1, 2], np.int32)]], label="SegmentMean-ints-truncate"),
        Row("UnsortedSegmentMax", lambda d, i: S.unsorted_segment_max(d, i, 4), _seg_reduce("max", 0.0, 4),
            _UNSORTED),
        Row("UnsortedSegmentMin", lambda d, i: S.unsorted_segment_min(d, i, 4), _seg_reduce("min", 0.0, 4),
            _UNSORTED),
        Row("UnsortedSegmentMax", lambda d, i: S.unsorted_segment_max(d, i, 5), _seg_reduce("max", -big, 5),
            _UNSORTED_GAPS, dtypes=("float64",), grad=False, label="UnsortedSegmentMax-empty-segments"),
        Row("UnsortedSegmentMin", lambda d, i: S.unsorted_segment_min(d, i, 5), _seg_reduce("min", big, 5),
            _UNSORTED_GAPS, dtypes=("float64",), grad=False, label="UnsortedSegmentMin-empty-segments"),
        Row("UnsortedSegmentMax", lambda d, i: S.unsorted_segment_max(d, i, 3),
            lambda d, i: np.array([3, np.iinfo(np.int32).min, 7], np.int32),
            [[FIX([3, -4, 7, 1], np.int32), FIX([0, -1, 2, 0], np.int32)]], label="UnsortedSegmentMax-ints"),
    ]


def _unique_ref(x):
    first = {}
    for v in x.tolist():
        first.setdefault(v, len(first))
    return np.array(list(first), dtype=x.dtype), np.array([first[v] for v in x.tolist()], np.int32)


def _roll_ref(shifts, axes):
    def ref(x):
        for s, a in zip(shifts, axes):
            n = x.shape[a]
            x = np.take(x, (np.arange(n) - s) % n, axis=a)
        return x
    return ref


ROWS = _scan_rows() + _seg_rows() + [
    Row("Unique", S.unique, _unique_ref, [[FIX([4, 1, 4, 4, 9, 1, 0], np.int32)], [FIX([2.5, -1.0, 2.5])]],
        grad=False),
    Row("Unique", lambda x: S.unique(x, out_idx="int64"),
        lambda x: (lambda y, i: (y, i.astype(np.int64)))(*_unique_ref(x)),
        [[FIX([b"b", b"a", b"b"], object)]], grad=False, label="Unique-strings-int64"),
    Row("Roll", lambda x: S.roll(x, 2, 1), _roll_ref([2], [1]), [[F(3, 5)]]),
    Row("Roll", lambda x: S.roll(x, [1, -3, 2], [0, -1, 0]), _roll_ref([1, -3, 2], [0, 2, 0]),
        [[F(4, 2, 3)]], label="Roll-several-axes"),
]
