"""Keys of a partitioned variable's slices in a tensor bundle (TensorFlow's EncodeTensorNameSlice).

A slice's data is stored under the ordered-code encoding of (0, tensor name, rank, then start and
length of each dimension; a whole dimension is start 0, length -1). Ordered code keeps byte order
equal to value order: an unsigned number is its length byte then its big-endian bytes; a string
has NUL escaped as NUL FF and FF as FF NUL and ends with NUL 01; a signed number is its
sign-extended big-endian bytes, shortest form, with its length marked by leading header bits.
"""
import numpy as np

from lens.framework import errors

# Header bits XORed into the first two bytes of a signed number encoded in 1..10 bytes.
_HEADER = [None, (0x80, 0), (0xc0, 0), (0xe0, 0), (0xf0, 0), (0xf8, 0), (0xfc, 0), (0xfe, 0), (0xff, 0),
           (0xff, 0x80), (0xff, 0xc0)]


def _unsigned(n):
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return bytes([len(body)]) + body


def _string(s):
    return _escape(s) + b"\x00\x01"


def _escape(s):
    out = bytearray()
    for b in s:
        out.append(b)
        if b == 0x00:
            out.append(0xff)
        elif b == 0xff:
            out.append(0x00)
    return bytes(out)


def _signed(val):
    x = ~val if val < 0 else val
    length = 1
    while length < 10 and x >= 1 << (7 * length - 1):
        length += 1
    raw = bytearray(val.to_bytes(10, "big", signed=True)[10 - length:])
    first, second = _HEADER[length]
    raw[0] ^= first
    if length > 1:
        raw[1] ^= second
    return bytes(raw)


def slice_key(name, slice_proto):
    """The table key of one saved slice of tensor `name`."""
    key = bytearray(_unsigned(0))
    key += _string(name.encode("utf-8"))
    key += _unsigned(len(slice_proto.extent))
    for e in slice_proto.extent:
        key += _signed(e.start)
        key += _signed(e.length if e.WhichOneof("has_length") else -1)
    return bytes(key)


def slice_bounds(slice_proto, shape):
    """[(lo, hi)] per dimension of a slice of a tensor of the given shape."""
    if not slice_proto.extent:
        return [(0, s) for s in shape]
    return [(e.start, e.start + e.length if e.WhichOneof("has_length") else s)
            for e, s in zip(slice_proto.extent, shape)]


def assemble(name, prefix, dtype, shape, slices, read_slice):
    """The whole tensor from its slices; read_slice(key) -> that slice's array."""
    out = np.zeros(shape, dtype=dtype)
    covered = 0
    for sl in slices:
        bounds = slice_bounds(sl, shape)
        part = read_slice(slice_key(name, sl))
        want = tuple(hi - lo for lo, hi in bounds)
        if part.shape != want:
            raise errors.DataLossError(None, None, "Slice of %s in %s has shape %s, its extents say %s"
                                       % (name, prefix, list(part.shape), list(want)))
        out[tuple(slice(lo, hi) for lo, hi in bounds)] = part
        covered += part.size
    if covered != out.size:
        raise errors.DataLossError(None, None, "The slices of %s in %s cover %d of its %d values"
                                   % (name, prefix, covered, out.size))
    return out
