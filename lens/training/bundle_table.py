"""The sorted key/value table behind a checkpoint's `.index` file (TensorFlow's LevelDB-style table).

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

from lens.framework import errors

MAGIC = 0xdb4775248b80fb57
FOOTER_SIZE = 48
BLOCK_SIZE = 256 * 1024      # TensorFlow's TableOptions default
RESTART_INTERVAL = 16
_NO_COMPRESSION, _SNAPPY = 0, 1
_U32 = struct.Struct("<I")


def mask_crc(crc):
    """TensorFlow's masked CRC (rotate right 15 bits, add a constant): CRCs of CRCs stay useful."""
    return (((crc >> 15) | (crc << 17)) + 0xa282ead8) & 0xffffffff


def unmask_crc(masked):
    """The inverse of mask_crc."""
    rot = (masked - 0xa282ead8) & 0xffffffff
    return ((rot >> 17) | (rot << 15)) & 0xffffffff


def put_varint(out, value):
    """Append value as a base-128 varint (7 bits a byte, low bits first) to the bytearray out."""
    while value >= 0x80:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)


def get_varint(buf, pos):
    """(value, next position) of the varint at buf[pos]; DataLossError when it runs off the end."""
    result, shift = 0, 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise errors.DataLossError(None, None, "truncated or overlong varint in checkpoint index")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7f) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


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
def _block(data, handle_bytes, path):
    offset, pos = get_varint(handle_bytes, 0)
    size, _ = get_varint(handle_bytes, pos)
    end = offset + size
    if end + 5 > len(data):
        raise errors.DataLossError(None, None, "%s: block at %d (+%d) runs past the end of the file (%d bytes); "
                                   "the index is truncated" % (path, offset, size, len(data)))
    contents, kind = data[offset:end], data[end]
    stored = _U32.unpack_from(data, end + 1)[0]
    actual = google_crc32c.extend(google_crc32c.value(contents), bytes([kind]))
    if unmask_crc(stored) != actual:
        raise errors.DataLossError(None, None, "%s: checksum mismatch in the block at offset %d (stored %#x, "
                                   "computed %#x): the index file is corrupt" % (path, offset, unmask_crc(stored),
                                                                                 actual))
    if kind == _SNAPPY:
        raise errors.UnimplementedError(None, None, "%s: snappy-compressed table blocks are not supported" % path)
    if kind != _NO_COMPRESSION:
        raise errors.DataLossError(None, None, "%s: unknown block compression type %d" % (path, kind))
    return contents


def _entries(contents, path):
    """The (key, value) pairs of one block, in order."""
    if len(contents) < 4:
        raise errors.DataLossError(None, None, "%s: block too short (%d bytes)" % (path, len(contents)))
    num_restarts = _U32.unpack_from(contents, len(contents) - 4)[0]
    limit = len(contents) - 4 * (num_restarts + 1)
    if limit < 0:
        raise errors.DataLossError(None, None, "%s: block claims %d restart points" % (path, num_restarts))
    out, pos, key = [], 0, b""
    while pos < limit:
        shared, pos = get_varint(contents, pos)
        unshared, pos = get_varint(contents, pos)
        vlen, pos = get_varint(contents, pos)
        if shared > len(key) or pos + unshared + vlen > limit:
            raise errors.DataLossError(None, None, "%s: bad entry at block offset %d" % (path, pos))
        key = key[:shared] + bytes(contents[pos:pos + unshared])
        pos += unshared
        out.append((key, bytes(contents[pos:pos + vlen])))
        pos += vlen
    return out


def read_table(data, path="<table>"):
    """All (key, value) pairs of the table in data (the whole file's bytes), in key order."""
    if len(data) < FOOTER_SIZE:
        raise errors.DataLossError(None, None, "%s is too short (%d bytes) to be a checkpoint index table"
                                   % (path, len(data)))
    footer = data[len(data) - FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != MAGIC:
        raise errors.DataLossError(None, None, "%s is not a checkpoint index table (bad magic number)" % path)
    _, pos = get_varint(footer, 0)
    _, pos = get_varint(footer, pos)          # skip the meta-index handle
    index_offset, pos = get_varint(footer, pos)
    index_size, _ = get_varint(footer, pos)
    index_handle = _handle(index_offset, index_size)
    out = []
    for _, handle in _entries(_block(data, index_handle, path), path):
        out.extend(_entries(_block(data, handle, path), path))
    return out


def is_table(data):
    """True when data ends with the table magic number."""
    return len(data) >= FOOTER_SIZE and struct.unpack_from("<Q", data, len(data) - 8)[0] == MAGIC
