"""Op-table rows: SparseTensor-with-dense arithmetic and the sparse segment reductions (NumPy references)."""
import numpy as np

from lens.ops import sparse_math as SM
from lens.ops import sparse_ops as S
from optable_lib import FIX, F, Row

IND = [[0, 1], [1, 0], [1, 2], [2, 2]]
SHAPE = [3, 3]


def _at(dense):
    full = np.broadcast_to(dense, SHAPE)
    return full[tuple(np.array(IND).T)]


IDX, SEG = [0, 3, 3, 1, 2], [0, 0, 2, 2, 3]


def _segments(data, kind, rows=4):
    out = np.zeros((rows,) + data.shape[1:], data.dtype)
    count = np.zeros(rows)
    for i, s in zip(IDX, SEG):
        out[s] += data[i]
        count[s] += 1
    scale = count if kind == "mean" else np.sqrt(count)
    if kind != "sum":
        out = out / np.where(scale > 0, scale, 1).reshape((-1,) + (1,) * (data.ndim - 1))
    return out.astype(data.dtype)


ROWS = [
    Row("SparseDenseCwiseMul", lambda v, d: (S.SparseTensor(IND, v, SHAPE) * d).values,
        lambda v, d: v * _at(d), [[F(4), F(3, 3)], [F(4), F(1, 3)], [F(4), F()]]),
    Row("SparseDenseCwiseDiv", lambda v, d: (S.SparseTensor(IND, v, SHAPE) / d).values,
        lambda v, d: v / _at(d), [[F(4), F(3, 1, lo=0.5, hi=2.0)]]),
    Row("SparseDenseCwiseAdd", lambda v, d: SM.sparse_dense_cwise_add(S.SparseTensor(IND, v, SHAPE), d).values,
        lambda v, d: v + _at(d), [[F(4), F(3)]], grad=False),
]
for _kind, _fn in (("sum", SM.sparse_segment_sum), ("mean", SM.sparse_segment_mean),
                   ("sqrtn", SM.sparse_segment_sqrt_n)):
    _type = {"sum": "SparseSegmentSum", "mean": "SparseSegmentMean", "sqrtn": "SparseSegmentSqrtN"}[_kind]
    ROWS += [
        Row(_type, lambda x, fn=_fn: fn(x, IDX, SEG), lambda x, k=_kind: _segments(x, k), [[F(4, 2)]]),
        Row(_type + "WithNumSegments", lambda x, fn=_fn: fn(x, IDX, SEG, num_segments=6),
            lambda x, k=_kind: _segments(x, k, rows=6), [[F(4, 2)], [F(4)]]),
    ]

from lens.ops import sparse_misc as SX  # noqa: E402 - rows of the sparse-result reductions and sparse_matmul

RIND = [[0, 1], [1, 0], [1, 2]]        # row 2 holds nothing


def _reduce_sparse_ref(v, fn):
    dense = {0: [v[0]], 1: [v[1], v[2]]}
    return [np.array([[0], [1]], np.int64), np.array([fn(dense[0]), fn(dense[1])], v.dtype),
            np.array([3], np.int64)]


ROWS += [
    Row("SparseReduceSumSparse", lambda v: [(sp := SX.sparse_reduce_sum_sparse(S.SparseTensor(RIND, v, SHAPE), 1))
                                            .indices, sp.values, sp.dense_shape],
        lambda v: _reduce_sparse_ref(v, np.sum), [[F(3)]], grad=False),
    Row("SparseReduceMaxSparse", lambda v: [(sp := SX.sparse_reduce_max_sparse(S.SparseTensor(RIND, v, SHAPE), 1))
                                            .indices, sp.values, sp.dense_shape],
        lambda v: _reduce_sparse_ref(v, np.max), [[F(3)]], grad=False),
    Row("SparseMatMul", lambda a, b: SX.sparse_matmul(a, b, transpose_b=True, b_is_sparse=True),
        lambda a, b: a @ b.T, [[F(2, 3), F(4, 3)]], dtypes=("float32",)),
]

from lens.ops import sparse_serialize as SZ  # noqa: E402 - rows of the serialization ops
from optable_lib import custom  # noqa: E402


def _tb_array(blob):
    """Decode one serialized TensorProto with TensorBoard's own proto and tensor_util (the real reader)."""
    from tensorboard.compat.proto import tensor_pb2
    from tensorboard.util import tensor_util
    proto = tensor_pb2.TensorProto()
    proto.ParseFromString(blob)
    return tensor_util.make_ndarray(proto)


def _check_serialization():
    import lens as tf
    with tf.Graph().as_default() as g:
        sp = S.SparseTensor([[0, 1, 0], [2, 0, 1]], np.array([1.5, -2.0], np.float32), [3, 2, 2])
        many = SZ.serialize_many_sparse(sp)
        one = SZ.serialize_sparse(sp)
        back = SZ.deserialize_many_sparse(many, tf.float32, rank=3)
        types = {o.type for o in g.get_operations()}
        assert {"SerializeSparse", "SerializeManySparse", "DeserializeManySparse"} <= types
        with tf.Session() as sess:
            got_many, got_one, got_back = sess.run([many, one, back])
    assert got_many.shape == (3, 3) and got_one.shape == (3,)
    np.testing.assert_array_equal(_tb_array(got_one[0]), [[0, 1, 0], [2, 0, 1]])
    np.testing.assert_array_equal(_tb_array(got_one[1]), np.array([1.5, -2.0], np.float32))
    np.testing.assert_array_equal(_tb_array(got_many[2, 0]), [[0, 1]])     # row 2 without its batch index
    np.testing.assert_array_equal(_tb_array(got_many[1, 1]), np.zeros([0], np.float32))
    np.testing.assert_array_equal(_tb_array(got_many[0, 2]), [2, 2])
    np.testing.assert_array_equal(got_back.indices, [[0, 1, 0], [2, 0, 1]])
    np.testing.assert_array_equal(got_back.dense_shape, [3, 2, 2])


ROWS += [custom(t, _check_serialization, label=t)
         for t in ("SerializeSparse", "SerializeManySparse", "DeserializeManySparse")]

from lens.ops import sparse_cross as SC  # noqa: E402 - rows of SparseCross


def _cross_ref(a_rows, dense):
    out = []
    for r, vals in enumerate(a_rows):
        out.append([v + b"_X_" + d for v in vals for d in dense[r]])
    return out


ROWS += [
    Row("SparseCross", lambda d: [(sp := SC.sparse_cross([S.SparseTensor([[0, 0], [0, 1], [1, 0]],
                                                                          np.array([b"a", b"b", b"c"], object),
                                                                          [2, 2]), d])).indices, sp.values],
        lambda d: [np.array([[r, j] for r, row in enumerate(_cross_ref([[b"a", b"b"], [b"c"]], d))
                             for j in range(len(row))], np.int64),
                   np.array([v for row in _cross_ref([[b"a", b"b"], [b"c"]], d) for v in row], object)],
        [[FIX(np.array([[b"x", b"y"], [b"z", b"w"]], object))]], grad=False),
]
