"""Reading the sorted key/value table behind a checkpoint's `.index` (TensorFlow's LevelDB-style table).

Layout (tensorflow/core/lib/io/table_builder): data blocks of prefix-compressed entries
`varint32 shared, varint32 unshared, varint32 value_len, key[shared:], value` followed by the
restart offsets (fixed32 each) and their count; each block has a 5-byte trailer (compression type,
masked CRC-32C of block + type). An index block maps a separator key to each data block's handle
(varint64 offset, size); a 48-byte footer holds the meta-index and index handles and ends with the
magic number 0xdb4775248b80fb57 (little-endian fixed64).
"""
import struct

import google_crc32c

MAGIC = 0xdb4775248b80fb57
FOOTER_SIZE = 48
NO_COMPRESSION, SNAPPY = 0, 1
_U32 = struct.Struct("<I")


class TableError(ValueError):
    """A damaged or unsupported table; `unimplemented` marks a valid feature lens lacks (snappy)."""

    def __init__(self, message, unimplemented=False):
        super().__init__(message)
        self.unimplemented = unimplemented


def mask_crc(crc):
    """TensorFlow's masked CRC (rotate right 15 bits, add a constant): CRCs of CRCs stay useful."""
    return (((crc >> 15) | (crc << 17)) + 0xa282ead8) & 0xffffffff


def unmask_crc(masked):
    """The inverse of mask_crc."""
    rot = (masked - 0xa282ead8) & 0xffffffff
    return ((rot >> 17) | (rot << 15)) & 0xffffffff


def get_varint(buf, pos):
    """(value, next position) of the base-128 varint at buf[pos]; TableError when it runs off the end."""
    result, shift = 0, 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise TableError("truncated or overlong varint in checkpoint index")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7f) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _block(data, handle, path):
    offset, pos = get_varint(handle, 0)
    size, _ = get_varint(handle, pos)
    end = offset + size
    if end + 5 > len(data):
        raise TableError("%s: block at %d (+%d) runs past the end of the file (%d bytes); the index is "
                         "truncated" % (path, offset, size, len(data)))
    contents, kind = data[offset:end], data[end]
    stored = _U32.unpack_from(data, end + 1)[0]
    actual = google_crc32c.extend(google_crc32c.value(contents), bytes([kind]))
    if unmask_crc(stored) != actual:
        raise TableError("%s: checksum mismatch in the block at offset %d (stored %#x, computed %#x): the "
                         "index file is corrupt" % (path, offset, unmask_crc(stored), actual))
    if kind == SNAPPY:
        raise TableError("%s: snappy-compressed table blocks are not supported" % path, unimplemented=True)
    if kind != NO_COMPRESSION:
        raise TableError("%s: unknown block compression type %d" % (path, kind))
    return contents


def _entries(contents, path):
    """The (key, value) pairs of one block, in order."""
    if len(contents) < 4:
        raise TableError("%s: block too short (%d bytes)" % (path, len(contents)))
    num_restarts = _U32.unpack_from(contents, len(contents) - 4)[0]
    limit = len(contents) - 4 * (num_restarts + 1)
    if limit < 0:
        raise TableError("%s: block claims %d restart points" % (path, num_restarts))
    out, pos, key = [], 0, b""
    while pos < limit:
        shared, pos = get_varint(contents, pos)
        unshared, pos = get_varint(contents, pos)
        vlen, pos = get_varint(contents, pos)
        if shared > len(key) or pos + unshared + vlen > limit:
            raise TableError("%s: bad entry at block offset %d" % (path, pos))
        key = key[:shared] + bytes(contents[pos:pos + unshared])
        pos += unshared
        out.append((key, bytes(contents[pos:pos + vlen])))
        pos += vlen
    return out


def read_table(data, path="<table>"):
    """All (key, value) pairs of the table in data (the whole file's bytes), in key order."""
    if len(data) < FOOTER_SIZE:
        raise TableError("%s is too short (%d bytes) to be a checkpoint index table" % (path, len(data)))
    footer = data[len(data) - FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != MAGIC:
        raise TableError("%s is not a checkpoint index table (bad magic number)" % path)
    _, pos = get_varint(footer, 0)
    _, pos = get_varint(footer, pos)          # skip the meta-index handle
    index_start = pos
    _, pos = get_varint(footer, pos)
    _, pos = get_varint(footer, pos)
    out = []
    for _, handle in _entries(_block(data, footer[index_start:pos], path), path):
        out.extend(_entries(_block(data, handle, path), path))
    return out


def is_table(data):
    """True when data ends with the table magic number."""
    return len(data) >= FOOTER_SIZE and struct.unpack_from("<Q", data, len(data) - 8)[0] == MAGIC
