"""tf.sparse core: to_dense, reorder, reshape, reduce_sum/max, dense matmul, add, from_dense, retain,
fill_empty_rows and sparse_placeholder, with TF's gradients (values only: indices are integers)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import (SparseTensor, SparseTensorValue,  # noqa: F401 - re-exported
                                          convert_to_tensor_or_sparse_tensor)
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.core import placeholder, placeholder_with_default
from lens.ops.indexing import gather, gather_nd
from lens.ops.logic import not_equal, where
from lens.ops.reduce import invert_permutation, reduce_sum, reduced_shape_op
from lens.ops.scatter_ops import sparse_to_dense
from lens.ops.sequence import range as _range
from lens.ops.shapes import const_value

__all__ = ["SparseTensor", "SparseTensorValue", "sparse_tensor_to_dense", "sparse_reorder", "sparse_reshape",
           "sparse_reduce_sum", "sparse_reduce_max", "sparse_tensor_dense_matmul", "sparse_add",
           "from_dense", "sparse_retain", "sparse_fill_empty_rows", "sparse_placeholder", "to_dense"]

I64 = _dt.int64


def sparse_input(sp, what="sp_input"):
    """sp as a SparseTensor (SparseTensorValue accepted); TypeError for anything else."""
    if isinstance(sp, SparseTensorValue):
        return SparseTensor.from_value(sp)
    if not isinstance(sp, SparseTensor):
        raise TypeError("Input must be a SparseTensor, got %r for %s" % (type(sp).__name__, what))
    return sp


def row_major(indices):
    """The permutation sorting index rows in row-major (lexicographic) order."""
    if indices.shape[0] == 0:
        return np.zeros([0], np.int64)
    return np.lexsort(indices.T[::-1])


def check_bounds(op, indices, shape):
    """TF's error for an index row outside dense_shape."""
    bad = np.nonzero(((indices < 0) | (indices >= shape)).any(axis=1))[0] if indices.size else []
    if len(bad):
        raise errors.InvalidArgumentError(None, op, "indices[%d] = [%s] is out of bounds: need 0 <= index < "
                                          "[%s]" % (bad[0], ",".join(map(str, indices[bad[0]])),
                                                    ",".join(map(str, shape))))


def sp_op(op_type, inputs, dtypes, name, attrs=None, shapes=None):
    """Create a sparse op from (tensor, arg) pairs; returns its outputs as a list."""
    out = apply_op(op_type, inputs, attrs, name=name, dtypes=dtypes, shapes=shapes, same_dtype=False)
    return out if isinstance(out, list) else [out]


def _rank_of(sp):
    """The static rank of a SparseTensor, or None."""
    n = sp.indices.shape.as_list()[1] if sp.indices.shape.ndims == 2 else None
    return n if n is not None else (sp.dense_shape.shape.as_list()[0] if sp.dense_shape.shape.ndims == 1 else None)


# ---- to_dense ----------------------------------------------------------------------------------
def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True, name=None):
    """The dense tensor of sp_input (default_value where no value is given)."""
    sp = sparse_input(sp_input)
    return sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default_value=default_value,
                           validate_indices=validate_indices, name=name or "SparseToDense")


to_dense = sparse_tensor_to_dense


# ---- SparseReorder -----------------------------------------------------------------------------
def _reorder_make(op, ctx):
    def run(indices, values, shape):
        indices = np.asarray(indices, np.int64)
        check_bounds(op, indices, np.asarray(shape))
        perm = row_major(indices)
        return indices[perm], np.asarray(values)[perm]
    return run


def _reorder_grad(op, ind_grad, grad):
    indices, _, shape = op._inputs
    n = A.shape(indices, out_type=I64)[0]
    order = sparse_reorder(SparseTensor(indices, _range(n), shape)).values
    return [None, gather(grad, invert_permutation(order)), None]


register_op("SparseReorder", make=_reorder_make, grad=_reorder_grad,
            shape=lambda op: [op._inputs[0].shape, op._inputs[1].shape])


