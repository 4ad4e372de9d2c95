"""TensorArray kernels. A TensorArray's state travels in its flow tensor (a float32 scalar in the graph,
as TF's) whose run-time value is an immutable FlowValue; every write returns a new flow, so arrays work
as while_loop variables and their gradients are flows of gradients (missing entries are zeros)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape


class FlowValue:
    """The entries written so far (index -> array) and the array's size, immutable to its users.

    Versions of one array share an append-only store; a version sees the first `n` entries. Writing to
    the newest version appends in place (O(1)); writing to an older one copies what it sees first."""

    _lens_flow = True     # while_loop stacks these per iteration as objects
    __slots__ = ("_store", "_order", "_n", "size", "dynamic", "cleared", "inferred")

    def __init__(self, items=None, size=0, dynamic=True):
        items = items or {}
        self._order = list(items)
        self._store = {k: (p, items[k]) for p, k in enumerate(self._order)}
        self._n = len(self._order)
        self.size, self.dynamic = size, dynamic
        self.cleared = set()      # indices read once with clear_after_read (shared by the versions)
        self.inferred = []        # the first written element's shape, when elements must be alike

    def _version(self, n, size):
        v = FlowValue.__new__(FlowValue)
        v._store, v._order, v._n, v.size, v.dynamic = self._store, self._order, n, size, self.dynamic
        v.cleared, v.inferred = self.cleared, self.inferred
        return v

    def get(self, index, default=None):
        """The entry at index as this version sees it, else default."""
        e = self._store.get(index)
        return default if e is None or e[0] >= self._n else e[1]

    def __contains__(self, index):
        e = self._store.get(index)
        return e is not None and e[0] < self._n

    def keys(self):
        """The written indices, in writing order."""
        return self._order[:self._n]

    def _owned(self):
        """A version whose store may be appended to: self when newest, else a private copy."""
        if self._n == len(self._order):
            return self
        copy = FlowValue({k: self.get(k) for k in self.keys()}, self.size, self.dynamic)
        copy.cleared, copy.inferred = set(self.cleared), list(self.inferred)
        return copy

    def with_items(self, new_items):
        """A new version with new_items (fresh indices) written; size grows to cover them."""
        base = self._owned()
        for k, v in new_items.items():
            base._store[k] = (len(base._order), v)
            base._order.append(k)
        top = max(new_items) + 1 if new_items else 0
        return base._version(len(base._order), max(self.size, top))

    def __add__(self, other):
        other = as_flow(other)
        if not other._n:
            return self
        if not self._n:
            return other
        if any(k in self for k in other.keys()):
            merged = {k: self.get(k) for k in self.keys()}
            for k in other.keys():
                merged[k] = other.get(k) if k not in merged else np.add(merged[k], other.get(k))
            return FlowValue(merged, max(self.size, other.size), self.dynamic)
        big, small = (self, other) if self._n >= other._n else (other, self)
        out = big.with_items({k: small.get(k) for k in small.keys()})
        out.size = max(self.size, other.size)
        return out

    __radd__ = __add__

    def __repr__(self):
        return "FlowValue(size=%d, written=%s)" % (self.size, sorted(self.keys()))


def as_flow(v):
    """v as a FlowValue: anything else (a zeros_like of a flow, 0.0) is the empty array."""
    if isinstance(v, np.ndarray) and v.dtype == object and v.ndim == 0:
        v = v.item()
    return v if isinstance(v, FlowValue) else FlowValue()


class Config:
    """What TensorArrayV3 fixes for one array: dtype, element shape, resizability."""

    def __init__(self, op):
        self.dtype = op._attrs["dtype"]
        self.element_shape = op._attrs.get("element_shape") or unknown_shape()
        self.dynamic = op._attrs.get("dynamic_size", False)
        self.clear_after_read = op._attrs.get("clear_after_read", True)
        self.identical = op._attrs.get("identical_element_shapes", True)
        self.name = op.name
        self.dims = self.element_shape.as_list() if self.element_shape.ndims is not None else None
        self.np_dtype = object if self.dtype.name == "string" else self.dtype.as_numpy_dtype


def _ta_make(op, ctx):
    cfg = Config(op)

    def run(size):
        n = int(size)
        if n < 0:
            raise errors.InvalidArgumentError(None, op, "Size should be >= 0, got %d" % n)
        return cfg, FlowValue({}, n, cfg.dynamic)
    return run


def _np_dtype(cfg):
    return object if cfg.dtype.name == "string" else cfg.dtype.as_numpy_dtype


def _check_index(op, flow, i, write):
    if i < 0:
        raise errors.InvalidArgumentError(None, op, "Tried to %s index %d but index must be >= 0"
                                          % ("write to" if write else "read from", i))
    if i >= flow.size and not (write and flow.dynamic):
        raise errors.InvalidArgumentError(None, op, "Tried to %s index %d but array is not resizeable and size "
                                          "is: %d" % ("write to" if write else "read from", i, flow.size)
                                          if write else "Tried to read from index %d but array size is: %d"
                                          % (i, flow.size))


def _write_items(op, cfg, flow, indices, values):
    new = {}
    for i, v in zip(indices, values):
        i = int(i)
        _check_index(op, flow, i, True)
        if i in flow or i in new:
            raise errors.InvalidArgumentError(None, op, "Could not write to TensorArray index %d because it has "
                                              "already been written to." % i)
        v = np.asarray(v, dtype=cfg.np_dtype)
        if cfg.dims is not None and (len(v.shape) != len(cfg.dims) or
                                     any(d is not None and d != n for d, n in zip(cfg.dims, v.shape))):
            raise errors.InvalidArgumentError(None, op, "Could not write to TensorArray index %d because the value "
                                              "shape is %s which is incompatible with the TensorArray's inferred "
                                              "element shape: %s" % (i, list(v.shape), cfg.element_shape))
        if cfg.identical:
            if not flow.inferred:
                flow.inferred.append(v.shape)
            elif v.shape != flow.inferred[0]:
                raise errors.InvalidArgumentError(None, op, "TensorArray %s: Could not write to TensorArray index %d "
                                                  "because the value shape is %s which is incompatible with the "
                                                  "TensorArray's inferred element shape: %s (consider setting "
                                                  "infer_shape=False)." % (cfg.name, i, list(v.shape),
                                                                           list(flow.inferred[0])))
        new[i] = v
    return flow.with_items(new)


def _read_items(op, cfg, flow, indices):
    out = []
    for i in indices:
        i = int(i)
        _check_index(op, flow, i, False)
        if cfg.clear_after_read:
            if i in flow.cleared:
                raise errors.InvalidArgumentError(None, op, "TensorArray %s: Could not read index %d twice because "
                                                  "it was cleared after a previous read (perhaps try setting "
                                                  "clear_after_read = false?)." % (cfg.name, i))
            flow.cleared.add(i)
        v = flow.get(i)
        if v is None:
            # As TF: an element never written reads as zeros once the element shape is known.
            shape = flow.inferred[0] if flow.inferred else (
                tuple(cfg.element_shape.as_list()) if cfg.element_shape.is_fully_defined() else None)
            if shape is None:
                raise errors.InvalidArgumentError(None, op, "TensorArray %s: Could not read from TensorArray index "
                                                  "%d because it has not yet been written to, and the element "
                                                  "shape is not fully defined; set element_shape to read zeros."
                                                  % (cfg.name, i))
            v = np.zeros(shape, cfg.np_dtype)
        out.append(v)
    return out


def _stacked(op, cfg, values):
    if not values:
        if not cfg.element_shape.is_fully_defined():
            raise errors.InvalidArgumentError(None, op, "TensorArray has size zero, but element shape %s is not "
                                              "fully defined. Currently only static shapes are supported when "
                                              "packing zero-size TensorArrays." % cfg.element_shape)
        return np.zeros([0] + cfg.element_shape.as_list(), _np_dtype(cfg))
    for k, v in enumerate(values[1:], 1):
        if v.shape != values[0].shape:
            raise errors.InvalidArgumentError(None, op, "TensorArray has inconsistent shapes. Index 0 has shape: %s "
                                              "but index %d has shape: %s" % (list(values[0].shape), k,
                                                                             list(v.shape)))
    return np.stack(values)


def _write_make(op, ctx):
    return lambda cfg, index, value, flow: _write_items(op, cfg, as_flow(flow), [index], [value])


def _read_make(op, ctx):
    return lambda cfg, index, flow: _read_items(op, cfg, as_flow(flow), [index])[0]


def _gather_make(op, ctx):
    return lambda cfg, indices, flow: _stacked(op, cfg, _read_items(op, cfg, as_flow(flow), np.ravel(indices)))


def _scatter_make(op, ctx):
    def run(cfg, indices, value, flow):
        indices, value = np.ravel(indices), np.asarray(value)
        if value.ndim == 0 or value.shape[0] != len(indices):
            raise errors.InvalidArgumentError(None, op, "Expected len(indices) == values.shape[0], but saw: %d vs. "
                                              "%s" % (len(indices), value.shape[0] if value.ndim else "a scalar"))
        return _write_items(op, cfg, as_flow(flow), indices, list(value))
    return run


def _concat_make(op, ctx):
    def run(cfg, flow):
        flow = as_flow(flow)
        values = _read_items(op, cfg, flow, range(flow.size))
        lengths = np.array([v.shape[0] if v.ndim else -1 for v in values], np.int64)
        if (lengths < 0).any():
            raise errors.InvalidArgumentError(None, op, "Concat saw a scalar shape at index %d but requires at "
                                              "least vectors." % int(np.argmax(lengths < 0)))
        if not values:
            tail = cfg.element_shape.as_list()[1:] if cfg.element_shape.ndims else []
            return np.zeros([0] + [d or 0 for d in tail], _np_dtype(cfg)), lengths
        return np.concatenate(values), lengths
    return run


def _split_make(op, ctx):
    def run(cfg, value, lengths, flow):
        value, lengths = np.asarray(value), np.ravel(lengths).astype(np.int64)
        if value.ndim == 0 or lengths.sum() != value.shape[0]:
            raise errors.InvalidArgumentError(None, op, "Expected sum of lengths to be equal to values.shape[0], "
                                              "but sum of lengths is %d and value's shape is: %s"
                                              % (lengths.sum(), list(value.shape)))
        flow = as_flow(flow)
        if not flow.dynamic and len(lengths) > flow.size:
            raise errors.InvalidArgumentError(None, op, "TensorArray's size is not equal to the size of lengths "
                                              "(%d vs. %d), and the TensorArray is not marked as dynamically "
                                              "resizeable" % (flow.size, len(lengths)))
        cuts = np.cumsum(lengths)[:-1]
        return _write_items(op, cfg, flow, range(len(lengths)), np.split(value, cuts))
    return run


# ---- gradient helpers: flows of gradients (unwritten entries are zeros) ------------------------
def _flow_gather_make(op, ctx):
    def run(flow, indices, like):
        flow, like = as_flow(flow), np.asarray(like)
        idx = np.ravel(indices)
        zero = np.zeros(like.shape[1:] if np.ndim(indices) else like.shape, like.dtype)
        out = [np.asarray(flow.get(int(i), zero), like.dtype) for i in idx]
        return np.stack(out) if np.ndim(indices) else out[0]
    return run


def _flow_scatter_make(op, ctx):
    def run(indices, values):
        idx, values = np.ravel(indices), np.asarray(values)
        parts = list(values) if np.ndim(indices) else [values]
        items = {}
        for i, p in zip(idx, parts):      # a repeated index (gather of [1, 1]) adds up
            items[int(i)] = p if int(i) not in items else items[int(i)] + p
        return FlowValue(items, max(items) + 1 if items else 0)
    return run


def _flow_concat_make(op, ctx):
    def run(flow, lengths, like):
        flow, like = as_flow(flow), np.asarray(like)
        pieces = [np.asarray(flow.get(k, np.zeros((int(n),) + like.shape[1:], like.dtype)), like.dtype)
                  for k, n in enumerate(np.ravel(lengths))]
        return np.concatenate(pieces) if pieces else np.zeros((0,) + like.shape[1:], like.dtype)
    return run


def _flow_split_make(op, ctx):
    def run(values, lengths):
        values, lengths = np.asarray(values), np.ravel(lengths)
        parts = np.split(values, np.cumsum(lengths)[:-1]) if len(lengths) else []
        return FlowValue(dict(enumerate(parts)), len(parts))
    return run


def _size_make(op, ctx):
    return lambda cfg, flow: np.int32(as_flow(flow).size)


register_op("TensorArrayV3", make=_ta_make, not_differentiable=True, stateful=True,
            shape=lambda op: [unknown_shape(1), TensorShape([])])
register_op("TensorArraySizeV3", make=_size_make, not_differentiable=True, shape=lambda op: [TensorShape([])])
register_op("TensorArrayCloseV3", fn=lambda cfg: None, not_differentiable=True, stateful=True)
register_op("TensorArrayFlowGather", make=_flow_gather_make,
            grad=lambda op, g: [flow_scatter(op._inputs[1], g), None, None])
register_op("TensorArrayFlowScatter", make=_flow_scatter_make, shape=lambda op: [TensorShape([])],
            grad=lambda op, g: [None, flow_gather(g, op._inputs[0], op._inputs[1])])
register_op("TensorArrayFlowConcat", make=_flow_concat_make,
            grad=lambda op, g: [flow_split(g, op._inputs[1]), None, None])
register_op("TensorArrayFlowSplit", make=_flow_split_make, shape=lambda op: [TensorShape([])],
            grad=lambda op, g: [flow_concat(g, op._inputs[1], op._inputs[0]), None])


def _apply(op_type, inputs, dtypes, name=None, attrs=None, shapes=None):
    return apply_op(op_type, inputs, attrs, name=name or op_type, dtypes=dtypes, shapes=shapes, same_dtype=False)


def flow_gather(flow, indices, like):
    """The entries indices of a gradient flow (zeros where unwritten), shaped like `like`."""
    return _apply("TensorArrayFlowGather", [(flow, "flow"), (indices, "indices"), (like, "like")],
                  [like.dtype.base_dtype], shapes=[like.shape])


def flow_scatter(indices, values):
    """A gradient flow holding values at indices."""
    return _apply("TensorArrayFlowScatter", [(indices, "indices"), (values, "values")], [_float32()])


def flow_concat(flow, lengths, like):
    """The entries of a gradient flow joined along dimension 0 (zeros where unwritten)."""
    return _apply("TensorArrayFlowConcat", [(flow, "flow"), (lengths, "lengths"), (like, "like")],
                  [like.dtype.base_dtype], shapes=[like.shape])


def flow_split(values, lengths):
    """A gradient flow of values cut into pieces of lengths."""
    return _apply("TensorArrayFlowSplit", [(values, "values"), (lengths, "lengths")], [_float32()])


def _float32():
    return _dt.float32


# Forward ops and their gradients (flows carry gradients straight through writes).
register_op("TensorArrayWriteV3", make=_write_make, shape=lambda op: [TensorShape([])],
            grad=lambda op, g: [None, None, flow_gather(g, op._inputs[1], op._inputs[2]), g])
register_op("TensorArrayReadV3", make=_read_make,
            grad=lambda op, g: [None, None, flow_scatter(op._inputs[1], g)])
register_op("TensorArrayGatherV3", make=_gather_make,
            grad=lambda op, g: [None, None, flow_scatter(op._inputs[1], g)])
register_op("TensorArrayScatterV3", make=_scatter_make, shape=lambda op: [TensorShape([])],
            grad=lambda op, g: [None, None, flow_gather(g, op._inputs[1], op._inputs[2]), g])
register_op("TensorArrayConcatV3", make=_concat_make,
            grad=lambda op, g, g_len: [None, flow_split(g, op._outputs[1])])
register_op("TensorArraySplitV3", make=_split_make, shape=lambda op: [TensorShape([])],
            grad=lambda op, g: [None, flow_concat(g, op._inputs[2], op._inputs[1]), None, g])
