"""Op-table rows: UnsortedSegmentProd and TensorScatterMax/Min (NumPy references, finite differences)."""
import numpy as np

from lens.ops import segment_scatter_extra as E
from optable_lib import FIX, F, Row

IDS = [0, 2, 0, -1, 2]


def _prod(x, n=4):
    out = np.ones((n,) + x.shape[1:], x.dtype)
    for row, i in zip(x, IDS):
        if i >= 0:
            out[i] *= row
    return out


WHERE = [[0, 0], [1, 1], [2, 1]]


def _scatter(t, u, fn):
    out = t.copy()
    for (r, c), v in zip(WHERE, u):
        out[r, c] = fn(out[r, c], v)
    return out


ROWS = [
    Row("UnsortedSegmentProd", lambda x: E.unsorted_segment_prod(x, IDS, 4), _prod,
        [[F(5, 2, lo=0.5, hi=1.5)], [F(5, lo=-1.5, hi=-0.5)]]),
    # Values kept apart so no update ties its entry (ties split the gradient and have no derivative).
    Row("TensorScatterMax", lambda t, u: E.tensor_scatter_nd_max(t, WHERE, u),
        lambda t, u: _scatter(t, u, max), [[F(3, 2, lo=-1, hi=1), FIX([3.0, -3.0, 2.5])]], dtypes=("float64",)),
    Row("TensorScatterMax", lambda t, u: E.tensor_scatter_nd_max(t, WHERE, u),
        lambda t, u: _scatter(t, u, max), [[FIX(np.zeros((3, 2)) + [[0.5, 1.0]]), F(3, lo=-0.4, hi=0.4)],
                                           [FIX(np.zeros((3, 2)) + [[-0.5, -1.0]]), F(3, lo=1.5, hi=2.0)]],
        dtypes=("float64",), label="TensorScatterMax gradient to updates"),
    Row("TensorScatterMin", lambda t, u: E.tensor_scatter_nd_min(t, WHERE, u),
        lambda t, u: _scatter(t, u, min), [[F(3, 2, lo=-1, hi=1), FIX([3.0, -3.0, 2.5])],
                                           [FIX(np.zeros((3, 2)) + [[0.5, 1.0]]), F(3, lo=-0.4, hi=0.4)]],
        dtypes=("float64",)),
]
