"""EditDistance: the Levenshtein distance between the sequences of two SparseTensors, grouped by every
index but the last (optionally divided by the truth's length: inf for an empty truth against a non-empty
hypothesis, 0 where both are empty), as TF's op."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _groups(indices, values):
    out = {}
    for idx, v in zip(np.asarray(indices, np.int64).reshape(len(values), -1), values):
        out.setdefault(tuple(idx[:-1]), []).append((idx[-1], v))
    return {k: [v for _, v in sorted(g, key=lambda t: t[0])] for k, g in out.items()}


def _make(op, ctx):
    normalize = op._attrs["normalize"]

    def run(hi, hv, hs, ti, tv, ts):
        hs, ts = np.asarray(hs, np.int64), np.asarray(ts, np.int64)
        if len(hs) != len(ts) or len(hs) < 2:
            raise errors.InvalidArgumentError(None, op, "hypothesis and truth must have the same rank (>= 2), got "
                                              "shapes %s and %s" % (hs.tolist(), ts.tolist()))
        shape = np.maximum(hs, ts)[:-1]
        out = np.zeros(shape, np.float32)
        hyp, truth = _groups(hi, np.ravel(hv).tolist()), _groups(ti, np.ravel(tv).tolist())
        for key in set(hyp) | set(truth):
            h, t = hyp.get(key, []), truth.get(key, [])
            d = np.float32(_levenshtein(h, t))
            if normalize:
                d = np.float32(d / len(t)) if t else np.float32(np.inf if h else 0.0)
            out[key] = d
        return out
    return run


def _shape(op):
    from lens.ops.shapes import const_value
    hs, ts = const_value(op._inputs[2]), const_value(op._inputs[5])
    if hs is None or ts is None:
        return [TensorShape(None)]
    return [TensorShape(np.maximum(np.asarray(hs), np.asarray(ts))[:-1].tolist())]


register_op("EditDistance", make=_make, shape=_shape, not_differentiable=True)


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distances between the last-axis sequences of two SparseTensors (float32)."""
    if not isinstance(hypothesis, SparseTensor):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor):
        raise TypeError("Truth must be a SparseTensor.")
    with name_scope(name) as scope:
        ins = [(hypothesis.indices, "hypothesis_indices"), (hypothesis.values, "hypothesis_values"),
               (hypothesis.dense_shape, "hypothesis_shape"), (truth.indices, "truth_indices"),
               (truth.values, "truth_values"), (truth.dense_shape, "truth_shape")]
        return apply_op("EditDistance", ins, {"normalize": bool(normalize), "T": hypothesis.values.dtype.base_dtype},
                        name=scope, dtypes=[_dt.float32], same_dtype=False)
