"""Plans whose work is nearly all in self-splitting kernels run in order, lending a helper to
each big kernel: same values as one thread alone, fused chains kept."""
import numpy as np
import pytest

import lens as tf
from lens.client import parallel
from lens.client.plan import Plan
from lens.ops import intra_op


def _convnet(config):
    """A conv 5x5 32->64 + relu + pool + dense training step with Adam (about 1e7 MACs per example)."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 14, 14, 32])
        y = tf.placeholder(tf.int64, [None])
        h = tf.layers.conv2d(x, 64, 5, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        logits = tf.layers.dense(tf.reshape(h, [-1, 7 * 7 * 64]), 10)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        sess = tf.Session(graph=g, config=config)
        sess.run(tf.global_variables_initializer())
    rng = np.random.default_rng(0)
    feed = {x: rng.standard_normal((6, 14, 14, 32)).astype(np.float32), y: rng.integers(0, 10, 6)}
    return sess, train, loss, feed


def _steps(sess, train, loss, feed, n=3):
    losses = [float(sess.run([train, loss], feed)[1]) for _ in range(n)]
    return losses + [v.copy() for v in sess.run(sess.graph.get_collection("trainable_variables"))]


def _plan_of(sess, train):
    return next(c.plan for c in sess._plain_runs.values() if train in c.plan.ops)


def test_a_convnet_step_runs_in_order_and_matches_one_thread(monkeypatch):
    monkeypatch.setattr(intra_op, "_machine_has_room", lambda: True)   # helpers whatever the load
    split = _convnet(None)
    out = _steps(*split)
    plan = _plan_of(split[0], split[1])
    assert type(plan) is Plan and plan.fn.__wrapped__ is not None
    alone = _steps(*_convnet(tf.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)))
    for a, b in zip(out, alone):
        np.testing.assert_array_equal(a, b)
    assert out[2] < out[0]


def test_small_or_mixed_plans_keep_the_old_choice():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [None, 64])
        w = tf.Variable(tf.ones([64, 64]))
        ops = [tf.matmul(a, w).op]
    assert not parallel.split_within_ops(ops)       # far below SPLIT_MIN_FLOPS
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [1024, 1024])
        tf.matmul(a, a)
        for _ in range(200):
            tf.reduce_sum(tf.tanh(a) * a, 1)
        ops = g.get_operations()
    assert not parallel.split_within_ops(ops)       # too much work outside the splitting kernels


@pytest.mark.parametrize("intra", [1, 2])
def test_an_explicit_intra_op_thread_count_is_kept(intra):
    sess, train, loss, feed = _convnet(tf.ConfigProto(intra_op_parallelism_threads=intra))
    sess.run([train, loss], feed)
    plan = _plan_of(sess, train)
    assert getattr(plan.fn, "__wrapped__", None) is None
