"""Sparse-with-dense arithmetic: SparseTensor * / + dense (SparseDenseCwiseMul/Div/Add, the dense side
broadcast to the sparse shape) and the sparse segment reductions (tf.sparse_segment_sum/mean/sqrt_n)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import gather, gather_nd, unsorted_segment_sum
from lens.ops.slicing import slice as _slice
from lens.ops.sparse_ops import I64, check_bounds, sp_op, sparse_add, sparse_input

__all__ = ["sparse_dense_cwise_mul", "sparse_dense_cwise_div", "sparse_dense_cwise_add", "sparse_segment_sum",
           "sparse_segment_mean", "sparse_segment_sqrt_n"]


# ---- SparseDenseCwise{Mul,Div,Add} ---------------------------------------------------------------
def _dense_at(op, indices, shape, dense):
    """dense broadcast to shape, read at the sparse indices (TF: dense may only broadcast up)."""
    dense, shape = np.asarray(dense), np.asarray(shape, np.int64)
    if dense.ndim > len(shape) or any(d not in (1, s) for d, s in zip(dense.shape[::-1], shape[::-1])):
        raise errors.InvalidArgumentError(None, op, "SparseDenseBinaryOpShared broadcasts dense to sparse only; "
                                          "got incompatible shapes: [%s] vs. [%s]" % (
                                              ",".join(map(str, shape)), ",".join(map(str, dense.shape))))
    check_bounds(op, indices, shape)
    full = np.broadcast_to(dense, tuple(shape))
    return full[tuple(indices.T)] if len(indices) else np.zeros([0], dense.dtype)


def _cwise_make(fn):
    def make(op, ctx):
        def run(indices, values, shape, dense):
            indices = np.asarray(indices, np.int64)
            return fn(np.asarray(values), _dense_at(op, indices, shape, dense)).astype(np.asarray(values).dtype)
        return run
    return make


def _mul_or_div_grad(is_mul):
    def grad(op, g):
        x_indices, x_values, x_shape, y = op._inputs
        y_shape = M.cast(A.shape(y), I64)
        added = A.expand_dims(M.subtract(A.size(x_shape), A.size(y_shape)), 0)
        augmented = A.concat([A.ones(added, I64), y_shape], 0)
        scaled = M.floordiv(x_indices, M.floordiv(x_shape, augmented))
        scaled = _slice(scaled, A.concat([[0], M.cast(added, _dt.int32)], 0), [-1, -1])
        dense_vals = gather_nd(y, scaled)
        if is_mul:
            dx, dy_val = M.multiply(g, dense_vals), M.multiply(g, x_values)
        else:
            dx = M.truediv(g, dense_vals)
            dy_val = M.multiply(g, M.truediv(M.negative(x_values), M.square(dense_vals)))
        dy = sparse_add(A.zeros_like(y), SparseTensor(scaled, dy_val, y_shape))
        return [None, dx, None, dy]
    return grad


register_op("SparseDenseCwiseMul", make=_cwise_make(np.multiply), grad=_mul_or_div_grad(True),
            shape=lambda op: [op._inputs[1].shape])
register_op("SparseDenseCwiseDiv", make=_cwise_make(np.true_divide), grad=_mul_or_div_grad(False),
            shape=lambda op: [op._inputs[1].shape])
register_op("SparseDenseCwiseAdd", make=_cwise_make(np.add), not_differentiable=True,
            shape=lambda op: [op._inputs[1].shape])


def _cwise(op_type, sp_t, dense_t, name):
    sp = sparse_input(sp_t)
    with name_scope(name, op_type, [sp.values, dense_t]) as scope:
        d = convert_to_tensor(dense_t, dtype=sp.dtype.base_dtype, name="dense")
        val = sp_op(op_type, [(sp.indices, "sp_indices"), (sp.values, "sp_values"), (sp.dense_shape, "sp_shape"),
                              (d, "dense")], [sp.dtype.base_dtype], scope)[0]
    return SparseTensor(sp.indices, val, sp.dense_shape)


def sparse_dense_cwise_mul(sp_t, dense_t, name=None):
    """sp_t * dense_t at sp_t's entries (dense_t broadcast to sp_t's shape); a SparseTensor."""
    return _cwise("SparseDenseCwiseMul", sp_t, dense_t, name)


def sparse_dense_cwise_div(sp_t, dense_t, name=None):
    """sp_t / dense_t at sp_t's entries."""
    return _cwise("SparseDenseCwiseDiv", sp_t, dense_t, name)


def sparse_dense_cwise_add(sp_t, dense_t, name=None):
    """sp_t + dense_t at sp_t's entries only (a SparseTensor with sp_t's indices)."""
    return _cwise("SparseDenseCwiseAdd", sp_t, dense_t, name)


