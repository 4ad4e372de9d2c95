"""A scalar series' points for a request, and its small answers kept ready as JSON text.

columns() picks the points a request gets (a step range, downsampled). A series memoises the
JSON text of its small whole-range answers (downsample <= MEMO_POINTS, the 1000 points
TensorBoard's page asks for): the memo is a new dict whenever the series changes, so a stale
text is never served. With a cache dir, the memo (and the PRECOMPUTED answers, made when a run
is saved) goes to a file beside the run's column files, and a restart serves those answers
from the file without touching the points.
"""

import logging
import os
import uuid

import google_crc32c
import numpy as np

from lens.events.colstore import write_atomic
from lens.events.scalar_text import rows_json
from lens.events.series import downsample
from lens.events.summary import MIN_POINTS, downsample_summarized

log = logging.getLogger("lens.events")

MEMO_POINTS = 5000  # whole-range answers of at most this many points are memoised
PRECOMPUTED = (1000,)  # answers made for every series when its run is saved to the cache dir
SUFFIX = ".answers"


def _bounds(steps, step_range):
    if step_range is None:
        return 0, len(steps)
    lo, hi = step_range
    a = 0 if lo is None else int(np.searchsorted(steps, lo, side="left"))
    b = len(steps) if hi is None else int(np.searchsorted(steps, hi, side="right"))
    return a, b


def columns(series, max_points=None, step_range=None):
    """(steps, walls, values as float64) of the series in step_range, downsampled to about
    max_points (each step bucket's first, min, max and last point kept)."""
    quick = _summarized(series, max_points, step_range)
    if quick is not None:
        return quick
    steps, walls, vals = series.arrays()
    a, b = _bounds(steps, step_range)
    steps, walls, vals = steps[a:b], walls[a:b], vals[a:b]
    if max_points is not None and len(steps) > max_points:
        keep = downsample(steps, walls, vals, int(max_points))
        return steps[keep], walls[keep], vals[keep].astype(np.float64)
    if not steps.flags.writeable:  # a mapped column file: immutable, no copy needed
        return steps, walls, vals.astype(np.float64)
    return steps.copy(), walls.copy(), vals.astype(np.float64)


def _summarized(series, max_points, step_range):
    """columns() for a long range of a series kept in one column file: the downsampled points
    found from its block summary (the same points), or None."""
    if max_points is None or series.n < MIN_POINTS:
        return None
    found = series.summarized()
    if found is None:
        return None
    steps, values, summary = found
    a, b = _bounds(steps, step_range)
    if b - a < MIN_POINTS:
        return None
    keep = a + downsample_summarized(steps, values, summary, a, b, int(max_points))
    walls = series.arrays()[1]
    return steps[keep], walls[keep], values[keep].astype(np.float64)


def count(series, step_range=None):
    """How many points the series holds in step_range."""
    if step_range is None:
        return series.n
    steps = series.arrays()[0]
    a, b = _bounds(steps, step_range)
    return b - a


def memoised(max_points, step_range):
    """True for the answers a series keeps ready: small and over every step."""
    return step_range is None and max_points is not None and max_points <= MEMO_POINTS


def answer(series, max_points=None, step_range=None, encode=rows_json):
    """(points in range, JSON text of the answer's rows); the caller holds the store lock."""
    memo = series.answers
    key = max_points if memoised(max_points, step_range) else None
    if key is not None:
        hit = memo.get(key)
        if isinstance(hit, Ref):
            hit = hit.load()
        if hit is not None:
            return hit
    total = count(series, step_range)
    picked = columns(series, max_points if max_points is not None and total > max_points
                     else None, step_range)
    text = encode(*picked)
    if key is not None:
        memo[key] = (total, text)
    return total, text


def forget_texts(series):
    """Drop the answers held as text in RAM (under the memory cap); Refs to the answers file
    stay. A forgotten answer is made again when asked for."""
    if any(not isinstance(v, Ref) for v in series.answers.values()):
        series.answers = {k: v for k, v in series.answers.items() if isinstance(v, Ref)}


class Ref:
    """One answer kept in a run's answers file: (total, text) read back and CRC-checked."""

    __slots__ = ("path", "total", "offset", "length", "crc")

    def __init__(self, path, total, offset, length, crc):
        self.path, self.total = path, int(total)
        self.offset, self.length, self.crc = int(offset), int(length), int(crc)

    def entry(self):
        return (self.total, self.offset, self.length, self.crc)

    def load(self):
        """(total, text), or None when the file is gone or changed (the answer is made again)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
            try:
                data = os.pread(fd, self.length, self.offset)
            finally:
                os.close(fd)
        except OSError as exc:
            log.info("answers file %s unreadable (%s); answering from the points", self.path, exc)
            return None
        if len(data) != self.length or google_crc32c.value(data) != self.crc:
            log.info("answers file %s changed; answering from the points", self.path)
            return None
        return self.total, data.decode("ascii")


def precompute(store):
    """Make the PRECOMPUTED answers every series of `store` lacks (before its points move to
    column files: read from RAM, not from a file just written)."""
    for series in store.scalars.values():
        for points in PRECOMPUTED:
            if points not in series.answers and series.n:
                answer(series, points)


def save(folder, store, old_file=None):
    """Write the whole-range answers of every series of `store` (the PRECOMPUTED ones made
    now if missing) into one file in `folder`; returns (file name, {tag: {points: entry}}).

    When every answer already lives in `old_file`, nothing is written. Series memos then hold
    Refs (the texts leave RAM)."""
    precompute(store)
    wanted = {tag: {k: v for k, v in series.answers.items() if k is not None}
              for tag, series in store.scalars.items()}
    if old_file is not None and all(isinstance(v, Ref) and os.path.basename(v.path) == old_file
                                    for memo in wanted.values() for v in memo.values()):
        return old_file, {tag: {k: v.entry() for k, v in memo.items()}
                          for tag, memo in wanted.items()}
    name = uuid.uuid4().hex + SUFFIX
    path = os.path.join(folder, name)
    parts, entries, refs, offset = [], {}, [], 0
    for tag, memo in wanted.items():
        entries[tag] = {}
        for points, held in memo.items():
            found = held.load() if isinstance(held, Ref) else held
            if found is None:
                continue
            total, text = found
            data = text.encode("ascii")
            ref = Ref(path, total, offset, len(data), google_crc32c.value(data))
            parts.append(data)
            entries[tag][points] = ref.entry()
            refs.append((store.scalars[tag].answers, points, held, ref))
            offset += len(data)
    write_atomic(path, b"".join(parts))
    for memo, points, held, ref in refs:
        if memo.get(points) is held:  # unchanged since: the file holds the same text
            memo[points] = ref
    return name, entries


def restore(folder, name, entries, store):
    """Give the restored store's series the Refs of a saved answers file."""
    path = os.path.join(folder, os.path.basename(str(name)))
    for tag, memo in entries.items():
        series = store.scalars.get(tag)
        if series is None:
            continue
        for points, (total, offset, length, crc) in memo.items():
            series.answers[int(points)] = Ref(path, total, offset, length, crc)
