"""Fast path for scalar events: parse thousands of same-length records with one template.

Records of one length written by one training loop share their protobuf layout: the same
field keys and lengths at the same offsets, differing only in the wall time, the step, the
value and maybe a character of the tag. We parse the first record with a small wire-format
walker into a template (offsets of those fields), prove every other record shares every
structural byte (the batch diff mask from crc_batch tells which bytes vary anywhere), and then
read the columns straight out of the file buffer with strided NumPy views. Records that do not
fit the template get their own template or go to the protobuf slow path.

Handles TF1 `simple_value` scalars and TF2/PyTorch rank-0 DT_FLOAT/DT_DOUBLE tensors (packed
or unpacked float_val/double_val, or tensor_content), one or more values per event.
"""

import numpy as np

from lens.events.crc_batch import record_view

_MAX_TEMPLATES = 4
_PERIOD_LOOKUP = 4096  # tags logged in turn: at most this many of them


class ScalarPart:
    """Points of one tag parsed from a batch of records."""

    __slots__ = ("tag", "tensor", "order", "steps", "walls", "values")

    def __init__(self, tag, tensor, order, steps, walls, values):
        self.tag = tag  # str
        self.tensor = tensor  # True: value came from a TensorProto (needs plugin 'scalars')
        self.order = order  # int64[n]: record numbers, ascending
        self.steps = steps  # int64[n]
        self.walls = walls  # float64[n]
        self.values = values  # float32[n] or float64[n]


