"""Sampled payloads (histograms, text, tensors, PR curves) moved out of RAM under the memory cap.

When the board passes its --max_memory_mb share, the scalar points go to column files and these
payloads go to a spill file in the run's cache folder: each item keeps a Spilled reference
(file, offset, length, CRC) and is read back, checked, when a page asks for its tag. A run's
saved state keeps the references, so a restart reads them from the same files; a spill file
that is missing, short or changed makes the run be read again from its event files
(colstore.ChunkError, as for a bad column file), never served.
"""

import io
import os
import pickle
import uuid

import google_crc32c

from lens.events.cache import Loader
from lens.events.colstore import ChunkError, write_atomic

KINDS = ("histograms", "text", "tensors", "pr_curves")  # images and audio use payload.FileRef
SUFFIX = ".spill"


class Spilled:
    """Where one payload's pickled bytes live in a spill file."""

    __slots__ = ("path", "offset", "length", "crc")

    def __init__(self, path, offset, length, crc):
        self.path, self.offset = str(path), int(offset)
        self.length, self.crc = int(length), int(crc)

    def __reduce__(self):  # plain values only, for the cache's restricted loader
        return (Spilled, (self.path, self.offset, self.length, self.crc))


def _read(f, ref):
    f.seek(ref.offset)
    data = f.read(ref.length)
    if len(data) != ref.length or google_crc32c.value(data) != ref.crc:
        raise ChunkError("spill file %s changed (offset %d)" % (ref.path, ref.offset))
    try:
        return Loader(io.BytesIO(data)).load()
    except Exception as exc:  # unreadable bytes with a good CRC: a foreign file
        raise ChunkError("spill file %s holds no payload at %d (%s)"
                         % (ref.path, ref.offset, exc)) from None


def check_items(items):
    """Restored reservoir items as a list, after checking every spill file they name is there
    and long enough; raises ChunkError (the run is read again) otherwise."""
    ends = {}
    for item in items:
        if isinstance(item[2], Spilled):
            ends[item[2].path] = max(ends.get(item[2].path, 0), item[2].offset + item[2].length)
    for path, end in ends.items():
        try:
            size = os.path.getsize(path)
        except OSError as exc:
            raise ChunkError("spill file %s is missing (%s)" % (path, exc)) from None
        if size < end:
            raise ChunkError("spill file %s has %d bytes, its entries need %d" % (path, size, end))
    return list(items)


def paths(store):
    """Paths of the spill files `store`'s sampled payloads refer to."""
    return {item[2].path for reservoir in store.blobs.values() for item in reservoir.items
            if isinstance(item[2], Spilled)}


def load_items(items):
    """Reservoir items (step, wall, payload) with Spilled payloads read back (each spill file
    opened once)."""
    spilled = [i for i, item in enumerate(items) if isinstance(item[2], Spilled)]
    if not spilled:
        return items
    out = list(items)
    files = {}
    try:
        for i in spilled:
            step, wall, ref = out[i]
            f = files.get(ref.path)
            if f is None:
                try:
                    f = files[ref.path] = open(ref.path, "rb")
                except OSError as exc:
                    raise ChunkError("spill file %s cannot be read (%s)" % (ref.path, exc)) from None
            out[i] = (step, wall, _read(f, ref))
    finally:
        for f in files.values():
            f.close()
    return out


def spill_store(folder, store):
    """Move the in-RAM payloads of `store`'s sampled KINDS into one new spill file in `folder`;
    returns (path or None, bytes written). Raises OSError when the file cannot be written."""
    parts, moves, offset = [], [], 0
    path = os.path.join(folder, uuid.uuid4().hex + SUFFIX)
    for (plugin, _), reservoir in store.blobs.items():
        if plugin not in KINDS:
            continue
        for i, (step, wall, payload) in enumerate(reservoir.items):
            if isinstance(payload, Spilled):
                continue
            data = pickle.dumps(payload, protocol=4)
            parts.append(data)
            moves.append((reservoir, i, Spilled(path, offset, len(data),
                                                google_crc32c.value(data))))
            offset += len(data)
    if not parts:
        return None, 0
    write_atomic(path, b"".join(parts))
    for reservoir, i, ref in moves:
        step, wall, _ = reservoir.items[i]
        reservoir.items[i] = (step, wall, ref)
    return path, offset
