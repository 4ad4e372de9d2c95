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
    SessionLog.START discards points (purge_from, called by the store).

    The oldest points may live on disk (colstore chunks, written by spill()); the newest stay
    in RAM. Every disk point's step is <= every RAM point's step."""

    __slots__ = ("_steps", "_walls", "_values", "_m", "simple", "_chunks", "_disk", "answers")

    def __init__(self, chunks=()):
        self._steps = np.zeros(0, np.int64)
        self._walls = np.zeros(0, np.float64)
        self._values = np.zeros(0, np.float32)
        self._m = 0  # points held in RAM (after the disk points)
        self.simple = False  # True once a simple_value point arrived (then it is a scalar tag)
        self._chunks = list(chunks)  # colstore.Chunk, oldest first
        self._disk = sum(c.n for c in self._chunks)
        self.answers = {}  # answers.py's memo: a new dict whenever the points change

    @property
    def n(self):
        """Number of points kept (on disk and in RAM)."""
        return self._disk + self._m

    def _reserve(self, extra, value_dtype):
        need = self._m + extra
        wide = value_dtype == np.float64 and self._values.dtype != np.float64
        if need <= len(self._steps) and not wide:
            return
        cap = need if need > len(self._steps) else len(self._steps)
        if self._m and need > len(self._steps):
            cap = max(need, int(len(self._steps) * _GROWTH) + 8)
        vdtype = np.float64 if (wide or self._values.dtype == np.float64) else np.float32
        for name, dtype in (("_steps", np.int64), ("_walls", np.float64), ("_values", vdtype)):
            old = getattr(self, name)
            new = np.empty(cap, dtype)
            new[:self._m] = old[:self._m]
            setattr(self, name, new)

    def _extend(self, steps, walls, values):
        if self._m == 0 and all(_whole(a) for a in (steps, walls, values)) and \
                steps.dtype == np.int64 and walls.dtype == np.float64 and \
                values.dtype in (np.float32, np.float64):
            # First batch in RAM: keep the reader's arrays as they are (no copy).
            self._steps, self._walls, self._values = steps, walls, values
            self._m = len(steps)
            return
        self._reserve(len(steps), values.dtype)
        end = self._m + len(steps)
        self._steps[self._m:end] = steps
        self._walls[self._m:end] = walls
        self._values[self._m:end] = values
        self._m = end

    def _last_disk_step(self):
        return self._chunks[-1].last_step if self._chunks else None

    def purge_from(self, step):
        """Drop every point with step >= `step`."""
        self.answers = {}
        if self._chunks and step <= self._last_disk_step():
            self.load()  # the cut reaches the disk points: rare (a restart), so take them back
        self._m = int(np.searchsorted(self._steps[:self._m], step, side="left"))

    def append(self, steps, walls, values):
        """Add points given in arrival order; the series stays sorted by step (stable)."""
        if len(steps) == 0:
            return
        self.answers = {}
        in_order = not np.any(steps[1:] < steps[:-1])
        last = self._steps[self._m - 1] if self._m else self._last_disk_step()
        if in_order and (last is None or steps[0] >= last):
            self._extend(steps, walls, values)  # the usual case: no copy beyond the append
            return
        if not in_order:
            by_step = np.argsort(steps, kind="stable")
            steps, walls, values = steps[by_step], walls[by_step], values[by_step]
        if self._chunks and steps[0] < self._last_disk_step():
            self.load()  # the new points reach back into the disk points
        # Merge with the kept points from the first step that the new ones reach back to.
        at = int(np.searchsorted(self._steps[:self._m], steps[0], side="right"))
        old = [a[at:self._m] for a in (self._steps, self._walls, self._values)]
        new_at = np.searchsorted(old[0], steps, side="right") + np.arange(len(steps))
        is_new = np.zeros(len(old[0]) + len(steps), dtype=bool)
        is_new[new_at] = True
        merged = []
        for kept, added in zip(old, (steps, walls, values)):
            out = np.empty(len(is_new), np.result_type(kept.dtype, added.dtype))
            out[new_at] = added
            out[~is_new] = kept
            merged.append(out)
        self._m = at
        self._extend(*merged)

    def arrays(self):
        """(steps, walls, values) of the kept points: views when they live in one place."""
        ram = (self._steps[:self._m], self._walls[:self._m], self._values[:self._m])
        if not self._chunks:
            return ram
        parts = [c.columns() for c in self._chunks]
        if len(parts) == 1 and not self._m:
            return parts[0]
        if self._m:
            parts.append(ram)
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))

    def summarized(self):
        """(steps, values, block summary) when every point lives in one chunk, else None."""
        if len(self._chunks) != 1 or self._m:
            return None
        steps, _, values = self._chunks[0].columns()
        return steps, values, self._chunks[0].summary

    def nbytes(self):
        """Bytes held in RAM."""
        return self._steps.nbytes + self._walls.nbytes + self._values.nbytes

    # ---- the disk side ---------------------------------------------------------------------
    def chunks(self):
        """The colstore chunks holding the oldest points."""
        return list(self._chunks)

    def spill(self, write_chunk, max_chunks=8):
        """Move the RAM points to disk with write_chunk(steps, walls, values) -> Chunk.

        Past max_chunks chunks, everything is rewritten as one (reads stay one mapping)."""
        stretch = self.to_spill(max_chunks)
        if stretch is not None:
            self.spilled(write_chunk(*stretch))

    def to_spill(self, max_chunks=8):
        """(steps, walls, values) that spill() writes, or None when no point is in RAM."""
        if not self._m:
            return None
        if len(self._chunks) >= max_chunks:
            return self.arrays()
        return tuple(a[:self._m] for a in (self._steps, self._walls, self._values))

    def spilled(self, chunk, max_chunks=8):
        """The points to_spill() gave are in `chunk` now: drop them from RAM."""
        if len(self._chunks) >= max_chunks:
            self._chunks = [chunk]
        else:
            self._chunks.append(chunk)
        self._disk = sum(c.n for c in self._chunks)
        vdtype = np.float64 if self._values.dtype == np.float64 else np.float32
        self._steps, self._walls = np.zeros(0, np.int64), np.zeros(0, np.float64)
        self._values = np.zeros(0, vdtype)
        self._m = 0

    def load(self):
        """Bring the disk points back into RAM (before an edit that reaches them)."""
        if not self._chunks:
            return
        steps, walls, values = (np.array(a) for a in self.arrays())
        self._chunks, self._disk, self._m = [], 0, 0
        self._steps, self._walls, self._values = steps, walls, values
        self._m = len(steps)


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
    sizes = ends - starts + 1
    nan = np.isnan(values)
    nans = np.flatnonzero(nan)
    keep = [starts, ends]
    for fill, reduce in ((np.inf, np.minimum), (-np.inf, np.maximum)):
        finite = np.where(nan, fill, values) if len(nans) else values
        extreme = reduce.reduceat(finite, starts)
        keep.append(_first_in_buckets(np.flatnonzero(values == np.repeat(extreme, sizes)),
                                      starts, ends))
    if len(nans):  # a NaN is the biggest spike of all: keep the first of each bucket
        keep.append(_first_in_buckets(nans, starts, ends))
    return np.unique(np.concatenate(keep))


def _first_in_buckets(hits, starts, ends):
    """The first of the sorted indices `hits` inside each bucket [start, end] that has one."""
    if not len(hits):
        return hits
    first = hits[np.minimum(np.searchsorted(hits, starts), len(hits) - 1)]
    return first[(first >= starts) & (first <= ends)]
