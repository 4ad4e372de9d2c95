"""String ops against facts read from TensorFlow (values, dtypes, op names and error texts)."""
import numpy as np
import pytest

import lens as tf
from lens import errors
from lens.ops import string_ops as S
from lens.ops.string_csv import decode_csv


def run(build, feed=None):
    g = tf.Graph()
    with g.as_default():
        out = build()
        with tf.Session() as sess:
            return sess.run(out, feed)


def objs(*items):
    arr = np.empty(len(items), dtype=object)
    arr[:] = list(items)
    return arr


def csv(records, defaults, **kw):
    g = tf.Graph()
    with g.as_default():
        r = tf.placeholder(tf.string, [None])
        outs = decode_csv(r, defaults, **kw)
        with tf.Session() as sess:
            return sess.run(outs, {r: objs(*records)})


# ---- decode_csv: each case checked with TF 2.21's compat.v1 --------------------------------------
@pytest.mark.parametrize("record, defaults, kw, expected", [
    (b"1,2.5,abc", [[0], [0.0], [""]], {}, [1, 2.5, b"abc"]),
    (b'"4",5,"x,y"', [[0], [0.0], [""]], {}, [4, 5.0, b"x,y"]),
    (b"7,,z", [[0], [1.5], [""]], {}, [7, 1.5, b"z"]),
    (b" 8 , 9 ,w", [[0], [0.0], [""]], {}, [8, 9.0, b"w"]),
    (b'"a""b",1,2', [[""], [0], [""]], {}, [b'a"b', 1, b"2"]),
    (b"10,NA,q", [[0], [3.0], [""]], {"na_value": "NA"}, [10, 3.0, b"q"]),
    (b'"ab",1,2', [[""], [0], [""]], {"use_quote_delim": False}, [b'"ab"', 1, b"2"]),
    (b"1e3,1,2", [[0.0], [0], [""]], {}, [1000.0, 1, b"2"]),
    (b"1|2|3", [[0], [0], [0]], {"field_delim": "|"}, [1, 2, 3]),
    (b"1,2,3,4", [[0], [0]], {"select_cols": [1, 3]}, [2, 4]),
    (b"+5,1.,2", [[0], [0.0], [""]], {}, [5, 1.0, b"2"]),
    (b"1,2,", [[0], [0], ["d"]], {}, [1, 2, b"d"]),
    (b",,", [[0], [0], ["d"]], {}, [0, 0, b"d"]),
])
def test_decode_csv_matches_tensorflow(record, defaults, kw, expected):
    got = csv([record], defaults, **kw)
    assert [v[0] for v in got] == expected


def test_decode_csv_types_shapes_and_names():
    g = tf.Graph()
    with g.as_default():
        outs = decode_csv(tf.placeholder(tf.string, [None]), [[0], [tf.constant(0, tf.int64)], [0.0],
                                                                 tf.constant([0], tf.float64), [""]])
        assert [o.dtype for o in outs] == [tf.int32, tf.int64, tf.float32, tf.float64, tf.string]
        assert {o.op.type for o in outs} == {"DecodeCSV"} and outs[0].op.name == "DecodeCSV"
        assert outs[0].shape.as_list() == [None]
    got = csv([b"1,2,inf,nan,s", b"-3,99999999999,1,2,t"], [[0], np.array([0], np.int64), [0.0], np.array([0], np.float64), [""]])
    assert got[1].tolist() == [2, 99999999999] and got[1].dtype == np.int64
    assert np.isinf(got[2][0]) and np.isnan(got[3][0])


@pytest.mark.parametrize("record, defaults, kw, message", [
    (b"7,,z", [[0], [], [""]], {}, "Field 1 is required but missing in record 0!"),
    (b"1,2", [[0], [0.0], [""]], {}, "Expect 3 fields but have 2 in record 0"),
    (b"1,2,3,4", [[0], [0.0], [""]], {}, "Expect 3 fields but have 4 in record 0"),
    (b'a"b,1,2', [[""], [0], [""]], {}, "Unquoted fields cannot have quotes/CRLFs inside"),
    (b'"ab"c,1,2', [[""], [0], [""]], {}, "Quote inside a string has to be escaped by another quote"),
    (b'"ab,1,2', [[""], [0], [""]], {}, "Quoted field has to end with quote followed by delim or end"),
    (b"x,1,2", [[0], [0], [""]], {}, "Field 0 in record 0 is not a valid int32: x"),
    (b"1.5,1,2", [[0], [0], [""]], {}, "Field 0 in record 0 is not a valid int32: 1.5"),
    (b"99999999999,1,2", [[0], [0], [""]], {}, "Field 0 in record 0 is not a valid int32: 99999999999"),
    (b"0x10,1,2", [[0], [0], [""]], {}, "Field 0 in record 0 is not a valid int32: 0x10"),
    (b"1,2,3", [[0], [0]], {"select_cols": [1, 3]}, "Expect 2 fields but have 1 in record 0"),
    (b"", [[5]], {}, "Expect 1 fields but have 0 in record 0"),
    (b"1,q,2", [[0], [0.0], [""]], {}, "Field 1 in record 0 is not a valid float: q"),
])
def test_decode_csv_errors_match_tensorflow(record, defaults, kw, message):
    with pytest.raises(errors.InvalidArgumentError, match=message.replace(".", r"\.").replace("|", r"\|")):
        csv([record], defaults, **kw)


