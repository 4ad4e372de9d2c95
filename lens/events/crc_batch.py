"""Masked CRC-32C of one buffer, and of many equal-length records at once with NumPy.

CRC-32C is affine over GF(2): for messages of one length L, crc(a) ^ crc(b) = lin(a ^ b),
where lin is the CRC with zero init and no final xor. So the CRCs of N records of length L
are crc(reference) ^ XOR over byte pairs j of table_j[pair_j ^ reference_pair_j]; only the
pairs that differ somewhere in the batch cost anything. Scalar events differ in ~16 bytes
(wall time, step, value, a tag character), so a batch costs ~8 table look-ups per record.
Records that differ almost everywhere (histograms, images) are cheaper one by one in C.

table_j depends on how many bytes follow pair j: it is the one-byte table pushed through n
zero bytes, a GF(2)-linear map Z^n on the 32-bit register. Z^n is applied as a product of the
precomputed Z^(2^i), so any n costs at most ~log2(n) small steps and no recursion.
"""

import functools
import threading

import google_crc32c
import numpy as np

_POLY = 0x82F63B78
_MASK_DELTA = 0xA282EAD8
_BITS = np.arange(32, dtype=np.uint32)



def masked_crc(data):
    """TFRecord's masked CRC-32C of bytes `data` (as an int)."""
    return mask(google_crc32c.value(bytes(data)))


def mask(crc):
    """Rotate right by 15 and add the TFRecord delta (works on ints and uint32 arrays)."""
    if isinstance(crc, np.ndarray):
        crc = crc.astype(np.uint32, copy=False)
        return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(_MASK_DELTA)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    """Invert mask (uint32 arrays)."""
    rot = masked.astype(np.uint32, copy=False) - np.uint32(_MASK_DELTA)
    return (rot << np.uint32(15)) | (rot >> np.uint32(17))


def _one_byte_table():
    """lin(byte b) for every b: the classic reflected CRC-32C table."""
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLY), table >> 1)
    return table.astype(np.uint32)


_BASE = _one_byte_table()


def _apply(op, values):
    """The GF(2)-linear map whose bit images are op (uint32[32]) applied to uint32 values."""
    bits = (values[:, None] >> _BITS) & np.uint32(1)
    return np.bitwise_xor.reduce(op[None, :] * bits, axis=1).astype(np.uint32)


def _zero_byte_op():
    """Bit images of Z: the register after feeding one zero byte."""
    reg = np.uint32(1) << _BITS
    return (_BASE[reg & 0xFF] ^ (reg >> np.uint32(8))).astype(np.uint32)


_POWERS = [_zero_byte_op()]  # _POWERS[i] = Z^(2^i), grown by squaring as longer records come
# Readers of several runs grow _POWERS from their threads: two appending the same square at once
# would shift every later power (wrong tables, good records reported as bad), so growth is locked.
_POWERS_LOCK = threading.Lock()


def _zero_power(i):
    if len(_POWERS) <= i:
        with _POWERS_LOCK:
            while len(_POWERS) <= i:
                last = _POWERS[-1]
                _POWERS.append(_apply(last, last))
    return _POWERS[i]


def shift(crc, nbytes):
    """The CRC register `crc` (an int) after `nbytes` zero bytes, with no init or final xor."""
    for i in range(int(nbytes).bit_length()):
        if nbytes >> i & 1:
            columns, value, crc = _zero_power(i).tolist(), crc, 0
            for bit in range(32):
                if value >> bit & 1:
                    crc ^= columns[bit]
    return crc


def combine(crc_a, crc_b, len_b):
    """CRC-32C of A + B from the CRC-32C of A, that of B, and B's length (zlib's crc32_combine)."""
    return shift(crc_a, len_b) ^ crc_b


@functools.lru_cache(maxsize=512)  # 1 KB each: <= 512 KB
def _byte_table(zeros_after):
    """lin(byte b followed by `zeros_after` zero bytes) for every b, as uint32[256]."""
    zeros_after = int(zeros_after)
    if zeros_after < 0:
        raise ValueError("zeros_after must be >= 0, got %d" % zeros_after)
    table = _BASE
    for i in range(zeros_after.bit_length()):
        if zeros_after >> i & 1:
            table = _apply(_zero_power(i), table)  # the powers of Z commute: any order works
    return table


