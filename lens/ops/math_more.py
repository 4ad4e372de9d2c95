"""More of tf.math and tf.*: mul/reciprocal without NaN, bincount, searchsorted, sort/argsort,
unique_with_counts, dynamic_partition, ensure_shape, timestamp, and TF's composite helpers
(log_sigmoid, scalar_mul, polyval, cumulative_logsumexp, reduce_euclidean_norm, ...)."""
import collections
import time

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import boolean_mask, gather, sequence_mask
from lens.ops.logic import equal, greater, greater_equal
from lens.ops.math_grad import binary_grad_pair
from lens.ops.core import stop_gradient
from lens.ops.nn import softplus
from lens.ops.nn_extra import top_k
from lens.ops.reduce import reduce_all, reduce_max, reduce_mean, reduce_prod, reduce_sum
from lens.ops.sequence import range as _range
from lens.ops.scan_ops import cumsum
from lens.ops.slicing import dynamic_stitch


def _fail(op, message):
    raise errors.InvalidArgumentError(None, op, message)


# ---- MulNoNan ----------------------------------------------------------------------------------
def _mul_no_nan(x, y):
    with np.errstate(all="ignore"):
        return np.where(y == 0, np.zeros_like(x * y), x * y)


def _mul_no_nan_grad(op, g):
    x, y = op._inputs
    return binary_grad_pair(op, multiply_no_nan(g, y), multiply_no_nan(x, g), smart=False)


register_op("MulNoNan", fn=_mul_no_nan, shape=M._bcast_shape, grad=_mul_no_nan_grad)


def multiply_no_nan(x, y, name=None):
    """x * y, but 0 where y is 0 even when x is inf or nan."""
    return apply_op("MulNoNan", [(x, "x"), (y, "y")], name=name or "MulNoNan")


