"""clip_by_norm, clip_by_average_norm, global_norm, clip_by_global_norm: values, gradients, names, errors."""
import numpy as np
import pytest

import lens as tf

RNG = np.random.default_rng(3)
T = RNG.uniform(-2, 2, (3, 4))


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def _numeric_grad(loss, x, value, eps=1e-6):
    """Central differences of the scalar loss with respect to placeholder x at value."""
    out = np.zeros_like(value)
    with tf.Session() as sess:
        for k in np.ndindex(value.shape):
            p, m = value.copy(), value.copy()
            p[k] += eps
            m[k] -= eps
            out[k] = (sess.run(loss, {x: p}) - sess.run(loss, {x: m})) / (2 * eps)
    return out


@pytest.mark.parametrize("clip,axes", [(1.0, None), (100.0, None), (1.5, [1]), (1.5, [0])])
def test_clip_by_norm_matches_numpy(clip, axes):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, T.shape)
        y = tf.clip_by_norm(x, clip, axes=axes)
        norm = np.sqrt(np.sum(T * T, axis=None if axes is None else tuple(axes), keepdims=True))
        expected = T * clip / np.maximum(norm, clip)
        np.testing.assert_allclose(_run(y, {x: T}), expected, rtol=1e-12)
        w = RNG.uniform(0.5, 1.5, T.shape)
        loss = tf.reduce_sum(y * w)
        (g,) = tf.gradients(loss, [x])
        np.testing.assert_allclose(_run(g, {x: T}), _numeric_grad(loss, x, T), rtol=1e-5, atol=1e-7)


def test_clip_by_norm_of_zeros_has_finite_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 2])
        y = tf.clip_by_norm(x, 1.0, axes=[1])
        (g,) = tf.gradients(tf.reduce_sum(y), [x])
        z = np.float32([[0, 0], [3, 4]])
        got_y, got_g = _run([y, g], {x: z})
        np.testing.assert_allclose(got_y, [[0, 0], [0.6, 0.8]], rtol=1e-6)
        assert np.all(np.isfinite(got_g)) and np.allclose(got_g[0], 1.0)
        assert y.op.name == "clip_by_norm" and y.dtype == tf.float32


def test_clip_by_average_norm_matches_numpy():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, T.shape)
        for clip in (0.1, 10.0):
            avg = np.sqrt(np.sum(T * T)) / T.size
            expected = T * clip / max(avg, clip)
            np.testing.assert_allclose(_run(tf.clip_by_average_norm(x, clip), {x: T}), expected, rtol=1e-12)


def test_global_norm_skips_none_and_matches_numpy():
    a, b = RNG.normal(size=(3, 2)), RNG.normal(size=(5,))
    with tf.Graph().as_default():
        n = tf.global_norm([tf.constant(a), None, tf.constant(b)])
        np.testing.assert_allclose(_run(n), np.sqrt(np.sum(a * a) + np.sum(b * b)), rtol=1e-12)
        assert n.op.name == "global_norm/global_norm"


@pytest.mark.parametrize("clip", [0.5, 100.0])
def test_clip_by_global_norm_scales_all_tensors_together(clip):
    a, b = RNG.normal(size=(3, 2)), RNG.normal(size=(5,))
    gn = np.sqrt(np.sum(a * a) + np.sum(b * b))
    with tf.Graph().as_default():
        clipped, norm = tf.clip_by_global_norm([tf.constant(a), None, tf.constant(b)], clip)
        assert clipped[1] is None
        ca, cb, got_norm = _run([clipped[0], clipped[2], norm])
        scale = clip / max(gn, clip)
        np.testing.assert_allclose(got_norm, gn, rtol=1e-12)
        np.testing.assert_allclose(ca, a * scale, rtol=1e-12)
        np.testing.assert_allclose(cb, b * scale, rtol=1e-12)
        assert clipped[0].op.name == "clip_by_global_norm/clip_by_global_norm/_0"


def test_clip_by_global_norm_use_norm_and_non_finite_norm():
    with tf.Graph().as_default():
        x = tf.constant([3.0, 4.0])
        (c,), n = tf.clip_by_global_norm([x], 1.0, use_norm=tf.constant(10.0))
        np.testing.assert_allclose(_run(c), [0.3, 0.4], rtol=1e-6)
        (c2,), _ = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
        assert np.all(np.isnan(_run(c2)))


def test_clip_by_global_norm_in_a_training_step():
    with tf.Graph().as_default():
        w = tf.Variable([3.0, 4.0])
        opt = tf.train.GradientDescentOptimizer(1.0)
        grads, variables = zip(*opt.compute_gradients(tf.reduce_sum(w * w)))   # grad = 2w = [6, 8]
        clipped, _ = tf.clip_by_global_norm(list(grads), 5.0)
        train = opt.apply_gradients(zip(clipped, variables))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), [0.0, 0.0], atol=1e-6)


def test_clip_errors_name_the_argument():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="t_list should be a sequence"):
            tf.clip_by_global_norm(tf.constant([1.0]), 1.0)
        with pytest.raises(TypeError, match="t_list should be a sequence"):
            tf.global_norm(tf.constant([1.0]))
        with pytest.raises(ValueError, match="every entry is None"):
            tf.global_norm([None])
