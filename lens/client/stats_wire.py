"""Step stats encoded straight to protobuf wire bytes: building a message per op in Python is
what made FULL_TRACE expensive; the C parser then reads the whole StepStats in one call."""
import numpy as np

ALLOCATOR = b"cpu"


_SMALL = [bytes((n,)) if n < 0x80 else bytes(((n & 0x7F) | 0x80, n >> 7)) for n in range(1 << 14)]
# 14 low bits as two 7-bit groups, both marked "more follows": big varints take 14 bits per lookup.
_CONT = [bytes(((n & 0x7F) | 0x80, (n >> 7) | 0x80)) for n in range(1 << 14)]


def varint(n):
    """Protobuf base-128 varint (negative int64 values use ten bytes, as protobuf does)."""
    if 0 <= n < 16384:
        return _SMALL[n]
    if n < 0:
        n += 1 << 64
    out = []
    while n >= 16384:
        out.append(_CONT[n & 0x3FFF])
        n >>= 14
    out.append(_SMALL[n])
    return b"".join(out)


def vfield(tag, n):
    """A varint field (omitted when zero, as proto3 does)."""
    return tag + varint(n) if n else b""


def lfield(tag, payload):
    """A length-delimited field (string, bytes or sub-message)."""
    return tag + varint(len(payload)) + payload


_shape_cache = {}


def shape_bytes(shape):
    """TensorShapeProto bytes of a concrete shape (cached: a step sees few distinct shapes)."""
    b = _shape_cache.get(shape)
    if b is None:
        b = b"".join(lfield(b"\x12", vfield(b"\x08", d)) for d in shape)
        _shape_cache[shape] = b
    return b


_cache = {}


def output_bytes(slot, dtype_enum, value, nbytes):
    """A NodeOutput: slot and TensorDescription (dtype, shape, allocation); cached, as steps repeat."""
    key = (slot, dtype_enum, np.shape(value), nbytes)
    b = _cache.get(key)
    if b is None:
        if len(_cache) > 100000:
            _cache.clear()
        b = _cache[key] = _output_bytes(slot, dtype_enum, value, nbytes)
    return b


def _output_bytes(slot, dtype_enum, value, nbytes):
    alloc = vfield(b"\x08", nbytes) + vfield(b"\x10", nbytes) + lfield(b"\x1a", ALLOCATOR)
    desc = vfield(b"\x08", dtype_enum) + lfield(b"\x12", shape_bytes(np.shape(value))) + lfield(b"\x22", alloc)
    return lfield(b"\x3a", vfield(b"\x08", slot) + lfield(b"\x1a", desc))


def memory_bytes(total):
    """An AllocatorMemoryUsed with total = peak = live bytes; cached."""
    b = _cache.get(total)
    if b is None:
        b = _cache[total] = _memory_bytes(total)
    return b


def _memory_bytes(total):
    return lfield(b"\x32", lfield(b"\x0a", ALLOCATOR) + vfield(b"\x10", total) + vfield(b"\x18", total)
                  + vfield(b"\x20", total))


def times_bytes(start_us, dur_us, sched_us, tid):
    """The timing fields of a NodeExecStats that TF1 fills (2, 4, 5, 9, 10; no *_nanos)."""
    dur = varint(dur_us)
    return (b"\x10" + varint(start_us) + (b"\x20" + dur + b"\x28" + dur if dur_us else b"")
            + b"\x48" + varint(sched_us) + b"\x50" + varint(tid))


def device_step_stats(device, node_stats, thread_names):
    """A StepStats.dev_stats entry from encoded NodeExecStats and {thread id: name}."""
    body = [lfield(b"\x0a", device.encode())]
    body.extend(lfield(b"\x12", ns) for ns in node_stats)
    for tid, name in sorted(thread_names.items()):
        body.append(lfield(b"\x1a", vfield(b"\x08", tid) + lfield(b"\x12", name.encode())))
    return lfield(b"\x0a", b"".join(body))


def cost_output_bytes(size, shape, dtype_enum):
    """A CostGraphDef.Node.OutputInfo (alias_input_port -1: no aliasing); cached."""
    key = ("cost", size, shape, dtype_enum)
    b = _cache.get(key)
    if b is None:
        b = _cache[key] = _cost_output_bytes(size, shape, dtype_enum)
    return b


def _cost_output_bytes(size, shape, dtype_enum):
    return lfield(b"\x2a", vfield(b"\x08", size) + vfield(b"\x10", -1) + lfield(b"\x1a", shape_bytes(shape))
                  + vfield(b"\x20", dtype_enum))


# Fixed-width fields of the per-op timing block. Protobuf parsers accept varints padded with
# continuation bytes, so a whole step's times encode as one NumPy matrix instead of a Python
# loop of varint calls; the parsed RunMetadata re-serializes canonically.
_WIDTHS = ((b"\x10", 9), (b"\x20", 5), (b"\x28", 5), (b"\x48", 9), (b"\x50", 5))
TIMES_WIDTH = sum(1 + w for _, w in _WIDTHS)


def fixed_varints(values, width):
    """An (n, width) uint8 matrix: each value as a varint padded to exactly width bytes."""
    v = np.asarray(values, dtype=np.int64)
    # np.minimum/maximum rather than np.clip: clip's Python wrapper costs more than the work here.
    v = np.minimum(np.maximum(v, 0), (1 << (7 * width)) - 1).astype(np.uint64)
    groups = (v[:, None] >> (np.arange(width, dtype=np.uint64) * np.uint64(7))) & np.uint64(0x7F)
    out = groups.astype(np.uint8)
    out[:, :-1] |= 0x80
    return out


_W = np.array([w for _, w in _WIDTHS])
_KEEP = np.arange(9)[None, :] < _W[:, None]                 # (field, byte) pairs that are written
_CONT_BITS = np.where(np.arange(9)[None, :] < _W[:, None] - 1, 0x80, 0).astype(np.uint8)
_TAG_COLS = np.cumsum([0] + [1 + w for w in _W[:-1]])
_DATA_COLS = np.array([c for c in range(TIMES_WIDTH) if c not in set(_TAG_COLS.tolist())])
_TAGS = np.array([t[0] for t, _ in _WIDTHS], np.uint8)
_SHIFTS = np.arange(9, dtype=np.uint64) * np.uint64(7)
_LIMITS = (np.int64(1) << (7 * _W)) - 1


def times_matrix(start_us, dur_us, sched_us, tids):
    """The timing fields (2, 4, 5, 9, 10) of n NodeExecStats: one bytes object, TIMES_WIDTH each."""
    v = np.stack([start_us, dur_us, dur_us, sched_us, tids], axis=1).astype(np.int64)
    v = np.minimum(np.maximum(v, 0), _LIMITS).astype(np.uint64)        # one NumPy pass for all fields
    groups = ((v[:, :, None] >> _SHIFTS) & np.uint64(0x7F)).astype(np.uint8) | _CONT_BITS
    m = np.empty((len(v), TIMES_WIDTH), np.uint8)
    m[:, _TAG_COLS] = _TAGS
    m[:, _DATA_COLS] = groups[:, _KEEP]
    return m.tobytes()


COST_WIDTH = 12


def cost_times_matrix(micros):
    """CostGraphDef.Node compute_cost (9) and compute_time (14) of n nodes: COST_WIDTH bytes each."""
    n = len(micros)
    m = np.empty((n, COST_WIDTH), np.uint8)
    enc = fixed_varints(micros, 5)
    m[:, 0] = 0x48
    m[:, 1:6] = enc
    m[:, 6] = 0x70
    m[:, 7:12] = enc
    return m.tobytes()