def test_decode_csv_python_checks():
    with tf.Graph().as_default():
        r = tf.constant(["1,2"])
        with pytest.raises(ValueError, match="strictly increasing"):
            decode_csv(r, [[0], [0]], select_cols=[1, 0])
        with pytest.raises(ValueError, match="negative"):
            decode_csv(r, [[0], [0]], select_cols=[-1, 0])
        with pytest.raises(ValueError, match="do not match"):
            decode_csv(r, [[0]], select_cols=[0, 1])
        with pytest.raises(TypeError, match="record_defaults"):
            decode_csv(r, [[True]])


# ---- the other ops -------------------------------------------------------------------------------
def test_as_string_formats_like_tensorflow():
    f = [1.5, -0.1, 1e10, 1e-7, np.inf, np.nan]
    assert run(lambda: S.as_string(tf.constant(f))).tolist() == [
        b"1.500000", b"-0.100000", b"10000000000.000000", b"0.000000", b"inf", b"nan"]
    assert run(lambda: S.as_string(tf.constant([1.5, 1e10, 123456789.0], tf.float64), shortest=True)).tolist() == [
        b"1.5", b"1e+10", b"1.23457e+08"]
    assert run(lambda: S.as_string(tf.constant([1.5, 1e10]), scientific=True)).tolist() == [
        b"1.500000e+00", b"1.000000e+10"]
    assert run(lambda: S.as_string(tf.constant([1.5, 1e10]), precision=2, width=10, fill="0")).tolist() == [
        b"0000001.50", b"10000000000.00"]
    assert run(lambda: S.as_string(tf.constant([1, -12]), width=5, fill="0")).tolist() == [b"00001", b"-0012"]
    assert run(lambda: S.as_string(tf.constant([True, False]))).tolist() == [b"true", b"false"]
    assert run(lambda: S.as_string(tf.constant([1 + 2j], tf.complex64))).tolist() == [b"(1.000000,2.000000)"]
    assert run(lambda: S.as_string(tf.constant([1.5]), width=8, fill="+"))[0] == b"+1.500000"
    assert run(lambda: S.as_string(tf.constant([1.5]), fill="#", shortest=True))[0] == b"1.50000"
    for kw, msg in [({"precision": 2}, "precision not supported for datatype int32"),
                    ({"fill": "ab"}, "Fill string must be one or fewer characters")]:
        with pytest.raises(errors.InvalidArgumentError, match=msg):
            run(lambda: S.as_string(tf.constant([1, 2]), **kw))
    with pytest.raises(errors.InvalidArgumentError, match="Cannot select both scientific and shortest"):
        run(lambda: S.as_string(tf.constant([1.0]), scientific=True, shortest=True))


def test_string_to_number_accepts_and_refuses_what_tensorflow_does():
    good = run(lambda: S.string_to_number(tf.constant(["0x10", " 1 ", "Infinity", "-nan", "0x1p3", "1e400"])))
    assert good[:3].tolist() == [16.0, 1.0, np.inf] and np.isnan(good[3]) and good[4] == 8 and good[5] == np.inf
    assert run(lambda: S.string_to_number(tf.constant(["-2147483648", "\t2\n"]), tf.int32)).tolist() == [-2**31, 2]
    for s, dt in [("1_0", tf.float32), ("1e", tf.float64), ("", tf.float32), ("2147483648", tf.int32),
                  ("1.", tf.int64), ("0x10", tf.int64), ("9223372036854775808", tf.int64)]:
        with pytest.raises(errors.InvalidArgumentError,
                           match="StringToNumberOp could not correctly convert string: %s(\n|$)" % s):
            run(lambda: S.string_to_number(tf.constant([s]), dt))


