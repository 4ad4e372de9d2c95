"""What a debugged run watches (WatchOptions) and where watched values go (sinks)."""

import logging
import sys
import threading
import weakref

import numpy as np

from lens.dbg import debug_ops, device_names
from lens.dbg.dump import DiskBudgetExceededError, DumpWriter, tensor_folder
from lens.dbg.dump_fast import make_dump_hook, watched_file
from lens.dbg.filter_fast import make_filter_hook
from lens.dbg.filters import as_dumped, has_inf_or_nan, nonfinite
from lens.dbg.patterns import compile_regex


_HANDLE_DTYPES = ("variant", "resource")


class WatchOptions:
    """Debug ops plus node-name, op-type and dtype regex allowlists (AND-ed, re.match)."""

    def __init__(self, debug_ops=None, node_name_regex_allowlist=None,
                 op_type_regex_allowlist=None, tensor_dtype_regex_allowlist=None,
                 tolerate_debug_op_creation_failures=False):
        if debug_ops is None:
            debug_ops = ["DebugIdentity"]
        elif isinstance(debug_ops, str):
            debug_ops = [debug_ops]
        if not debug_ops:
            raise ValueError("WatchOptions.debug_ops must name at least one debug op")
        self.debug_ops = list(debug_ops)
        self.node_name_regex_allowlist = node_name_regex_allowlist or None
        self.op_type_regex_allowlist = op_type_regex_allowlist or None
        self.tensor_dtype_regex_allowlist = tensor_dtype_regex_allowlist or None
        self.tolerate_debug_op_creation_failures = tolerate_debug_op_creation_failures

    def __repr__(self):
        return ("WatchOptions(debug_ops=%r, node_name_regex_allowlist=%r, "
                "op_type_regex_allowlist=%r, tensor_dtype_regex_allowlist=%r, "
                "tolerate_debug_op_creation_failures=%r)" % (
                    self.debug_ops, self.node_name_regex_allowlist,
                    self.op_type_regex_allowlist, self.tensor_dtype_regex_allowlist,
                    self.tolerate_debug_op_creation_failures))


def as_watch_options(value):
    """Accept WatchOptions or tfdbg's legacy (debug_ops, node_regex, op_type_regex) tuple."""
    if value is None:
        return WatchOptions()
    if isinstance(value, WatchOptions):
        return value
    if isinstance(value, tuple):
        return WatchOptions(*value)
    raise TypeError("watch_fn must return a WatchOptions (or a legacy tuple), got %r"
                    % type(value).__name__)


def _compile(pattern, what):
    if not pattern:
        return None
    return compile_regex(pattern, what)


class OpInfo:
    """What the debugger needs of one op, computed once per op rather than once per run."""

    __slots__ = ("name", "type", "device", "folder", "base", "dtype_ok", "encoders", "allowed",
                 "mutates")

    def __init__(self, name, op_type, device, mutates=True):
        self.name = name
        # True when running the op may change a variable's buffer in place (a stateful op
        # with a ref input: Assign*, Apply*, Scatter*...); unknown ops are assumed to.
        self.mutates = mutates
        self.type = op_type
        self.device = device_names.canonical_device(device)
        self.folder = tensor_folder(name, self.device)  # relative to a dump root
        self.base = name.rsplit("/", 1)[-1]
        self.dtype_ok = {}  # dtype regex -> per-slot "is watched"
        self.encoders = {}  # (slot, debug op) -> (WatchEncoder, file name prefix)
        self.allowed = {}  # allowed-node key -> exempt from filters


def _mutates(op):
    """True if `op` may update a variable in place (see OpInfo.mutates)."""
    stateful = getattr(getattr(op, "_op_def", None), "stateful", True)
    return bool(stateful) and any(t.dtype.is_ref_dtype for t in op.inputs)


# Graph -> {Operation: OpInfo}; weak, so a dropped graph takes its cache with it.
_infos_by_graph = weakref.WeakKeyDictionary()


