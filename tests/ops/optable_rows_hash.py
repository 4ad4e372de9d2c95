"""Op-table rows: FarmHash-based hashing ops. References are values recorded from TensorFlow
(tests/feature_column/fixtures/fc_fixtures.json, made by make_fc_fixtures.py)."""
import json
import os

import numpy as np

from lens.ops.hash_ops import cross_hashed, string_to_hash_bucket_fast
from optable_lib import FIX, Row

_FIX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "feature_column", "fixtures",
                                   "fc_fixtures.json")))
_STRINGS = _FIX["farmhash"]["strings"]
_BUCKETS = dict(zip(_STRINGS, _FIX["farmhash"]["bucket_1000"]))


def _objs(items):
    arr = np.empty(len(items), dtype=object)
    arr[:] = [s.encode() for s in items]
    return arr


def _bucket_ref(x):
    return np.array([_BUCKETS[s.decode()] for s in x], np.int64)


# TF's crossed column over (vocabulary ids, bucketized ids, a raw string key), 11 buckets: the
# one-hot rows it recorded put the three examples in buckets 4, 8 and 0.
_CROSSED = np.argmax(np.asarray(_FIX["crossed"]["output"]), axis=1).reshape(-1, 1)

ROWS = [
    Row("StringToHashBucketFast", lambda x: string_to_hash_bucket_fast(x, 1000), _bucket_ref,
        [[FIX(_objs(_STRINGS), object)]], grad=False),
    Row("DenseCrossHashed",
        lambda a, p, k: cross_hashed([a, p, k], [-1, -1, b""], 11),
        lambda a, p, k: _CROSSED.astype(np.int64),
        [[FIX([[0], [1], [1]], np.int64), FIX([[0], [1], [1]], np.int64),
          FIX(np.array([[b"m"], [b"n"], [b"m"]], dtype=object), object)]], grad=False),
]
