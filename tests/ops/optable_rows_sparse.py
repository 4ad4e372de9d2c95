"""Op-table rows: the tf.sparse ops (NumPy references written from the dense meaning of each op)."""
import numpy as np

from lens.ops import sparse_ops as S
from lens.ops import sparse_ops_extra as X
from optable_lib import FIX, F, Row

IND = [[2, 0], [0, 1], [1, 2], [0, 0]]      # deliberately not row-major
SHAPE = [3, 3]


def _sp(v, ind=IND, shape=SHAPE):
    return S.SparseTensor(ind, v, shape)


def _dense(ind, v, shape):
    out = np.zeros(shape, np.asarray(v).dtype)
    for r, x in zip(ind, v):
        out[tuple(r)] += x
    return out


def _sorted(ind, v):
    order = sorted(range(len(ind)), key=lambda k: tuple(ind[k]))
    return np.array([ind[k] for k in order], np.int64).reshape(-1, 2 if not ind else len(ind[0])), \
        np.array([v[k] for k in order], np.asarray(v).dtype)


def _triple(sp):
    return [sp.indices, sp.values, sp.dense_shape]


def _from_dense(d):
    ind = np.argwhere(d != 0).astype(np.int64)
    return ind, d[tuple(ind.T)] if len(ind) else d.ravel()[:0]


def _matmul_ref(v, b, adj_a, adj_b):
    a = _dense(IND, v, SHAPE)
    return (a.T if adj_a else a) @ (b.T if adj_b else b)


B_IND = [[0, 1], [1, 1], [2, 2]]
SIND = sorted(IND)     # the canonical (row-major) order the merging ops expect; unordered input: the TF fixture


def _add_ref(av, bv, thresh=0.0):
    d = _dense(SIND, av, SHAPE) + _dense(B_IND, bv, SHAPE)
    count = _dense(SIND, np.ones(4), SHAPE) + _dense(B_IND, np.ones(3), SHAPE)
    # TF drops only the sums of entries both operands hold when |sum| < thresh.
    ind = np.argwhere((count == 1) | ((count == 2) & (np.abs(d) >= thresh))).astype(np.int64)
    return [ind, d[tuple(ind.T)], np.array(SHAPE, np.int64)]


def _fill_ref(v, default):
    rows = [([0, 1], v[0]), ([1, 0], default), ([2, 0], v[1]), ([3, 0], default)]
    return [np.array([r for r, _ in rows], np.int64), np.array([x for _, x in rows], v.dtype),
            np.array([False, True, False, True])]


def _softmax_ref(v):
    out = np.empty_like(v)
    for row in range(3):
        ks = [k for k, r in enumerate(SIND) if r[0] == row]
        e = np.exp(v[ks] - v[ks].max())
        out[ks] = e / e.sum()
    return out


def _slice_ref(v):
    order = [k for k in range(4) if 0 <= IND[k][0] < 2 and 1 <= IND[k][1] < 3]   # keeps the input order
    ind = np.array([[IND[k][0], IND[k][1] - 1] for k in order], np.int64)
    return [ind, v[order], np.array([2, 2], np.int64)]


def _minmax_ref(av, bv, fn):
    a, b = _dense(SIND, av, SHAPE), _dense(B_IND, bv, SHAPE)
    present = _dense(SIND, np.ones(4), SHAPE) + _dense(B_IND, np.ones(3), SHAPE) > 0
    ind = np.argwhere(present).astype(np.int64)
    return [ind, fn(a, b)[tuple(ind.T)]]