def _op_infos(graph):
    infos = _infos_by_graph.get(graph)
    if infos is None:
        infos = _infos_by_graph[graph] = {}
    return infos


class Watch:
    """The object the engine's watch hook talks to: selects ops, forwards outputs."""

    def __init__(self, options, sink):
        self.options = options
        self.sink = sink
        self._node_re = _compile(options.node_name_regex_allowlist, "node_name_regex_allowlist")
        self._type_re = _compile(options.op_type_regex_allowlist, "op_type_regex_allowlist")
        self._dtype_re = _compile(options.tensor_dtype_regex_allowlist,
                                  "tensor_dtype_regex_allowlist")
        self._dtype_key = options.tensor_dtype_regex_allowlist
        self._ops = [debug_ops.parse_debug_op(spec) for spec in options.debug_ops]
        self._identity_only = self._ops == [("DebugIdentity", {})]
        # Sinks with add_watched get the cached OpInfo; any other sink gets plain names.
        self._deliver = getattr(sink, "add_watched", None) or self._deliver_names
        # Plans are cached per key, so the key is exactly what `selects` depends on.
        self.key = (options.node_name_regex_allowlist, options.op_type_regex_allowlist,
                    options.tensor_dtype_regex_allowlist)
        self._last_ts = 0
        self._infos = {}
        # A sink may rely on seeing every executed op (e.g. every in-place variable update)
        # only when nothing restricts the watch.
        sees_all = type(self) is Watch and self.key == (None, None, None)
        start = getattr(sink, "watch_started", None)
        if start is not None:
            start(sees_all)
        update = getattr(sink, "before_update", None)
        if update is not None:
            self.before_update = update  # the sink waits for or copies what it still holds
        fast = getattr(sink, "fast_on_output", None)
        if fast is not None and type(self) is Watch and self._identity_only:
            # Shadows the methods for this instance: the engine calls them directly.
            self.on_output, self.before_update = fast(self)

    def release(self):
        """Drop the hooks a sink installed on this instance: they refer back to the watch, and
        the cycle would keep the run's held values (megabytes) alive until the next garbage
        collection, so the next run would take fresh memory instead of reusing theirs."""
        self.__dict__.pop("on_output", None)
        self.__dict__.pop("before_update", None)

    def _dtype_ok(self, tensor):
        # Handles (datasets, iterators) are not tensors of numbers: tfdbg never dumps them either.
        if tensor.dtype.base_dtype.name in _HANDLE_DTYPES:
            return False
        return self._dtype_re is None or bool(self._dtype_re.match(tensor.dtype.name))

    def selects(self, op):
        """True if any output of `op` is watched."""
        if not op.outputs:
            return False
        if self._node_re is not None and not self._node_re.match(op.name):
            return False
        if self._type_re is not None and not self._type_re.match(op.type):
            return False
        return any(self._dtype_ok(t) for t in op.outputs)

    def _info(self, op):
        """The op's cached OpInfo (shared by every run of its graph)."""
        if not self._infos:
            self._infos = _op_infos(op.graph)
        info = self._infos.get(op)
        if info is None:
            info = self._infos[op] = OpInfo(op.name, op.type, op.device, _mutates(op))
        return info

    def before_update(self, *buffers):
        """Called by the engine before an op overwrites these variable buffers (None: any).

        Sinks here copy or write each value as it arrives, so there is nothing to do."""

    def on_output(self, op, output_slot, value, timestamp_us):
        """Apply every debug op to one output and hand the results to the sink."""
        info = self._infos.get(op)
        if info is None:
            info = self._info(op)
        ok = info.dtype_ok.get(self._dtype_key)
        if ok is None:
            ok = info.dtype_ok[self._dtype_key] = tuple(self._dtype_ok(t) for t in op.outputs)
        if not ok[output_slot]:
            return
        # Strictly increasing timestamps keep dump order equal to execution order even when
        # two ops finish within the same microsecond.
        if timestamp_us <= self._last_ts:
            timestamp_us = self._last_ts + 1
        self._last_ts = timestamp_us
        if self._identity_only:
            self._deliver(info, output_slot, "DebugIdentity", value, timestamp_us)
            return
        for name, attrs in self._ops:
            try:
                result = debug_ops.apply_debug_op(name, attrs, value)
            except TypeError:
                if self.options.tolerate_debug_op_creation_failures:
                    continue
                raise
            if result is not None:
                self._deliver(info, output_slot, name, result, timestamp_us)

    def _deliver_names(self, info, slot, debug_op, value, timestamp_us):
        self.sink.add(info.name, slot, debug_op, value, timestamp_us, info.device, info.type)


