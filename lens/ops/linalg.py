"""matmul (MatMul, BatchMatMulV2) and norm."""
import sys

import numpy as np

from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import intra_op
from lens.ops.conv_np import scratch
from lens.ops.shapes import broadcast_shapes
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape


# Products from this size up are written into the op's previous output when nothing holds it
# any more (a fresh block that big may come as new pages from the system, each one faulted in).
RECYCLE_MIN_BYTES = 1 << 16
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _matmul_make(op, ctx):
    ta, tb = op._attrs.get("transpose_a", False), op._attrs.get("transpose_b", False)
    held = [None]       # the previous big output, rewritten when nothing else refers to it
    ndarray, matmul_, refs, enabled = np.ndarray, np.matmul, sys.getrefcount, intra_op._enabled

    def run(a, b):
        if ta:
            a = a.T
        if tb:
            b = b.T
        if type(a) is ndarray and type(b) is ndarray and a.ndim == 2 == b.ndim and a.dtype == b.dtype \
                and a.dtype in _FLOATS:
            out = held[0]
            held[0] = None      # handed out once: a run on another thread meanwhile gets fresh memory
            # References: `out` and getrefcount's argument; any more (a fetch, a user's view) is a user.
            if out is not None and (refs(out) > 2 or out.shape[0] != a.shape[0] or out.shape[1] != b.shape[1]
                                    or out.dtype != a.dtype):
                out = None
            if out is None and a.shape[0] * b.shape[1] * a.itemsize < RECYCLE_MIN_BYTES:
                return matmul_(a, b)
            # Slices only in runs that may lend a helper (the executor's intra-op mode; whether
            # one is free never matters, so values never depend on the load). Elsewhere one
            # product: no packing of b once per slice (15-25% of an MLP layer's product).
            reused = out is not None
            if enabled[0] and a.shape[0] * a.shape[1] * b.shape[1] >= INTRA_MIN_MACS:
                out = _shared(a, b, out)
            elif out is None:
                out = matmul_(a, b)
            else:
                matmul_(a, b, out=out)
            # Only big arrays owning their memory are kept (a fresh big block may come as new
            # pages from the system, each one faulted in); a reused one goes out as a view of it.
            if out.base is None and out.nbytes >= RECYCLE_MIN_BYTES:
                held[0] = out
            return out.view() if reused else out
        return matmul_(a, b)
    return run


# Products with at least this many multiply-adds go in slices that an intra-op helper may share:
# slices of rows when there are many rows, else slices of columns (a product of few rows split
# by rows would pack all of b once per slice). The slicing depends on the shapes only, never on
# whether a helper is free, so the values never depend on the machine's load.
INTRA_MIN_MACS = 1 << 23
INTRA_MIN_SLICE = 128       # rows or columns per slice, at least
INTRA_MAX_SLICES = 8


# A product of at most this many rows by a transposed matrix (a @ B.T, B C-ordered: the input
# gradient of a dense layer) is made as (B @ a.T).T: OpenBLAS runs that shape faster, copy included.
SWAP_MAX_ROWS = 64


