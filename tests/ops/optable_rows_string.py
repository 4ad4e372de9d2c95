"""Op-table rows: TF1 string ops. References are plain Python over bytes, written here."""
import struct

import numpy as np

import lens as tf
from lens.ops import string_ops as S
from lens.ops.string_csv import decode_csv
from optable_lib import FIX, Row


def B(*items):
    """A fixed object array of bytes (keeps trailing NULs that an 'S' array would drop)."""
    arr = np.empty(len(items), dtype=object)
    arr[:] = list(items)
    return FIX(arr, object)


def _csv_ref(recs):
    rows = [r.split(b",") for r in recs]
    return [np.array([int(r[0]) for r in rows], np.int32), np.array([float(r[1] or 9.5) for r in rows], np.float32),
            np.array([r[2] for r in rows] + [None], dtype=object)[:-1]]


def _objs(items, shape=None):
    arr = np.array(list(items) + [None], dtype=object)[:-1]
    return arr if shape is None else arr.reshape(shape)


def _split_ref(x):
    toks = [[t for t in s.split(b" ") if t] for s in x]
    ind = [[i, j] for i, ts in enumerate(toks) for j in range(len(ts))]
    return [np.array(ind, np.int64).reshape(-1, 2), _objs([t for ts in toks for t in ts]),
            np.array([len(toks), max(len(t) for t in toks)], np.int64)]


ROWS = [
    Row("DecodeCSV", lambda r: decode_csv(r, [[0], [9.5], [""]]), _csv_ref,
        [[B(b"1,2.5,abc", b"-4,,x y", b" 7 ,1e3,")]], grad=False),
    Row("StringJoin", lambda a, b: S.string_join([a, "-", b]), lambda a, b: _objs([p + b"-" + q for p, q in zip(a, b)]),
        [[B(b"ab", b"", b"c"), B(b"x", b"yz", b"")]], grad=False),
    Row("ReduceJoin", lambda x: S.reduce_join(tf.reshape(x, [2, 3]), axis=1, separator=","),
        lambda x: _objs([b",".join(x[:3]), b",".join(x[3:])]), [[B(b"a", b"b", b"c", b"d", b"", b"f")]], grad=False),
    Row("AsString", lambda x: S.as_string(x, precision=2), lambda x: _objs([("%.2f" % v).encode() for v in x]),
        [[FIX([1.5, -0.125, 1e6, 3.14159])]], grad=False),
    Row("StringToNumber", lambda x: S.string_to_number(x, tf.float64), lambda x: np.array([float(s) for s in x]),
        [[B(b"1.5", b" -2e3 ", b"inf", b"7")]], grad=False),
    Row("Substr", lambda x: S.substr(x, 1, 2), lambda x: _objs([s[1:3] for s in x]),
        [[B(b"hello", b"ab", b"x")]], grad=False),
    Row("StaticRegexReplace", lambda x: S.regex_replace(x, "a+", "<\\0>"),
        lambda x: _objs([s.replace(b"aaa", b"<aaa>").replace(b"ba", b"b<a>") for s in x]),
        [[B(b"aaa bba", b"xyz")]], grad=False),
    Row("RegexReplace", lambda x: S.regex_replace(x, tf.constant("[0-9]"), tf.constant("#")),
        lambda x: _objs([bytes(b"#"[0] if 48 <= c <= 57 else c for c in s) for s in x]),
        [[B(b"a1b22", b"none")]], grad=False),
    Row("StringStrip", S.strip, lambda x: _objs([s.strip(b" \t\n\r\x0b\x0c") for s in x]),
        [[B(b"  a b \t", b"\nq\x0c", b"")]], grad=False),
    Row("StringLength", S.length, lambda x: np.array([len(s) for s in x], np.int32),
        [[B(b"abc", b"", "h\u00e9".encode())]], grad=False),
    Row("StringSplit", lambda x: [(sp := S.string_split(x)).indices, sp.values, sp.dense_shape], _split_ref, [[B(b"a b  c", b"", b"d")]], grad=False),
    Row("DecodeRaw", lambda x: S.decode_raw(x, tf.int16),
        lambda x: np.array([struct.unpack("<2h", s) for s in x], np.int16),
        [[B(b"\x01\x00\x02\x00", b"\xff\xff\x00\x01")]], grad=False),
]
