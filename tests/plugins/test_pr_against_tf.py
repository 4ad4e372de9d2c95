"""lens's PR curve ops give what TensorBoard's ops give when TensorFlow 2.21 runs them
(recorded by fixtures/make_tf_pr_fixture.py): tags and every count, precision and recall."""
import json
import os
import sys

import numpy as np
import pytest

import lens as tf
from lens.plugins import pr_curve

from tensorboard.compat.proto import summary_pb2 as tb_summary
from tensorboard.util import tensor_util as tb_tensor_util

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
from make_tf_pr_fixture import data  # noqa: E402

with open(os.path.join(HERE, "fixtures", "tf_pr_curves.json")) as _f:
    EXPECTED = json.load(_f)


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _value(serialized):
    value = tb_summary.Summary.FromString(serialized).value[0]
    return value.tag, tb_tensor_util.make_ndarray(value.tensor)


def test_op_weighted_op_and_streaming_op_match_tensorflow():
    labels, predictions, weights = data()
    assert predictions.min() < 0 and predictions.max() > 1  # the ops clip (op) or compare
    l_in = tf.placeholder(tf.bool, [None])
    p_in = tf.placeholder(tf.float32, [None])
    w_in = tf.placeholder(tf.float32, [None])
    with tf.name_scope("outer"):
        plain = pr_curve.op("plain", l_in, p_in, num_thresholds=11)
    weighted = pr_curve.op("weighted", l_in, p_in, num_thresholds=7, weights=w_in)
    stream, update = pr_curve.streaming_op("stream", l_in, p_in, num_thresholds=9, weights=w_in)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        feed = {l_in: labels[0], p_in: predictions[0], w_in: weights[0]}
        got = {"plain": _value(sess.run(plain, feed)), "weighted": _value(sess.run(weighted, feed))}
        for i in range(3):
            sess.run(update, {l_in: labels[i], p_in: predictions[i], w_in: weights[i]})
        got["stream"] = _value(sess.run(stream))
    for name, (tag, tensor) in got.items():
        assert tag == EXPECTED[name]["tag"]
        assert tensor.dtype == np.float32
        np.testing.assert_allclose(tensor, np.array(EXPECTED[name]["tensor"], np.float32),
                                   rtol=2e-6, atol=2e-6, err_msg=name)
