"""tf.nn's remaining composites against NumPy: swish, moments helpers, zero_fraction, log_poisson_loss,
average losses, approx top-k, the N-D conv / pool / transpose dispatchers and space_to_batch."""
import numpy as np
import pytest

import lens as tf

RNG = np.random.default_rng(4)


def run(*ts):
    with tf.Session() as sess:
        return sess.run(list(ts))


def test_swish_zero_fraction_and_poisson_loss():
    x = RNG.standard_normal((3, 4))
    t = RNG.uniform(0, 3, (3, 4)).round()
    got = run(tf.nn.swish(x), tf.nn.silu(x, beta=2.0), tf.nn.zero_fraction(np.array([0, 1, 0, 2.0])),
              tf.nn.log_poisson_loss(t, x), tf.nn.log_poisson_loss(t, x, compute_full_loss=True))
    np.testing.assert_allclose(got[0], x / (1 + np.exp(-x)))
    np.testing.assert_allclose(got[1], x / (1 + np.exp(-2 * x)))
    assert got[2] == np.float32(0.5)
    base = np.exp(x) - x * t
    with np.errstate(divide="ignore", invalid="ignore"):
        stirling = np.where(t <= 1, 0, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t))
    np.testing.assert_allclose(got[3], base)
    np.testing.assert_allclose(got[4], base + stirling)


def test_moments_helpers():
    x = RNG.standard_normal((4, 3, 2))
    w = RNG.uniform(0.5, 2, (4, 1, 2))
    count, m_ss, v_ss, shift = tf.nn.sufficient_statistics(x, [0, 1], shift=0.3)
    mean, var = tf.nn.normalize_moments(count, m_ss, v_ss, shift)
    wm, wv = tf.nn.weighted_moments(x, [0, 1], w)
    got = run(count, mean, var, wm, wv)
    assert got[0] == 12
    np.testing.assert_allclose(got[1], x.mean((0, 1)))
    np.testing.assert_allclose(got[2], x.var((0, 1)))
    wb = np.broadcast_to(w, x.shape)
    ref_m = (wb * x).sum((0, 1)) / wb.sum((0, 1))
    np.testing.assert_allclose(got[3], ref_m)
    np.testing.assert_allclose(got[4], (wb * (x - ref_m) ** 2).sum((0, 1)) / wb.sum((0, 1)))


def test_losses_bn_and_approx_top_k():
    loss = RNG.uniform(0, 1, 6).astype(np.float32)
    x = RNG.standard_normal((2, 5, 3))
    m, v, b, g = [RNG.uniform(0.5, 1.5, 3) for _ in range(4)]
    got = run(tf.nn.compute_average_loss(loss), tf.nn.compute_average_loss(loss, 2.0, global_batch_size=12),
              tf.nn.scale_regularization_loss([tf.constant(1.5), tf.constant(2.0)]),
              tf.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, True),
              tf.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, False),
              *tf.nn.approx_max_k(x, 2, reduction_dimension=1), *tf.nn.approx_min_k(x, 1))
    np.testing.assert_allclose(got[0], loss.sum() / 6, rtol=1e-6)
    np.testing.assert_allclose(got[1], 2 * loss.sum() / 12, rtol=1e-6)
    assert got[2] == 3.5
    np.testing.assert_allclose(got[3], (x - m) / np.sqrt(v + 1e-3) * g + b)
    np.testing.assert_allclose(got[4], (x - m) / np.sqrt(v + 1e-3) + b)
    np.testing.assert_allclose(got[5], -np.sort(-x, axis=1)[:, :2])
    np.testing.assert_array_equal(got[6], np.argsort(-x, axis=1, kind="stable")[:, :2])
    np.testing.assert_allclose(got[7], x.min(-1, keepdims=True))