def test_string_join_and_reduce_join():
    assert run(lambda: S.string_join(["a", tf.constant(["x", "y"]), "b"], separator="-")).tolist() == [
        b"a-x-b", b"a-y-b"]
    with tf.Graph().as_default(), pytest.raises(ValueError):
        S.string_join([tf.constant(["a", "b", "c"]), tf.constant(["x", "y"])])
    m = [["a", "b"], ["c", "d"]]
    assert run(lambda: S.reduce_join(tf.constant(m))) == b"abcd"
    assert run(lambda: S.reduce_join(tf.constant(m), axis=0, separator=",")).tolist() == [b"a,c", b"b,d"]
    assert run(lambda: S.reduce_join(tf.constant(m), axis=1, keep_dims=True)).tolist() == [[b"ab"], [b"cd"]]
    assert run(lambda: S.reduce_join(tf.constant(m), axis=[0, 1])) == b"acbd"
    assert run(lambda: S.reduce_join(tf.constant(m), axis=[1, 0])) == b"abcd"
    assert run(lambda: S.reduce_join(tf.zeros([2, 0], tf.string), axis=1)).tolist() == [b"", b""]
    with pytest.raises(errors.InvalidArgumentError, match="Duplicate reduction dimension 0"):
        run(lambda: S.reduce_join(tf.constant(m), axis=[0, 0]))
    with tf.Graph().as_default():
        assert S.reduce_join(tf.constant(["a"]), name="foo").op.name == "ReduceJoin/foo"
        with pytest.raises(ValueError, match="Invalid reduction dimension 2"):
            S.reduce_join(tf.constant(m), axis=2)


def test_substr_regex_strip_length():
    assert run(lambda: S.substr(tf.constant(["hello", "ab"]), -2, 3)).tolist() == [b"lo", b"ab"]
    assert run(lambda: S.substr(tf.constant("hello"), [1, 0], [2, 1])).tolist() == [b"el", b"h"]
    assert run(lambda: S.substr(tf.constant(["hello"]), 1, -1)).tolist() == [b"ello"]
    assert run(lambda: S.substr(tf.constant("hello"), -2, 5)) == b"lo"  # all three inputs scalars
    with pytest.raises(errors.InvalidArgumentError, match="pos 3 out of range for string b'ab' at index 1"):
        run(lambda: S.substr(tf.constant(["hello", "ab"]), 3, 3))
    assert run(lambda: S.regex_replace(tf.constant(["aaa bab"]), "a", "X", replace_global=False)).tolist() == [
        b"Xaa bab"]
    assert run(lambda: S.regex_replace(tf.constant(["abc"]), "(b)(c)", "\\2\\1")).tolist() == [b"acb"]
    assert run(lambda: S.regex_replace(tf.constant(["abc"]), "x*", "-")).tolist() == [b"-a-b-c-"]
    assert run(lambda: S.regex_replace(tf.constant(["abc"]), "b", "\\1")).tolist() == [b"abc"]
    with pytest.raises(errors.InvalidArgumentError, match="Invalid pattern: \\("):
        run(lambda: S.regex_replace(tf.constant(["abc"]), tf.constant("("), "x"))
    assert run(lambda: S.length(tf.constant(["abc", "é"]), unit="UTF8_CHAR")).tolist() == [3, 1]
    assert run(lambda: S.strip(tf.constant([" a b \t\n", "\x0bq\x0c\r", ""]))).tolist() == [b"a b", b"q", b""]


def test_string_split_sparse_output_like_tensorflow():
    def split(strings, **kw):
        g = tf.Graph()
        with g.as_default():
            sp = S.string_split(tf.constant(strings), **kw)
            assert sp.values.op.name == "StringSplit/StringSplit" and sp.indices.shape.as_list() == [None, 2]
            with tf.Session() as sess:
                i, v, d = sess.run(sp)   # a SparseTensorValue
        return i.tolist(), v.tolist(), d.tolist()
    assert split(["a,b,,c", ""], delimiter=",", skip_empty=False) == (
        [[0, 0], [0, 1], [0, 2], [0, 3]], [b"a", b"b", b"", b"c"], [2, 4])
    assert split(["a,b;c"], delimiter=",;") == ([[0, 0], [0, 1], [0, 2]], [b"a", b"b", b"c"], [1, 3])
    assert split(["a\tb c"], delimiter="")[1] == [b"a", b"\t", b"b", b" ", b"c"]
    assert split(["", ""]) == ([], [], [2, 0])
    with tf.Graph().as_default(), pytest.raises(ValueError, match="rank 1"):
        S.string_split(tf.constant("ab c"))


def test_decode_raw():
    data = objs(b"\x01\x00\x02\x00", b"\xff\xff\x00\x01")
    assert run(lambda: S.decode_raw(tf.constant(data, tf.string), tf.int16)).tolist() == [[1, 2], [-1, 256]]
    assert run(lambda: S.decode_raw(tf.constant(data, tf.string), tf.int16, little_endian=False)).tolist() == [
        [256, 512], [-1, 1]]
    assert run(lambda: S.decode_raw(tf.constant(objs(b""), tf.string), tf.int32)).shape == (1, 0)
    with pytest.raises(errors.InvalidArgumentError, match="element 1 has size 3 != 0"):
        run(lambda: S.decode_raw(tf.constant(objs(b"abc", b""), tf.string), tf.int8))
    with pytest.raises(errors.InvalidArgumentError, match="length 3 that is not a multiple of 2, the size of int16"):
        run(lambda: S.decode_raw(tf.constant(objs(b"abc"), tf.string), tf.int16))
    with tf.Graph().as_default(), pytest.raises(TypeError, match="out_type"):
        S.decode_raw(tf.constant(["a"]), tf.string)
