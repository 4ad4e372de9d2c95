"""Session.run with RunOptions(trace_level=...): measured per-op step stats in RunMetadata.

A traced sequential plan only appends a perf_counter stamp after each statement and hands over
its stamps and values once at the end; the parallel executor records one tuple per op. All the
protobuf bytes are built after the run: times as one NumPy matrix, the per-op rest from caches
keyed by the outputs' shapes (a training step repeats the same shapes every time).
"""
import threading
import time
from collections.abc import Mapping

import numpy as np

from lens.client import stats_wire as w
from lens.client.fetches import fetch_key

DEFAULT_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
ALLOCATOR = "cpu"


class _Recorder:
    """Receives a traced run's measurements (sequential: seq once; parallel: timed per op)."""

    def __init__(self):
        self.records = []
        self.thread_names = {}
        self.stamps = self.values = None
        self.t0 = time.perf_counter()

    def timed(self, op, start, end, outputs, scheduled=None):
        tid = threading.get_native_id() & 0xFFFFFFFF
        if tid not in self.thread_names:
            self.thread_names[tid] = threading.current_thread().name
        # list.append is atomic under the GIL, so worker threads need no lock here.
        self.records.append((op, start, end, outputs, scheduled, tid))

    def seq(self, stamps, values):
        """Called once at the end of a sequential traced plan: its stamps and every op's values."""
        self.stamps, self.values = stamps, values


def nbytes(v):
    """Bytes held by one output value."""
    if isinstance(v, np.ndarray):
        if v.dtype == object:
            return int(sum(len(x) if isinstance(x, (bytes, str)) else 8 for x in v.ravel()))
        return int(v.nbytes)
    if isinstance(v, bytes):
        return len(v)
    if isinstance(v, (np.generic, bool, int, float)):
        return int(np.asarray(v).nbytes)
    return 0


_UNSET = object()   # no outputs encoded yet


def _input_label(t):
    return t._op._name if t._value_index == 0 else "%s:%d" % (t._op._name, t._value_index)


