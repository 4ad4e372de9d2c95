"""String hashing ops with TensorFlow's FarmHash fingerprints: string_to_hash_bucket_fast,
fingerprint-based crossing of id columns (what crossed feature columns compute)."""
import functools
import itertools

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.farmhash import fingerprint64, fingerprint_cat64

__all__ = ["string_to_hash_bucket_fast", "cross_hashed", "DEFAULT_CROSS_HASH_KEY"]

DEFAULT_CROSS_HASH_KEY = 0xDECAFCAFFE  # sparse_cross_hashed's default hash_key in TF1


def _as_bytes(s):
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


@functools.lru_cache(maxsize=65536)
def _fingerprint(data):
    # Feature values repeat from batch to batch: hash each distinct string once.
    return fingerprint64(data)


def _bucket_make(op, ctx):
    n = op._attrs["num_buckets"]

    def run(x):
        arr = np.asarray(x, dtype=object)
        flat = [_fingerprint(_as_bytes(s)) % n for s in arr.reshape(-1)]
        return np.asarray(flat, dtype=np.int64).reshape(arr.shape)
    return run


register_op("StringToHashBucketFast", make=_bucket_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TF's name
    """FarmHash Fingerprint64 of each string modulo num_buckets (int64), as TensorFlow."""
    if int(num_buckets) < 1:
        raise ValueError("num_buckets must be >= 1, got %r" % (num_buckets,))
    with name_scope(name, "StringToHashBucketFast") as scope:
        x = convert_to_tensor(input, _dt.string, name="input")
        op = get_default_graph().create_op("StringToHashBucketFast", [x], [_dt.int64],
                                           name=scope.rstrip("/"),
                                           attrs={"num_buckets": int(num_buckets)})
    return op.outputs[0]


def _feature_hash(value):
    # Strings hash by their fingerprint; integer ids enter the cross as their own 64-bit value.
    if isinstance(value, (bytes, str)):
        return _fingerprint(_as_bytes(value))
    return int(value) & ((1 << 64) - 1)


def _cross_make(op, ctx):
    n, key = op._attrs["num_buckets"], op._attrs["hash_key"]
    missing = op._attrs["missing"]

    def run(*columns):
        cols = [np.asarray(c) for c in columns]
        rows = cols[0].shape[0]
        width = int(np.prod([c.shape[1] for c in cols]))
        out = np.full((rows, width), -1, np.int64)
        for r in range(rows):
            present = [[_feature_hash(v) for v in c[r] if not _is_missing(v, m)]
                       for c, m in zip(cols, missing)]
            for j, combo in enumerate(itertools.product(*present)):
                h = key
                for fp in combo:
                    h = fingerprint_cat64(h, fp)
                out[r, j] = h % n
        return out
    return run


def _is_missing(value, marker):
    if isinstance(value, (bytes, str)):
        return _as_bytes(value) == _as_bytes(marker)
    return int(value) == int(marker)


def _cross_shape(op):
    dims = [t.shape.as_list() if t.shape.ndims == 2 else [None, None] for t in op._inputs]
    width = None if any(d[1] is None for d in dims) else int(np.prod([d[1] for d in dims]))
    return [TensorShape([dims[0][0], width])]


register_op("DenseCrossHashed", make=_cross_make, shape=_cross_shape, not_differentiable=True)


def cross_hashed(columns, missing, num_buckets, hash_key=None, name=None):
    """Hashed cross of dense [batch, k_i] id/string columns, as TF's SparseCross(hashed_output).

    Each row's output holds one bucket per combination of its present values (a value equal to
    its column's `missing` marker is absent); unused slots are -1. lens keeps categorical ids
    dense, so this is SparseCross on a dense layout (op type DenseCrossHashed, lens's own)."""
    with name_scope(name, "SparseCross") as scope:
        tensors = [convert_to_tensor(c) for c in columns]
        attrs = {"num_buckets": int(num_buckets),
                 "hash_key": DEFAULT_CROSS_HASH_KEY if hash_key is None else int(hash_key),
                 "missing": list(missing)}
        op = get_default_graph().create_op("DenseCrossHashed", tensors, [_dt.int64],
                                           name=scope.rstrip("/"), attrs=attrs)
    return op.outputs[0]
