"""ConditionalAccumulator and SparseConditionalAccumulator: gradients gathered from many workers, averaged
(or summed) once enough of them arrived; gradients older than the accumulator's global step are dropped."""
import threading

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.indexed_slices import IndexedSlices
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from lens.ops import run_wait

__all__ = ["ConditionalAccumulatorBase", "ConditionalAccumulator", "SparseConditionalAccumulator"]


class _AccumulatorState:
    """One accumulator in one session: the running sum (dense, or per index), counts and the global step."""

    def __init__(self, sparse, reduction, shape):
        self.sparse, self.reduction, self.shape = sparse, reduction, shape
        self.cond = threading.Condition()
        self.global_step = 0
        self.reset()

    def reset(self):
        self.count = 0
        self.total = None           # dense: an array; sparse: {index: [sum, count]}

    def apply(self, op, local_step, grad, indices=None):
        with self.cond:
            if int(local_step) < self.global_step:
                return              # a stale gradient: dropped, as TF does
            self._check_shape(op, grad.shape[1:] if self.sparse else grad.shape)
            if not self.sparse:
                self.total = grad.astype(grad.dtype, copy=True) if self.total is None else self.total + grad
            else:
                self.total = {} if self.total is None else self.total
                for i, row in zip(np.asarray(indices).reshape(-1), grad):
                    slot = self.total.setdefault(int(i), [np.zeros_like(row), 0])
                    slot[0] = slot[0] + row
                    slot[1] += 1
            self.count += 1
            self.cond.notify_all()

    def _check_shape(self, op, shape):
        want = self.shape[1:] if self.sparse and self.shape.ndims else self.shape
        if want.ndims is not None and not want.is_compatible_with(TensorShape(list(shape))):
            raise errors.InvalidArgumentError(None, op, "Shape mismatch: expected %s, got %s" % (want, list(shape)))

    def take(self, op, num_required):
        num_required = int(num_required)
        if num_required < 1:
            raise errors.InvalidArgumentError(None, op, "Argument num_required must be positive, but was %d"
                                              % num_required)
        with self.cond:
            while self.count < num_required:
                run_wait.wait(self.cond, "Timed out waiting for notification (accumulator %s)" % op.name)
            total, count = self.total, self.count
            self.reset()
            self.global_step += 1
        if not self.sparse:
            return total / count if self.reduction == "MEAN" else total
        order = sorted(total)       # TF merges sorted index lists: the result is sorted
        values = np.stack([total[i][0] / (total[i][1] if self.reduction == "MEAN" else 1) for i in order])
        shape = [-1 if d is None else d for d in (self.shape.as_list() if self.shape.ndims else
                                                   [None] + list(values.shape[1:]))]
        return np.asarray(order, np.int64), values, np.asarray(shape, np.int64)


def _state(ctx, op_or_handle):
    h = np.asarray(op_or_handle, dtype=object)[()]
    return ctx.resources[("accumulator", h.decode() if isinstance(h, bytes) else str(h))]


def _create_make(op, ctx):
    key = op._attrs.get("shared_name") or op.name
    handle = np.array(key, dtype=object)

    def run():
        slot = ("accumulator", key)
        if slot not in ctx.resources:
            ctx.resources[slot] = _AccumulatorState(op._type == "SparseConditionalAccumulator",
                                                    op._attrs["reduction_type"], op._attrs["shape"])
        return handle
    return run


def _apply_make(op, ctx):
    dtype = op._attrs["dtype"].as_numpy_dtype
    if op._type == "ResourceAccumulatorApplyGradient":
        return lambda h, step, grad: _state(ctx, h).apply(op, step, np.asarray(grad, dtype))
    return lambda h, step, indices, values, *shape: _state(ctx, h).apply(op, step, np.asarray(values, dtype), indices)


def _take_make(op, ctx):
    return lambda h, n: _state(ctx, h).take(op, n)


def _set_step_make(op, ctx):
    def run(h, step):
        state = _state(ctx, h)
        with state.cond:
            state.global_step = int(step)
    return run


for _t in ("ResourceConditionalAccumulator", "SparseConditionalAccumulator"):
    register_op(_t, make=_create_make, not_differentiable=True, stateful=True, shape=lambda op: [TensorShape([])])
for _t in ("ResourceAccumulatorApplyGradient", "SparseAccumulatorApplyGradient"):
    register_op(_t, make=_apply_make, not_differentiable=True, stateful=True)
register_op("ResourceAccumulatorTakeGradient", make=_take_make, not_differentiable=True, stateful=True,
            shape=lambda op: [op._attrs["_shape"]])
register_op("SparseAccumulatorTakeGradient", make=_take_make, not_differentiable=True, stateful=True,
            shape=lambda op: [unknown_shape(), unknown_shape(), unknown_shape()])
for _t in ("ResourceAccumulatorSetGlobalStep", "SparseAccumulatorSetGlobalStep"):
    register_op(_t, make=_set_step_make, not_differentiable=True, stateful=True)