def sparse_reorder(sp_input, name=None):
    """sp_input with its entries in row-major order (the canonical order most sparse ops expect)."""
    sp = sparse_input(sp_input)
    ind, val = sp_op("SparseReorder", [(sp.indices, "input_indices"), (sp.values, "input_values"),
                                       (sp.dense_shape, "input_shape")], [I64, sp.dtype.base_dtype],
                     name or "SparseReorder")
    return SparseTensor(ind, val, sp.dense_shape)


# ---- SparseReshape -----------------------------------------------------------------------------
def _reshape_make(op, ctx):
    def run(indices, shape, new_shape):
        shape, new = np.asarray(shape, np.int64), np.array(new_shape, np.int64)
        total = int(np.prod(shape))
        unknown = np.nonzero(new == -1)[0]
        if len(unknown) > 1:
            raise errors.InvalidArgumentError(None, op, "only one output dimension may be -1, not both %d "
                                              "and %d" % tuple(unknown[:2]))
        if len(unknown):
            rest = int(np.prod(new[new != -1]))
            if rest == 0 or total % rest:
                raise errors.InvalidArgumentError(None, op, "Input to reshape is a SparseTensor with %d dense "
                                                  "values, but the requested shape requires a multiple of "
                                                  "%d" % (total, rest))
            new[unknown[0]] = total // rest
        if int(np.prod(new)) != total:
            raise errors.InvalidArgumentError(None, op, "Input to reshape is a tensor with %d dense values, but "
                                              "the requested shape has %d" % (total, int(np.prod(new))))
        flat = np.ravel_multi_index(tuple(np.asarray(indices, np.int64).T), shape) if len(indices) else \
            np.zeros([0], np.int64)
        out = np.stack(np.unravel_index(flat, new), axis=1) if len(indices) else np.zeros([0, len(new)], np.int64)
        return out.astype(np.int64), new
    return run


register_op("SparseReshape", make=_reshape_make, not_differentiable=True,
            shape=lambda op: [TensorShape([op._inputs[0].shape[0] if op._inputs[0].shape.ndims else None,
                                           op._inputs[2].shape[0] if op._inputs[2].shape.ndims else None]),
                              op._inputs[2].shape])


def sparse_reshape(sp_input, shape, name=None):
    """sp_input with a new dense shape (one -1 allowed); values keep their row-major positions."""
    sp = sparse_input(sp_input)
    with name_scope(name, "SparseReshape", [sp.values]) as scope:
        new = convert_to_tensor(shape, dtype=I64, name="shape")
        ind, out_shape = sp_op("SparseReshape", [(sp.indices, "input_indices"), (sp.dense_shape, "input_shape"),
                                                 (new, "new_shape")], [I64, I64], scope)
    return SparseTensor(ind, A.identity(sp.values), out_shape)


# ---- SparseReduceSum / Max ---------------------------------------------------------------------
def _axes(axes, rank):
    ax = np.ravel(axes).astype(int) if np.size(axes) else np.arange(rank)
    return tuple(sorted(set(int(a) % rank for a in ax)))


def _reduce_make(kind):
    def make(op, ctx):
        keep = op._attrs.get("keep_dims", False)

        def run(indices, values, shape, axes):
            shape, values = np.asarray(shape, np.int64), np.asarray(values)
            indices = np.asarray(indices, np.int64)
            check_bounds(op, indices, shape)
            ax = _axes(axes, len(shape))
            where_ = tuple(indices.T)
            if kind == "sum":
                dense = np.zeros(shape, values.dtype)
                np.add.at(dense, where_, values)
                return dense.sum(axis=ax, keepdims=keep).astype(values.dtype)
            low = np.finfo(values.dtype).min if values.dtype.kind == "f" else np.iinfo(values.dtype).min
            dense = np.full(shape, low, values.dtype)
            seen = np.zeros(shape, bool)
            np.maximum.at(dense, where_, values)
            seen[where_] = True
            out = dense.max(axis=ax, keepdims=keep)
            return np.where(seen.any(axis=ax, keepdims=keep), out, 0).astype(values.dtype)
        return run
    return make


def _reduce_shape(op):
    shape, axes = const_value(op._inputs[2]), const_value(op._inputs[3])
    if shape is None or axes is None:
        return [unknown_shape()]
    shape = [int(d) for d in np.ravel(shape)]
    ax = _axes(axes, len(shape))
    keep = op._attrs.get("keep_dims", False)
    return [TensorShape([1 if i in ax else d for i, d in enumerate(shape)] if keep else
                        [d for i, d in enumerate(shape) if i not in ax])]


