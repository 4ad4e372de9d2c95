"""One pass over a run of same-shaped records: which bits vary, and whether every data CRC holds.

framing.py finds runs: `periods` repetitions of a block of records of lengths `pattern`, back to
back, i.e. a (periods, stride) byte matrix. This module copies that matrix a few hundred KB at
a time into a buffer that stays in the CPU cache and there
1. OR- and AND-reduces its 8-byte words: the bits that differ between any two blocks;
2. writes each record's stored data CRC back unmasked, behind its data;
3. feeds the bytes to the hardware CRC-32C (google_crc32c, ~10 GB/s).

Why (3) checks every record: a record followed by the unmasked CRC of its data has a CRC-32C
that does not depend on the data (appending a message's CRC leaves a constant residue), so a
block of good records has one CRC whatever it holds, and a run of good blocks has a CRC that
depends only on the pattern and the count (good_crc, by CRC combination). A record whose data
or stored CRC is wrong adds a nonzero 32-bit error, shifted by its position, to the run's CRC.
One bad record always changes it (a CRC detects every error spanning at most 32 bits). Several
cancel only if their errors sum to a multiple of the polynomial: two identical errors never do
closer than the period of x modulo CRC-32C's polynomial (2^31 - 1 bits, the polynomial is
(x + 1) times a primitive one), unless the error is the one value divisible by that primitive
factor; other errors cancel with chance 2^-32, as one corrupted record passes its own CRC.
When the run's CRC differs, the caller checks its records one by one (crc_batch) and drops
only the bad ones.
"""

import functools

import google_crc32c
import numpy as np

from lens.events.crc_batch import combine, masked_crc, record_view, unmask
from lens.events.framing import HEADER, OVERHEAD
_BLOCK_BYTES = 1 << 19  # what one copy holds: about the L2 cache (measured best of 64 KB..2 MB)
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def _good_block(pattern):
    """Bytes of one block of good records of lengths `pattern` (zero data), headers included."""
    parts = []
    for length in pattern:
        head = int(length).to_bytes(8, "little")
        data = bytes(length)
        parts += [head, masked_crc(head).to_bytes(4, "little"), data,
                  google_crc32c.value(data).to_bytes(4, "little")]
    return b"".join(parts)


@functools.lru_cache(maxsize=256)
def good_crc(pattern, periods):
    """CRC-32C of `periods` good blocks of `pattern` with their data CRCs unmasked."""
    block = _good_block(pattern)
    unit_crc, unit_len = google_crc32c.value(block), len(block)
    crc = 0  # CRC-32C of nothing; repeated blocks commute, so doubling adds them in any order
    while periods:
        if periods & 1:
            crc = combine(crc, unit_crc, unit_len)
        periods >>= 1
        if periods:
            unit_crc, unit_len = combine(unit_crc, unit_crc, unit_len), 2 * unit_len
    return crc


def check_run(arr, start, stride, periods, pattern):
    """(mask uint8[stride], ok) for the run at `start` of uint8 array `arr`.

    mask has the bits that differ between blocks at each offset of a block; ok is True when
    every record's data CRC is right (see the module docstring), False when some may not be."""
    if len(pattern) == 0 or sum(pattern) + OVERHEAD * len(pattern) != stride:
        raise ValueError("stride %d does not fit pattern %r" % (stride, pattern))
    rows_per_copy = max(8, (_BLOCK_BYTES // (8 * stride)) * 8)
    buf = np.empty(rows_per_copy * stride, np.uint8)
    words = buf.view(np.uint64).reshape(rows_per_copy // 8, stride)
    crc_fields = []  # offset in a block of each record's data CRC
    at = 0
    for length in pattern:
        crc_fields.append(at + HEADER + length)
        at += length + OVERHEAD
    ors = np.zeros(stride, np.uint64)
    ands = np.full(stride, _ALL_ONES)
    crc = 0
    for first in range(0, periods, rows_per_copy):
        rows = min(rows_per_copy, periods - first)
        lo = start + first * stride
        buf[:rows * stride] = arr[lo:lo + rows * stride]
        if rows % 8:
            # Pad to whole 8-row words with copies of the first row: OR and AND stay the same.
            pad = 8 - rows % 8
            buf[rows * stride:(rows + pad) * stride] = np.tile(buf[:stride], pad)
        used = words[:-(-rows // 8)]
        ors |= np.bitwise_or.reduce(used, axis=0)
        ands &= np.bitwise_and.reduce(used, axis=0)
        for field in crc_fields:
            view = record_view(buf, field, stride, rows, 0, "<u4")
            view[...] = unmask(view)
        crc = google_crc32c.extend(crc, buf[:rows * stride])
    # Each 8-byte word row holds 8 blocks side by side: fold them onto one block's offsets.
    slots_or = ors.view(np.uint8).reshape(8, stride)
    slots_and = ands.view(np.uint8).reshape(8, stride)
    mask = np.bitwise_or.reduce(slots_or, axis=0) ^ np.bitwise_and.reduce(slots_and, axis=0)
    return mask, crc == good_crc(tuple(int(n) for n in pattern), int(periods))
