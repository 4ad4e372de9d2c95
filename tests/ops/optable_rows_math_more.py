"""Op-table rows: MulNoNan, Bincount, Lower/UpperBound, UniqueWithCounts, DynamicPartition, EnsureShape, Timestamp."""
import time

import numpy as np

import lens as tf
from lens.ops import math_more as X
from optable_lib import FIX, F, Row, custom


def _partition_ref(data, parts):
    return [data[parts == i] for i in range(3)]


def _uwc_ref(x):
    seen = []
    for v in x.tolist():
        if v not in seen:
            seen.append(v)
    return [np.array(seen, x.dtype), np.array([seen.index(v) for v in x.tolist()], np.int32),
            np.array([x.tolist().count(v) for v in seen], np.int32)]


def _check_timestamp():
    with tf.Graph().as_default(), tf.Session() as sess:
        t = X.timestamp()
        before = time.time()
        got = sess.run(t)
        assert t.op.type == "Timestamp" and t.dtype == tf.float64
        assert before <= got <= time.time() + 1e-3


ROWS = [
    Row("MulNoNan", X.multiply_no_nan, lambda x, y: np.where(y == 0, 0.0, x * y),
        [[F(2, 3), F(2, 3)], [F(2, 3), FIX(np.array([0.0, 1.5, -2.0]))]], dtypes=("float64",)),
    Row("MulNoNan", X.multiply_no_nan, lambda x, y: np.where(y == 0, 0.0, x * y),
        [[FIX([np.inf, np.nan, 2.0]), FIX([0.0, 0.0, 3.0])]], grad=False, label="MulNoNan inf*0"),
    Row("Bincount", lambda a: X.bincount(a, minlength=6), lambda a: np.bincount(a, minlength=6).astype(np.int32),
        [[FIX([1, 1, 3, 0, 3, 3], np.int32)]], grad=False),
    Row("Bincount", lambda a, w: X.bincount(a, weights=w), lambda a, w: np.bincount(a.ravel(), weights=w.ravel()),
        [[FIX([[2, 0], [2, 4]], np.int32), F(2, 2)]], dtypes=("float64",), grad=False, label="Bincount weights"),
    Row("LowerBound", X.searchsorted, lambda s, v: np.stack([np.searchsorted(a, b) for a, b in zip(s, v)]).astype(np.int32),
        [[FIX([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), FIX([[3.0, 6.0, 0.0], [1.0, 7.0, 4.0]])]], grad=False),
    Row("UpperBound", lambda s, v: X.searchsorted(s, v, side="right"),
        lambda s, v: np.stack([np.searchsorted(a, b, side="right") for a, b in zip(s, v)]).astype(np.int32),
        [[FIX([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), FIX([[3.0, 6.0, 0.0], [1.0, 7.0, 4.0]])]], grad=False),
    Row("UniqueWithCounts", lambda x: list(X.unique_with_counts(x)), _uwc_ref, [[FIX([4, 1, 4, 2, 1, 4], np.int32)]],
        grad=False),
    Row("DynamicPartition", lambda d, p: X.dynamic_partition(d, p, 3), _partition_ref,
        [[F(4, 2), FIX([2, 0, 2, 1], np.int32)]]),
    Row("EnsureShape", lambda x: X.ensure_shape(x, [2, None]), lambda x: x, [[F(2, 3)]]),
    custom("Timestamp", _check_timestamp),
]
