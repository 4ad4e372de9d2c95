"""tf.sparse, the rest: concat, slice, split, transpose, softmax, maximum/minimum, to_indicator,
expand_dims, eye, reset_shape (TF's op types; gradients where TF has them)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import gather, gather_nd
from lens.ops.logic import where
from lens.ops.reduce import reduce_max
from lens.ops.scatter_ops import sparse_to_dense
from lens.ops.sequence import range as _range
from lens.ops.shapes import const_value
from lens.ops.sparse_ops import (I64, check_bounds, row_major, sp_op, sparse_input, sparse_reduce_sum,
                                 sparse_reorder, merge_walk)

__all__ = ["sparse_concat", "sparse_slice", "sparse_split", "sparse_transpose", "sparse_softmax",
           "sparse_maximum", "sparse_minimum", "sparse_to_indicator", "sparse_expand_dims", "sparse_eye",
           "sparse_reset_shape"]

_IND = TensorShape([None, None])


# ---- SparseConcat ------------------------------------------------------------------------------
def _concat_make(op, ctx):
    dim, n = op._attrs["concat_dim"], op._attrs["N"]

    def run(*args):
        inds, vals, shapes = args[:n], args[n:2 * n], [np.asarray(s, np.int64) for s in args[2 * n:]]
        rank = len(shapes[0])
        d = dim % rank if -rank <= dim < rank else None
        if d is None:
            raise errors.InvalidArgumentError(None, op, "Concat dimension must be in range [%d, %d), got %d"
                                              % (-rank, rank, dim))
        for i, s in enumerate(shapes):
            if len(s) != rank or any(s[j] != shapes[0][j] for j in range(rank) if j != d):
                raise errors.InvalidArgumentError(None, op, "Input shapes must match: expected %s for "
                                                  "dimensions other than %d, got shape %s at position %d"
                                                  % (list(shapes[0]), d, list(s), i))
        offsets = np.cumsum([0] + [int(s[d]) for s in shapes])
        moved = []
        for ind, off in zip(inds, offsets):
            ind = np.array(ind, np.int64).reshape(-1, rank)
            ind[:, d] += off
            moved.append(ind)
        ind = np.concatenate(moved)
        val = np.concatenate([np.asarray(v) for v in vals])
        order = row_major(ind)
        out_shape = shapes[0].copy()
        out_shape[d] = offsets[-1]
        return ind[order], val[order], out_shape
    return run


register_op("SparseConcat", make=_concat_make, not_differentiable=True,
            shape=lambda op: [_IND, TensorShape([None]), op._inputs[-1].shape])


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """The SparseTensors sp_inputs joined along axis (expand_nonconcat_dim grows the other dims to the max)."""
    if concat_dim is not None:
        if axis is not None and axis != concat_dim:
            raise ValueError("Cannot specify both 'axis' and 'concat_dim'")
        axis = concat_dim
    expand = expand_nonconcat_dim or bool(expand_nonconcat_dims)
    sps = [sparse_input(s, "sp_inputs") for s in sp_inputs]
    if not sps:
        raise ValueError("sp_inputs must be a non-empty list of SparseTensors")
    with name_scope(name, "SparseConcat", [s.values for s in sps]) as scope:
        shapes = [s.dense_shape for s in sps]
        if expand:
            rank = sps[0].indices.shape.as_list()[1]
            if rank is None:
                raise ValueError("expand_nonconcat_dim needs the static rank of the inputs")
            top = shapes[0]
            for s in shapes[1:]:
                top = M.maximum(top, s)
            mask = [i == axis % rank for i in range(rank)]
            shapes = [where(mask, s, top) for s in shapes]
        ind, val, shp = sp_op("SparseConcat", [(s.indices, "indices_%d" % i) for i, s in enumerate(sps)] +
                              [(s.values, "values_%d" % i) for i, s in enumerate(sps)] +
                              [(s, "shapes_%d" % i) for i, s in enumerate(shapes)],
                              [I64, sps[0].dtype.base_dtype, I64], scope,
                              {"concat_dim": int(axis), "N": len(sps), "T": sps[0].dtype.base_dtype})
    return SparseTensor(ind, val, shp)


# ---- SparseSlice -------------------------------------------------------------------------------
def _slice_pick(indices, shape, start, size):
    start, size = np.asarray(start, np.int64), np.asarray(size, np.int64)
    stop = np.minimum(start + size, shape)
    keep = np.all((indices >= start) & (indices < stop), axis=1) if len(indices) else np.zeros(0, bool)
    return keep, start, np.maximum(stop - start, 0)


def _slice_make(op, ctx):
    def run(indices, values, shape, start, size):
        indices, shape = np.asarray(indices, np.int64), np.asarray(shape, np.int64)
        keep, start, out_shape = _slice_pick(indices, shape, start, size)
        return indices[keep] - start, np.asarray(values)[keep], out_shape
    return run


def _slice_grad(op, g_ind, g_val, g_shape):
    indices, _, _, start, _ = op._inputs
    return [None, sp_op("SparseSliceGrad", [(g_val, "backprop_val_grad"), (indices, "input_indices"),
                                            (start, "input_start"), (op._outputs[0], "output_indices")],
                        [g_val.dtype.base_dtype], "SparseSliceGrad")[0], None, None, None]


def _slice_grad_make(op, ctx):
    def run(grad, indices, start, out_indices):
        indices = np.asarray(indices, np.int64)
        pos = {tuple(r): k for k, r in enumerate(np.asarray(out_indices, np.int64) + np.asarray(start, np.int64))}
        grad = np.asarray(grad)
        return np.array([grad[pos[tuple(r)]] if tuple(r) in pos else 0 for r in indices], grad.dtype).reshape(-1)
    return run


register_op("SparseSlice", make=_slice_make, grad=_slice_grad,
            shape=lambda op: [_IND, TensorShape([None]), op._inputs[2].shape])
register_op("SparseSliceGrad", make=_slice_grad_make, not_differentiable=True,
            shape=lambda op: [TensorShape([op._inputs[1].shape[0] if op._inputs[1].shape.ndims else None])])


def sparse_slice(sp_input, start, size, name=None):
    """The entries of sp_input inside [start, start + size), re-indexed from start."""
    sp = sparse_input(sp_input)
    with name_scope(name, "SparseSlice", [sp.values]) as scope:
        st = convert_to_tensor(start, dtype=I64, name="start")
        sz = convert_to_tensor(size, dtype=I64, name="size")
        ind, val, shp = sp_op("SparseSlice", [(sp.indices, "indices"), (sp.values, "values"),
                                              (sp.dense_shape, "shape"), (st, "start"), (sz, "size")],
                              [I64, sp.dtype.base_dtype, I64], scope)
    return SparseTensor(ind, val, shp)


# ---- SparseSplit -------------------------------------------------------------------------------
def _split_make(op, ctx):
    n = op._attrs["num_split"]

    def run(split_dim, indices, values, shape):
        indices, shape, values = np.asarray(indices, np.int64), np.asarray(shape, np.int64), np.asarray(values)
        d = int(split_dim) % len(shape)
        if n > shape[d]:
            raise errors.InvalidArgumentError(None, op, "SparseSplit: num_split %d must not exceed the size of "
                                              "dimension %d (%d)" % (n, d, shape[d]))
        base, extra = divmod(int(shape[d]), n)
        sizes = [base + (1 if i < extra else 0) for i in range(n)]
        bounds = np.cumsum([0] + sizes)
        outs_i, outs_v, outs_s = [], [], []
        for i in range(n):
            keep = (indices[:, d] >= bounds[i]) & (indices[:, d] < bounds[i + 1])
            ind = indices[keep].copy()
            ind[:, d] -= bounds[i]
            s = shape.copy()
            s[d] = sizes[i]
            outs_i.append(ind)           # input order kept, as TF
            outs_v.append(values[keep])
            outs_s.append(s)
        return tuple(outs_i + outs_v + outs_s)
    return run


register_op("SparseSplit", make=_split_make, not_differentiable=True,
            shape=lambda op: [_IND] * op._attrs["num_split"] + [TensorShape([None])] * op._attrs["num_split"] +
            [op._inputs[3].shape] * op._attrs["num_split"])


def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None, split_dim=None):
    """sp_input cut into num_split SparseTensors along axis (the first ones one larger when uneven)."""
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if split_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'split_dim'")
        axis = split_dim
    if axis is None:
        raise ValueError("axis is required")
    sp = sparse_input(sp_input)
    n = int(num_split)
    with name_scope(name, "SparseSplit", [sp.values]) as scope:
        d = convert_to_tensor(axis, dtype=I64, name="split_dim")
        outs = sp_op("SparseSplit", [(d, "split_dim"), (sp.indices, "indices"), (sp.values, "values"),
                                     (sp.dense_shape, "shape")], [I64] * n + [sp.dtype.base_dtype] * n + [I64] * n,
                     scope, {"num_split": n})
    return [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]


# ---- transpose, softmax, maximum/minimum, to_indicator -----------------------------------------
def sparse_transpose(sp_input, perm=None, name=None):
    """sp_input with its dimensions permuted (reversed by default), reordered row-major."""
    sp = sparse_input(sp_input)
    with name_scope(name, "SparseTranspose", [sp.values]) as scope:
        if perm is None:
            rank = A.shape(sp.dense_shape)[0]
            perm = M.subtract(M.subtract(rank, 1), _range(rank))
        perm = convert_to_tensor(perm, name="perm")
        indices = A.transpose(gather(A.transpose(sp.indices), perm))
        shape = gather(sp.dense_shape, perm)
        return sparse_reorder(SparseTensor(indices, sp.values, shape), name=scope)


def _softmax_make(op, ctx):
    def run(indices, values, shape):
        indices, values = np.asarray(indices, np.int64), np.asarray(values)
        if len(shape) < 2:
            raise errors.InvalidArgumentError(None, op, "Input should have rank >= 2, but received shape: %s"
                                              % list(shape))
        # TF reorders to row-major and returns the values in that order (the input order if it is canonical).
        order = row_major(indices)
        indices, values = indices[order], values[order]
        out = np.empty_like(values)
        start = 0
        for k in range(1, len(values) + 1):
            if k == len(values) or (indices[k, :-1] != indices[start, :-1]).any():
                e = np.exp(values[start:k] - values[start:k].max())
                out[start:k] = e / e.sum()
                start = k
        return out
    return run


def _softmax_grad(op, grad):
    indices, _, shape = op._inputs
    out = op._outputs[0]
    per_row = sparse_reduce_sum(SparseTensor(indices, M.multiply(out, grad), shape), axis=-1)
    picked = gather_nd(per_row, indices[:, :-1])
    return [None, M.multiply(M.subtract(grad, picked), out), None]


register_op("SparseSoftmax", make=_softmax_make, grad=_softmax_grad, shape=lambda op: [op._inputs[1].shape])


def sparse_softmax(sp_input, name=None):
    """Softmax over the given values of each innermost row of sp_input (missing entries take no part)."""
    sp = sparse_input(sp_input)
    with name_scope(name, "SparseSoftmax", [sp.values]) as scope:
        val = sp_op("SparseSoftmax", [(sp.indices, "sp_indices"), (sp.values, "sp_values"),
                                      (sp.dense_shape, "sp_shape")], [sp.dtype.base_dtype], scope)[0]
    return SparseTensor(sp.indices, val, sp.dense_shape)


def _minmax_make(fn):
    def make(op, ctx):
        def run(ai, av, ashape, bi, bv, bshape):
            ai, bi = np.asarray(ai, np.int64), np.asarray(bi, np.int64)
            if list(ashape) != list(bshape):
                raise errors.InvalidArgumentError(None, op, "Operands do not have the same ranks; got shapes: "
                                                  "%s and %s" % (list(ashape), list(bshape)))
            check_bounds(op, ai, np.asarray(ashape))
            check_bounds(op, bi, np.asarray(bshape))
            av, bv = np.asarray(av), np.asarray(bv)
            walk = merge_walk(ai, bi)
            keys = np.array([ai[i] if i is not None else bi[j] for i, j in walk], np.int64).reshape(-1, len(ashape))
            a_full = np.array([av[i] if i is not None else 0 for i, _ in walk], av.dtype)
            b_full = np.array([bv[j] if j is not None else 0 for _, j in walk], av.dtype)
            return keys, fn(a_full, b_full)
        return run
    return make


for _t, _f in (("SparseSparseMaximum", np.maximum), ("SparseSparseMinimum", np.minimum)):
    register_op(_t, make=_minmax_make(_f), not_differentiable=True,
                shape=lambda op: [_IND, TensorShape([None])])


def _minmax(op_type, sp_a, sp_b, name):
    a, b = sparse_input(sp_a, "sp_a"), sparse_input(sp_b, "sp_b")
    with name_scope(name, op_type, [a.values, b.values]) as scope:
        ind, val = sp_op(op_type, [(a.indices, "a_indices"), (a.values, "a_values"), (a.dense_shape, "a_shape"),
                                   (b.indices, "b_indices"), (convert_to_tensor(b.values, dtype=a.dtype.base_dtype),
                                                              "b_values"), (b.dense_shape, "b_shape")],
                         [I64, a.dtype.base_dtype], scope)
    return SparseTensor(ind, val, a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """Elementwise max of two SparseTensors of the same shape (missing entries count as 0)."""
    return _minmax("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None):
    """Elementwise min of two SparseTensors of the same shape (missing entries count as 0)."""
    return _minmax("SparseSparseMinimum", sp_a, sp_b, name)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A bool tensor [..., vocab_size]: True at [..., id] for each id among the values of each row."""
    sp = sparse_input(sp_input)
    if not sp.dtype.base_dtype.is_integer:
        raise TypeError("sp_input.values must be an integer tensor, got %s" % sp.dtype.name)
    with name_scope(name, "SparseToIndicator", [sp.values]) as scope:
        vocab = convert_to_tensor(vocab_size, dtype=I64, name="vocab_size")
        ids = A.expand_dims(M.cast(sp.values, I64), 1)
        indices = A.concat([sp.indices[:, :-1], ids], 1)
        shape = A.concat([sp.dense_shape[:-1], A.reshape(vocab, [1])], 0)
        n = A.shape(sp.values)
        return sparse_to_dense(indices, shape, A.fill(n, True), default_value=False, validate_indices=False,
                               name=scope)


