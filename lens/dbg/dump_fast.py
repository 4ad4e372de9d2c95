"""The dumping hot path: one closure per run standing in for Watch.on_output.

A dumped MLP step calls the watch about 75 times; the general path (Watch.on_output,
watched_file, WatchEncoder.parts) costs several microseconds per call in lookups that only
depend on the op and on the value's dtype and shape. Here those are resolved once per op
output and kept from run to run (on the op's cached OpInfo), so a call is a dict lookup, a
shape check, the timestamp's eight bytes and a hand-off to DiskSink.queue. Any value that is
not a C-contiguous array of the cached dtype and shape takes the general path.
"""

import struct
import weakref

import numpy as np

from lens.dbg import dump_encoding
from lens.dbg.dump import make_tensor_event
from lens.dbg.dump_encoding import raw_array

_pack_double = struct.Struct("<d").pack


def watched_file(info, slot, debug_op, value, timestamp_us):
    """(folder, file name, buffers, their total size) of one watched value's dump in tfdbg's
    layout; the buffers hold the value's own memory (no copy) when it has a raw dtype."""
    cached = info.encoders.get((slot, debug_op))
    if cached is None:
        cached = info.encoders[(slot, debug_op)] = (
            dump_encoding.WatchEncoder(info.name, slot, debug_op, info.device),
            "%s_%d_%s_" % (info.base, slot, debug_op))
    encoder, prefix = cached
    array = raw_array(value)
    if array is None:  # strings, objects: the protobuf encoder handles every dtype
        data = make_tensor_event(info.name, slot, debug_op, value, timestamp_us,
                                 info.device).SerializeToString()
        return info.folder, prefix + str(timestamp_us), [data], len(data)
    parts = encoder.parts(array, timestamp_us)
    return (info.folder, prefix + str(timestamp_us), parts,
            len(parts[0]) + array.nbytes + len(parts[2]))


class _SlotDump:
    """The cached encoding of one watched output's dumps (for one dtype and shape)."""

    __slots__ = ("info", "slot", "prefix", "dtype", "shape", "head", "tail")

    def __init__(self, info, slot):
        self.info, self.slot = info, slot
        self.prefix = "%s_%d_DebugIdentity_" % (info.base, slot)
        self.dtype = self.shape = self.head = self.tail = None

    def learn(self, array, timestamp_us):
        """Cache the bytes around the timestamp from one general-path encoding of `array`."""
        _, _, parts, _ = watched_file(self.info, self.slot, "DebugIdentity", array,
                                      timestamp_us)
        self.dtype, self.shape = array.dtype, array.shape
        self.head, self.tail = parts[0][9:], parts[2]  # after the wall_time field's 9 bytes


# graph -> {dtype regex: {op: per-slot _SlotDump or None}}; weak: a dropped graph's goes too.
_by_graph = weakref.WeakKeyDictionary()


def _slots(watch, op, entries):
    """op's per-slot _SlotDump (None: not watched), from the graph's store, which fills this
    run's `entries` at its first miss."""
    store = _by_graph.setdefault(op.graph, {}).setdefault(watch._dtype_key, {})
    if not entries:
        entries.update(store)
    dumps = entries.get(op)
    if dumps is None:
        info = watch._info(op)
        dumps = store[op] = entries[op] = tuple(
            _SlotDump(info, slot) if watch._dtype_ok(t) else None
            for slot, t in enumerate(op.outputs))
    return dumps


def make_dump_hook(sink, watch):
    """on_output(op, slot, value, ts) queueing each watched value's dump file in `sink`."""
    entries = {}  # op -> per-slot _SlotDump (this run's view of the graph's store)
    last = [0]
    ndarray = np.ndarray
    queue = sink.queue

    def on_output(op, slot, value, ts):
        dumps = entries.get(op)
        if dumps is None:
            dumps = _slots(watch, op, entries)
        dump = dumps[slot]
        if dump is None or sink.budget_message is not None:
            return
        # Strictly increasing timestamps keep dump order equal to execution order.
        if ts <= last[0]:
            ts = last[0] + 1
        last[0] = ts
        if type(value) is not ndarray or value.dtype is not dump.dtype \
                or value.shape != dump.shape or not value.flags.c_contiguous:
            array = raw_array(value)
            if array is None:  # strings, objects: the protobuf encoder
                queue(value, *watched_file(dump.info, slot, "DebugIdentity", value, ts))
                return
            value = array
            dump.learn(value, ts)
        nbytes = value.nbytes
        head = b"\x09" + _pack_double(float(ts)) + dump.head
        queue(value, dump.info.folder, dump.prefix + str(ts),
              [head, value.data if nbytes else b"", dump.tail],
              len(head) + nbytes + len(dump.tail))

    return on_output
