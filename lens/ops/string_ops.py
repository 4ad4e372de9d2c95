"""TF1 string ops over NumPy object arrays of bytes: string_join, reduce_join, as_string,
string_to_number, substr, regex_replace, strip, length, string_split, decode_raw (none
differentiable); decode_csv is in string_csv.py, the shared helpers in string_base.py.

Patterns of regex_replace run on Python's `re` over bytes, which agrees with RE2 on the common syntax
(classes, groups, alternation, repetition, anchors). Differences: RE2 refuses backreferences in the
pattern and lookaround, `re` accepts them; RE2's `\\z` (end of text) is `\\Z` in `re`; RE2's `\\C`
and `\\pN` classes do not exist in `re`. Rewrites use RE2's syntax (`\\0` whole match, `\\1`..`\\9`
groups, `\\\\` a backslash); an invalid rewrite leaves the string unchanged, as TF does."""
import re

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops.parsing import SparseTensor
from lens.ops.shapes import broadcast_shapes
from lens.ops.string_base import (_fail, _obj, _scalar, _strings, _op, _text, _parse_numbers)
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape

# ---- StringJoin / ReduceJoin -------------------------------------------------------------------
def _string_join_shape(op):
    out = TensorShape([])
    for t in op._inputs:
        if t.shape.ndims == 0:
            continue
        if out.ndims == 0 or out.ndims is None:
            out = t.shape if out.ndims == 0 else out
            continue
        if t.shape.ndims is not None and t.shape.ndims != out.ndims:
            raise ValueError("Shapes must be equal rank, but are %d and %d for '%s' (op: 'StringJoin')"
                             % (out.ndims, t.shape.ndims, op.name))
        if not out.is_compatible_with(t.shape):
            raise ValueError("Shapes %s and %s of StringJoin inputs must be equal for '%s'; only scalars "
                             "broadcast" % (out, t.shape, op.name))
        out = out.merge_with(t.shape)
    return [out]


def _string_join_make(op, ctx):
    sep = op._attrs["separator"].encode()

    def run(*inputs):
        arrs = [_obj(a) for a in inputs]
        shapes = {a.shape for a in arrs if a.ndim}
        if len(shapes) > 1:
            _fail(op, "Input shapes do not match: %s; StringJoin broadcasts scalars only"
                  % " vs. ".join(str(list(s)) for s in shapes))
        out = arrs[0]
        for a in arrs[1:]:
            out = out + sep + a if sep else out + a  # object arrays of bytes concatenate elementwise
        return np.asarray(out, dtype=object)
    return run


register_op("StringJoin", make=_string_join_make, shape=_string_join_shape, not_differentiable=True)


def string_join(inputs, separator="", name=None):
    """Join the strings of a list of same-shaped tensors elementwise (scalars broadcast)."""
    return _op("StringJoin", name, lambda: ([_strings(x, "inputs") for x in inputs],
                                            {"separator": separator, "N": len(inputs)}), [_dt.string])[0]


def _reduce_axes(op, ndim, axes):
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -ndim <= a < max(ndim, 1) or (ndim == 0):
            _fail(op, "Invalid reduction dimension %d for input with %d dimensions." % (a, ndim))
        a = a % ndim
        if a in out:
            _fail(op, "Duplicate reduction dimension %d" % a)
        out.append(a)
    return out


def _reduce_join_make(op, ctx):
    sep, keep = op._attrs["separator"].encode(), op._attrs["keep_dims"]

    def run(x, axes):
        x = _obj(x)
        red = _reduce_axes(op, x.ndim, axes)
        kept = [d for d in range(x.ndim) if d not in red]
        # the last listed axis varies slowest: reductions apply one after another in the given order
        order = kept + red[::-1]
        t = np.transpose(x, order).reshape([x.shape[d] for d in kept] + [-1])
        flat = t.reshape(int(np.prod(t.shape[:-1])), t.shape[-1])
        joined = np.array([sep.join(r) for r in flat.tolist()], dtype=object).reshape(t.shape[:-1])
        if keep:
            joined = joined.reshape([1 if d in red else x.shape[d] for d in range(x.ndim)])
        return joined
    return run