def _reduce_sum_grad(op, grad):
    indices, _, shape, axes = op._inputs
    kept = A.cast(reduced_shape_op(shape, axes), I64)
    g = A.reshape(grad, kept)
    scale = M.floordiv(shape, kept)
    return [None, gather_nd(g, M.floordiv(indices, scale)), None, None]


register_op("SparseReduceSum", make=_reduce_make("sum"), shape=_reduce_shape, grad=_reduce_sum_grad)
register_op("SparseReduceMax", make=_reduce_make("max"), shape=_reduce_shape, not_differentiable=True)


def _reduce(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims, name):
    sp = sparse_input(sp_input)
    if axis is not None and reduction_axes is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_axes'")
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    axis = axis if axis is not None else reduction_axes
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, op_type, [sp.values]) as scope:
        rank = _rank_of(sp)
        if axis is None:   # every axis, as TF's _ReductionDims
            ax = convert_to_tensor(list(range(rank)), dtype=_dt.int32, name="Const") if rank is not None \
                else _range(0, A.size(sp.dense_shape))
        elif isinstance(axis, Tensor):
            ax = convert_to_tensor(axis, dtype=_dt.int32, name="reduction_axes")
        else:
            ax = convert_to_tensor(np.reshape(axis, [-1]).astype(np.int32), name="reduction_axes")
        if ax.shape.ndims == 0:
            ax = A.reshape(ax, [1])
        return sp_op(op_type, [(sp.indices, "input_indices"), (sp.values, "input_values"),
                               (sp.dense_shape, "input_shape"), (ax, "reduction_axes")],
                     [sp.dtype.base_dtype], scope, {"keep_dims": keep})[0]


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """Sum of sp_input over axis (all axes when None), as a dense tensor."""
    return _reduce("SparseReduceSum", sp_input, axis, keepdims, reduction_axes, keep_dims, None)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """Max of the given values of sp_input over axis (0 where a group has none), as a dense tensor."""
    return _reduce("SparseReduceMax", sp_input, axis, keepdims, reduction_axes, keep_dims, None)


# ---- SparseTensorDenseMatMul ------------------------------------------------------------------
def _matmul_make(op, ctx):
    adj_a, adj_b = op._attrs.get("adjoint_a", False), op._attrs.get("adjoint_b", False)

    def run(indices, values, shape, b):
        indices, values, b = np.asarray(indices, np.int64), np.asarray(values), np.asarray(b)
        shape = np.asarray(shape, np.int64)
        check_bounds(op, indices, shape)
        rows, cols = (indices[:, 1], indices[:, 0]) if adj_a else (indices[:, 0], indices[:, 1])
        vals = np.conj(values) if adj_a else values
        bm = np.conj(b.T) if adj_b else b
        k = shape[0] if adj_a else shape[1]
        if bm.shape[0] != k:
            raise errors.InvalidArgumentError(None, op, "Cannot multiply A and B because inner dimension does "
                                              "not match: %d vs. %d.  Did you forget a transpose?  Dimensions "
                                              "of A: [%d, %d).  Dimensions of B: %s"
                                              % (k, bm.shape[0], shape[0], shape[1], list(b.shape)))
        out = np.zeros([shape[1] if adj_a else shape[0], bm.shape[1]], np.result_type(values, b))
        np.add.at(out, rows, vals[:, None] * bm[cols])
        return out
    return run


def _matmul_shape(op):
    s, b = const_value(op._inputs[2]), op._inputs[3].shape
    adj_a, adj_b = op._attrs.get("adjoint_a", False), op._attrs.get("adjoint_b", False)
    m = None if s is None else int(np.ravel(s)[1 if adj_a else 0])
    n = b.as_list()[0 if adj_b else 1] if b.ndims == 2 else None
    return [TensorShape([m, n])]


