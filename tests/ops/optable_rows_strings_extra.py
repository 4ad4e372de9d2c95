"""Op-table rows: lower/upper, regex_full_match, to_hash_bucket_strong, unsorted_segment_join, unicode_encode,
unicode_transcode, format, ngrams -- each checked against TensorFlow 2.21's outputs on the same inputs
(fixtures/record_strings_tf.py), plus SipHash-2-4's published test vector."""
import json
import pathlib

import numpy as np

import lens as tf
from lens.ops import strings_extra as X
from optable_lib import custom

FIX = json.loads((pathlib.Path(__file__).parent / "fixtures" / "strings_tf.json").read_text(encoding="utf-8"))
WORDS = ["Hello", "ÄrgER", "abc", "", "Straße 9"]


def _text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "backslashreplace")
    if isinstance(v, np.ndarray) and v.dtype == object:
        return [_text(x) for x in v.tolist()] if v.ndim else _text(v.item())
    if isinstance(v, list):
        return [_text(x) for x in v]
    return np.asarray(v).tolist()


def _case(op_type, key, build, raw=False):
    def check():
        with tf.Graph().as_default():
            out = build()
            assert out.op.type == op_type or op_type in {o.type for o in tf.get_default_graph().get_operations()}
            with tf.Session() as sess:
                got = sess.run(out)
        got = [list(b) for b in got.tolist()] if raw else _text(got)
        assert got == FIX[key], "%s: lens %r, TensorFlow %r" % (key, got, FIX[key])
    return custom(op_type, check, label="%s %s" % (op_type, key))


def _siphash_vector():
    # The SipHash paper's vector: key 00..0f, message 00..0e -> a129ca6149be45e5.
    key = bytes(range(16))
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    assert X.siphash24(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5


ROWS = [
    _case("StringLower", "lower", lambda: X.lower(WORDS)),
    _case("StringUpper", "upper", lambda: X.upper(WORDS)),
    _case("StringLower", "lower_utf8", lambda: X.lower(WORDS, encoding="utf-8")),
    _case("StringUpper", "upper_utf8", lambda: X.upper(WORDS, encoding="utf-8")),
    _case("RegexFullMatch", "full_match", lambda: X.regex_full_match(WORDS, "[A-Za-z]+")),
    _case("StringToHashBucketStrong", "strong",
          lambda: X.to_hash_bucket_strong(WORDS + ["a much longer string of bytes!"], 1000, [17, 3141592653])),
    custom("StringToHashBucketStrong", _siphash_vector, label="SipHash-2-4 test vector"),
    _case("StringToHashBucket", "bucket",
          lambda: X.to_hash_bucket(WORDS + ["abcdefgh", "abcdefghi", "The quick brown fox jumps"], 1000)),
    _case("UnsortedSegmentJoin", "segment_join",
          lambda: X.unsorted_segment_join([["a", "b"], ["c", "d"], ["e", "f"]], [2, 0, 2], 4, separator="+")),
    _case("UnicodeEncode", "encode", lambda: X.unicode_encode([[72, 228, 0x1F600], [-5, 98, 99]], "UTF-8")),
    _case("UnicodeEncode", "encode_ignore", lambda: X.unicode_encode([[72, 0x110000, 99]], "UTF-8", errors="ignore")),
    _case("UnicodeEncode", "encode16", lambda: X.unicode_encode([[72, 0x1F600]], "UTF-16-BE"), raw=True),
    _case("UnicodeTranscode", "transcode",
          lambda: X.unicode_transcode(np.array(["Hé".encode(), b"a\xffb"], dtype=object), "UTF-8", "UTF-16-BE"),
          raw=True),
    _case("UnicodeTranscode", "transcode_repl",
          lambda: X.unicode_transcode(np.array([b"a\xffb\x01"], dtype=object), "UTF-8", "UTF-8", replacement_char=63,
                                      replace_control_characters=True)),
    _case("StringFormat", "format_int", lambda: X.format("x={} y={}", [tf.constant([1, 2, 3]), tf.constant(7)])),
    _case("StringFormat", "format_float", lambda: X.format("{}", [tf.constant([[0.1, 1.0], [1.0 / 3, -2.5e-7]])])),
    _case("StringFormat", "format_double", lambda: X.format("{}", [tf.constant([0.1, 1.0 / 3], tf.float64)])),
    _case("StringFormat", "format_long", lambda: X.format("{}", [tf.range(10)], summarize=2)),
    _case("StringFormat", "format_3d", lambda: X.format("{}", [tf.reshape(tf.range(8), [2, 2, 2])])),
    _case("StringFormat", "format_str", lambda: X.format("<{}>|{}", [tf.constant("abc"), tf.constant(["p", "q"])])),
    _case("StringFormat", "format_bool", lambda: X.format("{}", [tf.constant([True, False])])),
    _case("StringNGrams", "ngrams", lambda: X.ngrams([["a", "b", "c", "d"], ["e", "f", "g", "h"]], 2)),
    _case("StringNGrams", "ngrams_pad", lambda: X.ngrams(["a", "b", "c"], [1, 3], separator="_", pad_values=("<", ">"))),
    _case("StringNGrams", "ngrams_short", lambda: X.ngrams([["a", "b"]], 4, pad_values="#", padding_width=1,
                                                          preserve_short_sequences=True)),
]
