"""Variables: initializers, assign ops, uninitialized reporting, load, collections."""
import numpy as np
import pytest

import lens as tf


def test_assign_ops_and_methods():
    v = tf.Variable([1.0, 2.0], name="v")
    a = v.assign([5.0, 6.0])
    add = tf.assign_add(v, [1.0, 1.0])
    sub = v.assign_sub([2.0, 2.0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(a).tolist() == [5.0, 6.0]
        assert sess.run(add).tolist() == [6.0, 7.0]
        assert sess.run(sub).tolist() == [4.0, 5.0]
        assert v.eval(sess).tolist() == [4.0, 5.0]


def test_assign_shape_mismatch_is_invalid_argument():
    v = tf.Variable([1.0, 2.0])
    bad = tf.placeholder(tf.float32)
    op = tf.assign(v, bad)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="shapes of both tensors to match"):
            sess.run(op, {bad: [1.0, 2.0, 3.0]})


def test_uninitialized_reporting_and_is_initialized():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    report = tf.report_uninitialized_variables()
    is_a = tf.is_variable_initialized(a)
    with tf.Session() as sess:
        assert sorted(sess.run(report).tolist()) == [b"a", b"b"]
        sess.run(a.initializer)
        assert sess.run(report).tolist() == [b"b"]
        assert sess.run(is_a)


def test_initialized_value_and_load():
    w = tf.Variable(tf.ones([2]) * 3.0, name="w")
    w2 = tf.Variable(w.initialized_value() * 2, name="w2")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(w2).tolist() == [6.0, 6.0]
        w.load([7.0, 8.0], sess)
        assert sess.run(w).tolist() == [7.0, 8.0]


def test_collections_and_trainable_flag():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(1.0, name="b", trainable=False)
    # As in TF1, trainable=True would also put c in TRAINABLE_VARIABLES.
    c = tf.Variable(1.0, name="c", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    assert tf.trainable_variables() == [a]
    assert tf.global_variables() == [a, b]
    assert tf.local_variables() == [c]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(c) == 1.0


def test_callable_initial_value_and_dtype_ref():
    v = tf.Variable(lambda: tf.zeros([3]), name="lazy")
    assert v.dtype.name == "float32_ref" and v.dtype.base_dtype == tf.float32
    assert v.shape.as_list() == [3]
    ops = [op.name for op in tf.get_default_graph().get_operations()]
    assert any(n.startswith("lazy/Initializer/") for n in ops)


def test_get_variable_initializer_inheritance_and_regularizer():
    reg_calls = []

    def reg(w):
        reg_calls.append(w)
        return tf.reduce_sum(tf.abs(w))
    with tf.variable_scope("s", initializer=tf.constant_initializer(2.0), regularizer=reg):
        v = tf.get_variable("v", [2])
    assert reg_calls == [v]
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v).tolist() == [2.0, 2.0]
        assert sess.run(losses[0]) == 4.0


def test_gradient_descent_updates_match_numpy():
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=(3, 2)).astype(np.float32)
    x = rng.normal(size=(5, 3)).astype(np.float32)
    w = tf.Variable(w0)
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(x), w)))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    ref = w0.copy()
    with tf.Session() as sess:
        sess.run(w.initializer)
        for _ in range(3):
            sess.run(step)
            ref = ref - 0.01 * (2 * x.T @ (x @ ref))
        np.testing.assert_allclose(sess.run(w), ref, rtol=1e-5)