def _shared(a, b, out):
    """a @ b (2-D) into out (or a new array), in slices shared with the intra-op helper."""
    m, n = a.shape[0], b.shape[1]
    if out is None:
        out = np.empty((m, n), dtype=a.dtype)
    if m <= SWAP_MAX_ROWS and b.flags.f_contiguous and not b.flags.c_contiguous and n >= 2 * INTRA_MIN_SLICE:
        return _swapped(a, b.T, out)
    by_rows = m >= 2 * INTRA_MIN_SLICE or m >= n
    size = m if by_rows else n
    count = max(1, min(INTRA_MAX_SLICES, size // INTRA_MIN_SLICE))
    # column slices start on multiples of 16 (whole SIMD blocks of a row)
    bounds = [size * i // count if by_rows else (size * i // count) // 16 * 16 for i in range(count)] + [size]

    def one(i):
        lo, hi = bounds[i], bounds[i + 1]
        if by_rows:
            np.matmul(a[lo:hi], b, out=out[lo:hi])
        else:
            np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])
    intra_op.run_chunks(one, count)
    return out


def _swapped(a, bt, out):
    """out = a @ bt.T as (bt @ a.T).T, by slices of bt's rows (out's columns)."""
    n = bt.shape[0]
    count = max(1, min(INTRA_MAX_SLICES, n // INTRA_MIN_SLICE))
    bounds = [(n * i // count) // 16 * 16 for i in range(count)] + [n]
    at = a.T

    def one(i):
        lo, hi = bounds[i], bounds[i + 1]
        part = np.matmul(bt[lo:hi], at, out=scratch("matmul_swapped", (hi - lo, a.shape[0]), a.dtype))
        np.copyto(out[:, lo:hi], part.T)
    intra_op.run_chunks(one, count)
    return out


def _matmul_shape(op):
    a, b = op._inputs[0].shape, op._inputs[1].shape
    if a.ndims is None or b.ndims is None:
        return [unknown_shape(2)]
    if a.ndims != 2 or b.ndims != 2:
        _raise_rank(op, a if a.ndims != 2 else b)
    m, k1 = a.as_list()[::-1] if op._attrs.get("transpose_a") else a.as_list()
    k2, n = b.as_list()[::-1] if op._attrs.get("transpose_b") else b.as_list()
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError("Dimensions must be equal, but are %d and %d for '%s' (op: 'MatMul') with "
                         "input shapes: %s, %s." % (k1, k2, op.name, _fmt(a), _fmt(b)))
    return [TensorShape([m, n])]


def _fmt(s):
    return "[%s]" % ",".join("?" if d is None else str(d) for d in s.as_list())


def _raise_rank(op, s):
    raise ValueError("Shape must be rank 2 but is rank %d for '%s' (op: 'MatMul') with input "
                     "shapes: %s, %s." % (s.ndims, op.name, _fmt(op._inputs[0].shape), _fmt(op._inputs[1].shape)))


def _matmul_grad(op, grad):
    a, b = op._inputs
    ta, tb = op._attrs.get("transpose_a", False), op._attrs.get("transpose_b", False)
    if not ta and not tb:
        return [matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)]
    if not ta and tb:
        return [matmul(grad, b), matmul(grad, a, transpose_a=True)]
    if ta and not tb:
        return [matmul(b, grad, transpose_b=True), matmul(a, grad)]
    return [matmul(b, grad, transpose_a=True, transpose_b=True),
            matmul(grad, a, transpose_a=True, transpose_b=True)]


register_op("MatMul", make=_matmul_make, shape=_matmul_shape, grad=_matmul_grad)


def _bmm_make(op, ctx):
    ta, tb = op._attrs.get("adj_x", False), op._attrs.get("adj_y", False)

    def run(a, b):
        if ta:
            a = np.swapaxes(a, -1, -2)
        if tb:
            b = np.swapaxes(b, -1, -2)
        return np.matmul(a, b)
    return run


def _bmm_shape(op):
    a, b = op._inputs[0].shape, op._inputs[1].shape
    if a.ndims is None or b.ndims is None:
        return [unknown_shape()]
    da, db = a.as_list(), b.as_list()
    if op._attrs.get("adj_x"):
        da[-2], da[-1] = da[-1], da[-2]
    if op._attrs.get("adj_y"):
        db[-2], db[-1] = db[-1], db[-2]
    if da[-1] is not None and db[-2] is not None and da[-1] != db[-2]:
        raise ValueError("Dimensions must be equal, but are %d and %d for '%s' (op: 'BatchMatMulV2')"
                         % (da[-1], db[-2], op.name))
    batch = broadcast_shapes(TensorShape(da[:-2]), TensorShape(db[:-2]))
    return [batch.concatenate([da[-2], db[-1]])]


def _bmm_grad(op, grad):
    a, b = op._inputs
    ax, ay = op._attrs.get("adj_x", False), op._attrs.get("adj_y", False)
    if not ax and not ay:
        ga, gb = batch_matmul(grad, b, adj_y=True), batch_matmul(a, grad, adj_x=True)
    elif not ax and ay:
        ga, gb = batch_matmul(grad, b), batch_matmul(grad, a, adj_x=True)
    elif ax and not ay:
        ga, gb = batch_matmul(b, grad, adj_y=True), batch_matmul(a, grad)
    else:
        ga, gb = batch_matmul(b, grad, adj_x=True, adj_y=True), batch_matmul(grad, a, adj_x=True, adj_y=True)
    if a.shape.ndims == b.shape.ndims and a.shape.is_fully_defined() and b.shape.is_fully_defined() \
            and a.shape.as_list()[:-2] == b.shape.as_list()[:-2]:
        return [ga, gb]
    from lens.ops import array as A
    from lens.ops.reduce import reduce_sum
    sa, sb = A.shape(a), A.shape(b)
    from lens.ops.slicing import slice as _slice
    # Batch dims = all but the last two; sizes as 1-element tensors (a list holding a Tensor can't be a const).
    batch = lambda s: _slice(s, [0], A.expand_dims(A.size(s) - 2, 0))  # noqa: E731
    ra, rb = A.broadcast_gradient_args(batch(sa), batch(sb))
    return [A.reshape(reduce_sum(ga, ra), sa), A.reshape(reduce_sum(gb, rb), sb)]


register_op("BatchMatMulV2", make=_bmm_make, shape=_bmm_shape, grad=_bmm_grad)


def batch_matmul(x, y, adj_x=False, adj_y=False, name=None):
    """Batched matrix product with broadcasting batch dimensions."""
    return apply_op("BatchMatMulV2", [(x, "x"), (y, "y")], {"adj_x": adj_x, "adj_y": adj_y},
                    name=name or "MatMul")


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix product a @ b (batched when either input has rank > 2)."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
        ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
        ra, rb = a.shape.ndims, b.shape.ndims
        if (ra is not None and ra > 2) or (rb is not None and rb > 2):
            return apply_op("BatchMatMulV2", [(a, "x"), (b, "y")], {"adj_x": ta, "adj_y": tb}, name=scope)
        return apply_op("MatMul", [(a, "a"), (b, "b")], {"transpose_a": ta, "transpose_b": tb, "T": a.dtype},
                        name=scope)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """Vector/matrix norms: 'euclidean'/2, 1, np.inf over axis (int or a pair for 'fro')."""
    from lens.ops import math as M
    from lens.ops import reduce as R
    if keep_dims is not None:
        keepdims = keep_dims
    keepdims = bool(keepdims)
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if ord not in ("euclidean", "fro", 1, 2, np.inf) or (ord == "fro" and not (is_matrix or axis is None)):
        raise ValueError("'ord' must be a supported vector norm, got %s." % (ord,))
    if is_matrix and ord not in ("euclidean", "fro"):
        raise ValueError("'ord' %s is not supported for matrix norms in lens; use 'fro'." % (ord,))
    with name_scope(name, "norm", [tensor]) as scope:
        x = convert_to_tensor(tensor)
        if ord in ("euclidean", "fro", 2):
            return M.sqrt(R.reduce_sum(M.multiply(x, x), axis, keepdims=keepdims), name=scope)
        if ord == 1:
            return R.reduce_sum(M.abs(x), axis, keepdims=keepdims, name=scope)
        return R.reduce_max(M.abs(x), axis, keepdims=keepdims, name=scope)
