"""TF1's queues: FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, PriorityQueue and their ops.

A queue op outputs a resource handle; its kernel keeps the queue's state (queue_state.QueueState) in
the session's context resources, so every session has its own queues, as TF's local sessions do.
"""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from lens.ops import queue_state
from lens.ops.array import stack
from lens.ops.indexing import gather
from lens.ops.random import get_seed

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue"]

_KINDS = {"FIFOQueueV2": "fifo", "PaddingFIFOQueueV2": "padding", "RandomShuffleQueueV2": "shuffle",
          "PriorityQueueV2": "priority"}


# ------------------------------------------------------------------ kernels
def _handle_key(handle):
    h = np.asarray(handle, dtype=object)[()]
    return h.decode() if isinstance(h, bytes) else str(h)


def _queue_make(op, ctx):
    """The queue op: create the session's QueueState on first run, return its handle."""
    key = op._attrs.get("shared_name") or op.name
    handle = np.array(key, dtype=object)
    kind = _KINDS[op._type]

    def run():
        slot = ("queue", key)
        if slot not in ctx.resources:
            shapes = list(op._attrs["shapes"]) or None
            if shapes and kind == "priority":
                shapes = [TensorShape([])] + shapes     # the priority leads every element
            ctx.resources[slot] = queue_state.QueueState(
                kind, key, op._attrs["capacity"], op._attrs["component_types"], shapes,
                op._attrs.get("min_after_dequeue", 0), ctx.rng(op) if kind == "shuffle" else None)
        return handle
    return run


def queue_of_handle(ctx, handle):
    """The session's QueueState behind a queue handle value (for kernels that dequeue, e.g. readers)."""
    return ctx.resources[("queue", _handle_key(handle))]


_queue_of = queue_of_handle


def _check_component(op, c, value, shapes, batched):
    """Enqueued values must match the queue's shapes (TF's run-time check)."""
    want = shapes[c] if shapes else None
    got = value.shape[1:] if batched else value.shape
    if want is not None and want.ndims is not None and (
            len(got) != want.ndims or any(w is not None and w != g for w, g in zip(want.as_list(), got))):
        raise errors.InvalidArgumentError(
            None, op, "Shape mismatch in tuple component %d. Expected %s, got %s"
            % (c, _shape_str(want.as_list()), _shape_str(list(got))))


def _shape_str(dims):
    return "[%s]" % ",".join("?" if d is None else str(d) for d in dims)


def _enqueue_make(op, ctx):
    many = op._type == "QueueEnqueueManyV2"

    def run(handle, *components):
        queue = _queue_of(ctx, handle)
        # A private copy: rows are cut from it while the op runs, after the inputs' buffers may have changed.
        arrays = [np.array(v, copy=True) for v in components]
        for c, a in enumerate(arrays):
            _check_component(op, c, a, queue.shapes, many)
        if many:
            sizes = {a.shape[0] if a.ndim else None for a in arrays}
            if None in sizes or len(sizes) != 1:
                raise errors.InvalidArgumentError(
                    None, op, "EnqueueMany requires every component to have the same size in the first "
                    "dimension; got shapes %s" % [list(a.shape) for a in arrays])
            # Rows are cut as the queue takes them: a big epoch in a small queue costs only what fits.
            elements = (tuple(np.array(a[i], dtype=a.dtype) for a in arrays) for i in range(sizes.pop()))
        else:
            elements = [tuple(arrays)]
        queue.enqueue(elements)
    return run


def _dequeue_make(op, ctx):
    kind = op._type

    def run(handle, *n):
        queue = _queue_of(ctx, handle)
        k = len(queue.dtypes) + (1 if queue.kind == "priority" else 0)
        if kind == "QueueDequeueV2":
            element = queue.dequeue(1, False)[0]
            return element[0] if k == 1 else element
        count = int(n[0])
        if count < 0:
            raise errors.InvalidArgumentError(None, op, "DequeueMany/UpTo: the number of elements "
                                              "requested must be >= 0, got %d" % count)
        elements = queue.dequeue(count, kind == "QueueDequeueUpToV2")
        if not elements:
            out = tuple(np.zeros([0] + [d or 0 for d in (t.shape.as_list()[1:] if t.shape.ndims else [])],
                                 t.dtype.as_numpy_dtype) for t in op._outputs)
        else:
            pad = queue.shapes if queue.kind == "padding" else None
            out = queue_state.stack_elements(elements, k, pad, [None] * k)
        return out[0] if k == 1 else out
    return run