class _OpInfo:
    """What tracing needs of one op, computed once per compiled plan, plus its last run's bytes."""

    __slots__ = ("op", "head", "device", "is_var", "dtypes", "deps", "cost_head", "exact", "sig",
                 "pre", "tail", "cost_pre", "shapes")

    def __init__(self, op, device, ids, consumed):
        label = "%s = %s(%s)" % (op._name, op._type, ", ".join(_input_label(t) for t in op._inputs))
        self.op = op
        self.head = w.lfield(b"\x0a", op._name.encode()) + w.lfield(b"\x42", label.encode())
        self.device = device
        self.is_var = op._type in ("VariableV2", "Variable")
        self.dtypes = [t.dtype.base_dtype.as_datatype_enum for t in op._outputs]
        # String outputs: sizes depend on contents, so their bytes are never cached by shape.
        self.exact = any(t.dtype.base_dtype.name == "string" for t in op._outputs)
        self.deps = [ids[d] for d in {t._op for t in op._inputs} | set(op._control_inputs) if d in ids]
        inputs = b"".join(w.lfield(b"\x22", w.vfield(b"\x08", ids[t._op]) + w.vfield(b"\x10", t._value_index))
                          for t in op._inputs if t._op in ids)
        controls = b"".join(w.varint(ids[c]) for c in op._control_inputs if c in ids)
        self.cost_head = (w.lfield(b"\x0a", op._name.encode()) + w.lfield(b"\x12", device.encode())
                          + w.vfield(b"\x18", ids[op]) + inputs
                          + (w.lfield(b"\x42", controls) if controls else b"")
                          + (b"" if op in consumed else b"\x38\x01"))
        self.pre = self.tail = self.cost_pre = self.shapes = None
        self.sig = _UNSET

    def update(self, values):
        """Encode the op's outputs and memory unless they have the shapes of the last run;
        True when it did."""
        try:
            if len(values) == 1:    # most ops: skip the generator
                v = values[0]
                sig = None if v is None else (v.shape, v.nbytes)
            else:
                sig = tuple(None if v is None else (v.shape, v.nbytes) for v in values)
        except AttributeError:  # bytes or Python scalars: no shape attribute, encode each time
            sig = ()
            self.sig = _UNSET
        else:
            if sig == self.sig and not self.exact:
                return False
            self.sig = sig
        sizes = [None if v is None else nbytes(v) for v in values]
        shapes = self.shapes = [None if v is None else np.shape(v) for v in values]
        self.tail = self._tail(sizes, shapes)
        self.pre = b"\x12" + w.varint(len(self.head) + w.TIMES_WIDTH + len(self.tail)) + self.head
        outs = b"".join(w.cost_output_bytes(s or 0, sh if sh is not None else (), dt)
                        for s, sh, dt in zip(sizes, shapes, self.dtypes))
        body = self.cost_head + outs
        self.cost_pre = b"\x0a" + w.varint(len(body) + w.COST_WIDTH) + body
        return True

    def _tail(self, sizes, shapes):
        if self.is_var:
            # A variable's buffer is persistent: TF reports it as referenced, not allocated by the step.
            size = sizes[0] if sizes else None
            if size is None:
                return b""
            return (w.lfield(b"\x5a", w.vfield(b"\x08", size) + w.vfield(b"\x10", size)
                             + w.lfield(b"\x1a", w.ALLOCATOR)) + w.lfield(b"\x62", w.vfield(b"\x18", size)))
        parts, total = [], 0
        for slot, (dt, size, shape) in enumerate(zip(self.dtypes, sizes, shapes)):
            if size is None:    # a fed output (the feed owns that buffer) or a skipped op
                continue
            total += size
            parts.append(w.lfield(b"\x3a", w.vfield(b"\x08", slot) + w.lfield(b"\x1a", w.vfield(b"\x08", dt)
                         + w.lfield(b"\x12", w.shape_bytes(shape)) + w.lfield(b"\x22", w.vfield(b"\x08", size)
                         + w.vfield(b"\x10", size) + w.lfield(b"\x1a", w.ALLOCATOR)))))
        if self.dtypes:
            parts.append(w.memory_bytes(total))
        return b"".join(parts)


class _PlanTrace:
    """Per-plan tracing state: op infos, device grouping, dependency indices."""

    def __init__(self, sess, plan):
        ops = plan.ops
        ids = {op: i for i, op in enumerate(ops)}
        consumed = set()
        for op in ops:
            consumed.update(t._op for t in op._inputs)
            consumed.update(op._control_inputs)
        self.infos = [_OpInfo(op, sess._device_of(op), ids, consumed) for op in ops]
        self.by_device = {}
        for i, info in enumerate(self.infos):
            self.by_device.setdefault(info.device, []).append(i)
        self.by_device = {d: np.array(idx, dtype=np.intp) for d, idx in self.by_device.items()}
        layout = getattr(plan, "trace_layout", None)
        self.works = np.array([b > a for _, a, b in layout] if layout else [True] * len(ops), dtype=bool)
        if layout:
            self.start_idx = np.array([a for _, a, _ in layout], dtype=np.intp)
            self.end_idx = np.array([b for _, _, b in layout], dtype=np.intp)
        # Flattened dependency lists, each led by a sentinel (the run start) for np.maximum.reduceat.
        n = len(ops)
        flat, offsets = [], []
        for info in self.infos:
            offsets.append(len(flat))
            flat.append(n)
            flat.extend(info.deps)
        self.dep_flat = np.array(flat, dtype=np.intp)
        self.dep_offsets = np.array(offsets, dtype=np.intp)
        # Ops whose output bytes depend on contents (strings) are encoded every run.
        self.exact = any(info.exact for info in self.infos)
        self.last_sig = None    # every value's (shape, dtype) in the last run
        # device -> {order of its ops: _Template}, and "cost" -> _Template, while no op's
        # bytes change
        self.templates = {}
        self.shape_items = None     # (op, output shapes) of every op, while no op's bytes change


_MAX_ORDERS = 32     # templates kept per device (one per order of its ops)


