"""Per-tag containers: columnar scalar series, reservoir-sampled blob series, downsampling."""

import random

import numpy as np

_GROWTH = 1.25  # spare capacity stays <= 25 %, so a float32 point costs <= 25 bytes


def _whole(array):
    """True if `array` is all of the memory it lives in (adopting it pins nothing else)."""
    base = array.base
    return array.flags.c_contiguous and (base is None or getattr(base, "nbytes", -1) == array.nbytes)


class ScalarSeries:
    """Every point of one scalar tag in step order: int64 steps, float64 walls, float32/64 values.

    A point whose step is below the last one is kept and slotted in step order, after the
    points already at its step: a step going back is no proof of a restart (a duplicated
    stretch of records does it too), so, like TensorBoard for files of `brain.Event:2`, only a
    SessionLog.START discards points (purge_from, called by the store)."""

    __slots__ = ("_steps", "_walls", "_values", "n", "simple")

    def __init__(self):
        self._steps = np.zeros(0, np.int64)
        self._walls = np.zeros(0, np.float64)
        self._values = np.zeros(0, np.float32)
        self.n = 0
        self.simple = False  # True once a simple_value point arrived (then it is a scalar tag)

    def _reserve(self, extra, value_dtype):
        need = self.n + extra
        wide = value_dtype == np.float64 and self._values.dtype != np.float64
        if need <= len(self._steps) and not wide:
            return
        cap = need if need > len(self._steps) else len(self._steps)
        if self.n and need > len(self._steps):
            cap = max(need, int(len(self._steps) * _GROWTH) + 8)
        vdtype = np.float64 if (wide or self._values.dtype == np.float64) else np.float32
        for name, dtype in (("_steps", np.int64), ("_walls", np.float64), ("_values", vdtype)):
            old = getattr(self, name)
            new = np.empty(cap, dtype)
            new[:self.n] = old[:self.n]
            setattr(self, name, new)

    def _extend(self, steps, walls, values):
        if self.n == 0 and all(_whole(a) for a in (steps, walls, values)) and \
                steps.dtype == np.int64 and walls.dtype == np.float64 and \
                values.dtype in (np.float32, np.float64):
            # First batch of a series: keep the reader's arrays as they are (no copy).
            self._steps, self._walls, self._values = steps, walls, values
            self.n = len(steps)
            return
        self._reserve(len(steps), values.dtype)
        end = self.n + len(steps)
        self._steps[self.n:end] = steps
        self._walls[self.n:end] = walls
        self._values[self.n:end] = values
        self.n = end

    def purge_from(self, step):
        """Drop every point with step >= `step`."""
        self.n = int(np.searchsorted(self._steps[:self.n], step, side="left"))

    def append(self, steps, walls, values):
        """Add points given in arrival order; the series stays sorted by step (stable)."""
        if len(steps) == 0:
            return
        in_order = not np.any(steps[1:] < steps[:-1])
        if in_order and (self.n == 0 or steps[0] >= self._steps[self.n - 1]):
            self._extend(steps, walls, values)  # the usual case: no copy beyond the append
            return
        if not in_order:
            by_step = np.argsort(steps, kind="stable")
            steps, walls, values = steps[by_step], walls[by_step], values[by_step]
        # Merge with the kept points from the first step that the new ones reach back to.
        at = int(np.searchsorted(self._steps[:self.n], steps[0], side="right"))
        old = [a[at:self.n] for a in (self._steps, self._walls, self._values)]
        new_at = np.searchsorted(old[0], steps, side="right") + np.arange(len(steps))
        is_new = np.zeros(len(old[0]) + len(steps), dtype=bool)
        is_new[new_at] = True
        merged = []
        for kept, added in zip(old, (steps, walls, values)):
            out = np.empty(len(is_new), np.result_type(kept.dtype, added.dtype))
            out[new_at] = added
            out[~is_new] = kept
            merged.append(out)
        self.n = at
        self._extend(*merged)

    def arrays(self):
        """(steps, walls, values) views of the kept points."""
        return self._steps[:self.n], self._walls[:self.n], self._values[:self.n]

    def nbytes(self):
        return self._steps.nbytes + self._walls.nbytes + self._values.nbytes


class Reservoir:
    """TensorBoard's reservoir: keep `size` items (0 = all), uniformly sampled, newest kept."""

    __slots__ = ("size", "items", "seen", "_rng")

    def __init__(self, size):
        self.size = size
        self.items = []  # (step, wall_time, payload) in arrival order
        self.seen = 0
        self._rng = random.Random(0)  # deterministic, as TensorBoard seeds each bucket

    def add(self, step, wall, payload):
        """Offer one item; a step below the last is kept too (only SessionLog.START purges)."""
        item = (step, wall, payload)
        self.seen += 1
        if self.size == 0 or len(self.items) < self.size:
            self.items.append(item)
            return
        slot = self._rng.randint(0, self.seen - 1)
        if slot < self.size:
            del self.items[slot]
            self.items.append(item)
        else:
            self.items[-1] = item  # the newest item always survives

    def purge_from(self, step):
        """Drop items with step >= `step`, scaling the seen count like TensorBoard."""
        before = len(self.items)
        self.items = [it for it in self.items if it[0] < step]
        if before:
            self.seen = int(round(self.seen * len(self.items) / before))


def downsample(steps, walls, values, max_points):
    """Indices of about max_points points: per step bucket its first, min, max and last."""
    n = len(steps)
    if max_points is None or n <= max_points:
        return np.arange(n)
    buckets = max(1, max_points // 4)
    lo, hi = int(steps[0]), int(steps[-1])
    edges = np.linspace(lo, hi, buckets + 1)[1:-1]
    starts = np.concatenate([[0], np.searchsorted(steps, edges, side="left")])
    starts = np.unique(starts[starts < n])
    ends = np.append(starts[1:], n) - 1
    finite = np.where(np.isnan(values), np.inf, values)
    mins = np.minimum.reduceat(finite, starts)
    finite = np.where(np.isnan(values), -np.inf, values)
    maxs = np.maximum.reduceat(finite, starts)
    bucket_of = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    keep = np.zeros(n, dtype=bool)
    keep[starts] = True
    keep[ends] = True
    for extreme in (mins, maxs):
        hit = np.flatnonzero(values == extreme[bucket_of])
        first = np.unique(bucket_of[hit], return_index=True)[1]
        keep[hit[first]] = True
    nans = np.flatnonzero(np.isnan(values))
    if len(nans):  # a NaN is the biggest spike of all: keep the first of each bucket
        keep[nans[np.unique(bucket_of[nans], return_index=True)[1]]] = True
    return np.flatnonzero(keep)
