"""Op-table rows: tf.bitwise and tf.sets (NumPy / Python-set references)."""
import numpy as np

from lens.ops import bitwise_ops as B
from lens.ops import set_ops as T
from lens.ops import sparse_ops as S
from optable_lib import FIX, Row

X = FIX([[5, -3, 0], [127, -128, 9]], np.int8)
Y = FIX([[3, 2, 7], [1, 1, 2]], np.int8)
U = FIX([[250, 3], [1, 0]], np.uint8)


def _sets_ref(a_rows, b_rows, fn):
    rows = [sorted(fn(set(a), set(b))) for a, b in zip(a_rows, b_rows)]
    width = max(len(r) for r in rows)
    ind = np.array([[i, j] for i, r in enumerate(rows) for j in range(len(r))], np.int64).reshape(-1, 2)
    return [ind, np.array([v for r in rows for v in r], np.int32), np.array([len(rows), width], np.int64)]


A_SET = [[1, 2, 2], [4, 5, 6]]
B_SET = [[2, 3, 9], [6, 6, 6]]
SP_B = ([[0, 0], [0, 1], [1, 0]], [2, 3, 6])      # rows {2, 3} and {6}
SP_B_ROWS = [[2, 3], [6]]


def _sparse_b():
    return S.SparseTensor(SP_B[0], np.array(SP_B[1], np.int32), [2, 3])


def _triple(sp):
    return [sp.indices, sp.values, sp.dense_shape]


ROWS = [
    Row("BitwiseAnd", B.bitwise_and, lambda x, y: x & y, [[X, Y]], grad=False),
    Row("BitwiseOr", B.bitwise_or, lambda x, y: x | y, [[X, Y]], grad=False),
    Row("BitwiseXor", B.bitwise_xor, lambda x, y: x ^ y, [[X, Y], [U, FIX([[3, 3], [3, 3]], np.uint8)]],
        grad=False),
    Row("Invert", B.invert, lambda x: ~x, [[X], [U]], grad=False),
    Row("LeftShift", B.left_shift, lambda x, y: (x.astype(np.int64) << y).astype(np.int8), [[X, Y]], grad=False),
    Row("RightShift", B.right_shift, lambda x, y: x >> y, [[X, Y], [X, FIX([[9, 8, 7], [30, 1, 0]], np.int8)]],
        grad=False),
    Row("DenseToDenseSetOperation", lambda a, b: _triple(T.set_intersection(a, b)),
        lambda a, b: _sets_ref(A_SET, B_SET, set.intersection),
        [[FIX(A_SET, np.int32), FIX(B_SET, np.int32)]], grad=False),
    Row("DenseToDenseSetOperation", lambda a, b: _triple(T.set_difference(a, b, aminusb=False)),
        lambda a, b: _sets_ref(B_SET, A_SET, set.difference),
        [[FIX(A_SET, np.int32), FIX(B_SET, np.int32)]], grad=False, label="DenseToDenseSetOperation b-a"),
    Row("DenseToSparseSetOperation", lambda a: _triple(T.set_union(a, _sparse_b())),
        lambda a: _sets_ref(A_SET, SP_B_ROWS, set.union), [[FIX(A_SET, np.int32)]], grad=False),
    Row("DenseToSparseSetOperation", lambda a: _triple(T.set_difference(_sparse_b(), a)),
        lambda a: _sets_ref(SP_B_ROWS, A_SET, set.difference), [[FIX(A_SET, np.int32)]], grad=False,
        label="DenseToSparseSetOperation sparse minus dense"),
    Row("SparseToSparseSetOperation", lambda: _triple(T.set_intersection(_sparse_b(), _sparse_b())),
        lambda: _sets_ref(SP_B_ROWS, SP_B_ROWS, set.intersection), [[]], grad=False),
    Row("SetSize", lambda: T.set_size(S.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([4, 4, 1], np.int64),
                                                     [3, 2])),
        lambda: np.array([1, 1, 0], np.int32), [[]], grad=False),
]
