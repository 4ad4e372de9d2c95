"""Scalar columns on disk: Apache Arrow IPC files, memory-mapped through pyarrow.

A series kept on disk is a list of chunks, each one Arrow IPC file of three columns (step
int64, wall float64, value float32 or float64) holding a stretch of the series in step order.
Reading maps the file and hands out NumPy views of its buffers (no copy); the mapping goes away
with the last view. Every chunk records its row count, value type, byte size and CRC-32C, so a
damaged or foreign file is refused (ChunkError) rather than served: size at once, CRC when a
process first reads the chunk.
"""

import os
import uuid

import google_crc32c
import numpy as np

from lens.events.summary import block_summary

_COLUMNS = ("step", "wall", "value")


class ChunkError(ValueError):
    """A chunk file that is missing, damaged or not what its entry says."""


def _arrow():
    import pyarrow as pa
    import pyarrow.ipc as ipc
    return pa, ipc


def import_arrow():
    """Import pyarrow now (about a second on a busy machine) rather than at a first write."""
    _arrow()


def _crc(path):
    """CRC-32C of a whole file, over a memory map (no copy into this process's memory)."""
    pa, _ = _arrow()
    try:
        with pa.memory_map(path) as source:
            whole = source.read_buffer()
    except pa.ArrowException as exc:
        raise OSError("cannot read %s: %s" % (path, exc)) from exc
    return google_crc32c.value(np.frombuffer(whole, np.uint8)) if whole.size else 0