for _t in ("ResourceAccumulatorNumAccumulated", "SparseAccumulatorNumAccumulated"):
    register_op(_t, make=lambda op, ctx: lambda h: np.int32(_state(ctx, h).count), not_differentiable=True,
                stateful=True, shape=lambda op: [TensorShape([])])


class ConditionalAccumulatorBase:
    """What both accumulators share: the handle, dtype, num_accumulated and set_global_step."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = as_shape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    accumulator_ref = property(lambda self: self._accumulator_ref, doc="The accumulator's handle tensor.")
    name = property(lambda self: self._accumulator_ref.op.name, doc="The accumulator op's name.")
    dtype = property(lambda self: self._dtype, doc="The gradients' dtype.")

    def _prefix(self):
        return "Sparse" if self._sparse else "Resource"

    def _make(self, kind, name, inputs, out_dtypes, attrs=None, shapes=None, default=None):
        g = self._accumulator_ref.graph
        with g.as_default(), name_scope(name, default or self._prefix() + kind) as scope:
            ins = [self._accumulator_ref] + [x if hasattr(x, "op") else convert_to_tensor(x) for x in inputs]
            return g._create_op(self._prefix() + kind, ins, out_dtypes, attrs or {}, scope, shapes, frames_skip=4)

    def num_accumulated(self, name=None):
        """An int32 tensor: gradients gathered since the last take."""
        return self._make("AccumulatorNumAccumulated", name, [], [_dt.int32],
                          default="%s_NumAccumulated" % self._name)._outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """An op setting the global step that newer gradients must reach (older ones are dropped)."""
        step = convert_to_tensor(new_global_step, dtype=_dt.int64, name="new_global_step")
        return self._make("AccumulatorSetGlobalStep", name, [step], [])


def _reduction(reduction_type):
    if reduction_type not in ("MEAN", "SUM"):
        raise ValueError("reduction_type must be 'MEAN' or 'SUM', got %r" % (reduction_type,))
    return reduction_type


def _create(op_type, dtype, shape, shared_name, name, reduction_type):
    attrs = {"dtype": dtype, "shape": as_shape(shape) if shape is not None else unknown_shape(), "container": "",
             "shared_name": shared_name or "", "reduction_type": _reduction(reduction_type)}
    return get_default_graph()._create_op(op_type, [], [_dt.resource], attrs, name, frames_skip=4)._outputs[0]


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Dense gradients: take_grad(n) waits for n of them and returns their mean (or sum)."""

    _sparse = False

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator", reduction_type="MEAN"):
        dtype = _dt.as_dtype(dtype)
        ref = _create("ResourceConditionalAccumulator", dtype, shape, shared_name, name, reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """An op adding grad (dropped at run time when local_step is below the accumulator's global step)."""
        grad = convert_to_tensor(grad, dtype=self._dtype, name="grad")
        grad.shape.assert_is_compatible_with(self._shape)
        step = convert_to_tensor(local_step, dtype=_dt.int64, name="local_step")
        return self._make("AccumulatorApplyGradient", name, [step, grad], [], {"dtype": self._dtype})

    def take_grad(self, num_required, name=None):
        """The mean (or sum) of the gathered gradients once num_required arrived; then the global step moves on."""
        n = convert_to_tensor(num_required, dtype=_dt.int32, name="num_required")
        op = self._make("AccumulatorTakeGradient", name, [n], [self._dtype], {"dtype": self._dtype,
                                                                            "_shape": self._shape})
        return op._outputs[0]


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """IndexedSlices gradients: each index's rows are averaged over the gradients that touched it."""

    _sparse = True

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        dtype = _dt.as_dtype(dtype)
        ref = _create("SparseConditionalAccumulator", dtype, shape, shared_name, name, reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """apply_grad with an IndexedSlices."""
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step, name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """An op adding the rows grad_values at grad_indices (dropped when local_step is stale)."""
        indices = convert_to_tensor(grad_indices, dtype=_dt.int64, name="grad_indices")
        values = convert_to_tensor(grad_values, dtype=self._dtype, name="grad_values")
        if self._shape.ndims is not None and values.shape.ndims is not None:
            values.shape[1:].assert_is_compatible_with(self._shape[1:])
        step = convert_to_tensor(local_step, dtype=_dt.int64, name="local_step")
        ins = [step, indices, values]
        if grad_shape is not None:
            ins.append(convert_to_tensor(grad_shape, dtype=_dt.int64, name="grad_shape"))
        return self._make("AccumulatorApplyGradient", name, ins, [], {"dtype": self._dtype,
                                                                     "has_known_shape": grad_shape is not None})

    def take_grad(self, num_required, name=None):
        """(indices, values, shape) of the reduced gradient once num_required arrived."""
        n = convert_to_tensor(num_required, dtype=_dt.int32, name="num_required")
        op = self._make("AccumulatorTakeGradient", name, [n], [_dt.int64, self._dtype, _dt.int64],
                        {"dtype": self._dtype})
        return tuple(op._outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        """take_grad as an IndexedSlices."""
        indices, values, shape = self.take_grad(num_required, name)
        return IndexedSlices(values, indices, shape)