def _matmul_grad(op, grad):
    indices, values, shape, b = op._inputs
    adj_a, adj_b = op._attrs.get("adjoint_a", False), op._attrs.get("adjoint_b", False)
    a = SparseTensor(indices, values, shape)
    b_grad = sparse_tensor_dense_matmul(a, grad, adjoint_a=not adj_a)
    if adj_b:
        b_grad = A.transpose(b_grad)
    rows, cols = A.unstack(indices, num=2, axis=1) if indices.shape.ndims == 2 and indices.shape[1] == 2 \
        else (indices[:, 0], indices[:, 1])
    if adj_a:
        rows, cols = cols, rows
    parts_a = gather(grad, rows)
    parts_b = gather(A.transpose(b) if adj_b else b, cols)
    return [None, reduce_sum(M.multiply(parts_a, parts_b), axis=1), None, b_grad]


register_op("SparseTensorDenseMatMul", make=_matmul_make, shape=_matmul_shape, grad=_matmul_grad)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The dense product sp_a @ b (adjoint_a / adjoint_b transpose the operands first)."""
    sp = sparse_input(sp_a, "sp_a")
    with name_scope(name, "SparseTensorDenseMatMul", [sp.values, b]) as scope:
        bt = convert_to_tensor(b, name="b", dtype=sp.dtype.base_dtype)
        return sp_op("SparseTensorDenseMatMul", [(sp.indices, "a_indices"), (sp.values, "a_values"),
                                                 (sp.dense_shape, "a_shape"), (bt, "b")],
                     [sp.dtype.base_dtype], scope, {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b),
                                                    "T": sp.dtype.base_dtype, "Tindices": I64})[0]


# ---- SparseAdd / SparseTensorDenseAdd ----------------------------------------------------------
def merge_walk(ai, bi):
    """TF's union of two index lists as given (row-major expected): (i, j) per output entry, None for a
    side without it. Unordered inputs merge exactly as TF's kernels merge them."""
    out, i, j = [], 0, 0
    ta, tb = [tuple(r) for r in ai.tolist()], [tuple(r) for r in bi.tolist()]
    while i < len(ta) and j < len(tb):
        if ta[i] < tb[j]:
            out.append((i, None))
            i += 1
        elif ta[i] == tb[j]:
            out.append((i, j))
            i += 1
            j += 1
        else:
            out.append((None, j))
            j += 1
    out.extend((k, None) for k in range(i, len(ta)))
    out.extend((None, k) for k in range(j, len(tb)))
    return out


def _add_make(op, ctx):
    def run(ai, av, ashape, bi, bv, bshape, thresh):
        ai, bi = np.asarray(ai, np.int64).reshape(-1, len(ashape)), np.asarray(bi, np.int64).reshape(-1, len(bshape))
        if list(ashape) != list(bshape):
            raise errors.InvalidArgumentError(None, op, "Operands do not have the same ranks; got shapes: %s "
                                              "and %s" % (list(ashape), list(bshape)) if len(ashape) != len(bshape)
                                              else "Operands' shapes do not match: got %s and %s"
                                              % (list(ashape), list(bshape)))
        av, bv = np.asarray(av), np.asarray(bv)
        ind, val = [], []
        for i, j in merge_walk(ai, bi):
            if i is not None and j is not None:
                total = av[i] + bv[j]
                if np.abs(total) >= thresh:      # TF thresholds only the entries both operands hold
                    ind.append(ai[i])
                    val.append(total)
            else:
                ind.append(ai[i] if i is not None else bi[j])
                val.append(av[i] if i is not None else bv[j])
        return (np.array(ind, np.int64).reshape(-1, len(ashape)), np.array(val, av.dtype),
                np.asarray(ashape, np.int64))
    return run


def _add_grad(op, ind_grad, val_grad, shape_grad):
    a_ind, _, _, b_ind = op._inputs[:4]
    da, db = sp_op("SparseAddGrad", [(val_grad, "backprop_val_grad"), (a_ind, "a_indices"),
                                     (b_ind, "b_indices"), (op._outputs[0], "sum_indices")],
                   [val_grad.dtype.base_dtype] * 2, "SparseAddGrad")
    return [None, da, None, None, db, None, None]


