"""Op-table rows: SparseToDense, HistogramFixedWidth, UnravelIndex, Bitcast (references by hand)."""
import numpy as np

from lens.ops import scatter_ops as S
from optable_lib import FIX, F, Row


def _dense(shape, where, values, default):
    out = np.full(shape, default, dtype=np.asarray(values).dtype)
    for row, v in zip(where, np.broadcast_to(values, (len(where),))):
        out[tuple(row)] = v
    return out


def _histogram(values, lo, hi, n):
    counts = [0] * n
    for v in np.ravel(values):
        counts[min(max(int(np.floor((v - lo) / (hi - lo) * n)), 0), n - 1)] += 1
    return np.array(counts, np.int32)


ROWS = [
    Row("SparseToDense", lambda v, d: S.sparse_to_dense([[0, 1], [2, 0]], [3, 2], v, d),
        lambda v, d: _dense((3, 2), [[0, 1], [2, 0]], v, d), [[F(2), F()]]),
    Row("SparseToDense", lambda v: S.sparse_to_dense([1, 3], [5], v, -1.0),
        lambda v: _dense((5,), [[1], [3]], v, -1.0), [[F()]], label="SparseToDense scalar value"),
    Row("HistogramFixedWidth", lambda v: S.histogram_fixed_width(v, [-1.0, 1.0], nbins=5),
        lambda v: _histogram(v, -1.0, 1.0, 5), [[F(4, 6, lo=-1.5, hi=1.5)]], grad=False),
    Row("UnravelIndex", lambda i: S.unravel_index(i, [3, 4, 2]),
        lambda i: np.array([[i // 8 for i in i.tolist()], [(i // 2) % 4 for i in i.tolist()],
                            [i % 2 for i in i.tolist()]], np.int32),
        [[FIX([0, 5, 23, 17], np.int32)]], grad=False),
    Row("Bitcast", lambda x: S.bitcast(x, "int32"), lambda x: np.frombuffer(x.tobytes(), np.int32),
        [[FIX([1.0, -2.5, 0.0], np.float32)]], grad=False),
    Row("Bitcast", lambda x: S.bitcast(x, "uint8"),
        lambda x: np.frombuffer(x.tobytes(), np.uint8).reshape(2, 4),
        [[FIX([1.0, -2.5], np.float32)]], grad=False, label="Bitcast to a smaller type"),
]


def _scattered(t, rows, u, how):
    out = t.copy()
    for row, v in zip(rows, u):
        if how == "update":
            out[tuple(row)] = v
        elif how == "add":
            out[tuple(row)] += v
        else:
            out[tuple(row)] -= v
    return out


_ROWS_AT = [[0], [2], [0]]
ROWS += [
    Row("TensorScatterUpdate", lambda t, u: S.tensor_scatter_nd_update(t, [[0], [2]], u),
        lambda t, u: _scattered(t, [[0], [2]], u, "update"), [[F(3, 2), F(2, 2)]]),
    Row("TensorScatterAdd", lambda t, u: S.tensor_scatter_nd_add(t, _ROWS_AT, u),
        lambda t, u: _scattered(t, _ROWS_AT, u, "add"), [[F(3, 2), F(3, 2)]]),
    Row("TensorScatterSub", lambda t, u: S.tensor_scatter_nd_sub(t, [[1, 1], [0, 0]], u),
        lambda t, u: _scattered(t, [[1, 1], [0, 0]], u, "sub"), [[F(3, 2), F(2)]]),
]