def _reduce_join_shape(op):
    from lens.ops.shapes import const_value
    x, axes = op._inputs[0].shape, const_value(op._inputs[1])
    if x.ndims is None or axes is None:
        return [unknown_shape()]
    red = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -x.ndims <= a < x.ndims:
            raise ValueError("Invalid reduction dimension %d for input with %d dimensions. for '%s' (op: "
                             "'ReduceJoin')" % (a, x.ndims, op.name))
        red.append(a % x.ndims)
    dims = x.as_list()
    if op._attrs["keep_dims"]:
        return [TensorShape([1 if d in red else n for d, n in enumerate(dims)])]
    return [TensorShape([n for d, n in enumerate(dims) if d not in red])]


register_op("ReduceJoin", make=_reduce_join_make, shape=_reduce_join_shape, not_differentiable=True)


def reduce_join(inputs, axis=None, keep_dims=False, separator="", name=None, reduction_indices=None,
                keepdims=None):
    """Join the strings along axis (all axes, last first, when None) with separator between them."""
    axis = reduction_indices if axis is None else axis
    keep = bool(keep_dims if keepdims is None else keepdims)
    with name_scope(None, "ReduceJoin", [inputs, axis]):
        x = _strings(inputs, "inputs")
        if axis is None:
            if x.shape.ndims is not None:
                axis = convert_to_tensor(np.arange(x.shape.ndims - 1, -1, -1, dtype=np.int32))
            else:
                from lens.ops.array import rank
                from lens.ops.sequence import range as _range
                axis = _range(rank(x) - 1, -1, -1)
        return apply_op("ReduceJoin", [(x, "inputs"), (convert_to_tensor(axis, _dt.int32), "reduction_indices")],
                        {"keep_dims": keep, "separator": separator}, name=name or "ReduceJoin",
                        dtypes=[_dt.string], same_dtype=False)


# ---- AsString / StringToNumber -----------------------------------------------------------------
def _as_string_make(op, ctx):
    a, dt = op._attrs, op._attrs["T"]
    prec, sci, short, width, fill = a["precision"], a["scientific"], a["shortest"], a["width"], a["fill"]
    if len(fill) > 1:
        _fail(op, "Fill string must be one or fewer characters")
    if fill and fill not in " +-0#":
        _fail(op, 'Fill argument not supported: "%s" (use one of " ", "+", "-", "0", "#")' % fill)
    if sci and short:
        _fail(op, "Cannot select both scientific and shortest notation")
    floating = dt.is_floating or dt.is_complex
    if prec > -1 and not floating:
        _fail(op, "precision not supported for datatype %s" % dt.name)
    if (sci or short) and not floating:
        _fail(op, "scientific and shortest format not supported for datatype %s" % dt.name)
    # a printf format: fill is a flag, then width, precision and the conversion, as TF builds it
    spec = "%" + fill + (str(width) if width > -1 else "") + ("." + str(prec) if prec > -1 else "")
    if dt is _dt.bool:
        return lambda x: np.where(np.asarray(x), b"true", b"false").astype(object)
    if dt is _dt.string:
        fmt = (spec + "s").encode()
        return np.frompyfunc(lambda v: fmt % v, 1, 1)
    fmt = (spec + ("e" if sci else "g" if short else "f" if floating else "d")).encode()
    if dt.is_complex:
        one = np.frompyfunc(lambda v: b"(%s,%s)" % (fmt % v.real, fmt % v.imag), 1, 1)
    else:
        one = np.frompyfunc(lambda v: fmt % v, 1, 1)
    return lambda x: np.asarray(one(np.asarray(x).astype(np.float64 if dt.is_floating else
                                                        np.complex128 if dt.is_complex else np.int64)),
                                dtype=object)