def write_watched(writer, info, slot, debug_op, value, timestamp_us):
    """Write one watched value with `writer` in tfdbg's layout (one file, one syscall)."""
    folder, name, parts, nbytes = watched_file(info, slot, debug_op, value, timestamp_us)
    writer.create(folder, name, parts, writer.reserve(folder, name, parts, nbytes))


class DiskSink:
    """Writes every watched value to a dump directory (tfdbg's behaviour), on the writer
    thread while the step goes on; close() returns once every file is complete.

    Kernel results are fresh arrays nothing changes afterwards. Read-only arrays are variable
    buffers (or views of them) that an update later in the run may overwrite in place: the
    engine announces such updates (before_update), which wait for those buffers' files."""

    def __init__(self, dump_root):
        self.writer = DumpWriter(dump_root, queued=True)
        self.budget_message = None
        self._buffer_jobs = {}  # id(variable buffer) -> Lock released when its last file is

    def add(self, node_name, slot, debug_op, value, timestamp_us, device, op_type=""):
        """Write one dump unless the disk budget has run out."""
        self.add_watched(OpInfo(node_name, op_type, device), slot, debug_op, value,
                         timestamp_us)

    def add_watched(self, info, slot, debug_op, value, timestamp_us):
        """add() for a Watch, which passes the op's cached OpInfo."""
        if self.budget_message is None:
            self.queue(value, *watched_file(info, slot, debug_op, value, timestamp_us))

    def queue(self, value, folder, name, parts, nbytes):
        """Count the file against the byte budget and hand it to the writer thread; `parts`
        hold `value`'s memory, which must stay as it is until the file is written."""
        try:
            self.writer.reserve(folder, name, parts, nbytes)
        except DiskBudgetExceededError as exc:
            # Stop dumping this run; the run itself goes on and the user is told why.
            self.budget_message = str(exc)
            print("lens.dbg: %s" % exc, file=sys.stderr)
            return
        done = None
        if type(value) is np.ndarray and not value.flags.writeable:
            done = threading.Lock()
            done.acquire()
            base = value.base if value.base is not None else value
            # Jobs run in order: waiting for the buffer's last file covers the earlier ones.
            self._buffer_jobs[id(base)] = (base, done)
        self.writer.create_later(folder, name, parts, nbytes, done)

    def fast_on_output(self, watch):
        """(on_output, before_update) hooks a plain Watch installs instead of its methods."""
        return make_dump_hook(self, watch), self.before_update

    def before_update(self, *buffers):
        """Wait until the files holding these variable buffers (None: any) are written, as the
        engine is about to overwrite them."""
        jobs = self._buffer_jobs
        if not jobs:
            return
        if any(b is None for b in buffers):
            due = list(jobs.values())
            jobs.clear()
        else:
            due = [jobs.pop(id(b)) for b in buffers if id(b) in jobs]
        for _, done in due:
            done.acquire()

    def close(self):
        """Wait for every dump of the run, then release its directory handles."""
        self._buffer_jobs.clear()
        self.writer.flush()