def _close_make(op, ctx):
    cancel = op._attrs.get("cancel_pending_enqueues", False)
    return lambda handle: _queue_of(ctx, handle).close(cancel)


for _t in _KINDS:
    register_op(_t, make=_queue_make, not_differentiable=True, shape=lambda op: [TensorShape([])],
                stateful=True)
register_op("QueueEnqueueV2", make=_enqueue_make, not_differentiable=True, stateful=True)
register_op("QueueEnqueueManyV2", make=_enqueue_make, not_differentiable=True, stateful=True)
for _t in ("QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2"):
    register_op(_t, make=_dequeue_make, not_differentiable=True, stateful=True)
register_op("QueueCloseV2", make=_close_make, not_differentiable=True, stateful=True)
register_op("QueueSizeV2", make=lambda op, ctx: lambda h: np.int32(_queue_of(ctx, h).size()),
            not_differentiable=True, stateful=True, shape=lambda op: [TensorShape([])])
register_op("QueueIsClosedV2", make=lambda op, ctx: lambda h: np.bool_(_queue_of(ctx, h).closed),
            not_differentiable=True, stateful=True, shape=lambda op: [TensorShape([])])


# ------------------------------------------------------------------ the Python classes
def _as_type_list(dtypes):
    if isinstance(dtypes, (list, tuple)):
        return [_dt.as_dtype(d) for d in dtypes]
    return [_dt.as_dtype(dtypes)]


def _as_shape_list(shapes, dtypes, unknown_dim_allowed=False):
    """shapes as a list of TensorShapes (one per dtype), or [] when not given."""
    if shapes is None:
        return []
    if isinstance(shapes, (list, tuple)) and shapes and all(
            s is None or isinstance(s, int) for s in shapes) and len(dtypes) == 1 and not (
            len(shapes) == 1 and shapes[0] is None):
        shapes = [shapes]  # one component given as a single shape, e.g. shapes=[2, 3]
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    shapes = [as_shape(s) for s in shapes]
    if len(shapes) != len(dtypes):
        raise ValueError("Queue shapes must have the same length as dtypes: got %d shapes for %d dtypes"
                         % (len(shapes), len(dtypes)))
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError("All shapes must be fully defined: %s" % [str(s) for s in shapes])
    return shapes


def _common_shape(shapes):
    """The most specific shape all of shapes satisfy (unknown where they differ)."""
    first = shapes[0]
    if any(s.ndims != first.ndims for s in shapes) or first.ndims is None:
        return unknown_shape()
    return TensorShape([a if all(s.as_list()[i] == a for s in shapes) else None
                        for i, a in enumerate(first.as_list())])