class Chunk:
    """One Arrow IPC file of a series: `n` points, values of `dtype`."""

    __slots__ = ("path", "n", "dtype", "size", "crc", "first_step", "last_step", "summary",
                 "checked", "batch")

    def __init__(self, path, n, dtype, size, crc, first_step, last_step, summary, batch=0):
        self.batch = int(batch)  # which record batch of the file (one file may hold a run's series)
        self.path, self.n, self.dtype = path, int(n), np.dtype(dtype)
        self.size, self.crc = int(size), int(crc)
        self.first_step, self.last_step = int(first_step), int(last_step)
        self.summary = summary  # summary.block_summary of the values
        self.checked = False  # CRC verified since this process opened the file

    def entry(self):
        """What a cache state file keeps of the chunk (plain values only)."""
        return {"file": os.path.basename(self.path), "n": self.n, "dtype": self.dtype.str,
                "size": self.size, "crc": self.crc, "first": self.first_step,
                "last": self.last_step, "summary": self.summary, "batch": self.batch}

    @classmethod
    def from_entry(cls, folder, entry, verify=False):
        """The chunk an entry describes, checked against the file; raises ChunkError.

        Without verify, the CRC is checked when the chunk is first read (columns())."""
        try:
            chunk = cls(os.path.join(folder, os.path.basename(str(entry["file"]))), entry["n"],
                        entry["dtype"], entry["size"], entry["crc"], entry["first"],
                        entry["last"], entry["summary"], entry.get("batch", 0))
            blocks = -(-chunk.n // 1024) if chunk.n else 0
            if not isinstance(chunk.summary, dict) or any(
                    not isinstance(chunk.summary.get(k), np.ndarray) or len(chunk.summary[k]) != blocks
                    for k in ("min", "min_at", "max", "max_at", "nan_at")):
                raise ValueError("bad summary")
        except (KeyError, TypeError, ValueError) as exc:
            raise ChunkError("chunk entry for %r is malformed (%s)" % (entry.get("file")
                             if isinstance(entry, dict) else entry, exc)) from None
        if chunk.dtype not in (np.float32, np.float64):
            raise ChunkError("chunk %s has value type %s" % (chunk.path, chunk.dtype))
        try:
            size = os.path.getsize(chunk.path)
        except OSError as exc:
            raise ChunkError("chunk %s is missing (%s)" % (chunk.path, exc)) from None
        if size != chunk.size:
            raise ChunkError("chunk %s has %d bytes, its entry says %d" % (chunk.path, size, chunk.size))
        if verify:
            chunk.verify()
        return chunk

    def verify(self):
        """Check the file's CRC-32C once; raises ChunkError when it differs."""
        if self.checked:
            return
        try:
            crc = _crc(self.path)
        except OSError as exc:
            raise ChunkError("chunk %s cannot be read (%s)" % (self.path, exc)) from None
        if crc != self.crc:
            raise ChunkError("chunk %s fails its CRC-32C check" % self.path)
        self.checked = True

    def columns(self):
        """(steps, walls, values) as read-only NumPy views of the mapped file (its CRC is
        checked on the first read, over the same mapping: the file is read once)."""
        pa, ipc = _arrow()
        try:
            with pa.memory_map(self.path) as source:
                whole = source.read_buffer()
            if whole.size != self.size:
                raise ChunkError("chunk %s has %d bytes, its entry says %d"
                                 % (self.path, whole.size, self.size))
            if not self.checked:
                if google_crc32c.value(np.frombuffer(whole, np.uint8)) != self.crc:
                    raise ChunkError("chunk %s fails its CRC-32C check" % self.path)
                self.checked = True
            reader = ipc.open_file(whole)
            if not 0 <= self.batch < reader.num_record_batches:
                raise ChunkError("chunk %s holds %d batches, its entry names batch %d"
                                 % (self.path, reader.num_record_batches, self.batch))
            batch = reader.get_batch(self.batch)
        except (OSError, pa.ArrowException) as exc:
            raise ChunkError("chunk %s cannot be read (%s)" % (self.path, exc)) from None
        if batch.schema.names != list(_COLUMNS) or batch.num_rows != self.n:
            raise ChunkError("chunk %s is not the series stretch its entry describes" % self.path)
        out = tuple(batch.column(i).to_numpy(zero_copy_only=True) for i in range(3))
        if out[0].dtype != np.int64 or out[1].dtype != np.float64 or out[2].dtype != self.dtype:
            raise ChunkError("chunk %s has columns of the wrong types" % self.path)
        return out


def write_chunk(folder, steps, walls, values):
    """Write one chunk file into `folder` (atomically: temp file, then rename); returns it."""
    return write_chunks(folder, [(steps, walls, values)])[0]


def write_chunks(folder, stretches):
    """Each (steps, walls, values) stretch as a record batch of one file in `folder` per value
    type (a file costs more to create than to fill); returns a Chunk per stretch, in order."""
    by_type = {}
    for i, stretch in enumerate(stretches):
        by_type.setdefault(np.dtype(stretch[2].dtype), []).append(i)
    chunks = [None] * len(stretches)
    for picked in by_type.values():
        for i, chunk in zip(picked, _write_file(folder, [stretches[i] for i in picked])):
            chunks[i] = chunk
    return chunks


def _write_file(folder, stretches):
    """One Arrow IPC file of stretches sharing a value type (atomically); their Chunks."""
    pa, ipc = _arrow()
    path = os.path.join(folder, uuid.uuid4().hex + ".arrow")
    batches = [pa.record_batch([pa.array(np.ascontiguousarray(steps, np.int64)),
                                pa.array(np.ascontiguousarray(walls, np.float64)),
                                pa.array(np.ascontiguousarray(values))], names=list(_COLUMNS))
               for steps, walls, values in stretches]
    tmp = path + ".tmp"
    try:
        # Streamed to the file: no copy of the whole file in this process's memory.
        with pa.OSFile(tmp, "wb") as sink, ipc.new_file(sink, batches[0].schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
        os.replace(tmp, path)
    except pa.ArrowException as exc:  # pyarrow's IO errors are not always OSErrors
        _remove(tmp)
        raise OSError("cannot write %s: %s" % (path, exc)) from exc
    except BaseException:
        _remove(tmp)
        raise
    size, crc = os.path.getsize(path), _crc(path)
    chunks = []
    for i, (steps, _, values) in enumerate(stretches):
        chunk = Chunk(path, len(steps), values.dtype, size, crc,
                      steps[0] if len(steps) else 0, steps[-1] if len(steps) else 0,
                      block_summary(values), batch=i)
        chunk.checked = True
        chunks.append(chunk)
    return chunks


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def write_atomic(path, data):
    """Write bytes to path whole or not at all (a temp file renamed over it)."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise
