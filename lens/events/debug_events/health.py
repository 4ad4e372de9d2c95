"""Tensor debug modes: the float64 summaries TF's DebugNumericSummaryV2 writes per tensor.

Layouts (checked against TensorFlow 2.21's kernel):
  CURT_HEALTH    [tensor_id, any -inf/+inf/nan (1.0 or 0.0)]
  CONCISE_HEALTH [tensor_id, size, #-inf, #+inf, #nan]
  FULL_HEALTH    [tensor_id, device_id (-1), dtype enum, rank, size, #-inf, #+inf, #nan,
                  #negative finite, #zero, #positive finite]
  SHAPE          [tensor_id, dtype enum, rank, size, the last six dims (zero-padded)]
"""

import numpy as np

NO_TENSOR, CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, SHAPE, FULL_TENSOR = 1, 2, 3, 4, 5, 7
MODE_NAMES = {"NO_TENSOR": NO_TENSOR, "CURT_HEALTH": CURT_HEALTH,
              "CONCISE_HEALTH": CONCISE_HEALTH, "FULL_HEALTH": FULL_HEALTH, "SHAPE": SHAPE,
              "FULL_TENSOR": FULL_TENSOR}
# Every name of TensorDebugMode (what TF lists in its "Valid options" message).
ALL_MODE_NAMES = ["UNSPECIFIED", "NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH",
                  "SHAPE", "FULL_NUMERICS", "FULL_TENSOR", "REDUCE_INF_NAN_THREE_SLOTS"]
HEALTH_MODES = (CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH)

# DataType enum values (types.proto) by NumPy dtype name.
DTYPE_ENUM = {
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "complex64": 8,
    "int64": 9, "bool": 10, "uint16": 17, "complex128": 18, "float16": 19, "uint32": 22,
    "uint64": 23,
}


def is_floating(dtype):
    """True for the dtypes the health modes summarize (TF's dtype.is_floating)."""
    return dtype.kind == "f"


def shape_dumpable(dtype):
    """True for the dtypes SHAPE mode summarizes: floating, integer and bool."""
    return dtype.kind in "fiub"


def _nonfinite_counts(a):
    """(#-inf, #+inf, #nan) of a float array, with one cheap pass when all are finite."""
    # A sum is finite only if every element is: the common case costs one SIMD pass.
    if np.isfinite(np.add.reduce(a, axis=None)):
        return 0, 0, 0
    nan = int(np.count_nonzero(np.isnan(a)))
    pos = int(np.count_nonzero(a == np.inf))
    neg = int(np.count_nonzero(a == -np.inf))
    return neg, pos, nan


def curt_health(tensor_id, a):
    """CURT_HEALTH values."""
    if a.size and not np.isfinite(np.add.reduce(a, axis=None)):
        bad = 1.0 if any(_nonfinite_counts(a)) else 0.0
    else:
        bad = 0.0
    return [float(tensor_id), bad]


def concise_health(tensor_id, a):
    """CONCISE_HEALTH values."""
    neg, pos, nan = _nonfinite_counts(a) if a.size else (0, 0, 0)
    return [float(tensor_id), float(a.size), float(neg), float(pos), float(nan)]


def full_health(tensor_id, a):
    """FULL_HEALTH values."""
    size = a.size
    if size:
        neg_inf, pos_inf, nan = _nonfinite_counts(a)
        negative = int(np.count_nonzero(a < 0)) - neg_inf
        zero = int(np.count_nonzero(a == 0))
        positive = size - negative - zero - neg_inf - pos_inf - nan
    else:
        neg_inf = pos_inf = nan = negative = zero = positive = 0
    return [float(tensor_id), -1.0, float(DTYPE_ENUM.get(a.dtype.name, 0)), float(a.ndim),
            float(size), float(neg_inf), float(pos_inf), float(nan), float(negative),
            float(zero), float(positive)]


def shape_summary(tensor_id, a):
    """SHAPE values."""
    dims = list(a.shape[-6:]) if a.ndim else []
    dims += [0] * (6 - len(dims))
    return [float(tensor_id), float(DTYPE_ENUM.get(a.dtype.name, 0)), float(a.ndim),
            float(a.size)] + [float(d) for d in dims]


SUMMARIES = {CURT_HEALTH: curt_health, CONCISE_HEALTH: concise_health,
             FULL_HEALTH: full_health, SHAPE: shape_summary}


def dumpable(mode, dtype):
    """True when `mode` records anything for a tensor of this NumPy dtype."""
    if mode in HEALTH_MODES:
        return is_floating(dtype)
    if mode == SHAPE:
        return shape_dumpable(dtype)
    return dtype.kind not in "OV"  # NO_TENSOR / FULL_TENSOR: any NumPy-compatible dtype