register_op("AsString", make=_as_string_make, shape=lambda op: [op._inputs[0].shape], not_differentiable=True)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Format each element as a string (printf rules: floats '%f' by default, 1.5 -> b'1.500000')."""
    x = convert_to_tensor(input)
    if x.dtype.base_dtype in (_dt.resource,) or x.dtype.base_dtype.name in ("variant",):
        raise TypeError("as_string does not take %s tensors" % x.dtype.name)
    attrs = {"T": x.dtype.base_dtype, "precision": int(precision), "scientific": bool(scientific),
             "shortest": bool(shortest), "width": int(width), "fill": fill}
    return apply_op("AsString", [(x, "input")], attrs, name=name or "AsString", dtypes=[_dt.string],
                    same_dtype=False)


def _to_number_make(op, ctx):
    out = op._attrs["out_type"]

    def run(strings):
        strs = _obj(strings)
        values, bad = _parse_numbers(strs, out)
        if bad.any():
            _fail(op, "StringToNumberOp could not correctly convert string: %s" % _text(strs[bad].reshape(-1)[0]))
        return values
    return run


register_op("StringToNumber", make=_to_number_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)


def string_to_number(string_tensor, out_type=_dt.float32, name=None):
    """Parse each string as a number of out_type (float32, float64, int32, int64)."""
    out_type = _dt.as_dtype(out_type).base_dtype
    if out_type not in (_dt.float32, _dt.float64, _dt.int32, _dt.int64):
        raise TypeError("Value passed to parameter 'out_type' has DataType %s not in list of allowed values: "
                        "float32, float64, int32, int64" % out_type.name)
    return _op("StringToNumber", name, lambda: ([_strings(string_tensor, "string_tensor")], {"out_type": out_type}),
               [out_type])[0]


# ---- Substr / StringStrip / StringLength -------------------------------------------------------
def _substr_make(op, ctx):
    def run(x, pos, length):
        x = _obj(x)
        xs, ps, ls = np.broadcast_arrays(x, np.asarray(pos, np.int64), np.asarray(length, np.int64))
        # asarray: on 0-d inputs frompyfunc returns a bare Python int
        sizes = np.asarray(np.frompyfunc(len, 1, 1)(xs), dtype=np.int64)
        bad = (ps > sizes) | (ps < -sizes)
        if bad.any():
            i = np.flatnonzero(bad.reshape(-1))[0]
            _fail(op, "pos %d out of range for string b'%s' at index %d"
                  % (ps.reshape(-1)[i], _text(xs.reshape(-1)[i]), i))
        start = np.where(ps < 0, ps + sizes, ps)
        # a negative len reads to the end (TF reads it as a huge unsigned length)
        stop = np.where(ls < 0, sizes, np.minimum(start + ls, sizes))
        return np.asarray(np.frompyfunc(lambda s, a, b: s[a:b], 3, 1)(xs, start, stop), dtype=object)
    return run


def _substr_shape(op):
    x, p, n = (t.shape for t in op._inputs)
    if p.ndims is not None and n.ndims is not None and not p.is_compatible_with(n):
        raise ValueError("Dimensions of pos %s and len %s must be equal for '%s' (op: 'Substr')" % (p, n, op.name))
    return [broadcast_shapes(x, p)]


register_op("Substr", make=_substr_make, shape=_substr_shape, not_differentiable=True)


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002
    """Bytes [pos, pos + len) of each string (pos < 0 counts from the end; pos and len broadcast)."""
    if unit != "BYTE":
        raise ValueError("substr unit %r is not supported in lens; use unit='BYTE'" % (unit,))
    def build():
        p = convert_to_tensor(pos, name="pos")
        if p.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("Value passed to parameter 'pos' has DataType %s not in list of allowed values: "
                            "int32, int64" % p.dtype.name)
        n = convert_to_tensor(len, dtype=p.dtype.base_dtype, name="len")
        return [_strings(input, "input"), p, n], {"T": p.dtype.base_dtype, "unit": unit}
    return _op("Substr", name, build, [_dt.string])[0]


_STRIP = np.frompyfunc(bytes.strip, 1, 1)  # bytes.strip drops C's isspace set: " \t\n\v\f\r"
register_op("StringStrip", fn=lambda x: np.asarray(_STRIP(_obj(x)), dtype=object),
            shape=lambda op: [op._inputs[0].shape], not_differentiable=True)


def strip(input, name=None):  # noqa: A002
    """Strip leading and trailing ASCII whitespace from each string."""
    return _op("StringStrip", name, lambda: ([_strings(input, "input")], {}), [_dt.string])[0]


def _utf8_chars(b):
    # every byte that is not a continuation byte (10xxxxxx) starts a character
    return int(np.count_nonzero((np.frombuffer(b, np.uint8) & 0xC0) != 0x80))


def _length_make(op, ctx):
    count = np.frompyfunc(len if op._attrs["unit"] == "BYTE" else _utf8_chars, 1, 1)
    return lambda x: np.asarray(count(_obj(x)), dtype=np.int32)


register_op("StringLength", make=_length_make, shape=lambda op: [op._inputs[0].shape], not_differentiable=True)


def length(input, name=None, unit="BYTE"):  # noqa: A002
    """The length of each string in bytes (unit='BYTE') or UTF-8 characters (unit='UTF8_CHAR')."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("unit must be 'BYTE' or 'UTF8_CHAR', got %r" % (unit,))
    return _op("StringLength", name, lambda: ([_strings(input, "input")], {"unit": unit}), [_dt.int32])[0]


