"""Shared pieces of the string ops: bytes helpers, op creation, and TF's number parsing."""
import re

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph

_CSV_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.string)
_INT_RE = re.compile(rb"[+-]?[0-9]+")
_INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def _fail(op, message):
    raise errors.InvalidArgumentError(None, op, message)


def _obj(x):
    """x as an object array of bytes (feeds may hold str)."""
    arr = np.asarray(x, dtype=object)
    return arr


def _scalar(op, v, what):
    """The bytes of a scalar string input; InvalidArgumentError naming the input otherwise."""
    arr = np.asarray(v, dtype=object)
    if arr.ndim != 0:
        _fail(op, "%s must be a scalar string, got shape %s" % (what, list(arr.shape)))
    item = arr.item()
    return item.encode() if isinstance(item, str) else item


def _strings(v, name):
    return convert_to_tensor(v, _dt.string, name=name)


def _op(op_type, name, build, dtypes):
    """Create op_type in its name scope; build() converts the inputs there and returns (tensors, attrs)."""
    g = get_default_graph()
    with g.name_scope(name or op_type) as scope:
        tensors, attrs = build()
        op = g._create_op(op_type, tensors, dtypes, attrs, scope, frames_skip=4)
    return op._outputs


def _text(b):
    return b.decode("utf-8", "backslashreplace")


# ---- number parsing shared by StringToNumber and DecodeCSV -------------------------------------
def _float_or_none(b):
    """C strtod's reading of b (whitespace, inf/nan, hex floats), or None when it is not a number."""
    s = b.strip()
    if not s or b"_" in s:  # Python's float() takes 1_000; strtod does not
        return None
    try:
        return float(s)
    except ValueError:
        pass
    if s.lstrip(b"+-")[:2].lower() != b"0x":  # strtod reads hex only after 0x; fromhex would take "1e"
        return None
    try:
        return float.fromhex(s.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return None


def _int_or_none(b, lo, hi):
    s = b.strip()
    if not _INT_RE.fullmatch(s):
        return None
    v = int(s)
    return v if lo <= v <= hi else None


_FLOAT_U = np.frompyfunc(_float_or_none, 1, 1)
_INT_U = np.frompyfunc(_int_or_none, 3, 1)


def _parse_numbers(strs, dtype):
    """(values, bad mask) for an object array of bytes parsed as dtype (float/int kinds)."""
    if dtype.is_floating:
        parsed = _FLOAT_U(strs)
    else:
        lo, hi = _INT_RANGE[dtype.name]
        parsed = _INT_U(strs, lo, hi)
    bad = np.equal(parsed, None)
    with np.errstate(over="ignore"):  # 1e39 as float32 is inf, as strtof gives
        values = np.where(bad, 0, parsed).astype(dtype.as_numpy_dtype)
    return values, bad
