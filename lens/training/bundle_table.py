"""The sorted key/value table behind a checkpoint's `.index` file (TensorFlow's LevelDB-style table).

Reading lives in lens/events/checkpoints/table.py (the board reads checkpoints too); this module
writes tables and turns read errors into TensorFlow's exceptions.

Layout, as TensorFlow writes it (tensorflow/core/lib/io/table_builder):
* data blocks: entries `varint32 shared, varint32 unshared, varint32 value_len, key[shared:], value`,
  where `shared` bytes are taken from the previous key; every 16th entry is a restart point with
  shared = 0. The block ends with the restart offsets (fixed32 each) and their count (fixed32).
* each block is followed by a 5-byte trailer: the compression type (0: none) and the masked CRC-32C of
  the block's bytes plus that type byte.
* a meta-index block (empty here), then an index block with one entry per data block: a key >= the
  block's last key and < the next block's first, and the block's handle (varint64 offset, size).
* a 48-byte footer: the meta-index and index handles, zero-padded to 40 bytes, then the magic
  number 0xdb4775248b80fb57 as a little-endian fixed64.
"""
import struct

import google_crc32c

from lens.events.checkpoints import table as _read
from lens.events.checkpoints.table import (FOOTER_SIZE, MAGIC, is_table, mask_crc,  # noqa: F401
                                           unmask_crc)
from lens.framework import errors

BLOCK_SIZE = 256 * 1024      # TensorFlow's TableOptions default
RESTART_INTERVAL = 16
_NO_COMPRESSION = _read.NO_COMPRESSION
_U32 = struct.Struct("<I")


def _tf_error(exc):
    """The TensorFlow exception for a TableError from the shared reader."""
    cls = errors.UnimplementedError if exc.unimplemented else errors.DataLossError
    return cls(None, None, str(exc))


def put_varint(out, value):
    """Append value as a base-128 varint (7 bits a byte, low bits first) to the bytearray out."""
    while value >= 0x80:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)


def get_varint(buf, pos):
    """(value, next position) of the varint at buf[pos]; DataLossError when it runs off the end."""
    try:
        return _read.get_varint(buf, pos)
    except _read.TableError as e:
        raise _tf_error(e) from None


# ------------------------------------------------------------------ writing
class _BlockBuilder:
    """One block's entries with prefix-compressed keys and restart points."""

    def __init__(self, restart_interval):
        self.interval = restart_interval
        self.buf = bytearray()
        self.restarts = [0]
        self.count = 0
        self.last_key = b""

    def add(self, key, value):
        shared = 0
        if self.count < self.interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.count = 0
        put_varint(self.buf, shared)
        put_varint(self.buf, len(key) - shared)
        put_varint(self.buf, len(value))
        self.buf += key[shared:]
        self.buf += value
        self.last_key = key
        self.count += 1

    def size_estimate(self):
        return len(self.buf) + 4 * len(self.restarts) + 4

    def finish(self):
        for r in self.restarts:
            self.buf += _U32.pack(r)
        self.buf += _U32.pack(len(self.restarts))
        return bytes(self.buf)


def _handle(offset, size):
    out = bytearray()
    put_varint(out, offset)
    put_varint(out, size)
    return bytes(out)


def build_table(items, block_size=BLOCK_SIZE):
    """The bytes of a table holding items, a list of (key bytes, value bytes) in strictly increasing key order."""
    out = bytearray()

    def emit(block_bytes):
        offset = len(out)
        out.extend(block_bytes)
        trailer = bytes([_NO_COMPRESSION])
        out.extend(trailer)
        out.extend(_U32.pack(mask_crc(google_crc32c.extend(google_crc32c.value(block_bytes), trailer))))
        return _handle(offset, len(block_bytes))

    index = _BlockBuilder(1)
    block, prev = _BlockBuilder(RESTART_INTERVAL), None
    for key, value in items:
        if prev is not None and key <= prev:
            raise ValueError("table keys must be added in strictly increasing order: %r after %r" % (key, prev))
        block.add(key, value)
        prev = key
        if block.size_estimate() >= block_size:
            index.add(block.last_key, emit(block.finish()))
            block = _BlockBuilder(RESTART_INTERVAL)
    if block.count or not index.count:
        index.add(block.last_key, emit(block.finish()))
    meta_handle = emit(_BlockBuilder(RESTART_INTERVAL).finish())
    index_handle = emit(index.finish())
    footer = (meta_handle + index_handle).ljust(FOOTER_SIZE - 8, b"\0")
    out.extend(footer)
    out.extend(struct.pack("<Q", MAGIC))
    return bytes(out)


# ------------------------------------------------------------------ reading
def read_table(data, path="<table>"):
    """All (key, value) pairs of the table in data (the whole file's bytes), in key order."""
    try:
        return _read.read_table(data, path)
    except _read.TableError as e:
        raise _tf_error(e) from None