@functools.lru_cache(maxsize=32)  # 256 KB each: <= 8 MB, enough for scalar runs' ~8 per length
def _pair_table(zeros_after):
    """lin(little-endian byte pair (lo, hi) followed by `zeros_after` zeros), uint32[65536]."""
    lo = _byte_table(zeros_after + 1)
    hi = _byte_table(zeros_after)
    return (lo[None, :] ^ hi[:, None]).reshape(-1)


def record_view(buf, base, stride, count, offset, dtype):
    """A strided view of one fixed-offset field of `count` records laid out every `stride` bytes."""
    return np.ndarray((count,), dtype=dtype, buffer=buf, offset=base + offset, strides=(stride,))


def diff_mask(buf, base, stride, count, length, ref=None):
    """uint8[length]: the bits that differ between records anywhere in the batch.

    A bit varies iff it is set in some record and clear in another: OR-reduce ^ AND-reduce of
    each 8-byte word column, with no temporary arrays."""
    out = np.zeros(length, dtype=np.uint8)
    if count == 0 or length == 0:
        return out
    if length < 8:
        for j in range(length):
            col = record_view(buf, base, stride, count, j, np.uint8)
            out[j] = np.bitwise_or.reduce(col) ^ np.bitwise_and.reduce(col)
        return out
    starts = list(range(0, length - 7, 8))
    if starts[-1] != length - 8:
        starts.append(length - 8)  # overlapping last word keeps reads inside the record
    for j in starts:
        col = record_view(buf, base, stride, count, j, "<u8")
        acc = int(np.bitwise_or.reduce(col)) ^ int(np.bitwise_and.reduce(col))
        out[j:j + 8] |= np.frombuffer(acc.to_bytes(8, "little"), np.uint8)
    return out


def _varying_pairs(dmask):
    """Start offsets of the byte pairs (or last lone byte) that cover every varying byte."""
    starts, done = [], -1
    for j in np.flatnonzero(dmask).tolist():
        if j > done:
            starts.append(j)
            done = j + 1
    return starts


def _batch_is_cheaper(pairs, count, length):
    """Cost model (nanoseconds, measured on x86-64) of table look-ups vs one C call per record."""
    lookup = 4 + length // 200  # strided gathers miss the cache more as records get longer
    batch = pairs * (count * lookup + 5000)
    return batch <= count * (200 + length // 12)


def _as_bytes(buf):
    """The bytes object behind buf, without a copy when buf is a whole view of one."""
    if isinstance(buf, bytes):
        return buf
    owner = getattr(buf, "base", None)
    if isinstance(owner, bytes) and buf.dtype == np.uint8 and buf.nbytes == len(owner):
        return owner
    return np.asarray(buf, np.uint8).tobytes()


def _one_by_one(buf, base, stride, count, length):
    """Raw CRC-32C of each record with the C library (records that differ almost everywhere)."""
    raw = _as_bytes(buf)
    value = google_crc32c.value
    return np.fromiter((value(raw[s:s + length]) for s in range(base, base + count * stride, stride)),
                       dtype=np.uint32, count=count)


def batch_crc(buf, base, stride, count, length, ref_index=0, dmask=None):
    """Raw (unmasked) CRC-32C of `count` records of `length` bytes, uint32[count].

    Record i's bytes are buf[base + i*stride : base + i*stride + length]."""
    if count == 0:
        return np.zeros(0, dtype=np.uint32)
    if dmask is None:
        dmask = diff_mask(buf, base, stride, count, length)
    pairs = _varying_pairs(dmask)
    if not _batch_is_cheaper(len(pairs), count, length):
        return _one_by_one(buf, base, stride, count, length)
    start = base + ref_index * stride
    ref = bytes(np.frombuffer(buf, np.uint8, count=length, offset=start)) if length else b""
    crc = np.full(count, google_crc32c.value(ref), dtype=np.uint32)
    for j in pairs:
        if j + 1 < length:
            col = record_view(buf, base, stride, count, j, "<u2")
            table, ref_pair = _pair_table(length - j - 2), ref[j] | (ref[j + 1] << 8)
        else:
            col = record_view(buf, base, stride, count, j, np.uint8)
            table, ref_pair = _byte_table(length - j - 1), ref[j]
        if count < len(table):
            crc ^= table[col ^ col.dtype.type(ref_pair)]  # xor the column: fewer elements
        else:
            crc ^= table[_SWAP[:len(table)] ^ ref_pair][col]  # permute the table instead
    return crc


_SWAP = np.arange(65536, dtype=np.int64)
