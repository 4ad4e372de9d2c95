"""Per-block summaries of a scalar series, so downsampling a long range reads few points.

A summary cuts the values into blocks of BLOCK points and keeps, per block, its min and max
(NaN left out, as series.downsample does) with the first index holding each, and the first
NaN. downsample_summarized then picks exactly the points series.downsample picks, reading
only the block summaries and the partial blocks at each bucket's two ends.
"""

import numpy as np

from lens.events.series import downsample

BLOCK = 1024
MIN_POINTS = 1 << 18  # below this many points in range, reading them all is as fast


def block_summary(values, block=BLOCK):
    """{'min', 'min_at', 'max', 'max_at', 'nan_at'} arrays, one entry per block (-1: none)."""
    whole = len(values) // block
    head = np.asarray(values[:whole * block]).reshape(whole, block)
    if whole == 0 or np.isnan(head.min(axis=1)).any():
        return _summary_with_nans(values, block)
    # No NaN in the whole blocks (the usual series): argmin/argmax are the first index of the
    # extreme, what the general path finds; only the last, partial block takes that path.
    at = np.arange(whole, dtype=np.int64) * block
    low, high = head.argmin(axis=1), head.argmax(axis=1)
    rows = np.arange(whole)
    out = {"nan_at": np.full(whole, -1, np.int64),
           "min": head[rows, low].astype(np.float64), "min_at": at + low,
           "max": head[rows, high].astype(np.float64), "max_at": at + high}
    if whole * block < len(values):
        tail = _summary_with_nans(values[whole * block:], block)
        for key, column in tail.items():
            if key.endswith("_at"):
                column = np.where(column >= 0, column + whole * block, -1)
            out[key] = np.concatenate([out[key], column])
    return out


def _summary_with_nans(values, block):
    """block_summary for any values (NaN padding, NaN left out of each block's extremes)."""
    n = len(values)
    blocks = -(-n // block)
    grid = np.full(blocks * block, np.nan)  # NaN padding: ignored like any NaN
    grid[:n] = values
    grid = grid.reshape(blocks, block)
    nan = np.isnan(grid)
    nan.reshape(-1)[n:] = False  # the padding is no NaN of the series
    base = np.arange(blocks, dtype=np.int64) * block
    out = {"nan_at": _first(nan, base)}
    some_nan = n < blocks * block or bool(nan.any())
    for name, fill, reduce in (("min", np.inf, np.min), ("max", -np.inf, np.max)):
        extreme = reduce(np.where(np.isnan(grid), fill, grid) if some_nan else grid, axis=1)
        out[name] = extreme
        out[name + "_at"] = _first(grid == extreme[:, None], base)
    return out


def _first(mask, base):
    """Per row of a [blocks, block] mask, the series index of its first True, or -1."""
    at = mask.argmax(axis=1)
    found = mask[np.arange(len(mask)), at]
    return np.where(found, base + at, -1)


def _first_equal(values, lo, hi, target):
    if hi <= lo:
        return -1
    hit = np.flatnonzero(values[lo:hi] == target)
    return lo + int(hit[0]) if len(hit) else -1


def downsample_summarized(steps, values, summary, a, b, max_points, block=BLOCK):
    """series.downsample(steps[a:b], ..., values[a:b], max_points), as indices into [a, b),
    reading values only at bucket ends; `summary` is block_summary(values, block)."""
    n = b - a
    if n <= max_points:
        return np.arange(n)
    if n < 8 * block * max(1, max_points // 4):
        return downsample(steps[a:b], None, np.asarray(values[a:b]), max_points)
    buckets = max(1, max_points // 4)
    lo, hi = int(steps[a]), int(steps[b - 1])
    edges = np.linspace(lo, hi, buckets + 1)[1:-1]
    starts = np.concatenate([[0], np.searchsorted(steps[a:b], edges, side="left")])
    starts = np.unique(starts[starts < n]) + a
    ends = np.append(starts[1:], b)
    keep = set()
    for s, e in zip(starts.tolist(), ends.tolist()):
        keep.add(s)
        keep.add(e - 1)
        kb0, kb1 = -(-s // block), e // block  # whole blocks inside [s, e)
        if kb1 <= kb0:
            head, tail, whole = (s, e), (e, e), slice(0, 0)
        else:
            head, tail, whole = (s, kb0 * block), (kb1 * block, e), slice(kb0, kb1)
        part = [np.asarray(values[head[0]:head[1]], np.float64),
                np.asarray(values[tail[0]:tail[1]], np.float64)]
        for name, fill, pick in (("min", np.inf, np.min), ("max", -np.inf, np.max)):
            cands = [summary[name][whole]] + [np.where(np.isnan(p), fill, p) for p in part]
            extreme = pick(np.concatenate(cands)) if sum(len(c) for c in cands) else fill
            at = _first_equal(part[0], 0, len(part[0]), extreme)
            at = head[0] + at if at >= 0 else -1
            if at < 0:
                ok = np.flatnonzero((summary[name][whole] == extreme) &
                                    (summary[name + "_at"][whole] >= 0))
                at = int(summary[name + "_at"][whole][ok[0]]) if len(ok) else -1
            if at < 0:
                t = _first_equal(part[1], 0, len(part[1]), extreme)
                at = tail[0] + t if t >= 0 else -1
            if at >= 0:
                keep.add(at)
        nan_head = np.flatnonzero(np.isnan(part[0]))
        if len(nan_head):
            keep.add(head[0] + int(nan_head[0]))
            continue
        blocks = summary["nan_at"][whole]
        blocks = blocks[blocks >= 0]
        if len(blocks):
            keep.add(int(blocks[0]))
            continue
        nan_tail = np.flatnonzero(np.isnan(part[1]))
        if len(nan_tail):
            keep.add(tail[0] + int(nan_tail[0]))
    return np.array(sorted(keep), np.int64) - a
