"""tf.make_template shares variables across calls; tf.custom_gradient / tf.grad_pass_through override gradients."""
import pytest

import lens as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(t, feed)


def test_template_shares_variables_and_scopes():
    def scale(x, factor):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(factor))
        return x * w
    t = tf.make_template("scale", scale, factor=3.0)
    a, b = t(tf.constant(1.0)), t(tf.constant(2.0))
    assert [v.name for v in tf.global_variables()] == ["scale/w:0"]
    assert t.variable_scope_name == "scale" and [v.name for v in t.trainable_variables] == ["scale/w:0"]
    assert _run([a, b]) == [3.0, 6.0]
    t2 = tf.make_template("scale", scale, factor=1.0)
    t2(tf.constant(1.0))
    assert t2.variable_scope_name == "scale_1"


def test_template_refuses_new_trainable_variables_after_the_first_call():
    t = tf.make_template("bad", lambda: tf.Variable(1.0))
    t()
    with pytest.raises(ValueError, match="after the first time"):
        t()


def test_template_scope_created_now():
    t = tf.make_template("early", lambda: tf.get_variable("v", [2]), create_scope_now_=True)
    assert t.variable_scope_name == "early"
    assert t().name == "early/v:0" and t().name == "early/v:0"


def test_custom_gradient_replaces_the_gradient():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        return tf.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
    x = tf.constant([0.0, 100.0])
    y = log1pexp(x)
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    assert _run(g).tolist() == [0.5, 1.0]           # the naive gradient is nan at 100

    @tf.custom_gradient
    def clip_grad(a, b):
        return a * b, lambda dy: (tf.clip_by_value(dy * b, -1.0, 1.0), dy * a)
    a, b = tf.constant(2.0), tf.constant(5.0)
    ga, gb = tf.gradients(clip_grad(a, b) * 3.0, [a, b])
    assert _run([ga, gb]) == [1.0, 6.0]


def test_custom_gradient_with_variables_is_a_type_error():
    @tf.custom_gradient
    def uses_var(x):
        v = tf.get_variable("v", [], initializer=tf.ones_initializer())
        return x * v, lambda dy: dy
    with pytest.raises(TypeError, match="ResourceVariable"):
        uses_var(tf.constant(1.0))


def test_grad_pass_through_is_straight_through():
    x = tf.constant([0.4, 1.6])
    y = tf.grad_pass_through(tf.round)(x)
    g = tf.gradients(tf.reduce_sum(y * [2.0, 3.0]), x)[0]
    assert _run(y).tolist() == [0.0, 2.0] and _run(g).tolist() == [2.0, 3.0]
    assert tf.gradients(tf.reduce_sum(tf.round(x)), x) == [None]   # Round alone has no gradient