class _Template:
    """One message's bytes with every op's fixed-width times left blank, and where they go:
    a run whose ops have the shapes of the last one (a training step) writes its times in
    with one NumPy assignment instead of joining a few hundred pieces."""

    __slots__ = ("buf", "pos")

    def __init__(self, pieces, width):
        parts, offsets, at = [], [], 0
        for pre, tail in pieces:
            at += len(pre)
            offsets.append(at)
            at += width + len(tail)
            parts += (pre, bytes(width), tail)
        self.buf = np.frombuffer(bytearray(b"".join(parts)), np.uint8)
        self.pos = np.array(offsets, np.intp)[:, None] + np.arange(width)

    def fill(self, rows):
        """The message bytes with `rows` (one row of times per op, in order) written in."""
        self.buf[self.pos] = rows
        return self.buf.tobytes()


def _signature(pt, values):
    """Every value's (shape, dtype) in plan order, or None when some value has none (bytes,
    Python numbers) or some op's bytes depend on contents: then each op checks its own."""
    if pt.exact:
        return None
    try:
        return [None if v is None else (v.shape, v.dtype) for vals in values for v in vals]
    except AttributeError:
        return None


def _plan_trace(sess, plan):
    pt = getattr(plan, "_trace_state", None)
    if pt is None:
        pt = plan._trace_state = _PlanTrace(sess, plan)
    return pt


def traced_run(sess, fetches, feed_dict, options, run_metadata):
    """Run once with every op timed; fill run_metadata (one DeviceStepStats per device)."""
    if sess._closed:
        raise RuntimeError("Attempted to use a closed Session.")
    key = (fetch_key(fetches), tuple(feed_dict) if feed_dict else (), "trace")
    compiled = sess._runs.get(key)
    if compiled is None:
        compiled = sess._compile(fetches, feed_dict, None, trace=True)
        sess._runs[key] = compiled
    rec = _Recorder()
    wall0, perf0 = time.time(), rec.t0
    result = sess._execute(compiled, feed_dict, rec)
    if run_metadata is not None:
        fill_run_metadata(sess, compiled.plan, rec, run_metadata, options, wall0, perf0)
    return result


def _measurements(plan, rec, perf0):
    """(start, end, scheduled or None, thread ids, values per op) in plan.ops order."""
    n = len(plan.ops)
    layout = getattr(plan, "trace_layout", None)
    if layout is not None:
        tid = threading.get_native_id() & 0xFFFFFFFF
        rec.thread_names[tid] = threading.current_thread().name
        st = np.array(rec.stamps)
        pt = plan._trace_state
        return st[pt.start_idx], st[pt.end_idx], None, np.full(n, tid, np.int64), rec.values
    pos = {op: i for i, op in enumerate(plan.ops)}
    start, end, sched = np.zeros(n), np.zeros(n), np.zeros(n)
    tids, values = np.zeros(n, np.int64), [()] * n
    for op, s, e, outs, sc, tid in rec.records:
        i = pos[op]
        start[i], end[i], sched[i], tids[i], values[i] = s, e, perf0 if sc is None else sc, tid, outs
    return start, end, sched, tids, values