def reciprocal_no_nan(x, name=None):
    """1 / x, 0 where x is 0."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return M.div_no_nan(convert_to_tensor(1, dtype=x.dtype.base_dtype), x, name=scope)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) computed as -softplus(-x) (stable for large |x|)."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return M.negative(softplus(M.negative(x)), name=scope)


def scalar_mul(scalar, x, name=None):
    """scalar * x for a 0-d scalar; ValueError for anything else."""
    scalar = convert_to_tensor(scalar, dtype=convert_to_tensor(x).dtype.base_dtype, name="scalar")
    if scalar.shape.ndims not in (None, 0):
        raise ValueError("Only scalar multiply works, got shape %s" % scalar.shape)
    with name_scope(name, "scalar_mul", [scalar, x]) as scope:
        return M.multiply(scalar, x, name=scope)


def polyval(coeffs, x, name=None):
    """coeffs[0] * x^(n-1) + ... + coeffs[n-1] by Horner's rule (coeffs a Python list)."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("Argument coeffs must be list type found %s." % type(coeffs))
    with name_scope(name, "polyval", list(coeffs) + [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return A.zeros_like(x, name=scope)
        p = convert_to_tensor(coeffs[0], dtype=x.dtype.base_dtype)
        for c in coeffs[1:]:
            p = M.add(convert_to_tensor(c, dtype=x.dtype.base_dtype), M.multiply(p, x))
        return A.identity(p, name=scope)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of a list of tensors of one shape and dtype (TF checks both up front)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [convert_to_tensor(t) for t in inputs]
    if any(t.dtype.base_dtype != inputs[0].dtype.base_dtype for t in inputs):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if tensor_dtype is not None and _dt.as_dtype(tensor_dtype) != inputs[0].dtype.base_dtype:
        raise TypeError("tensor_dtype is %s, but input is of type %s" % (tensor_dtype, inputs[0].dtype.name))
    want = as_shape(shape) if shape is not None else unknown_shape()
    for t in inputs:
        if not want.is_compatible_with(t.shape):
            raise ValueError("Shape %s of input is not compatible with shape %s" % (t.shape, want))
        want = want.merge_with(t.shape)
    with name_scope(name, "AccumulateN", inputs):
        return M.add_n(inputs) if len(inputs) > 1 else A.identity(inputs[0])


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x^2)) over axis."""
    with name_scope(name, "EuclideanNorm", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor, name="input")
        return M.sqrt(reduce_sum(M.square(x), axis=axis, keepdims=bool(keepdims)), name=scope)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))) along axis, shifted by the maximum for stability."""
    with name_scope(name, "CumulativeLogsumexp", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        top = stop_gradient(reduce_max(x, axis=axis, keepdims=True))
        summed = cumsum(M.exp(M.subtract(x, top)), axis=axis, exclusive=exclusive, reverse=reverse)
        return M.add(M.log(summed), top, name=scope)


def zero_fraction(value, name=None):
    """The fraction of zeros in value, as a float32 scalar."""
    with name_scope(name, "zero_fraction", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        zeros = M.cast(equal(value, convert_to_tensor(0, dtype=value.dtype.base_dtype)), _dt.float32)
        return reduce_mean(zeros, name=scope)


def is_non_decreasing(x, name=None):
    """True when x (flattened) has x[i] <= x[i+1] everywhere (true for fewer than 2 elements)."""
    with name_scope(name, "is_non_decreasing", [x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype in (_dt.string, _dt.bool):
            raise TypeError("Expected x to be numeric, got %s" % x.dtype.name)
        d = A.reshape(x, [-1])
        return reduce_all(greater_equal(d[1:], d[:-1]))


def is_strictly_increasing(x, name=None):
    """True when x (flattened) has x[i] < x[i+1] everywhere (true for fewer than 2 elements)."""
    with name_scope(name, "is_strictly_increasing", [x]):
        x = convert_to_tensor(x, name="x")
        d = A.reshape(x, [-1])
        return reduce_all(greater(d[1:], d[:-1]))


# ---- Bincount ----------------------------------------------------------------------------------
def _bincount_make(op, ctx):
    def run(arr, size, weights):
        arr = np.asarray(arr).reshape(-1)
        size = int(size)
        if size < 0:
            _fail(op, "Input size should be >= 0 but got %d." % size)
        if arr.size and arr.min() < 0:
            _fail(op, "Input arr must be non-negative!")
        w = np.asarray(weights)
        keep = arr < size
        out = np.zeros(size, op._attrs["T"].as_numpy_dtype)
        if w.size == 0:
            np.add.at(out, arr[keep], 1)
        else:
            np.add.at(out, arr[keep], w.reshape(-1)[keep])
        return out
    return run


register_op("Bincount", make=_bincount_make, shape=lambda op: [TensorShape([None])], not_differentiable=True)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dt.int32, name=None):
    """Counts of each value in the int32 arr (summed weights when given), of length max(arr) + 1,
    at least minlength and at most maxlength."""
    with name_scope(name, "bincount", [arr, weights]):
        arr = convert_to_tensor(arr, name="arr", dtype=_dt.int32)
        # max + 1, and 0 for an empty arr (the -1 sentinel)
        length = M.add(reduce_max(A.concat([A.reshape(arr, [-1]), [-1]], 0)), 1)
        if minlength is not None:
            length = M.maximum(convert_to_tensor(minlength, dtype=_dt.int32), length)
        if maxlength is not None:
            length = M.minimum(convert_to_tensor(maxlength, dtype=_dt.int32), length)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            dtype = weights.dtype.base_dtype
        else:
            dtype = _dt.as_dtype(dtype)
            weights = convert_to_tensor(np.zeros([0], dtype.as_numpy_dtype))
        return apply_op("Bincount", [(arr, "arr"), (length, "size"), (weights, "weights")], {"T": dtype},
                        name="Bincount", dtypes=[dtype], same_dtype=False)


# ---- LowerBound / UpperBound ---------------------------------------------------------------------
def _bound_make(side):
    def make(op, ctx):
        def run(seq, values):
            seq, values = np.asarray(seq), np.asarray(values)
            if seq.shape[:-1] != values.shape[:-1]:
                _fail(op, "Leading dim_size of both tensors must match.")
            out = np.empty(values.shape, op._attrs["out_type"].as_numpy_dtype)
            for i in np.ndindex(seq.shape[:-1]):
                out[i] = np.searchsorted(seq[i], values[i], side=side)
            return out
        return run
    return make


for _t, _side in (("LowerBound", "left"), ("UpperBound", "right")):
    register_op(_t, make=_bound_make(_side), shape=lambda op: [op._inputs[1].shape], not_differentiable=True)


def searchsorted(sorted_sequence, values, side="left", out_type=_dt.int32, name=None):
    """Indices where values would be inserted into the innermost dimension of sorted_sequence."""
    if side not in ("left", "right"):
        raise ValueError("side must be either 'right' or 'left'.  Saw: %s." % side)
    with name_scope(name, "searchsorted", [sorted_sequence, values]) as scope:
        seq = convert_to_tensor(sorted_sequence, name="sorted_inputs")
        values = convert_to_tensor(values, dtype=seq.dtype.base_dtype, name="values")
        out_type = _dt.as_dtype(out_type)
        return apply_op("LowerBound" if side == "left" else "UpperBound",
                        [(seq, "sorted_inputs"), (values, "values")], {"out_type": out_type, "T": seq.dtype},
                        name=scope, dtypes=[out_type])


# ---- sort / argsort ------------------------------------------------------------------------------
def _sorted_along(values, axis, direction, want_indices):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("%s should be one of ASCENDING, DESCENDING" % direction)
    x = convert_to_tensor(values, name="values")
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("sort/argsort need a tensor of known rank")
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise ValueError("axis %d out of range for a rank-%d tensor" % (axis, rank))
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    moved = A.transpose(x, perm) if axis != rank - 1 else x
    n = A.shape(moved)[-1]
    flip = direction == "ASCENDING"
    vals, idx = top_k(M.negative(moved) if flip else moved, k=n)
    out = idx if want_indices else (M.negative(vals) if flip else vals)
    return A.transpose(out, perm) if axis != rank - 1 else out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """values sorted along axis (via top_k, as TF)."""
    with name_scope(name, "sort", [values]):
        return _sorted_along(values, axis, direction, False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort values along axis (ties keep their order)."""
    del stable  # top_k is stable already: ties keep the lower index first
    with name_scope(name, "argsort", [values]):
        return _sorted_along(values, axis, direction, True)


# ---- UniqueWithCounts --------------------------------------------------------------------------------
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _uwc_make(op, ctx):
    idx_type = op._attrs["out_idx"].as_numpy_dtype

    def run(x):
        x = np.asarray(x)
        if x.ndim != 1:
            _fail(op, "unique expects a 1D vector.")
        values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        pos = np.empty_like(order)
        pos[order] = np.arange(order.size)
        return values[order], pos[inverse.reshape(-1)].astype(idx_type), counts[order].astype(idx_type)
    return run


register_op("UniqueWithCounts", make=_uwc_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None]), op._inputs[0].shape, TensorShape([None])])


def unique_with_counts(x, out_idx=_dt.int32, name=None):
    """(y, idx, count): the distinct values in first-occurrence order, x == y[idx], and their counts."""
    out_idx = _dt.as_dtype(out_idx)
    x = convert_to_tensor(x, name="x")
    outs = apply_op("UniqueWithCounts", [(x, "x")], {"out_idx": out_idx, "T": x.dtype}, name=name or "UniqueWithCounts",
                    dtypes=[x.dtype.base_dtype, out_idx, out_idx])
    return UniqueWithCounts(*outs)


# ---- DynamicPartition ---------------------------------------------------------------------------------
def _partition_make(op, ctx):
    n = op._attrs["num_partitions"]

    def run(data, partitions):
        data, partitions = np.asarray(data), np.asarray(partitions)
        if data.shape[:partitions.ndim] != partitions.shape:
            _fail(op, "data.shape must start with partitions.shape, got data.shape = %s, partitions.shape = %s"
                  % (list(data.shape), list(partitions.shape)))
        bad = (partitions < 0) | (partitions >= n)
        if bad.any():
            _fail(op, "partitions%s = %d is not in [0, %d)" % (list(np.argwhere(bad)[0]), partitions[bad][0], n))
        flat = data.reshape((-1,) + data.shape[partitions.ndim:])
        p = partitions.reshape(-1)
        return [flat[p == i] for i in range(n)]
    return run


def _partition_shape(op):
    d, p = op._inputs[0].shape, op._inputs[1].shape
    tail = TensorShape(d.as_list()[p.ndims:]) if d.ndims is not None and p.ndims is not None else unknown_shape()
    return [TensorShape([None]).concatenate(tail)] * op._attrs["num_partitions"]


def _partition_grad(op, *grads):
    """Stitch the gradients back at the positions each partition took (as TF's _DynamicPartitionGrads)."""
    data, partitions = op._inputs
    n = op._attrs["num_partitions"]
    original = A.shape(partitions)
    positions = A.reshape(_range(A.size(partitions)), original)
    parts = dynamic_partition(positions, partitions, n)
    grads = [g if g is not None else A.zeros_like(o) for g, o in zip(grads, op._outputs)]
    stitched = dynamic_stitch(parts, grads)
    return [A.reshape(stitched, A.shape(data)), None]


register_op("DynamicPartition", make=_partition_make, shape=_partition_shape, grad=_partition_grad)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """num_partitions tensors: data's slices whose partitions entry is i go to output i (in order)."""
    data = convert_to_tensor(data, name="data")
    partitions = convert_to_tensor(partitions, dtype=_dt.int32, name="partitions")
    outs = apply_op("DynamicPartition", [(data, "data"), (partitions, "partitions")],
                    {"num_partitions": int(num_partitions), "T": data.dtype}, name=name or "DynamicPartition",
                    dtypes=[data.dtype.base_dtype] * int(num_partitions), same_dtype=False)
    return list(outs) if isinstance(outs, list) else [outs]


# ---- EnsureShape, Timestamp -------------------------------------------------------------------------
def _ensure_make(op, ctx):
    want = op._attrs["shape"]

    def run(x):
        x = np.asarray(x)
        if not want.is_compatible_with(TensorShape(list(x.shape))):
            _fail(op, "Shape of tensor %s %s is not compatible with expected shape %s."
                  % (op._inputs[0].name, list(x.shape), want))
        return x
    return run


register_op("EnsureShape", make=_ensure_make, grad=lambda op, g: [g],
            shape=lambda op: [op._inputs[0].shape.merge_with(op._attrs["shape"])
                              if op._inputs[0].shape.is_compatible_with(op._attrs["shape"]) else op._attrs["shape"]])


def ensure_shape(x, shape, name=None):
    """x, checked at run time to have a shape compatible with shape (InvalidArgumentError otherwise)."""
    x = convert_to_tensor(x, name="input")
    shape = as_shape(shape)
    if not x.shape.is_compatible_with(shape):
        raise ValueError("Shape %s of '%s' is not compatible with the expected shape %s." % (x.shape, x.name, shape))
    return apply_op("EnsureShape", [(x, "input")], {"shape": shape, "T": x.dtype}, name=name or "EnsureShape")


register_op("Timestamp", fn=lambda: np.float64(time.time()), shape=lambda op: [TensorShape([])],
            not_differentiable=True, stateful=True)


def timestamp(name=None):
    """The current time in seconds since the epoch, as float64, when the op runs."""
    return apply_op("Timestamp", [], name=name or "Timestamp", dtypes=[_dt.float64])


# ---- composites of other ops ---------------------------------------------------------------------------
def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's argument name
    """Each slice of input along axis repeated repeats times (a scalar or one count per slice)."""
    with name_scope(name, "Repeat", [input, repeats]):
        x = convert_to_tensor(input, name="input")
        repeats = convert_to_tensor(repeats, dtype=_dt.int32, name="repeats")
        if axis is None:
            x, axis = A.reshape(x, [-1]), 0
        rank = x.shape.ndims
        axis = axis + rank if axis < 0 else axis
        perm = [axis] + [i for i in range(rank) if i != axis]
        moved = A.transpose(x, perm) if axis else x
        n = A.shape(moved)[0]
        counts = A.broadcast_to(repeats, A.reshape(n, [1])) if repeats.shape.ndims == 0 else repeats
        top = M.maximum(reduce_max(counts), 0)
        mask = A.reshape(sequence_mask(counts, top), A.stack([n, top]))     # [n, max], rank known
        tiled = A.tile(A.expand_dims(moved, 1), A.concat([[1], A.reshape(top, [1]), A.ones([rank - 1], _dt.int32)], 0))
        out = boolean_mask(tiled, mask)
        if not axis:
            return out
        inverse = [perm.index(i) for i in range(rank)]
        return A.transpose(out, inverse)


def shape_n(input, out_type=_dt.int32, name=None):  # noqa: A002
    """The shapes of a list of tensors."""
    with name_scope(name, "ShapeN", input):
        return [A.shape(convert_to_tensor(t), out_type=out_type) for t in input]


def batch_gather(params, indices, name=None):
    """params[b..., indices[b..., j]] for the leading batch dims shared by params and indices."""
    with name_scope(name, "BatchGather", [params, indices]):
        params = convert_to_tensor(params, name="params")
        indices = convert_to_tensor(indices, name="indices")
        nb = indices.shape.ndims - 1
        if nb < 0:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        pshape = A.shape(params)
        batch = reduce_prod(pshape[:nb]) if nb else 1
        inner = pshape[nb]
        offsets = M.multiply(A.reshape(_range(batch), [-1, 1]), inner)
        flat_idx = M.add(A.reshape(M.cast(indices, _dt.int32), [batch, -1]), offsets)
        flat_params = A.reshape(params, A.concat([[-1], pshape[nb + 1:]], 0))
        out = gather(flat_params, A.reshape(flat_idx, [-1]))
        return A.reshape(out, A.concat([A.shape(indices), pshape[nb + 1:]], 0))




__all__ = ["multiply_no_nan", "reciprocal_no_nan", "log_sigmoid", "scalar_mul", "polyval", "accumulate_n",
           "reduce_euclidean_norm", "cumulative_logsumexp", "zero_fraction", "is_non_decreasing",
           "is_strictly_increasing", "bincount", "searchsorted", "sort", "argsort", "unique_with_counts",
           "dynamic_partition", "ensure_shape", "timestamp", "repeat", "shape_n", "batch_gather"]


def _approx_top_k(operand, k, reduction_dimension, is_max_k, recall_target, name):
    """TF's approximate top-k computed exactly (recall 1 >= any recall_target): (values, int32 indices)."""
    if not 0 < recall_target <= 1:
        raise ValueError("recall_target must be in (0, 1], got %r" % recall_target)
    with name_scope(name, "ApproxTopK", [operand]):
        x = convert_to_tensor(operand, name="operand")
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("approx_top_k needs an operand of known rank")
        axis = reduction_dimension % rank
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        moved = A.transpose(x, perm) if axis != rank - 1 else x
        vals, idx = top_k(moved if is_max_k else M.negative(moved), k=k)
        vals = vals if is_max_k else M.negative(vals)
        if axis != rank - 1:
            vals, idx = A.transpose(vals, perm), A.transpose(idx, perm)
        return vals, idx


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The k largest entries along reduction_dimension and their indices (exact on lens's CPU kernels)."""
    del reduction_input_size_override, aggregate_to_topk
    return _approx_top_k(operand, k, reduction_dimension, True, recall_target, name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The k smallest entries along reduction_dimension and their indices (exact on lens's CPU kernels)."""
    del reduction_input_size_override, aggregate_to_topk
    return _approx_top_k(operand, k, reduction_dimension, False, recall_target, name)


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The raw ApproxTopK: approx_max_k or approx_min_k by is_max_k."""
    del reduction_input_size_override, aggregate_to_topk
    return _approx_top_k(input, k, reduction_dimension, is_max_k, recall_target, name)


__all__ += ["approx_max_k", "approx_min_k"]
