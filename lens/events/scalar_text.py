"""JSON text of scalar series, byte-for-byte what json.dumps writes for the row lists.

The numbers are written by orjson (NumPy arrays in C: a 50k-point series in a few ms where
repr() of every float takes ~45 ms). orjson writes the same shortest round-trip digits as
Python's repr, but in its own layout outside 1e-4 <= |x| < 1e16 ("0.00001" for "1e-05") and
writes non-finite floats as null: those few numbers are written again with repr here. A check
at import compares orjson with repr on numbers of every kind; if the installed orjson differs
(or is missing), every number goes through repr instead. Non-finite values become the strings
"NaN", "Infinity", "-Infinity" as TensorBoard sends them.
"""

import numpy as np

try:
    import orjson
except ImportError:  # the slower path below writes the same text
    orjson = None

# repr() of a list of tuples -> JSON: tuples become arrays, the ", " separators lose the space.
_ROWS = str.maketrans({"(": "[", ")": "]", " ": None})
# repr() of a list of dicts with str keys -> JSON: quotes become double, spaces go.
_OBJECTS = str.maketrans({"'": '"', " ": None})
_NON_FINITE = {"nan": b'"NaN"', "inf": b'"Infinity"', "-inf": b'"-Infinity"'}


def _non_finite(text):
    """Python's nan/inf reprs -> TensorBoard's strings. Number reprs are made of digits and
    ".-+e" and the keys written here hold no "n", so an "n" marks a nan or an inf."""
    if "n" not in text:
        return text
    return (text.replace("-inf", '"-Infinity"').replace("inf", '"Infinity"')
            .replace("nan", '"NaN"'))


def _token(value):
    """One float as the JSON rows carry it (repr, non-finite as TensorBoard's strings)."""
    text = repr(value)
    return _NON_FINITE.get(text) or text.encode()


def _float_tokens(column):
    """[bytes] per float64 value: orjson's text, with repr's where the two layouts differ."""
    column = np.ascontiguousarray(column, np.float64)
    tokens = orjson.dumps(column, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b",")
    size = np.abs(column)
    with np.errstate(invalid="ignore"):
        odd = np.flatnonzero(~((size >= 1e-4) & (size < 1e16)) & (column != 0))
    for i in odd.tolist():  # tiny, huge and non-finite numbers (nan fails every comparison)
        tokens[i] = _token(float(column[i]))
    return tokens


def _int_tokens(column):
    return orjson.dumps(np.ascontiguousarray(column, np.int64),
                        option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b",")


def _columns(steps, walls, values):
    if not len(steps):
        return None
    return _float_tokens(walls), _int_tokens(steps), _float_tokens(values)


def _rows_bytes(steps, walls, values):
    cols = _columns(steps, walls, values)
    if cols is None:
        return b"[]"
    return b"[[" + b"],[".join(map(b",".join, zip(*cols))) + b"]]"


def _objects_bytes(steps, walls, values):
    cols = _columns(steps, walls, values)
    if cols is None:
        return b"[]"
    return b"[" + b",".join(map(b'{"wallTime":%b,"step":%b,"value":%b}'.__mod__,
                                 zip(*cols))) + b"]"


def _columns_bytes(steps, walls, values):
    cols = _columns(steps, walls, values) or ([], [], [])
    return b'{"wallTime":[%b],"step":[%b],"value":[%b]}' % tuple(b",".join(c) for c in cols)


def _rows_repr(steps, walls, values):
    return _non_finite(
        repr(list(zip(walls.tolist(), steps.tolist(), values.tolist()))).translate(_ROWS))


def _objects_repr(steps, walls, values):
    rows = [{"wallTime": w, "step": s, "value": v}
            for w, s, v in zip(walls.tolist(), steps.tolist(), values.tolist())]
    return _non_finite(repr(rows).translate(_OBJECTS))


def _columns_repr(steps, walls, values):
    return _non_finite(repr({"wallTime": walls.tolist(), "step": steps.tolist(),
                             "value": values.tolist()}).translate(_OBJECTS))


def _orjson_agrees():
    """True when the installed orjson writes the numbers checked here as repr does."""
    if orjson is None:
        return False
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore", invalid="ignore"):
        floats = np.concatenate([
            rng.standard_normal(200) * 10.0 ** rng.integers(-330, 310, 200).astype(np.float64),
            rng.standard_normal(100).astype(np.float32).astype(np.float64),
            [0.0, -0.0, 1e-4, 9.999999999999999e-05, 1e16, 9999999999999998.0, 5e-324, 1e308,
             0.1, 1.5, 123.0, 1600000163.84, 1.7e9 + 0.123456, -2.5e-5, np.nan, np.inf, -np.inf]])
        steps = np.concatenate([rng.integers(-2 ** 63, 2 ** 63 - 1, len(floats) - 3,
                                             dtype=np.int64), [0, -1, 2 ** 63 - 1]])
        try:
            return (_rows_bytes(steps, floats, floats[::-1].copy()).decode() ==
                    _rows_repr(steps, floats, floats[::-1].copy()))
        except Exception:  # an orjson that refuses NumPy input: use repr
            return False


_FAST = []  # [bool] once checked (at first use, not at import)


def _fast():
    if not _FAST:
        _FAST.append(_orjson_agrees())
    return _FAST[0]


def rows_json(steps, walls, values):
    """[[wall_time, step, value], ...] as the JSON text json.dumps would write (str)."""
    if _fast():
        return _rows_bytes(steps, walls, values).decode("ascii")
    return _rows_repr(steps, walls, values)


def objects_json(steps, walls, values):
    """[{"wallTime": w, "step": s, "value": v}, ...] as json.dumps would write it (str)."""
    if _fast():
        return _objects_bytes(steps, walls, values).decode("ascii")
    return _objects_repr(steps, walls, values)


def columns_json(steps, walls, values):
    """{"wallTime": [..], "step": [..], "value": [..]} as json.dumps would write it (str)."""
    if _fast():
        return _columns_bytes(steps, walls, values).decode("ascii")
    return _columns_repr(steps, walls, values)