def fill_run_metadata(sess, plan, rec, run_metadata, options, wall0, perf0):
    """Step stats per device, plus partition graphs and (FULL_TRACE) the cost graph."""
    pt = _plan_trace(sess, plan)
    start, end, sched, tids, values = _measurements(plan, rec, perf0)
    if sched is None:   # when each op became runnable: the end of its last producer
        ends = np.append(end, perf0)
        sched = np.maximum.reduceat(ends[pt.dep_flat], pt.dep_offsets) if len(end) else end
    sched = np.minimum(sched, start)
    offset = wall0 - perf0
    start_us = ((start + offset) * 1e6).astype(np.int64)
    dur_us = np.maximum(((end - start) * 1e6).astype(np.int64), 0)
    sched_us = np.minimum(((sched + offset) * 1e6).astype(np.int64), start_us)
    times = w.times_matrix(start_us, dur_us, sched_us, tids)
    infos = pt.infos
    sig = _signature(pt, values)
    if sig is None or sig != pt.last_sig:
        changed = False
        for info, vals in zip(infos, values):
            if info.update(vals):
                changed = True
        if changed or sig is None:
            pt.templates.clear()
            pt.shape_items = None
        pt.last_sig = sig
    tw = w.TIMES_WIDTH
    rows = np.frombuffer(times, np.uint8).reshape(-1, tw) if sig is not None else None
    dev_bytes = []
    for dev in sorted(pt.by_device):
        idx = pt.by_device[dev]
        # In start order, as TF lists them; within one microsecond, ops that ran code first (in
        # run order), then the ones that took no time, latest first (a variable's read before
        # the variable): a trace viewer binds a flow arrow to the first slice at its timestamp.
        order = idx[np.lexsort((np.where(pt.works[idx], idx, -idx), ~pt.works[idx], start_us[idx]))]
        if rows is not None:
            # Ops finishing within one microsecond swap places from run to run: a step
            # settles on a handful of orders, each kept with its own template.
            by_order = pt.templates.setdefault(dev, {})
            key = order.tobytes()
            tmpl = by_order.get(key)
            if tmpl is None:
                if len(by_order) >= _MAX_ORDERS:
                    by_order.clear()
                head = w.lfield(b"\x0a", dev.encode())
                pieces = [(infos[i].pre, infos[i].tail) for i in order.tolist()]
                pieces[0] = (head + pieces[0][0], pieces[0][1])
                tmpl = by_order[key] = _Template(pieces, tw)
            parts = [tmpl.fill(rows[order])]
        else:
            parts = [w.lfield(b"\x0a", dev.encode())]
            for i in order.tolist():
                info = infos[i]
                parts += (info.pre, times[i * tw:(i + 1) * tw], info.tail)
        for tid in sorted(set(tids[idx].tolist())):
            parts.append(w.lfield(b"\x1a", w.vfield(b"\x08", tid) + w.lfield(b"\x12", rec.thread_names[tid].encode())))
        dev_bytes.append(w.lfield(b"\x0a", b"".join(parts)))
    run_metadata.step_stats.MergeFromString(b"".join(dev_bytes))
    if options.trace_level >= options.FULL_TRACE:
        cost = w.cost_times_matrix(dur_us)
        cw = w.COST_WIDTH
        if rows is not None:
            tmpl = pt.templates.get("cost")
            if tmpl is None:
                tmpl = pt.templates["cost"] = _Template([(info.cost_pre, b"") for info in infos], cw)
            run_metadata.cost_graph.MergeFromString(tmpl.fill(np.frombuffer(cost, np.uint8).reshape(-1, cw)))
        else:
            parts = []
            for i, info in enumerate(infos):
                parts += (info.cost_pre, cost[i * cw:(i + 1) * cw])
            run_metadata.cost_graph.MergeFromString(b"".join(parts))
    # Shapes seen in this run: partition graphs record them, and the graph keeps the last ones.
    items = pt.shape_items
    if items is None:   # the shapes changed (or are checked op by op)
        items = pt.shape_items = [(info.op, info.shapes) for info in infos]
    shapes = _RunShapes(items)
    sess.graph._run_shapes = shapes
    if getattr(options, "output_partition_graphs", False):
        from lens.client import partition
        by_tensor = {t: s for op, ss in shapes.items_by_op for t, s in zip(op._outputs, ss or ()) if s is not None}
        for gd in partition.partition_graphs(plan.ops, sess._device_of, by_tensor):
            run_metadata.partition_graphs.add().CopyFrom(gd)


class _RunShapes(Mapping):
    """tensor name -> shape seen in the last traced run, built only when someone asks."""

    def __init__(self, items_by_op):
        self.items_by_op = items_by_op
        self._dict = None

    def _d(self):
        if self._dict is None:
            self._dict = {t.name: s for op, ss in self.items_by_op for t, s in zip(op._outputs, ss or ())
                          if s is not None}
        return self._dict

    def __getitem__(self, key):
        return self._d()[key]

    def __iter__(self):
        return iter(self._d())

    def __len__(self):
        return len(self._d())