def _varint(data, pos, end):
    """(value, next position) of the varint at pos; raises IndexError past end."""
    shift = value = 0
    while True:
        if pos >= end:
            raise IndexError("varint past end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise IndexError("varint too long")


def _tensor_value(data, pos, end):
    """(offset, dtype str) of the single value of a rank-0 float/double TensorProto, or None."""
    dtype = None
    value = None
    while pos < end:
        key, pos = _varint(data, pos, end)
        field, wire = key >> 3, key & 7
        if field == 1 and wire == 0:
            dtype, pos = _varint(data, pos, end)
        elif field == 2 and wire == 2:
            size, pos = _varint(data, pos, end)
            if size:
                return None  # dims or unknown_rank: not a rank-0 scalar
        elif field == 3 and wire == 0:
            _, pos = _varint(data, pos, end)
        elif field in (4, 5, 6) and wire == 2:
            size, pos = _varint(data, pos, end)
            kind = {4: ("<f4" if size == 4 else "<f8"), 5: "<f4", 6: "<f8"}[field]
            if size != int(kind[-1]) or value is not None:
                return None
            value = (pos, kind)
            pos += size
        elif field == 5 and wire == 5 and value is None:
            value = (pos, "<f4")
            pos += 4
        elif field == 6 and wire == 1 and value is None:
            value = (pos, "<f8")
            pos += 8
        else:
            return None
    if pos != end or value is None or dtype not in (1, 2):
        return None
    if (dtype == 1) != (value[1] == "<f4"):
        return None
    return value


def _value_slot(data, pos, end):
    """(tag_off, tag_len, value_off, dtype, is_tensor, metadata (off, len) or None) or None."""
    tag = value = meta = None
    while pos < end:
        key, pos = _varint(data, pos, end)
        field, wire = key >> 3, key & 7
        if wire == 2 and field in (1, 7, 8, 9):
            size, pos = _varint(data, pos, end)
            if pos + size > end:
                return None
            if field == 1:
                tag = (pos, size)
            elif field == 9:
                if meta is not None:
                    return None  # protobuf would merge the two; leave that to it
                meta = (pos, size)
            elif field == 8:
                if value is not None:
                    return None
                found = _tensor_value(data, pos, pos + size)
                if found is None:
                    return None
                value = (found[0], found[1], True)
            pos += size
        elif field == 2 and wire == 5 and value is None:
            value = (pos, "<f4", False)
            pos += 4
        else:
            return None
    if pos != end or tag is None or value is None or tag[1] == 0:
        return None
    return (tag[0], tag[1], value[0], value[1], value[2], meta)


def template(data):
    """Layout of a scalar-only Event in bytes `data`, or None if it is anything else."""
    end = len(data)
    pos = 0
    wall = step = None
    slots = []
    try:
        while pos < end:
            key, pos = _varint(data, pos, end)
            field, wire = key >> 3, key & 7
            if field == 1 and wire == 1:
                wall = pos
                pos += 8
            elif field == 2 and wire == 0:
                start = pos
                _, pos = _varint(data, pos, end)
                step = (start, pos - start)
            elif field == 5 and wire == 2:
                size, pos = _varint(data, pos, end)
                stop = pos + size
                while pos < stop:
                    key, pos = _varint(data, pos, stop)
                    if key != 0x0A:
                        return None
                    vsize, pos = _varint(data, pos, stop)
                    slot = _value_slot(data, pos, pos + vsize)
                    if slot is None:
                        return None
                    slots.append(slot)
                    pos += vsize
                if pos != stop:
                    return None
            else:
                return None
    except IndexError:
        return None
    if pos != end or not slots or (wall is not None and wall + 8 > end):
        return None
    return wall, step, slots


def _free_bytes(tpl, length):
    """bool[length]: bytes allowed to differ between records sharing template `tpl`."""
    wall, step, slots = tpl
    free = np.zeros(length, dtype=bool)
    if wall is not None:
        free[wall:wall + 8] = True
    if step is not None:
        free[step[0]:step[0] + step[1]] = True
    for tag_off, tag_len, val_off, dtype, _, _ in slots:
        free[tag_off:tag_off + tag_len] = True
        free[val_off:val_off + int(dtype[-1])] = True
    return free


def _column(src, base, stride, count, off, dtype, rows):
    """Field at `off` of each record (a strided view when rows is None)."""
    col = record_view(src, base, stride, count, off, dtype)
    return col if rows is None else col[rows]


def _pick(array, sel):
    """array[sel] as a compact array owning its data (never a view pinning the file buffer)."""
    if not (isinstance(sel, slice) and sel == slice(0, None, 1)):
        array = array[sel]
    return array.copy() if array.base is not None else array


def _steps(src, base, stride, count, step, rows):
    """int64 steps decoded from a fixed-width varint column."""
    size = count if rows is None else len(rows)
    if step is None:
        return np.zeros(size, dtype=np.int64)
    off, width = step
    if width <= 8:
        # One little-endian word holds the whole varint (the data CRC follows the record, so
        # the word stays inside it): byte k's 7 bits move down by k.
        kind, dtype = ("<u4", np.uint32) if width <= 4 else ("<u8", np.uint64)
        word = _column(src, base, stride, count, off, kind, rows).astype(dtype)
        acc = word & dtype(0x7F)
        for k in range(1, width):
            acc |= (word >> dtype(k)) & dtype(0x7F << 7 * k)
        return acc.astype(np.int64)
    acc = np.zeros(size, dtype=np.uint64)
    for k in range(width):
        byte = _column(src, base, stride, count, off + k, np.uint8, rows)
        acc |= (byte & np.uint8(0x7F)).astype(np.uint64) << np.uint64(7 * k)
    return acc.view(np.int64)  # 10-byte varints are negative int64 steps


def _tag_keys(src, base, stride, count, varying, rows):
    """One integer per record identifying its tag (its varying tag bytes packed)."""
    if len(varying) == 1:  # the usual "metric_0", "metric_1", ...: the byte itself
        return np.ascontiguousarray(_column(src, base, stride, count, varying[0], np.uint8, rows))
    if len(varying) <= 8:
        key = np.zeros(count if rows is None else len(rows), dtype=np.uint64)
        for k, j in enumerate(varying):
            key |= _column(src, base, stride, count, j, np.uint8, rows).astype(np.uint64) << np.uint64(8 * k)
        return key
    cols = [_column(src, base, stride, count, j, np.uint8, rows) for j in varying]
    return np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)[1].reshape(-1)


def _split_tags(src, base, stride, count, tag_off, tag_len, dmask, rows):
    """[(tag bytes, selection)] in first-seen order; a selection is a slice or an index array
    over the records considered (all, or `rows`)."""
    varying = [j for j in range(tag_off, tag_off + tag_len) if dmask[j]]
    if varying:
        key = _tag_keys(src, base, stride, count, varying, rows)
        firsts = _periodic_firsts(key)
        if firsts is not None:
            # Tags take turns (a loop logging the same tags every step): strided slices.
            sels = [(first, slice(first, None, len(firsts))) for first in firsts]
        else:
            sels = _group_keys(key)
    else:
        sels = [(0, slice(0, None, 1))]
    out = []
    for first, sel in sels:
        row = first if rows is None else int(rows[first])
        start = base + row * stride + tag_off
        out.append((bytes(src[start:start + tag_len]), sel))
    return out


