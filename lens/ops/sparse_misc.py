"""The remaining TF1 sparse helpers: sparse_reduce_sum_sparse / sparse_reduce_max_sparse (sparse results),
sparse_merge, sparse_mask (IndexedSlices) and sparse_matmul (a dense MatMul with sparsity hints)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.indexed_slices import IndexedSlices
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import gather
from lens.ops.linalg import _matmul_grad, _matmul_make, _matmul_shape
from lens.ops.sequence import range as _range
from lens.ops.special_ops import setdiff1d
from lens.ops.sparse_ops import I64, _axes, _reduce_make, sp_op, sparse_input, sparse_reorder

__all__ = ["sparse_reduce_sum_sparse", "sparse_reduce_max_sparse", "sparse_merge", "sparse_mask", "sparse_matmul"]


def _reduce_sparse_make(kind):
    dense_make = _reduce_make(kind)

    def make(op, ctx):
        dense = dense_make(op, ctx)
        keep = op._attrs.get("keep_dims", False)

        def run(indices, values, shape, axes):
            out = dense(indices, values, shape, axes)
            shape = np.asarray(shape, np.int64)
            ax = _axes(axes, len(shape))
            present = np.zeros(shape, bool)
            if len(indices):
                present[tuple(np.asarray(indices, np.int64).T)] = True
            mask = present.any(axis=ax, keepdims=keep)
            where = np.argwhere(mask).astype(np.int64)
            return where, np.asarray(out)[mask], np.array(mask.shape, np.int64)
        return run
    return make


for _kind, _type in (("sum", "SparseReduceSumSparse"), ("max", "SparseReduceMaxSparse")):
    register_op(_type, make=_reduce_sparse_make(_kind), not_differentiable=True,
                shape=lambda op: [TensorShape([None, None]), TensorShape([None]), TensorShape([None])])


def _reduce_sparse(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims):
    sp = sparse_input(sp_input)
    axis = axis if axis is not None else reduction_axes
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(None, op_type, [sp.values]) as scope:
        if axis is None:
            ax = A.reshape(M.cast(_all_axes(sp), _dt.int32), [-1])
        else:
            ax = convert_to_tensor(np.reshape(axis, [-1]).astype(np.int32), name="reduction_axes")
        ind, val, shp = sp_op(op_type, [(sp.indices, "input_indices"), (sp.values, "input_values"),
                                        (sp.dense_shape, "input_shape"), (ax, "reduction_axes")],
                              [I64, sp.dtype.base_dtype, I64], scope, {"keep_dims": keep})
    return SparseTensor(ind, val, shp)


def _all_axes(sp):
    return _range(0, A.size(sp.dense_shape))


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """sparse_reduce_sum with a SparseTensor result (only groups holding values)."""
    return _reduce_sparse("SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes, keep_dims)


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """sparse_reduce_max with a SparseTensor result."""
    return _reduce_sparse("SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes, keep_dims)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """A SparseTensor [..., vocab_size] holding sp_values at [..., id] for the ids of sp_ids."""
    ids = sparse_input(sp_ids, "sp_ids")
    vals = sparse_input(sp_values, "sp_values")
    if not ids.dtype.base_dtype.is_integer:
        raise TypeError("sp_ids.values.dtype=%s is not integer" % ids.dtype.name)
    with name_scope(name, "SparseMerge", [ids.values, vals.values]):
        new_ids = A.expand_dims(M.cast(ids.values, I64), 1)
        indices = A.concat([ids.indices[:, :-1], new_ids], 1)
        shape = A.concat([ids.dense_shape[:-1], A.reshape(convert_to_tensor(vocab_size, dtype=I64), [1])], 0)
        merged = SparseTensor(indices, vals.values, shape)
        return merged if already_sorted else sparse_reorder(merged)


def sparse_mask(a, mask_indices, name=None):
    """The IndexedSlices a without the slices whose index is in mask_indices."""
    if not isinstance(a, IndexedSlices):
        raise TypeError("sparse_mask needs IndexedSlices, got %r" % (a,))
    with name_scope(name, "sparse_mask", [a.values, a.indices, mask_indices]):
        _, to_gather = setdiff1d(a.indices, convert_to_tensor(mask_indices, dtype=a.indices.dtype.base_dtype))
        return IndexedSlices(gather(a.values, to_gather), gather(a.indices, to_gather), a.dense_shape)


register_op("SparseMatMul", make=_matmul_make, shape=_matmul_shape, grad=_matmul_grad)


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for float32 matrices (the sparsity flags are hints; the result is exact)."""
    with name_scope(name, "SparseMatMul", [a, b]) as scope:
        at = convert_to_tensor(a, name="a")
        bt = convert_to_tensor(b, name="b")
        for t, arg in ((at, "a"), (bt, "b")):
            if t.dtype.base_dtype is not _dt.float32:
                raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values: "
                                "float32, bfloat16" % (arg, t.dtype.name))
        return apply_op("SparseMatMul", [(at, "a"), (bt, "b")],
                        {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b),
                         "a_is_sparse": bool(a_is_sparse), "b_is_sparse": bool(b_is_sparse)}, name=scope,
                        dtypes=[_dt.float32], same_dtype=False)
