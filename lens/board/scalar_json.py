"""Fast JSON for scalar series, byte-for-byte what json.dumps writes for the row lists.

The routes used to build 50k Python lists and walk them with json.dumps (about 100 ms for
one 50k-point series). The encoders (lens.events.scalar_text) write the three columns with
orjson, and the encoded body is kept here by content so a series asked for again (a page
refresh, another tab) costs one checksum of its columns.
"""

import json
import threading
import zlib
from collections import OrderedDict

import numpy as np

from lens.board.params import json_text
from lens.events.scalar_text import columns_json, objects_json, rows_json  # noqa: F401 - encoders

# Bodies of series shorter than this are cheap to encode again; keep the cache for big ones.
MIN_CACHED_POINTS = 2048
CACHE_BYTES = 32 << 20


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
