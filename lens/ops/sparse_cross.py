"""tf.sparse.cross / cross_hashed (SparseCross): per row, every combination of one value from each input
(SparseTensors first, then dense [batch, k] tensors), as a "a_X_b" string or FarmHash-combined id."""
import itertools

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor, SparseTensorValue
from lens.framework.tensor_shape import TensorShape
from lens.ops.farmhash import fingerprint64, fingerprint_cat64

__all__ = ["sparse_cross", "sparse_cross_hashed"]

_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _text(v):
    return v if isinstance(v, bytes) else (v.encode() if isinstance(v, str) else str(int(v)).encode())


def _hash(v):
    return fingerprint64(v) if isinstance(v, (bytes, str)) else int(v) & ((1 << 64) - 1)


def _cross_make(op, ctx):
    n_sparse, hashed = op._attrs["N"], op._attrs["hashed_output"]
    buckets, key = op._attrs["num_buckets"], op._attrs["hash_key"]

    def run(*args):
        inds, vals, shapes = args[:n_sparse], args[n_sparse:2 * n_sparse], args[2 * n_sparse:3 * n_sparse]
        dense = [np.asarray(d) for d in args[3 * n_sparse:]]
        rows = int(shapes[0][0]) if n_sparse else dense[0].shape[0]
        per_row = []
        for r in range(rows):
            columns = []
            for ind, val in zip(inds, vals):
                mask = np.asarray(ind)[:, 0] == r
                columns.append(list(np.asarray(val, dtype=object)[mask]))
            columns += [list(np.asarray(d[r], dtype=object)) for d in dense]
            out = []
            for combo in itertools.product(*columns):
                if hashed:
                    h = key
                    for v in combo:
                        h = fingerprint_cat64(h, _hash(v))
                    out.append(h % (buckets if buckets > 0 else 2 ** 63 - 1))   # 0: int64's max, as TF
                else:
                    out.append(b"_X_".join(_text(v) for v in combo))
            per_row.append(out)
        width = max((len(o) for o in per_row), default=0)
        ind = np.array([[r, j] for r, o in enumerate(per_row) for j in range(len(o))], np.int64).reshape(-1, 2)
        flat = [v for o in per_row for v in o]
        if hashed:
            val = np.array(flat, np.int64)
        else:
            val = np.array(flat, dtype=object)
        return ind, val, np.array([rows, width], np.int64)
    return run


register_op("SparseCross", make=_cross_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])])


def _cross(inputs, hashed, num_buckets, hash_key, name):
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("Inputs must be a non-empty list of SparseTensors and dense Tensors")
    inputs = [SparseTensor.from_value(i) if isinstance(i, SparseTensorValue) else i for i in inputs]
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    with name_scope(name, "SparseCross" if not hashed else "SparseCrossHashed", [s.values for s in sparse]) as scope:
        dense = [convert_to_tensor(i, name="dense") for i in inputs if not isinstance(i, SparseTensor)]
        for t in [s.values for s in sparse] + dense:
            if t.dtype.base_dtype not in (_dt.int64, _dt.string):
                raise TypeError("Inputs of sparse.cross must be int64 or string, got %s" % t.dtype.name)
        out_type = _dt.int64 if hashed else _dt.string
        ins = ([(s.indices, "indices") for s in sparse] + [(s.values, "values") for s in sparse] +
               [(s.dense_shape, "shapes") for s in sparse] + [(d, "dense_inputs") for d in dense])
        ind, val, shp = apply_op("SparseCross", ins,
                                 {"N": len(sparse), "hashed_output": hashed, "num_buckets": int(num_buckets),
                                  "hash_key": int(_DEFAULT_HASH_KEY if hash_key is None else hash_key),
                                  "out_type": out_type, "internal_type": out_type}, name=scope,
                                 dtypes=[_dt.int64, out_type, _dt.int64], same_dtype=False)
    return SparseTensor(ind, val, shp)


def sparse_cross(inputs, name=None, separator=None):
    """String crosses "v1_X_v2_X_..." of the inputs' values per row (sparse inputs first, then dense)."""
    if separator not in (None, "_X_"):
        raise ValueError("lens crosses with TF1's separator '_X_' only, got %r" % (separator,))
    return _cross(inputs, False, 0, None, name)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed crosses (FingerprintCat64 of the values' fingerprints) modulo num_buckets (0: no modulo)."""
    return _cross(inputs, True, num_buckets, hash_key, name)