def sparse_expand_dims(sp_input, axis=None, name=None):
    """sp_input with a new dimension of size 1 at axis (default -1)."""
    sp = sparse_input(sp_input)
    with name_scope(name, "expand_dims", [sp.values]):
        axis = -1 if axis is None else int(axis)
        rank = sp.indices.shape.as_list()[1]
        if rank is None:
            raise ValueError("sparse.expand_dims needs the static rank of sp_input")
        at = axis % (rank + 1)
        zeros = A.zeros_like(sp.indices[:, :1])
        indices = A.concat([sp.indices[:, :at], zeros, sp.indices[:, at:]], 1)
        shape = A.concat([sp.dense_shape[:at], convert_to_tensor([1], dtype=I64), sp.dense_shape[at:]], 0)
        return SparseTensor(indices, A.identity(sp.values), shape)


def sparse_eye(num_rows, num_columns=None, dtype=_dt.float32, name=None):
    """A SparseTensor identity matrix [num_rows, num_columns] of dtype."""
    with name_scope(name, "eye"):
        rows = convert_to_tensor(num_rows, dtype=I64, name="num_rows")
        cols = rows if num_columns is None else convert_to_tensor(num_columns, dtype=I64, name="num_columns")
        diag = M.minimum(rows, cols)
        r = _range(diag)
        return SparseTensor(A.stack([r, r], axis=1), A.ones(A.reshape(diag, [1]), dtype=dtype),
                            A.stack([rows, cols]))


def sparse_reset_shape(sp_input, new_shape=None):
    """sp_input with dense_shape new_shape (default: the tightest shape holding its indices)."""
    sp = sparse_input(sp_input)
    if new_shape is None:
        shape = M.add(reduce_max(sp.indices, axis=0), 1)
    else:
        shape = convert_to_tensor(new_shape, dtype=I64, name="new_shape")
        cv = const_value(shape)
        if cv is not None and sp.shape.is_fully_defined() and np.any(np.asarray(cv) < sp.shape.as_list()):
            raise ValueError("new_shape %s is smaller than the dense shape %s of sp_input"
                             % (list(cv), sp.shape))
    return SparseTensor(A.identity(sp.indices), A.identity(sp.values), shape)