def _add_grad_make(op, ctx):
    def run(grad, ai, bi, si):
        grad = np.asarray(grad)
        ai, bi, si = (np.asarray(x, np.int64) for x in (ai, bi, si))
        da, db = np.zeros(len(ai), grad.dtype), np.zeros(len(bi), grad.dtype)
        k = 0
        for i, j in merge_walk(ai, bi):       # the sum's entries in the forward merge order (some dropped)
            key = ai[i] if i is not None else bi[j]
            if k < len(si) and (si[k] == key).all():
                if i is not None:
                    da[i] = grad[k]
                if j is not None:
                    db[j] = grad[k]
                k += 1
        return da, db
    return run


register_op("SparseAdd", make=_add_make, grad=_add_grad,
            shape=lambda op: [TensorShape([None, op._inputs[0].shape[1] if op._inputs[0].shape.ndims == 2
                                           else None]), TensorShape([None]), op._inputs[2].shape])
register_op("SparseAddGrad", make=_add_grad_make, not_differentiable=True,
            shape=lambda op: [TensorShape([op._inputs[1].shape[0] if op._inputs[1].shape.ndims else None]),
                              TensorShape([op._inputs[2].shape[0] if op._inputs[2].shape.ndims else None])])


def _dense_add_make(op, ctx):
    def run(ai, av, shape, b):
        b = np.asarray(b)
        if list(b.shape) != [int(d) for d in shape]:
            raise errors.InvalidArgumentError(None, op, "Dimensions of sparse and dense operands do not match: "
                                              "%s vs %s" % (list(map(int, shape)), list(b.shape)))
        out = b.copy()
        check_bounds(op, np.asarray(ai, np.int64), np.asarray(shape))
        if out.ndim == 0:            # a rank-0 "sparse" tensor: every value lands on the one element
            return (out + np.sum(av)).astype(b.dtype)
        np.add.at(out, tuple(np.asarray(ai, np.int64).T), av)
        return out
    return run


register_op("SparseTensorDenseAdd", make=_dense_add_make, shape=lambda op: [op._inputs[3].shape],
            grad=lambda op, g: [None, gather_nd(g, op._inputs[0]), None, g])


def sparse_add(a, b, threshold=None, thresh=None):
    """a + b: sparse + sparse is sparse (entries with |sum| < threshold dropped), else dense."""
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'threshold' and 'thresh'")
    threshold = threshold if threshold is not None else (thresh if thresh is not None else 0)
    a_sp, b_sp = isinstance(a, (SparseTensor, SparseTensorValue)), isinstance(b, (SparseTensor, SparseTensorValue))
    if not (a_sp or b_sp):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if a_sp and b_sp:
        a, b = sparse_input(a, "a"), sparse_input(b, "b")
        a.shape.assert_is_compatible_with(b.shape)
        with name_scope(None, "SparseAdd", [a.values, b.values]) as scope:
            th = convert_to_tensor(threshold, dtype=a.dtype.real_dtype if a.dtype.is_complex else a.dtype.base_dtype,
                                   name="threshold")
            ind, val, shp = sp_op("SparseAdd", [(a.indices, "a_indices"), (a.values, "a_values"),
                                                (a.dense_shape, "a_shape"), (b.indices, "b_indices"),
                                                (convert_to_tensor(b.values, dtype=a.dtype.base_dtype), "b_values"),
                                                (b.dense_shape, "b_shape"), (th, "thresh")],
                                  [I64, a.dtype.base_dtype, I64], scope)
        return SparseTensor(ind, val, shp)
    sp, dense = (sparse_input(a, "a"), b) if a_sp else (sparse_input(b, "b"), a)
    with name_scope(None, "SparseTensorDenseAdd", [sp.values]) as scope:
        d = convert_to_tensor(dense, dtype=sp.dtype.base_dtype, name="b")
        return sp_op("SparseTensorDenseAdd", [(sp.indices, "a_indices"), (sp.values, "a_values"),
                                              (sp.dense_shape, "a_shape"), (d, "b")], [sp.dtype.base_dtype], scope)[0]


