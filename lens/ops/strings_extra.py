"""More of tf.strings: lower/upper, format, regex_full_match, to_hash_bucket_strong (SipHash-2-4),
unicode_encode, unicode_transcode, unsorted_segment_join and ngrams (dense inputs; none differentiable)."""
import re
import struct

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.reduce import reduce_prod
from lens.ops.sequence import range as _range
from lens.ops.string_base import _fail, _obj

_SAME = lambda op: [op._inputs[0].shape]  # noqa: E731


def _bytes(v):
    return v.encode() if isinstance(v, str) else bytes(v)


def _map(fn, arr):
    arr = _obj(arr)
    out = np.empty(arr.shape, dtype=object)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_in):
        flat_out[i] = fn(_bytes(v))
    return out


# ---- StringLower / StringUpper ------------------------------------------------------------------
def _case_make(upper):
    def make(op, ctx):
        utf8 = op._attrs["encoding"] == "utf-8"

        def change(b):
            if utf8:
                t = b.decode("utf-8", "surrogateescape")
                return (t.upper() if upper else t.lower()).encode("utf-8", "surrogateescape")
            return b.upper() if upper else b.lower()     # ASCII letters only, as TF without an encoding
        return lambda x: _map(change, x)
    return make


register_op("StringLower", make=_case_make(False), shape=_SAME, not_differentiable=True)
register_op("StringUpper", make=_case_make(True), shape=_SAME, not_differentiable=True)


def _case(op_type, input, encoding, name):  # noqa: A002
    if encoding not in ("", "utf-8"):
        raise ValueError("encoding must be '' or 'utf-8', got %r" % encoding)
    x = convert_to_tensor(input, _dt.string, name="input")
    return apply_op(op_type, [(x, "input")], {"encoding": encoding}, name=name or op_type)