def test_nd_dispatchers_and_transposes():
    from optable_rows_conv3d import conv3d_ref
    x = RNG.standard_normal((1, 4, 5, 3, 2)).astype(np.float32)
    f = RNG.standard_normal((2, 2, 2, 2, 3)).astype(np.float32)
    x1 = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    f1 = RNG.standard_normal((3, 2, 3)).astype(np.float32)
    got = run(tf.nn.convolution(x, f, "SAME"), tf.nn.pool(x, [2, 2, 2], "MAX", "VALID", strides=[2, 2, 2]),
              tf.nn.max_pool_v2(x1, 2, 1, "VALID"), tf.nn.avg_pool_v2(x[:, 0], [2, 2], [1, 1], "SAME"),
              tf.nn.conv1d_transpose(x1, f1, [2, 10, 2], 2), tf.nn.conv_transpose(x1, f1, [2, 10, 2], 2))
    np.testing.assert_allclose(got[0], conv3d_ref(x, f, [1, 1, 1], "SAME"), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], x[:, :4, :4, :2].reshape(1, 2, 2, 2, 2, 1, 2, 2).max((2, 4, 6)), rtol=1e-6)
    np.testing.assert_allclose(got[2], np.maximum(x1[:, :-1], x1[:, 1:]))
    # conv1d_transpose is the adjoint of conv1d: <conv1d(y), x1> == <y, conv1d_transpose(x1)>
    y = RNG.standard_normal((2, 10, 2)).astype(np.float32)
    fwd = run(tf.nn.conv1d(y, f1, 2, "SAME"))[0]
    np.testing.assert_allclose((fwd * x1).sum(), (y * got[4]).sum(), rtol=1e-4)
    np.testing.assert_allclose(got[4], got[5])


def test_space_to_batch_family_round_trips_and_dilated_ops():
    x = RNG.standard_normal((2, 5, 6, 3)).astype(np.float32)
    pads, crops = tf.required_space_to_batch_paddings([5, 6], [2, 4], [[1, 0], [0, 0]])
    s2b = tf.space_to_batch_nd(x, [2, 4], pads)
    back = tf.batch_to_space_nd(s2b, [2, 4], crops)
    f = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)
    dil = tf.nn.with_space_to_batch(x, [2, 2], "SAME", lambda t, n, p: tf.nn.conv2d(t, f, [1, 1, 1, 1], p),
                                    filter_shape=[3, 3])
    ref = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
    v1 = tf.space_to_batch(x[:, :4], [[0, 0], [0, 0]], 2)
    got = run(pads, crops, back, dil, ref, tf.batch_to_space(v1, [[0, 0], [0, 0]], 2))
    np.testing.assert_array_equal(got[0], [[1, 0], [0, 2]])
    np.testing.assert_array_equal(got[1], [[0, 0], [0, 2]])
    np.testing.assert_allclose(got[2][:, 1:], x)
    np.testing.assert_allclose(got[3], got[4], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[5], x[:, :4])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="not divisible"):
        sess.run(tf.space_to_batch_nd(x, [2, 4], [[0, 0], [0, 0]]))


def test_general_dropout_keeps_where_the_sampler_reaches_rate():
    x = np.arange(1.0, 7.0, dtype=np.float32)
    u = np.array([0.1, 0.7, 0.4, 0.9, 0.3, 0.5], np.float32)
    calls = []

    def sampler(shape, dtype):
        calls.append(dtype)
        return tf.constant(u)
    got = run(tf.nn.experimental.general_dropout(x, 0.4, sampler))[0]
    np.testing.assert_allclose(got, np.where(u >= 0.4, x / 0.6, 0.0), rtol=1e-6)
    assert calls == [tf.float32]
    assert tf.nn.experimental.general_dropout(x, 0.0, sampler) is not None
    with pytest.raises(ValueError, match="range"):
        tf.nn.experimental.general_dropout(x, 1.0, sampler)


def test_stateless_dropout_is_a_function_of_its_seed():
    x = np.ones((4, 50), np.float32)
    a = tf.nn.experimental.stateless_dropout(x, 0.3, seed=[1, 2])
    b = tf.nn.experimental.stateless_dropout(x, 0.3, seed=[1, 2])
    c = tf.nn.experimental.stateless_dropout(x, 0.3, seed=[3, 4])
    u = tf.random.stateless_uniform([4, 50], seed=[1, 2])
    ga, gb, gc, gu = run(a, b, c, u)
    np.testing.assert_array_equal(ga, gb)
    assert not np.array_equal(ga, gc)
    np.testing.assert_allclose(ga, np.where(gu >= 0.3, 1 / 0.7, 0.0), rtol=1e-6)
