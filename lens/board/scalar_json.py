"""Fast JSON for scalar series, byte-for-byte what json.dumps writes for the row lists.

The routes used to build 50k Python lists and walk them with json.dumps (about 100 ms for
one 50k-point series). Here the three columns go through repr() of one list of tuples in C
and a translate() to JSON's brackets, and the encoded body is kept by content so a series
asked for again (a page refresh, another tab) costs one checksum of its columns.
Non-finite values become the strings "NaN", "Infinity", "-Infinity" as params.cleanse does.
"""

import json
import threading
import zlib
from collections import OrderedDict

import numpy as np

from lens.board.params import json_text

# repr() of a list of tuples -> JSON: tuples become arrays, the ", " separators lose the space.
_ROWS = str.maketrans({"(": "[", ")": "]", " ": None})
# repr() of a list of dicts with str keys -> JSON: quotes become double, spaces go.
_OBJECTS = str.maketrans({"'": '"', " ": None})

# Bodies of series shorter than this are cheap to encode again; keep the cache for big ones.
MIN_CACHED_POINTS = 2048
CACHE_BYTES = 32 << 20


def _non_finite(text):
    """Python's nan/inf reprs -> TensorBoard's strings. Number reprs are made of digits and
    ".-+e" and the keys written here hold no "n", so an "n" marks a nan or an inf."""
    if "n" not in text:
        return text
    return (text.replace("-inf", '"-Infinity"').replace("inf", '"Infinity"')
            .replace("nan", '"NaN"'))


def rows_json(steps, walls, values):
    """[[wall_time, step, value], ...] as the JSON text json_response would send."""
    return _non_finite(
        repr(list(zip(walls.tolist(), steps.tolist(), values.tolist()))).translate(_ROWS))


def objects_json(steps, walls, values):
    """[{"wallTime": w, "step": s, "value": v}, ...] as json_response would send it."""
    rows = [{"wallTime": w, "step": s, "value": v}
            for w, s, v in zip(walls.tolist(), steps.tolist(), values.tolist())]
    return _non_finite(repr(rows).translate(_OBJECTS))


def _checksum(column):
    data = np.ascontiguousarray(column)
    return (data.dtype.str, zlib.crc32(memoryview(data).cast("B")))


class BodyCache:
    """Encoded bodies keyed by the columns' content (length, dtypes, CRC-32 of each column),
    so a series that grew, shrank or was re-read from a replaced file never hits a stale
    entry; least recently used bodies go first once max_bytes is reached."""

    def __init__(self, max_bytes=CACHE_BYTES, min_points=MIN_CACHED_POINTS):
        self.max_bytes = max_bytes
        self.min_points = min_points
        self._bodies = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def encode(self, encoder, steps, walls, values):
        """encoder(steps, walls, values), from the cache when the same columns were seen."""
        if len(steps) < self.min_points:
            return encoder(steps, walls, values)
        key = (encoder.__name__, len(steps), _checksum(steps), _checksum(walls),
               _checksum(values))
        with self._lock:
            body = self._bodies.get(key)
            if body is not None:
                self._bodies.move_to_end(key)
                return body
        body = encoder(steps, walls, values)
        if len(body) > self.max_bytes:
            return body
        with self._lock:
            if key not in self._bodies:
                self._bodies[key] = body
                self._bytes += len(body)
            while self._bytes > self.max_bytes:
                _, old = self._bodies.popitem(last=False)
                self._bytes -= len(old)
        return body


BODIES = BodyCache()


class Raw(str):
    """JSON text that compose() embeds as it is."""


def compose(obj):
    """JSON text of obj as json_text writes it, with Raw values (at any dict depth) verbatim."""
    if isinstance(obj, Raw):
        return str(obj)
    if isinstance(obj, dict):
        return "{" + ",".join(json.dumps(key) + ":" + compose(value)
                              for key, value in obj.items()) + "}"
    return json_text(obj)