def close_sink(sink, run_failed):
    """Wait for a sink's dumps (sinks with close()). When the run itself failed, its error is the
    one that propagates: a dump error met while closing is logged instead of replacing it."""
    close = getattr(sink, "close", None)
    if close is None:
        return
    if not run_failed:
        close()
        return
    try:
        close()
    except Exception as exc:  # noqa: BLE001 - the run's own error is already propagating
        logging.getLogger(__name__).warning("a dump of the failed run was not written: %s", exc)


class MemoryDatum:
    """A watched value held in memory, with DebugTensorDatum's naming attributes."""

    __slots__ = ("node_name", "output_slot", "debug_op", "value", "timestamp", "device_name")

    def __init__(self, node_name, output_slot, debug_op, value, timestamp, device_name):
        self.node_name = node_name
        self.output_slot = output_slot
        self.debug_op = debug_op
        self.value = value
        self.timestamp = timestamp
        self.device_name = device_name

    tensor_name = property(lambda self: "%s:%d" % (self.node_name, self.output_slot))
    watch_key = property(lambda self: "%s:%d:%s" % (self.node_name, self.output_slot,
                                                    self.debug_op))

    def get_tensor(self):
        """The held value."""
        return self.value


class FilterSink:
    """Keeps a run's values in memory and checks a filter on each; disk only if it trips.

    Values are held by reference. Read-only arrays are variable buffers (or views of them)
    that an update later in the run may overwrite in place: add_watched copies them at once;
    the run -f hook copies them only when the engine announces an update of their buffer, or
    when the held values are read after the run (W:0 shows its value from before this run's
    update). Kernel results are fresh writeable arrays that nothing changes afterwards.
    Copies go into buffers kept in `pool` from run to run (no page faults for fresh memory
    each step); so a value that a filter function receives is only valid during that call."""

    def __init__(self, filter_fn, is_allowed, allow_key=None, pool=None):
        self.filter_fn = filter_fn
        self.is_allowed = is_allowed  # node name -> True when exempt (allowed infs, -fenn)
        # When given, is_allowed's answer depends only on (node name, allow_key): cached per op.
        self._allow_key = allow_key
        self._builtin = filter_fn is has_inf_or_nan
        self._pool = pool if pool is not None else {}  # (OpInfo, slot) -> snapshot buffer
        self._pooled = set()  # pool keys handed out in this run
        self._held = []  # (OpInfo, slot, debug op, value, timestamp), in execution order
        self._trip_idx = []  # indices into _held of the values that passed the filter
        self._dedupe = False
        self._snaps = {}  # id(buffer) -> (buffer, its snapshot), until the next update
        self._verdicts = {}  # id(held value) -> builtin filter result (same array, same answer)
        self._finished = 0  # how many held entries have increasing timestamps already
        # id(variable buffer) -> indices into _held of values held by reference that share it
        # (filled by the run -f hook, emptied by copy_pending).
        self._pending = {}

    def watch_started(self, sees_all):
        """Told by the Watch: True when every executed op (every update) reaches this sink."""
        # Sharing one snapshot between W:0 and W/read:0 is only safe when the sink would see
        # any update between them.
        self._dedupe = sees_all

    def fast_on_output(self, watch):
        """(on_output, before_update) hooks a plain Watch installs instead of its methods."""
        return make_filter_hook(self, watch)

    def copy_pending(self, *buffers):
        """Copy the held values sharing these variable buffers (None: any buffer): the engine
        calls this before an op overwrites them in place, and reading held values after the
        run calls it for all, so they don't change with the next run's updates."""
        pending = self._pending
        if not pending:
            return
        if any(b is None for b in buffers):
            due = [i for indices in pending.values() for i in indices]
            pending.clear()
        else:
            due = [i for b in buffers for i in pending.pop(id(b), ())]
        if not due:
            return
        self._snaps.clear()  # earlier copies show these buffers before an earlier update
        self._verdicts.clear()  # the same arrays will hold other numbers
        held = self._held
        copies = {}  # W:0 and W/read:0 are one array: one copy serves both
        for i in due:
            info, slot, debug_op, value, ts = held[i]
            copy = copies.get(id(value))
            if copy is None:
                copy = copies[id(value)] = self._snapshot(info, slot, value)
            held[i] = (info, slot, debug_op, copy, ts)

    def _finish(self):
        """Make held timestamps strictly increasing (dump order = execution order even when
        two ops finish within the same microsecond); done once, when values are read."""
        self.copy_pending(None)
        held = self._held
        last = held[self._finished - 1][4] if self._finished else 0
        for i in range(self._finished, len(held)):
            entry = held[i]
            if entry[4] <= last:
                entry = held[i] = entry[:4] + (last + 1,)
            last = entry[4]
        self._finished = len(held)
        return held

    @property
    def data(self):
        """Every held value as a MemoryDatum, in execution order."""
        return [MemoryDatum(i.name, slot, op, v, ts, i.device)
                for i, slot, op, v, ts in self._finish()]

    @property
    def tripped(self):
        """The held values that passed the filter, as MemoryDatum, in execution order."""
        if not self._trip_idx:
            return []  # the common case, checked after every run: no timestamp pass
        held = self._finish()
        return [MemoryDatum(held[n][0].name, held[n][1], held[n][2], held[n][3], held[n][4],
                            held[n][0].device) for n in self._trip_idx]

    def add(self, node_name, slot, debug_op, value, timestamp_us, device, op_type=""):
        """Hold the value and test the filter."""
        self.add_watched(OpInfo(node_name, op_type, device), slot, debug_op, value,
                         timestamp_us)

    def _snapshot(self, info, slot, value):
        """A copy of a read-only array as it is now (shared while no update intervenes)."""
        shared = self._snaps.get(id(value)) if self._dedupe else None
        if shared is not None:
            return shared[1]
        key = (info, slot)
        snap = self._pool.get(key)
        if (snap is None or key in self._pooled or snap.shape != value.shape
                or snap.dtype != value.dtype):
            snap = np.empty_like(value)
            if key not in self._pooled:  # an op run twice in one run (loops) keeps both
                self._pool[key] = snap
        self._pooled.add(key)
        np.copyto(snap, value)
        if self._dedupe:
            self._snaps[id(value)] = (value, snap)  # holding value keeps its id unique
        return snap

    def _check_custom(self, info, slot, value, timestamp_us, debug_op="DebugIdentity"):
        """A user filter's verdict on one value, shaped as `lt -f` will read it back."""
        value = as_dumped(value)
        return self.filter_fn(MemoryDatum(info.name, slot, debug_op, value, timestamp_us,
                                          info.device), value)

    def add_watched(self, info, slot, debug_op, value, timestamp_us):
        """add() for a Watch, which passes the op's cached OpInfo."""
        if info.mutates:
            self._snaps.clear()  # buffers may have changed: later reads need new copies
        if type(value) is np.ndarray and not value.flags.writeable:
            value = self._snapshot(info, slot, value)
        self._held.append((info, slot, debug_op, value, timestamp_us))
        key = self._allow_key
        allowed = info.allowed.get(key) if key is not None else None
        if allowed is None:
            allowed = bool(self.is_allowed(info.name))
            if key is not None:
                info.allowed[key] = allowed
        if allowed:
            return
        if self._builtin:
            # Identity chains hand the same array on: check it once per run.
            verdict = self._verdicts.get(id(value))
            if verdict is None:
                verdict = self._verdicts[id(value)] = nonfinite(value)
            if not verdict:
                return
        elif not self._check_custom(info, slot, value, timestamp_us, debug_op):
            return
        self._trip_idx.append(len(self._held) - 1)

    def write(self, dump_root):
        """Write every held value in tfdbg's layout; returns the DumpWriter."""
        writer = DumpWriter(dump_root)
        try:
            for info, slot, debug_op, value, timestamp_us in self._finish():
                write_watched(writer, info, slot, debug_op, value, timestamp_us)
        finally:
            writer.flush()
        return writer