# SparseTensor's operators, as TF1 (`*`, `/` with a dense right operand).
SparseTensor.__mul__ = lambda self, other: sparse_dense_cwise_mul(self, other)
SparseTensor.__truediv__ = lambda self, other: sparse_dense_cwise_div(self, other)
SparseTensor.__div__ = SparseTensor.__truediv__


# ---- SparseSegmentSum / Mean / SqrtN --------------------------------------------------------------
def _segment_make(kind):
    def make(op, ctx):
        def run(data, indices, segment_ids, *num):
            data, idx, seg = np.asarray(data), np.asarray(indices).ravel(), np.asarray(segment_ids).ravel()
            if len(idx) != len(seg):
                raise errors.InvalidArgumentError(None, op, "segment_ids and indices should have same size.")
            bad = np.nonzero((idx < 0) | (idx >= data.shape[0]))[0]
            if len(bad):
                raise errors.InvalidArgumentError(None, op, "Bad: indices[%d] == %d out of range [0, %d)"
                                                  % (bad[0], idx[bad[0]], data.shape[0]))
            if len(seg) and (np.diff(seg) < 0).any():
                raise errors.InvalidArgumentError(None, op, "segment ids are not increasing")
            rows = int(num[0]) if num else (int(seg[-1]) + 1 if len(seg) else 0)
            if len(seg) and (seg[-1] >= rows or seg[0] < 0):
                raise errors.InvalidArgumentError(None, op, "segment ids must be in [0, %d), got %d"
                                                  % (rows, seg[-1]))
            out = np.zeros((rows,) + data.shape[1:], data.dtype)
            np.add.at(out, seg, data[idx])
            if kind != "sum":
                count = np.bincount(seg, minlength=rows).astype(data.dtype).reshape((-1,) + (1,) * (data.ndim - 1))
                scale = count if kind == "mean" else np.sqrt(count)
                out = np.where(count > 0, out / np.where(scale > 0, scale, 1), 0).astype(data.dtype)
            return out
        return run
    return make


def _segment_grad(kind):
    def grad(op, g):
        data, indices, segment_ids = op._inputs[:3]
        if kind != "sum":
            ones = A.ones_like(M.cast(segment_ids, g.dtype.base_dtype))
            count = unsorted_segment_sum(ones, segment_ids, A.shape(g)[0])
            scale = count if kind == "mean" else M.sqrt(count)
            safe = M.maximum(scale, M.cast(1, g.dtype.base_dtype))
            g = M.truediv(g, A.reshape(safe, A.concat([[-1], A.ones([A.rank(g) - 1], _dt.int32)], 0)))
        rows = A.shape(data)[0]
        return [unsorted_segment_sum(gather(g, segment_ids), indices, rows)] + [None] * (len(op._inputs) - 1)
    return grad


def _segment_shape(op):
    d = op._inputs[0].shape
    return [TensorShape([None] + d.as_list()[1:]) if d.ndims is not None else unknown_shape()]


for _kind, _type in (("sum", "SparseSegmentSum"), ("mean", "SparseSegmentMean"), ("sqrtn", "SparseSegmentSqrtN")):
    for _suffix in ("", "WithNumSegments"):
        register_op(_type + _suffix, make=_segment_make(_kind), grad=_segment_grad(_kind), shape=_segment_shape)


def _sparse_segment(op_type, data, indices, segment_ids, name, num_segments):
    with name_scope(name, op_type, [data, indices, segment_ids]) as scope:
        d = convert_to_tensor(data, name="data")
        i = convert_to_tensor(indices, name="indices")
        s = convert_to_tensor(segment_ids, name="segment_ids")
        for t, arg in ((i, "indices"), (s, "segment_ids")):
            if t.dtype.base_dtype not in (_dt.int32, _dt.int64):
                raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values: "
                                "int32, int64" % (arg, t.dtype.name))
        ins = [(d, "data"), (i, "indices"), (s, "segment_ids")]
        if num_segments is not None:
            op_type += "WithNumSegments"
            ins.append((convert_to_tensor(num_segments, name="num_segments"), "num_segments"))
        return sp_op(op_type, ins, [d.dtype.base_dtype], scope)[0]


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """out[segment_ids[k]] += data[indices[k]] (segment ids sorted)."""
    return _sparse_segment("SparseSegmentSum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """The mean of data[indices[k]] over each segment (empty segments give 0)."""
    return _sparse_segment("SparseSegmentMean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """The sum over each segment divided by sqrt(its size)."""
    return _sparse_segment("SparseSegmentSqrtN", data, indices, segment_ids, name, num_segments)