def lower(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """Lowercase each string (ASCII letters; all of Unicode with encoding='utf-8')."""
    return _case("StringLower", input, encoding, name)


def upper(input, encoding="", name=None):  # noqa: A002
    """Uppercase each string (ASCII letters; all of Unicode with encoding='utf-8')."""
    return _case("StringUpper", input, encoding, name)


# ---- RegexFullMatch -----------------------------------------------------------------------------------
def _full_match_make(op, ctx):
    def run(x, pattern):
        pat = _bytes(np.asarray(pattern, dtype=object).item())
        try:
            rx = re.compile(pat)
        except re.error as e:
            _fail(op, "Invalid pattern: %s, error: %s" % (pat.decode("utf-8", "replace"), e))
        arr = _obj(x)
        out = np.zeros(arr.shape, bool)
        for i, v in enumerate(arr.reshape(-1)):
            out.reshape(-1)[i] = rx.fullmatch(_bytes(v)) is not None
        return out
    return run


register_op("RegexFullMatch", make=_full_match_make, shape=_SAME, not_differentiable=True)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches pattern (Python's re standing in for RE2's syntax)."""
    x = convert_to_tensor(input, _dt.string, name="input")
    p = convert_to_tensor(pattern, _dt.string, name="pattern")
    return apply_op("RegexFullMatch", [(x, "input"), (p, "pattern")], name=name or "RegexFullMatch",
                    dtypes=[_dt.bool], same_dtype=False)


# ---- StringToHashBucketStrong (SipHash-2-4 keyed by two uint64) ------------------------------------
_MASK = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _MASK


def _sip_round(v0, v1, v2, v3):
    v0 = (v0 + v1) & _MASK
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = (v2 + v3) & _MASK
    v3 = _rotl(v3, 16) ^ v2
    v0 = (v0 + v3) & _MASK
    v3 = _rotl(v3, 21) ^ v0
    v2 = (v2 + v1) & _MASK
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash24(k0, k1, data):
    """SipHash-2-4 of data (bytes) under the 128-bit key (k0, k1)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    tail = len(data) % 8
    last = data[len(data) - tail:] + b"\0" * (7 - tail) + bytes([len(data) & 0xFF])
    for block in [data[i:i + 8] for i in range(0, len(data) - tail, 8)] + [last]:
        m = struct.unpack("<Q", block)[0]
        v3 ^= m
        for _ in range(2):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def _strong_make(op, ctx):
    n, key = op._attrs["num_buckets"], op._attrs["key"]

    def run(x):
        arr = _obj(x)
        out = np.array([siphash24(key[0], key[1], _bytes(v)) % n for v in arr.reshape(-1)], np.int64)
        return out.reshape(arr.shape)
    return run


register_op("StringToHashBucketStrong", make=_strong_make, shape=_SAME, not_differentiable=True)


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Each string's keyed SipHash modulo num_buckets (key: two non-negative ints)."""
    key = [int(k) for k in key]
    if len(key) != 2:
        raise ValueError("Key must have 2 elements, got %d" % len(key))
    if num_buckets < 1:
        raise ValueError("num_buckets must be >= 1, got %d" % num_buckets)
    x = convert_to_tensor(input, _dt.string, name="input")
    return apply_op("StringToHashBucketStrong", [(x, "input")], {"num_buckets": int(num_buckets), "key": key},
                    name=name or "StringToHashBucketStrong", dtypes=[_dt.int64], same_dtype=False)


# ---- StringToHashBucket (TF's legacy Hash64: MurmurHash64A seeded with 0xDECAFCAFFE) --------------------
_M64 = 0xC6A4A7935BD1E995


def hash64(data, seed=0xDECAFCAFFE):
    """TF's Hash64 of bytes (the hash of tf.string_to_hash_bucket)."""
    n = len(data)
    h = (seed ^ (n * _M64)) & _MASK
    full = n - n % 8
    for i in range(0, full, 8):
        k = (struct.unpack("<Q", data[i:i + 8])[0] * _M64) & _MASK
        k = ((k ^ (k >> 47)) * _M64) & _MASK
        h = ((h ^ k) * _M64) & _MASK
    if n > full:
        for j, byte in enumerate(data[full:]):
            h ^= byte << (8 * j)
        h = (h * _M64) & _MASK
    h = ((h ^ (h >> 47)) * _M64) & _MASK
    return h ^ (h >> 47)


def _bucket_make(op, ctx):
    n = op._attrs["num_buckets"]

    def run(x):
        arr = _obj(x)
        return np.array([hash64(_bytes(v)) % n for v in arr.reshape(-1)], np.int64).reshape(arr.shape)
    return run


register_op("StringToHashBucket", make=_bucket_make, shape=_SAME, not_differentiable=True)


def to_hash_bucket(input, num_buckets, name=None):  # noqa: A002
    """Each string's TF Hash64 modulo num_buckets (the legacy hash; to_hash_bucket_fast is faster)."""
    if num_buckets < 1:
        raise ValueError("num_buckets must be >= 1, got %d" % num_buckets)
    x = convert_to_tensor(input, _dt.string, name="string_tensor")
    return apply_op("StringToHashBucket", [(x, "string_tensor")], {"num_buckets": int(num_buckets)},
                    name=name or "StringToHashBucket", dtypes=[_dt.int64], same_dtype=False)


def string_to_hash_bucket(string_tensor, num_buckets, name=None):
    """tf.string_to_hash_bucket: to_hash_bucket under TF1's argument name."""
    return to_hash_bucket(string_tensor, num_buckets, name=name)


# ---- UnsortedSegmentJoin ------------------------------------------------------------------------------
def _segment_join_make(op, ctx):
    sep = _bytes(op._attrs["separator"])

    def run(inputs, ids, num):
        arr, ids, num = _obj(inputs), np.asarray(ids), int(num)
        if arr.shape[:ids.ndim] != ids.shape:
            _fail(op, "segment_ids.shape = %s does not prefix inputs.shape = %s" % (list(ids.shape), list(arr.shape)))
        inner = arr.shape[ids.ndim:]
        rows = arr.reshape((-1,) + inner)
        parts = [[[] for _ in range(int(np.prod(inner, dtype=np.int64)))] for _ in range(num)]
        for r, seg in enumerate(ids.reshape(-1)):
            if seg < 0:
                continue
            if seg >= num:
                _fail(op, "segment_ids[%d] = %d is out of range [0, %d)" % (r, seg, num))
            for j, v in enumerate(rows[r].reshape(-1)):
                parts[seg][j].append(_bytes(v))
        out = np.empty((num,) + inner, dtype=object)
        flat = out.reshape(num, -1)
        for s in range(num):
            for j, items in enumerate(parts[s]):
                flat[s, j] = sep.join(items)
        return out
    return run


def _segment_join_shape(op):
    x, ids = op._inputs[0].shape, op._inputs[1].shape
    if x.ndims is None or ids.ndims is None:
        return [unknown_shape()]
    from_const = op._attrs.get("_num")
    return [TensorShape([from_const]).concatenate(x.as_list()[ids.ndims:])]


register_op("UnsortedSegmentJoin", make=_segment_join_make, shape=_segment_join_shape, not_differentiable=True)


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of each segment joined with separator, in input order ('' for an empty segment)."""
    x = convert_to_tensor(inputs, _dt.string, name="inputs")
    ids = convert_to_tensor(segment_ids, name="segment_ids")
    num = convert_to_tensor(num_segments, _dt.int32, name="num_segments")
    static = num_segments if isinstance(num_segments, (int, np.integer)) else None
    return apply_op("UnsortedSegmentJoin", [(x, "inputs"), (ids, "segment_ids"), (num, "num_segments")],
                    {"separator": separator, "_num": static}, name=name or "UnsortedSegmentJoin",
                    dtypes=[_dt.string], same_dtype=False)


# ---- UnicodeEncode / UnicodeTranscode ---------------------------------------------------------------------
_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _encode_points(op, points, codec, errors, replacement):
    chars = []
    for p in points:
        p = int(p)
        if 0 <= p <= 0x10FFFF and not 0xD800 <= p <= 0xDFFF:
            chars.append(chr(p))
        elif errors == "strict":
            _fail(op, "Invalid code point: %d (errors='strict')" % p)
        elif errors == "replace":
            chars.append(chr(replacement))
    return "".join(chars).encode(codec)


def _unicode_encode_make(op, ctx):
    codec = _CODECS[op._attrs["output_encoding"]]
    errors, repl = op._attrs["errors"], op._attrs["replacement_char"]

    def run(values, splits):
        values, splits = np.asarray(values), np.asarray(splits)
        out = np.empty(len(splits) - 1, dtype=object)
        for i in range(len(splits) - 1):
            out[i] = _encode_points(op, values[splits[i]:splits[i + 1]], codec, errors, repl)
        return out
    return run


register_op("UnicodeEncode", make=_unicode_encode_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None])])


def _check_errors(errors, encoding):
    if errors not in ("strict", "replace", "ignore"):
        raise ValueError("errors must be one of 'strict', 'replace' or 'ignore', got %r" % errors)
    if encoding not in _CODECS:
        raise ValueError("encoding must be one of %s, got %r" % (sorted(_CODECS), encoding))


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Strings from code points: the last axis of an int32 tensor becomes one encoded string."""
    _check_errors(errors, output_encoding)
    with name_scope(name, "UnicodeEncode", [input]):
        x = convert_to_tensor(input, _dt.int32, name="input")
        if x.shape.ndims is None or x.shape.ndims == 0:
            raise ValueError("unicode_encode needs an input of known rank >= 1, got %s" % x.shape)
        outer = A.shape(x)[:-1]
        width = A.shape(x)[-1]
        rows = A.reshape(x, [-1])
        splits = M.cast(M.multiply(_range(M.add(reduce_prod(outer), 1)), width), _dt.int64)
        out = apply_op("UnicodeEncode", [(rows, "input_values"), (splits, "input_splits")],
                       {"output_encoding": output_encoding, "errors": errors,
                        "replacement_char": int(replacement_char)}, name="UnicodeEncode", dtypes=[_dt.string],
                       same_dtype=False)
        return A.reshape(out, outer)


def _transcode_make(op, ctx):
    src = {"ISO-8859-1": "latin-1", "US-ASCII": "ascii"}.get(op._attrs["input_encoding"]) or \
        _CODECS[op._attrs["input_encoding"]]
    dst = _CODECS[op._attrs["output_encoding"]]
    errors, repl = op._attrs["errors"], op._attrs["replacement_char"]
    control = op._attrs["replace_control_characters"]

    def convert(b):
        try:
            text = b.decode(src, "strict")
        except UnicodeDecodeError:
            if errors == "strict":
                _fail(op, "Invalid formatting on input string (errors='strict')")
            text = b.decode(src, "replace" if errors == "replace" else "ignore")
            if errors == "replace" and repl != 0xFFFD:
                text = text.replace("\ufffd", chr(repl))
        if control:
            text = "".join(chr(repl) if ord(c) < 0x20 else c for c in text)
        return text.encode(dst)
    return lambda x: _map(convert, x)


register_op("UnicodeTranscode", make=_transcode_make, shape=_SAME, not_differentiable=True)


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """Each string decoded from input_encoding and re-encoded as output_encoding."""
    if input_encoding not in list(_CODECS) + ["ISO-8859-1", "US-ASCII"]:
        raise ValueError("Could not create converter for input encoding: %s" % input_encoding)
    _check_errors(errors, output_encoding)
    x = convert_to_tensor(input, _dt.string, name="input")
    return apply_op("UnicodeTranscode", [(x, "input")],
                    {"input_encoding": input_encoding, "output_encoding": output_encoding, "errors": errors,
                     "replacement_char": int(replacement_char),
                     "replace_control_characters": bool(replace_control_characters)},
                    name=name or "UnicodeTranscode")


# ---- StringFormat ---------------------------------------------------------------------------------------
def _scalar_text(v):
    """One element as TF's summaries print it (shortest round-tripping %g for floats)."""
    if isinstance(v, (bytes, str)):
        return _bytes(v).decode("utf-8", "replace")
    if isinstance(v, (np.bool_, bool)):
        return "1" if v else "0"
    if isinstance(v, np.floating):
        digits = (6, 9) if v.dtype == np.float32 else (15, 17)
        text = "%.*g" % (digits[0], v)
        if v.dtype.type(text) != v and np.isfinite(v):
            text = "%.*g" % (digits[1], v)
        return text.replace("inf", "inf").replace("nan", "nan")
    return str(v)


def _quoted(v):
    return '"%s"' % _scalar_text(v) if isinstance(v, (bytes, str)) else _scalar_text(v)


def summarize(arr, n):
    """A tensor's text as tf.strings.format / tf.print write it: nested [..] with ... past 2n items."""
    arr = np.asarray(arr, dtype=object) if np.asarray(arr).dtype.kind in "OSU" else np.asarray(arr)
    if arr.ndim == 0:
        return _quoted(arr[()])

    def render(a, depth):
        size = a.shape[0]
        idx = list(range(size)) if n < 0 or size <= 2 * n else list(range(n)) + [None] + list(range(size - n, size))
        if a.ndim == 1:
            return "[" + " ".join("..." if i is None else _quoted(a[i]) for i in idx) + "]"
        sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
        return "[" + sep.join("..." if i is None else render(a[i], depth + 1) for i in idx) + "]"
    return render(arr, 0)


def _format_make(op, ctx):
    template, placeholder, n = op._attrs["template"], op._attrs["placeholder"], op._attrs["summarize"]
    pieces = template.split(placeholder)

    def run(*inputs):
        out = pieces[0]
        for piece, value in zip(pieces[1:], inputs):
            out += summarize(value, n) + piece
        return np.asarray(out.encode("utf-8"), dtype=object)
    return run


register_op("StringFormat", make=_format_make, shape=lambda op: [TensorShape([])], not_differentiable=True)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 - TF's name
    """template with each placeholder replaced by the text of the next tensor in inputs."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError("%s placeholder(s) in template does not match %s tensor(s) provided as input"
                         % (template.count(placeholder), len(inputs)))
    tensors = [convert_to_tensor(t) for t in inputs]
    with name_scope(name, "StringFormat", tensors) as scope:
        return apply_op("StringFormat", [(t, "inputs_%d" % i) for i, t in enumerate(tensors)],
                        {"template": template, "placeholder": placeholder, "summarize": int(summarize),
                         "T": [t.dtype.base_dtype for t in tensors]}, name=scope, dtypes=[_dt.string],
                        same_dtype=False)


# ---- StringNGrams ----------------------------------------------------------------------------------------
def _ngrams_make(op, ctx):
    sep = _bytes(op._attrs["separator"])
    widths = op._attrs["ngram_widths"]
    left, right = _bytes(op._attrs["left_pad"]), _bytes(op._attrs["right_pad"])
    pad_width, preserve = op._attrs["pad_width"], op._attrs["preserve_short_sequences"]

    def row_ngrams(tokens):
        out = []
        for w in widths:
            pad = pad_width if pad_width >= 0 else w - 1
            pad = min(pad, w - 1)
            seq = [left] * pad + tokens + [right] * pad
            count = len(seq) - w + 1
            if count > 0:
                out.extend(sep.join(seq[i:i + w]) for i in range(count))
            elif preserve and tokens:
                out.append(sep.join(seq))
        return out

    def run(data, splits):
        data, splits = _obj(data), np.asarray(splits)
        grams, out_splits = [], [0]
        for i in range(len(splits) - 1):
            grams.extend(row_ngrams([_bytes(v) for v in data[splits[i]:splits[i + 1]]]))
            out_splits.append(len(grams))
        arr = np.empty(len(grams), dtype=object)
        arr[:] = grams
        return arr, np.asarray(out_splits, splits.dtype)
    return run


register_op("StringNGrams", make=_ngrams_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None]), op._inputs[1].shape])


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The ngrams of the last axis of a dense string tensor, each row giving the same number of them."""
    widths = [ngram_width] if isinstance(ngram_width, int) else list(ngram_width)
    if any(w < 1 for w in widths):
        raise ValueError("All ngram_widths must be greater than 0. Got %s" % widths)
    if pad_values is None:
        left = right = ""
        pad = 0
    else:
        left, right = (pad_values, pad_values) if isinstance(pad_values, (str, bytes)) else tuple(pad_values)
        pad = -1 if padding_width is None else int(padding_width)
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
    with name_scope(name, "StringNGrams", [data]):
        x = convert_to_tensor(data, _dt.string, name="data")
        rank = x.shape.ndims
        if rank is None or rank == 0:
            raise ValueError("ngrams needs data of known rank >= 1, got %s" % x.shape)
        outer = A.shape(x)[:-1]
        width = A.shape(x)[-1]
        rows = A.reshape(x, [-1])
        splits = M.cast(M.multiply(_range(M.add(reduce_prod(outer), 1)), width), _dt.int64)
        grams, _ = apply_op("StringNGrams", [(rows, "data"), (splits, "data_splits")],
                            {"separator": separator, "ngram_widths": widths, "left_pad": _text_attr(left),
                             "right_pad": _text_attr(right), "pad_width": pad,
                             "preserve_short_sequences": bool(preserve_short_sequences)},
                            name="StringNGrams", dtypes=[_dt.string, _dt.int64], same_dtype=False)
        return A.reshape(grams, A.concat([outer, [-1]], 0))


def _text_attr(v):
    return v.decode("utf-8") if isinstance(v, bytes) else v


__all__ = ["lower", "upper", "regex_full_match", "to_hash_bucket", "to_hash_bucket_strong", "unsorted_segment_join",
           "unicode_encode", "unicode_transcode", "format", "ngrams"]
