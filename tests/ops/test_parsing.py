"""parse_single_example / parse_example over tf.train.Example protos, including hand-encoded wire bytes."""
import struct

import numpy as np
import pytest

import lens as tf
from lens import errors
from optable_lib import dataset_elements


def _example(**features):
    ex = tf.train.Example()
    for key, vals in features.items():
        f = ex.features.feature[key]
        if isinstance(vals[0], bytes):
            f.bytes_list.value.extend(vals)
        elif isinstance(vals[0], float):
            f.float_list.value.extend(vals)
        else:
            f.int64_list.value.extend(vals)
    return ex.SerializeToString()


def _varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def _len_field(num, payload):
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def test_hand_encoded_wire_bytes_parse_with_tensorflows_field_numbers():
    # Example.features=1; Features.feature map=1 (key=1, value=2); Feature.float_list=2, int64_list=3;
    # FloatList/Int64List.value=1 (packed).
    floats = _len_field(2, _len_field(1, struct.pack("<2f", 1.5, -2.0)))
    ints = _len_field(3, _len_field(1, _varint(7) + _varint(300)))
    entries = _len_field(1, _len_field(1, b"f") + _len_field(2, floats)) + \
        _len_field(1, _len_field(1, b"i") + _len_field(2, ints))
    wire = _len_field(1, entries)
    parsed = tf.parse_single_example(wire, {"f": tf.FixedLenFeature([2], tf.float32),
                                            "i": tf.FixedLenFeature([2], tf.int64)})
    with tf.Session() as sess:
        got = sess.run(parsed)
    assert got["f"].dtype == np.float32 and got["f"].tolist() == [1.5, -2.0]
    assert got["i"].dtype == np.int64 and got["i"].tolist() == [7, 300]


def test_parse_single_example_fixed_len_defaults_and_sparse():
    ser = tf.placeholder(tf.string, [])
    feats = {"img": tf.FixedLenFeature([2, 2], tf.float32), "label": tf.FixedLenFeature([], tf.int64),
             "name": tf.FixedLenFeature([], tf.string, default_value=b"anon"),
             "tags": tf.VarLenFeature(tf.int64)}
    p = tf.parse_single_example(ser, feats)
    assert p["img"].shape.as_list() == [2, 2] and p["label"].shape.as_list() == []
    assert p["tags"].indices.shape.as_list() == [None, 1]
    assert {o.type for o in tf.get_default_graph().get_operations()} >= {"ParseSingleExample"}
    with tf.Session() as sess:
        got = sess.run(p, {ser: _example(img=[1.0, 2.0, 3.0, 4.0], label=[3], tags=[5, 6, 7])})
        assert got["img"].tolist() == [[1.0, 2.0], [3.0, 4.0]] and got["label"] == 3
        assert got["name"] == b"anon"
        assert got["tags"].indices.tolist() == [[0], [1], [2]] and got["tags"].values.tolist() == [5, 6, 7]
        assert got["tags"].dense_shape.tolist() == [3]
        with pytest.raises(errors.InvalidArgumentError, match="label.*required"):
            sess.run(p, {ser: _example(img=[1.0, 2.0, 3.0, 4.0])})
        with pytest.raises(errors.InvalidArgumentError, match="Values size: 3"):
            sess.run(p, {ser: _example(img=[1.0, 2.0, 3.0], label=[1])})
        with pytest.raises(errors.InvalidArgumentError, match="Data types don't match"):
            sess.run(p, {ser: _example(img=[1.0, 2.0, 3.0, 4.0], label=[1.0])})
        with pytest.raises(errors.InvalidArgumentError, match="Could not parse"):
            sess.run(p, {ser: b"\xff\xff\xff"})


def test_parse_example_batches_dense_and_sparse():
    batch = [_example(x=[1.0, 2.0], ids=[b"a"]), _example(x=[3.0, 4.0]), _example(x=[5.0, 6.0], ids=[b"b", b"c"])]
    p = tf.parse_example(tf.constant(batch), {"x": tf.FixedLenFeature([2], tf.float32),
                                              "ids": tf.VarLenFeature(tf.string)})
    assert p["x"].shape.as_list() == [3, 2]
    with tf.Session() as sess:
        got = sess.run(p)
    assert got["x"].tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert got["ids"].indices.tolist() == [[0, 0], [2, 0], [2, 1]]
    assert got["ids"].values.tolist() == [b"a", b"b", b"c"] and got["ids"].dense_shape.tolist() == [3, 2]


def test_bad_feature_specs_fail_at_graph_build():
    with pytest.raises(ValueError, match="Unsupported dtype int32"):
        tf.parse_single_example(b"", {"a": tf.FixedLenFeature([], tf.int32)})
    with pytest.raises(ValueError, match="fully defined"):
        tf.parse_single_example(b"", {"a": tf.FixedLenFeature([None], tf.float32)})
    with pytest.raises(ValueError, match="scalar"):
        tf.parse_single_example(tf.constant([b"a", b"b"]), {"a": tf.FixedLenFeature([], tf.float32)})
    with pytest.raises(ValueError, match="default_value"):
        tf.parse_single_example(b"", {"a": tf.FixedLenFeature([3], tf.float32, default_value=[1.0, 2.0])})


def test_tfrecord_of_examples_parsed_in_a_dataset_pipeline(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(_example(x=[float(i), float(i) * 2], y=[i % 2]))
    feats = {"x": tf.FixedLenFeature([2], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(path).map(lambda s: tf.parse_single_example(s, feats)).batch(2)
    assert ds.output_shapes["x"].as_list() == [None, 2]
    out = dataset_elements(ds)
    assert [o["y"].tolist() for o in out] == [[0, 1], [0, 1], [0]]
    assert out[2]["x"].tolist() == [[4.0, 8.0]]
