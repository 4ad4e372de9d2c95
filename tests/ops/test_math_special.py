"""tf.math's moments (reduce_variance, reduce_std) and where TF1 exposes the new math names."""
import numpy as np
import pytest

import lens as tf


def test_reduce_variance_and_std_match_numpy_with_tf1_scopes():
    x = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, -1.0]], np.float32)
    with tf.Graph().as_default():
        t = tf.constant(x)
        std = tf.math.reduce_std(t, axis=1)
        var = tf.math.reduce_variance(t, axis=0, keepdims=True)
        total = tf.math.reduce_variance(t)
        grad = tf.gradients(tf.math.reduce_std(t), t)[0]
        with tf.Session() as sess:
            got = sess.run([std, var, total, grad])
    np.testing.assert_allclose(got[0], np.std(x, axis=1), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.var(x, axis=0, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(got[2], np.var(x), rtol=1e-6)
    # d std / dx = (x - mean) / (n * std)
    np.testing.assert_allclose(got[3], (x - x.mean()) / (x.size * x.std()), rtol=1e-5)
    assert std.op.name == "reduce_std/Sqrt" and total.op.name.startswith("reduce_variance_")


@pytest.mark.parametrize("name", ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                                  "atanh", "expm1", "erf", "erfc", "rint", "atan2", "truncatediv",
                                  "truncatemod", "realdiv"])
def test_tf1_names_at_top_level_and_in_tf_math(name):
    assert getattr(tf, name) is getattr(tf.math, name)


def test_truncatediv_is_not_differentiable_as_in_tf():
    with tf.Graph().as_default():
        x = tf.constant([1.5, -2.5])
        assert tf.gradients(tf.truncatediv(x, 2.0), x) == [None]