# ---- RegexReplace / StaticRegexReplace ---------------------------------------------------------
def _compile(op, pattern):
    try:
        return re.compile(pattern)
    except re.error as e:
        _fail(op, "Invalid pattern: %s, error: %s" % (_text(pattern), e))


def _rewrite_parts(rewrite, groups):
    """RE2 rewrite -> list of bytes literals and group numbers; None when RE2 would refuse it."""
    parts, i = [], 0
    while i < len(rewrite):
        c = rewrite[i:i + 1]
        if c != b"\\":
            parts.append(c)
        elif rewrite[i + 1:i + 2].isdigit() and int(rewrite[i + 1:i + 2]) <= groups:
            parts.append(int(rewrite[i + 1:i + 2]))
            i += 1
        elif rewrite[i + 1:i + 2] == b"\\":
            parts.append(b"\\")
            i += 1
        else:
            return None
        i += 1
    return parts


def _replace_all(op, x, pattern, rewrite, replace_global):
    rx = _compile(op, pattern)
    parts = _rewrite_parts(rewrite, rx.groups)
    if parts is None:
        return np.array(_obj(x), dtype=object, copy=True)  # TF leaves the input as it is

    def fill(m):
        return b"".join(p if isinstance(p, bytes) else (m.group(p) or b"") for p in parts)
    count = 0 if replace_global else 1
    sub = np.frompyfunc(lambda s: rx.sub(fill, s, count=count), 1, 1)
    return np.asarray(sub(_obj(x)), dtype=object)


def _regex_make(op, ctx):
    glob = op._attrs["replace_global"]

    def run(x, pattern, rewrite):
        return _replace_all(op, x, _scalar(op, pattern, "pattern"), _scalar(op, rewrite, "rewrite"), glob)
    return run


def _static_regex_make(op, ctx):
    a = op._attrs
    pattern, rewrite = a["pattern"].encode(), a["rewrite"].encode()
    return lambda x: _replace_all(op, x, pattern, rewrite, a["replace_global"])


_SAME = lambda op: [op._inputs[0].shape]  # noqa: E731
register_op("RegexReplace", make=_regex_make, shape=_SAME, not_differentiable=True)
register_op("StaticRegexReplace", make=_static_regex_make, shape=_SAME, not_differentiable=True)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replace matches of pattern (RE2 syntax, see the module notes) with rewrite in each string.

    Python-string pattern and rewrite make a StaticRegexReplace op, tensors a RegexReplace op, as TF1."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        dec = lambda v: v.decode() if isinstance(v, bytes) else v  # noqa: E731
        attrs = {"pattern": dec(pattern), "rewrite": dec(rewrite), "replace_global": bool(replace_global)}
        return _op("StaticRegexReplace", name, lambda: ([_strings(input, "input")], attrs), [_dt.string])[0]
    return _op("RegexReplace", name, lambda: ([_strings(input, "input"), _strings(pattern, "pattern"),
                                               _strings(rewrite, "rewrite")],
                                              {"replace_global": bool(replace_global)}), [_dt.string])[0]


