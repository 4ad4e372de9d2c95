"""parse_single_sequence_example / parse_sequence_example with FixedLenFeature, VarLenFeature and
FixedLenSequenceFeature equal TF 2.21's compat.v1 on fixtures/sequence_example_cases.py; bad input errors."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import lens as tf
from lens.proto.example_pb2 import SequenceExample

HERE = pathlib.Path(__file__).parent / "fixtures"
_spec = importlib.util.spec_from_file_location("sequence_example_cases", HERE / "sequence_example_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
WANT = json.loads((HERE / "sequence_example_tf.json").read_text())


def _plain(v):
    if isinstance(v, tf.SparseTensorValue):
        return {"indices": np.asarray(v.indices).tolist(), "values": _plain(v.values),
                "dense_shape": np.asarray(v.dense_shape).tolist()}
    arr = np.asarray(v)
    if arr.dtype == object:
        return np.vectorize(lambda b: b.decode(), otypes=[object])(arr).tolist() if arr.size else []
    return arr.tolist()


def _check(got, want):
    for part, values in want.items():
        for key, w in values.items():
            assert _plain(got[part][key]) == w, "%s %s: lens %r, TF %r" % (part, key, _plain(got[part][key]), w)


def test_single_and_batch_match_tensorflow():
    sers = cases.serialized_examples(SequenceExample)
    with tf.Graph().as_default():
        ctx, seq = cases.build_specs(tf)
        c, s = tf.io.parse_single_sequence_example(sers[0], ctx, seq)
        cb, sb, lengths = tf.io.parse_sequence_example(sers, ctx, seq)
        assert s["tok"].shape.as_list() == [None, 2] and sb["tok"].shape.as_list() == [None, None, 2]
        with tf.Session() as sess:
            single = sess.run({"context": c, "sequence": s})
            batch = sess.run({"context": cb, "sequence": sb, "lengths": lengths})
    _check(single, WANT["single"])
    _check(batch, WANT["batch"])
    assert tf.parse_single_sequence_example is tf.io.parse_single_sequence_example
    assert tf.FixedLenSequenceFeature is tf.io.FixedLenSequenceFeature


def test_missing_required_lists_and_bad_specs():
    sers = cases.serialized_examples(SequenceExample)
    with tf.Graph().as_default():
        _, s = tf.io.parse_single_sequence_example(
            sers[1], sequence_features={"w": tf.io.FixedLenSequenceFeature([], tf.float32)})
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="is required"):
            sess.run(s)
        with pytest.raises(ValueError, match="Missing features"):
            tf.io.parse_single_sequence_example(sers[0])
        with pytest.raises(ValueError, match="FixedLenSequenceFeature"):
            tf.io.parse_single_sequence_example(sers[0], sequence_features={"x": tf.io.FixedLenFeature([], tf.int64)})