# ---- from_dense, retain, fill_empty_rows, placeholder -------------------------------------------
def from_dense(tensor, name=None):
    """The SparseTensor of tensor's non-zero (non-empty for strings) entries."""
    with name_scope(name, "dense_to_sparse", [tensor]):
        t = convert_to_tensor(tensor)
        zero = convert_to_tensor(b"" if t.dtype.base_dtype is _dt.string else 0, dtype=t.dtype.base_dtype)
        indices = where(not_equal(t, zero))
        return SparseTensor(indices, gather_nd(t, indices), A.shape(t, out_type=I64))


def sparse_retain(sp_input, to_retain):
    """The entries of sp_input where the boolean vector to_retain is true."""
    sp = sparse_input(sp_input)
    keep = convert_to_tensor(to_retain, dtype=_dt.bool, name="to_retain")
    if keep.shape.ndims not in (None, 1):
        raise ValueError("to_retain must be a vector, got shape %s" % keep.shape)
    if keep.shape.ndims == 1:
        keep.shape.with_rank(1)[0].merge_with(sp.values.shape[0])
    where_true = A.reshape(where(keep), [-1])
    return SparseTensor(gather(sp.indices, where_true), gather(sp.values, where_true), A.identity(sp.dense_shape))


def _fill_make(op, ctx):
    def run(indices, values, shape, default):
        indices, values, shape = np.asarray(indices, np.int64), np.asarray(values), np.asarray(shape, np.int64)
        if len(shape) == 0 or shape[0] < 0:
            raise errors.InvalidArgumentError(None, op, "dense_shape must be a non-empty vector with a "
                                              "non-negative first dimension, got %s" % list(shape))
        n_rows = int(shape[0])
        has = np.zeros(n_rows, bool)
        if len(indices):
            has[indices[:, 0]] = True
        empty = np.nonzero(~has)[0]
        extra = np.zeros([len(empty), len(shape)], np.int64)
        extra[:, 0] = empty
        all_ind = np.concatenate([indices, extra])
        all_val = np.concatenate([values, np.full(len(empty), default, values.dtype)])
        perm = np.argsort(all_ind[:, 0], kind="stable")
        reverse = np.empty(len(perm), np.int64)
        reverse[perm] = np.arange(len(perm))
        return all_ind[perm], all_val[perm], ~has, reverse[:len(indices)]
    return run


def _fill_grad(op, g_ind, g_val, g_empty, g_rev):
    d_values = gather(g_val, op._outputs[3])
    return [None, d_values, None, M.subtract(reduce_sum(g_val), reduce_sum(d_values))]


register_op("SparseFillEmptyRows", make=_fill_make, grad=_fill_grad,
            shape=lambda op: [TensorShape([None, op._inputs[0].shape[1] if op._inputs[0].shape.ndims == 2
                                           else None]), TensorShape([None]), TensorShape([None]),
                              TensorShape([op._inputs[0].shape[0] if op._inputs[0].shape.ndims == 2 else None])])


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """(sp_input with default_value at [row, 0, ...] of every empty row, the bool vector of empty rows)."""
    sp = sparse_input(sp_input)
    with name_scope(name, "SparseFillEmptyRows", [sp.values]) as scope:
        d = convert_to_tensor(default_value, dtype=sp.dtype.base_dtype, name="default_value")
        ind, val, empty, _ = sp_op("SparseFillEmptyRows", [(sp.indices, "indices"), (sp.values, "values"),
                                                           (sp.dense_shape, "dense_shape"), (d, "default_value")],
                                   [I64, sp.dtype.base_dtype, _dt.bool, I64], scope)
    return SparseTensor(ind, val, sp.dense_shape), empty


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of three placeholders, fed with a SparseTensorValue."""
    shape_name = (name + "/shape") if name is not None else None
    if shape is None:
        rank = None
        dense_shape = placeholder(I64, shape=[rank], name=shape_name)
    else:
        shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
        rank = shape.ndims
        if shape.is_fully_defined():
            dense_shape = placeholder_with_default(np.array(shape.as_list(), np.int64), [rank], name=shape_name)
        else:
            dense_shape = placeholder(I64, shape=[rank], name=shape_name)
    return SparseTensor(
        values=placeholder(dtype, shape=[None], name=(name + "/values") if name is not None else None),
        indices=placeholder(I64, shape=[None, rank], name=(name + "/indices") if name is not None else None),
        dense_shape=dense_shape)