def _periodic_firsts(key):
    """[0..P-1] if key repeats with period P and its first P entries are distinct, else None.

    P is looked for among the first _PERIOD_LOOKUP keys; a longer period is split as
    irregular order is (_group_keys), into the same groups."""
    if len(key) < 2:
        return [0]
    repeats = np.flatnonzero(key[1:1 + _PERIOD_LOOKUP] == key[0])
    if not len(repeats):
        return None
    period = int(repeats[0]) + 1
    if len(set(key[:period].tolist())) != period or not np.array_equal(key[period:], key[:-period]):
        return None
    return list(range(period))


def _group_keys(key):
    """[(first position, positions)] for each distinct key, in first-seen order."""
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    cuts = np.cumsum(np.bincount(inverse, minlength=len(uniq)))[:-1]
    groups = np.split(order, cuts)
    return sorted(((int(first[u]), groups[u]) for u in range(len(uniq))), key=lambda g: g[0])


def parse_group(src, base, stride, count, length, dmask, order):
    """Parse `count` records of `length` bytes at base + i*stride in uint8 array `src`.

    dmask is crc_batch.diff_mask of the group; order holds each record's number. Returns
    (parts: [ScalarPart], metadata: [(order, tag, metadata bytes)], leftover row indices)."""
    parts, metadata = [], []
    rows = None  # None = all rows
    for _ in range(_MAX_TEMPLATES):
        first = 0 if rows is None else int(rows[0])
        start = base + first * stride
        ref = bytes(src[start:start + length])
        tpl = template(ref)
        if tpl is None:
            break
        free = _free_bytes(tpl, length)
        clash = np.flatnonzero((dmask != 0) & ~free)
        step = tpl[1]
        step_bits = []
        if step is not None:
            step_bits = [j for j in range(step[0], step[0] + step[1]) if dmask[j] & 0x80]
        if len(clash) or step_bits:
            # Some records differ in layout: keep those that match this one byte for byte.
            match = np.ones(count if rows is None else len(rows), dtype=bool)
            for j in clash.tolist():
                match &= _column(src, base, stride, count, j, np.uint8, rows) == ref[j]
            for j in step_bits:
                match &= (_column(src, base, stride, count, j, np.uint8, rows) & 0x80) == (ref[j] & 0x80)
            mine = np.flatnonzero(match) if rows is None else rows[match]
            others = np.flatnonzero(~match) if rows is None else rows[~match]
        else:
            mine, others = rows, np.zeros(0, dtype=np.int64)
        _emit(src, base, stride, count, tpl, dmask, mine, ref, order, parts, metadata)
        if len(others) == 0:
            return parts, metadata, np.zeros(0, dtype=np.int64)
        rows = others
    leftover = np.arange(count, dtype=np.int64) if rows is None else rows
    return parts, metadata, leftover


def _emit(src, base, stride, count, tpl, dmask, rows, ref, order, parts, metadata):
    """Append the ScalarParts of the records `rows` (None = all) that share template tpl."""
    wall, step, slots = tpl
    shared = None  # steps, walls and orders of all the rows, made when a split needs them
    for tag_off, tag_len, val_off, dtype, tensor, meta in slots:
        for tag, sel in _split_tags(src, base, stride, count, tag_off, tag_len, dmask, rows):
            name = tag.decode("utf-8", "replace")
            if rows is None and isinstance(sel, slice):
                # Tags taking turns: read each one's fields straight from the buffer, strided.
                first, every = sel.start, sel.step
                sub = (src, base + first * stride, stride * every, len(range(first, count, every)))
                picked = order[sel].copy()
                steps = _steps(*sub, step, None)
                walls = (record_view(*sub, wall, "<f8").copy() if wall is not None
                         else np.zeros(len(picked), dtype=np.float64))
                values = record_view(*sub, val_off, dtype).copy()
            else:
                if shared is None:
                    shared = _shared_columns(src, base, stride, count, wall, step, rows, order)
                picked, steps, walls = (_pick(a, sel) for a in shared)
                values = _pick(_column(src, base, stride, count, val_off, dtype, rows), sel)
            parts.append(ScalarPart(name, tensor, picked, steps, walls, values))
            if meta is not None:
                metadata.append((int(picked[0]), name, ref[meta[0]:meta[0] + meta[1]]))


def _shared_columns(src, base, stride, count, wall, step, rows, order):
    """(orders, steps, walls) of the records `rows` (None = all)."""
    steps = _steps(src, base, stride, count, step, rows)
    walls = (_column(src, base, stride, count, wall, "<f8", rows) if wall is not None
             else np.zeros(len(steps), dtype=np.float64))
    return (order if rows is None else order[rows]), steps, walls