class QueueBase:
    """A queue of elements (tuples of tensors), shared by the ops built from it."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        self._shapes = shapes if shapes else [unknown_shape() for _ in dtypes]
        self._names = list(names) if names is not None else None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue standing for queues[index], chosen each time its ops run (same dtypes and names required)."""
        if not queues or not isinstance(queues, list) or not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if any(q.dtypes != dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if any(q.names != names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [_common_shape([q.shapes[i] for q in queues]) for i in range(len(dtypes))]
        selected = gather(stack([q.queue_ref for q in queues]), index)
        return QueueBase(dtypes, shapes, names, selected)

    queue_ref = property(lambda self: self._queue_ref, doc="The queue's resource handle tensor.")
    name = property(lambda self: self._queue_ref.op.name, doc="The queue op's name.")
    dtypes = property(lambda self: list(self._dtypes), doc="The component dtypes.")
    shapes = property(lambda self: list(self._shapes), doc="The component shapes.")
    names = property(lambda self: self._names, doc="The component names, or None.")

    def _check_names_and_flatten(self, vals):
        if self._names is None:
            if isinstance(vals, dict):
                raise ValueError("Queue must have names to enqueue a dictionary")
            return list(vals) if isinstance(vals, (list, tuple)) else [vals]
        if not isinstance(vals, dict):
            raise ValueError("Queue with names %s must enqueue a dictionary, got %r" % (self._names, vals))
        if sorted(vals) != sorted(self._names):
            raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  Dictionary: %s, "
                             "Queue: %s" % (sorted(vals), sorted(self._names)))
        return [vals[k] for k in self._names]

    def _enqueue_values(self, vals, many):
        vals = self._check_names_and_flatten(vals)
        want = self._enqueue_dtypes()
        if len(vals) != len(want):
            raise ValueError("Expected %d components to enqueue into %s, got %d"
                             % (len(want), self.name, len(vals)))
        tensors = []
        for i, (v, dtype) in enumerate(zip(vals, want)):
            t = convert_to_tensor(v, dtype=dtype, name="component_%d" % i)
            shape = self._enqueue_shapes()[i]
            got = t.shape[1:] if many and t.shape.ndims else t.shape
            if many and t.shape.ndims == 0:
                raise ValueError("Shape must be at least rank 1 but is rank 0 for component %d of "
                                 "enqueue_many into %s" % (i, self.name))
            if not got.is_compatible_with(shape):
                raise ValueError("Shapes %s and %s are incompatible (component %d enqueued into %s)"
                                 % (got, shape, i, self.name))
            tensors.append(t)
        return tensors

    def _enqueue_dtypes(self):
        return self._dtypes

    def _enqueue_shapes(self):
        return self._shapes

    def _op(self, op_type, name, default, inputs, out_dtypes, attrs=None, shapes=None):
        g = self._queue_ref.graph
        with g.as_default(), name_scope(name, "%s_%s" % (self._name, default)) as scope:
            ins = [self._queue_ref] + [convert_to_tensor(x, name="n") if not isinstance(x, Tensor) else x
                                       for x in inputs]
            a = dict(attrs or {})
            return g._create_op(op_type, ins, out_dtypes, a, scope, shapes, frames_skip=4)

    def enqueue(self, vals, name=None):
        """An op adding one element (a tensor, a tuple/list, or a dict when the queue has names)."""
        with self._queue_ref.graph.as_default(), name_scope(name, "%s_enqueue" % self._name) as scope:
            tensors = self._enqueue_values(vals, False)
            return self._raw_op("QueueEnqueueV2", scope, tensors)

    def enqueue_many(self, vals, name=None):
        """An op adding the slices of vals along their first dimension as elements."""
        with self._queue_ref.graph.as_default(), name_scope(name, "%s_EnqueueMany" % self._name) as scope:
            tensors = self._enqueue_values(vals, True)
            return self._raw_op("QueueEnqueueManyV2", scope, tensors)

    def _raw_op(self, op_type, scope, tensors):
        g = self._queue_ref.graph
        attrs = {"Tcomponents": [t.dtype.base_dtype for t in tensors], "timeout_ms": -1}
        return g._create_op(op_type, [self._queue_ref] + tensors, [], attrs, scope, frames_skip=4)

    def _out_dtypes(self):
        return list(self._dtypes)

    def _out_shapes(self):
        return list(self._shapes)

    def _wrap(self, outs):
        outs = list(outs)
        if self._names is not None:
            return dict(zip(self._names, outs))
        return outs[0] if len(outs) == 1 else outs

    def dequeue(self, name=None):
        """An element taken from the queue (blocks until one is there; OutOfRangeError once closed and empty)."""
        op = self._op("QueueDequeueV2", name, "Dequeue", [], self._out_dtypes(),
                      {"component_types": self._out_dtypes()}, self._out_shapes())
        return self._wrap(op._outputs)

    def _batch_op(self, op_type, default, n, name, static_n):
        g = self._queue_ref.graph
        with g.as_default(), name_scope(name, "%s_%s" % (self._name, default)) as scope:
            n_t = convert_to_tensor(n, dtype=_dt.int32, name="n")     # made inside the op's scope, as TF
            value = n_t.op._attrs.get("value") if n_t.op._type == "Const" else None
            batch = int(value) if value is not None and static_n else None
            shapes = [TensorShape([batch]).concatenate(s) for s in self._out_shapes()]
            op = g._create_op(op_type, [self._queue_ref, n_t], self._out_dtypes(),
                              {"component_types": self._out_dtypes(), "timeout_ms": -1}, scope, shapes, frames_skip=3)
        return self._wrap(op._outputs)

    def dequeue_many(self, n, name=None):
        """n elements stacked along a new first dimension (blocks until n are there)."""
        return self._batch_op("QueueDequeueManyV2", "DequeueMany", n, name, True)

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but a closed queue gives what it has left (at least one)."""
        return self._batch_op("QueueDequeueUpToV2", "DequeueUpTo", n, name, False)

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op closing the queue: no more enqueues; dequeues drain what is left."""
        return self._op("QueueCloseV2", name, "Close", [], [],
                        {"cancel_pending_enqueues": bool(cancel_pending_enqueues)})

    def is_closed(self, name=None):
        """A bool tensor: is the queue closed?"""
        return self._op("QueueIsClosedV2", name, "Is_Closed", [], [_dt.bool])._outputs[0]

    def size(self, name=None):
        """An int32 tensor: the number of elements in the queue."""
        return self._op("QueueSizeV2", name, "Size", [], [_dt.int32])._outputs[0]


def _make_queue(op_type, dtypes, shapes, capacity, shared_name, name, extra=None):
    g = get_default_graph()
    attrs = {"component_types": dtypes, "shapes": shapes, "capacity": int(capacity),
             "container": "", "shared_name": shared_name or ""}
    attrs.update(extra or {})
    op = g._create_op(op_type, [], [_dt.resource], attrs, name, frames_skip=4)
    return op._outputs[0]


def _check_names(names, dtypes):
    if names is None:
        return None
    names = [names] if isinstance(names, str) else list(names)
    if len(names) != len(dtypes):
        raise ValueError("Queue names must have the same length as dtypes: %s vs %s" % (names, dtypes))
    return names


class FIFOQueue(QueueBase):
    """Elements leave in the order they came."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        ref = _make_queue("FIFOQueueV2", dtypes, shapes, capacity, shared_name, name)
        super().__init__(dtypes, shapes, _check_names(names, dtypes), ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose dequeue_many pads each component to the batch's largest shape (None dims)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        if len(shapes) != len(dtypes) or any(s.ndims is None for s in shapes):
            raise ValueError("Shapes must be provided for all components, but received %d dtypes and %d "
                             "shapes (each with a known rank)." % (len(dtypes), len(shapes)))
        ref = _make_queue("PaddingFIFOQueueV2", dtypes, shapes, capacity, shared_name, name)
        super().__init__(dtypes, shapes, _check_names(names, dtypes), ref)


class RandomShuffleQueue(QueueBase):
    """Dequeues a uniformly random element, keeping at least min_after_dequeue until closed."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        seed1, seed2 = get_seed(seed)
        extra = {"min_after_dequeue": int(min_after_dequeue), "seed": seed1 or 0, "seed2": seed2 or 0}
        ref = _make_queue("RandomShuffleQueueV2", dtypes, shapes, capacity, shared_name, name, extra)
        super().__init__(dtypes, shapes, _check_names(names, dtypes), ref)


class PriorityQueue(QueueBase):
    """Dequeues the element with the smallest int64 priority (given as each element's first component)."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        ref = _make_queue("PriorityQueueV2", types, shapes, capacity, shared_name, name)
        # The priority (int64 scalar) is every element's first component, named when names are given.
        all_types = [_dt.int64] + types
        super().__init__(all_types, [TensorShape([])] + shapes if shapes else [], _check_names(names, all_types),
                         ref)