# ---- StringSplit -------------------------------------------------------------------------------
def _split_make(op, ctx):
    skip = op._attrs["skip_empty"]

    def run(x, delimiter):
        x, d = _obj(x), _scalar(op, delimiter, "delimiter")
        if x.ndim != 1:
            _fail(op, "input must be a vector, got shape: %s" % list(x.shape))
        if not d:
            cut = lambda s: [s[i:i + 1] for i in range(len(s))]  # noqa: E731 - one token per byte
        elif len(d) == 1:
            cut = lambda s: s.split(d) if s else []  # noqa: E731
        else:
            rx = re.compile(b"[" + re.escape(d) + b"]")
            cut = lambda s: rx.split(s) if s else []  # noqa: E731
        tokens = [[t for t in cut(s) if t] if skip else cut(s) for s in x.tolist()]
        lengths = np.array([len(t) for t in tokens], dtype=np.int64)
        rows = np.repeat(np.arange(x.size, dtype=np.int64), lengths)
        cols = np.arange(lengths.sum(), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        values = np.array([t for ts in tokens for t in ts] + [None], dtype=object)[:-1]
        shape = np.array([x.size, lengths.max() if x.size else 0], dtype=np.int64)
        return np.stack([rows, cols], axis=1).reshape(-1, 2), values, shape
    return run


def _split_shape(op):
    x = op._inputs[0].shape
    if x.ndims is not None and x.ndims != 1:
        raise ValueError("Shape must be rank 1 but is rank %d for '%s' (op: 'StringSplit') with input shapes: %s"
                         % (x.ndims, op.name, x))
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


register_op("StringSplit", make=_split_make, shape=_split_shape, not_differentiable=True)


def string_split(source, delimiter=" ", skip_empty=True, sep=None, result_type="SparseTensor", name=None):
    """Split each string of a vector on any byte of delimiter ('' = every byte) into a SparseTensor."""
    delimiter = sep if sep is not None else (" " if delimiter is None else delimiter)
    if result_type != "SparseTensor":
        raise ValueError("result_type %r is not supported in lens; string_split returns a SparseTensor"
                         % (result_type,))
    src = _strings(source, "source")
    with name_scope(name, "StringSplit", [src]):
        d = _strings(delimiter, None)
        ind, val, shp = apply_op("StringSplit", [(src, "input"), (d, "delimiter")], {"skip_empty": bool(skip_empty)},
                                 name="StringSplit", dtypes=[_dt.int64, _dt.string, _dt.int64], same_dtype=False)
    return SparseTensor(ind, val, shp)


# ---- DecodeRaw ---------------------------------------------------------------------------------
_RAW_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8", "int64",
              "complex64", "complex128", "bool")


def _decode_raw_make(op, ctx):
    out = op._attrs["out_type"]
    np_t = np.dtype(np.uint8 if out is _dt.bool else out.as_numpy_dtype)
    np_t = np_t.newbyteorder("<" if op._attrs["little_endian"] else ">") if np_t.itemsize > 1 else np_t

    def run(x):
        x = _obj(x)
        flat = x.reshape(-1).tolist()
        sizes = np.array([len(b) for b in flat], dtype=np.int64)
        if sizes.size and (sizes != sizes[0]).any():
            i = int(np.flatnonzero(sizes != sizes[0])[0])
            _fail(op, "DecodeRaw requires input strings to all be the same size, but element %d has size %d != %d"
                  % (i, sizes[0], sizes[i]))
        size = int(sizes[0]) if sizes.size else 0
        if size % np_t.itemsize:
            _fail(op, "Input to DecodeRaw has length %d that is not a multiple of %d, the size of %s"
                  % (size, np_t.itemsize, out.name))
        vals = np.frombuffer(b"".join(flat), dtype=np_t).astype(np_t.newbyteorder("="))
        vals = vals.reshape(list(x.shape) + [size // np_t.itemsize])
        return vals != 0 if out is _dt.bool else vals
    return run


def _decode_raw_shape(op):
    x = op._inputs[0].shape
    return [unknown_shape() if x.ndims is None else TensorShape(x.as_list() + [None])]


register_op("DecodeRaw", make=_decode_raw_make, shape=_decode_raw_shape, not_differentiable=True)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """Reinterpret the bytes of each string as a vector of out_type (all strings the same length)."""
    source = bytes if input_bytes is None else input_bytes
    if source is None or out_type is None:
        raise TypeError("decode_raw needs the bytes to decode and an out_type")
    out_type = _dt.as_dtype(out_type).base_dtype
    if out_type.name not in _RAW_TYPES:
        raise TypeError("Value passed to parameter 'out_type' has DataType %s not in list of allowed values: %s"
                        % (out_type.name, ", ".join(_RAW_TYPES)))
    attrs = {"out_type": out_type, "little_endian": bool(little_endian)}
    return _op("DecodeRaw", name, lambda: ([_strings(source, "bytes")], attrs), [out_type])[0]
