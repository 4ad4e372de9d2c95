"""Op-table rows for control flow: If, While, WhileGrad, Assert, CheckNumerics."""
import numpy as np

import lens as tf
from optable_lib import AWAY0, F, FIX, Row, custom


def _while_build(x):
    return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x + tf.sin(v)), [0, x])[1]


def _while_ref(x):
    v = x
    for _ in range(3):
        v = v * x + np.sin(v)
    return v


def _while_grad_check():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [3])
        y = tf.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, v * x), [1, x])[1]
        grad, = tf.gradients(tf.reduce_sum(y), x)
        assert "WhileGrad" in {o.type for o in g.get_operations()}
        xv = np.array([0.5, -1.5, 2.0])
        with tf.Session() as sess:
            yv, gv = sess.run([y, grad], {x: xv})
        np.testing.assert_allclose(yv, xv ** 5)
        np.testing.assert_allclose(gv, 5 * xv ** 4)


def _assert_check():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2])
        op = tf.Assert(tf.reduce_all(x > 0), ["x was", x])
        assert op.type == "Assert" and "Assert" in {o.type for o in g.get_operations()}
        with tf.Session() as sess:
            assert sess.run(op, {x: [1.0, 2.0]}) is None
            try:
                sess.run(op, {x: [1.0, -2.0]})
            except tf.errors.InvalidArgumentError as e:
                assert "assertion failed: [x was] [1 -2]" in str(e), str(e)
            else:
                raise AssertionError("Assert with a false condition did not raise")


ROWS = [
    Row("If", lambda p, x, y: tf.cond(p, lambda: x * y, lambda: x - tf.exp(y)),
        lambda p, x, y: x * y if p else x - np.exp(y),
        [[FIX(True), F(3), F(3)], [FIX(False), F(3), F(3)]], label="If"),
    Row("While", _while_build, _while_ref, [[F(3, lo=-0.9, hi=0.9)]], label="While"),
    custom("WhileGrad", _while_grad_check),
    custom("Assert", _assert_check),
    Row("CheckNumerics", lambda x: tf.check_numerics(x, "x is bad") * 2.0, lambda x: x * 2.0,
        [[F(2, 3, away=AWAY0)]]),
]