ROWS = [
    Row("SparseReorder", lambda v: list(_triple(S.sparse_reorder(_sp(v))))[:2],
        lambda v: list(_sorted(IND, v)), [[F(4)]]),
    Row("SparseReshape", lambda i: _triple(S.sparse_reshape(S.SparseTensor(i, [1.0, 2.0], [2, 6]), [3, -1]))[::2],
        lambda i: [np.stack(np.unravel_index(np.ravel_multi_index(tuple(i.T), (2, 6)), (3, 4)), 1).astype(np.int64),
                   np.array([3, 4], np.int64)], [[FIX([[0, 5], [1, 2]], np.int64)]], grad=False),
    Row("SparseReduceSum", lambda v: S.sparse_reduce_sum(_sp(v), axis=1),
        lambda v: _dense(IND, v, SHAPE).sum(1), [[F(4)]]),
    Row("SparseReduceSum", lambda v: S.sparse_reduce_sum(_sp(v), axis=[0], keepdims=True),
        lambda v: _dense(IND, v, SHAPE).sum(0, keepdims=True), [[F(4)]], label="SparseReduceSum keepdims"),
    Row("SparseReduceSum", lambda v: S.sparse_reduce_sum(_sp(v)), lambda v: _dense(IND, v, SHAPE).sum(),
        [[F(4)]], label="SparseReduceSum all axes"),
    Row("SparseReduceMax", lambda v: S.sparse_reduce_max(_sp(v), axis=0),
        lambda v: np.array([max(v[3], v[0]), v[1], v[2]]), [[F(4, lo=-3, hi=-1)]], grad=False),
    Row("SparseReduceMax", lambda v: S.sparse_reduce_max(S.SparseTensor([[0, 0]], v, [2, 2]), axis=1),
        lambda v: np.array([v[0], 0], v.dtype), [[F(1, lo=-3, hi=-1)]], grad=False,
        label="SparseReduceMax empty row is 0"),
    Row("SparseTensorDenseMatMul", lambda v, b: S.sparse_tensor_dense_matmul(_sp(v), b),
        lambda v, b: _matmul_ref(v, b, False, False), [[F(4), F(3, 2)]]),
    Row("SparseTensorDenseMatMul", lambda v, b: S.sparse_tensor_dense_matmul(_sp(v), b, adjoint_a=True,
                                                                              adjoint_b=True),
        lambda v, b: _matmul_ref(v, b, True, True), [[F(4), F(2, 3)]], label="SparseTensorDenseMatMul adjoints"),
    Row("SparseAdd", lambda av, bv: _triple(S.sparse_add(_sp(av, SIND), S.SparseTensor(B_IND, bv, SHAPE))),
        lambda av, bv: _add_ref(av, bv), [[F(4), F(3)]]),
    Row("SparseAdd", lambda av, bv: _triple(S.sparse_add(_sp(av, SIND), S.SparseTensor(B_IND, bv, SHAPE),
                                                         threshold=1.0)),
        lambda av, bv: _add_ref(av, bv, 1.0), [[F(4, lo=1.5, hi=3), F(3, lo=-3, hi=-1.6)]], grad=False,
        label="SparseAdd threshold"),
    Row("SparseAddGrad", lambda g: S.sp_op("SparseAddGrad", [(g, "g"), (np.array(SIND, np.int64), "a"),
                                                             (np.array(B_IND, np.int64), "b"),
                                                             (_add_ref(np.ones(4), np.ones(3))[0], "s")],
                                           [g.dtype.base_dtype] * 2, "SparseAddGrad"),
        lambda g: [g[[0, 1, 3, 4]], g[[1, 2, 5]]], [[F(6)]], grad=False),
    Row("SparseTensorDenseAdd", lambda v, d: S.sparse_add(_sp(v), d),
        lambda v, d: _dense(IND, v, SHAPE) + d, [[F(4), F(3, 3)]]),
    Row("SparseFillEmptyRows", lambda v, d: _triple(S.sparse_fill_empty_rows(
        S.SparseTensor([[0, 1], [2, 0]], v, [4, 3]), d)[0])[:2] +
        [S.sparse_fill_empty_rows(S.SparseTensor([[0, 1], [2, 0]], v, [4, 3]), d)[1]],
        _fill_ref, [[F(2), F()]]),
    Row("SparseConcat", lambda v: _triple(X.sparse_concat(1, [_sp(v), S.SparseTensor([[1, 0]], [9.0], [3, 1])])),
        lambda v: [np.array([[0, 0], [0, 1], [1, 2], [1, 3], [2, 0]], np.int64),
                   np.array([v[3], v[1], v[2], 9.0, v[0]], v.dtype), np.array([3, 4], np.int64)],
        [[F(4)]], grad=False),
    Row("SparseSlice", lambda v: _triple(X.sparse_slice(_sp(v), [0, 1], [2, 5])), _slice_ref, [[F(4)]]),
    Row("SparseSliceGrad", lambda g: S.sp_op("SparseSliceGrad", [(g, "g"), (np.array(IND, np.int64), "i"),
                                                                 (np.array([0, 1], np.int64), "s"),
                                                                 (np.array([[0, 0], [1, 1]], np.int64), "o")],
                                             [g.dtype.base_dtype], "SparseSliceGrad")[0],
        lambda g: np.array([0, g[0], g[1], 0], g.dtype), [[F(2)]], grad=False),
    Row("SparseSplit", lambda v: [t for sp in X.sparse_split(sp_input=_sp(v), num_split=2, axis=1)
                                  for t in _triple(sp)],
        lambda v: [np.array([[2, 0], [0, 1], [0, 0]], np.int64), np.array([v[0], v[1], v[3]], v.dtype),
                   np.array([3, 2], np.int64), np.array([[1, 0]], np.int64), np.array([v[2]], v.dtype),
                   np.array([3, 1], np.int64)], [[F(4)]], grad=False),
    Row("SparseSoftmax", lambda v: X.sparse_softmax(_sp(v, SIND)).values, _softmax_ref, [[F(4)]]),
    Row("SparseSparseMaximum",
        lambda a, b: _triple(X.sparse_maximum(_sp(a, SIND), S.SparseTensor(B_IND, b, SHAPE)))[:2],
        lambda a, b: _minmax_ref(a, b, np.maximum), [[F(4), F(3)]], grad=False),
    Row("SparseSparseMinimum",
        lambda a, b: _triple(X.sparse_minimum(_sp(a, SIND), S.SparseTensor(B_IND, b, SHAPE)))[:2],
        lambda a, b: _minmax_ref(a, b, np.minimum), [[F(4), F(3)]], grad=False),
]
