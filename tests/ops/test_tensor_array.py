"""tf.TensorArray: values, TF's errors, static shapes, while_loop with gradients, map_fn/scan on top."""
import numpy as np
import pytest

import lens as tf


def test_write_read_stack_and_shape_inference():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2)
        assert ta.handle.op.type == "TensorArrayV3" and ta.flow.dtype == tf.float32
        ta = ta.write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
        assert ta.element_shape.as_list() == [2] and ta.read(0).shape.as_list() == [2]
        stacked = ta.stack()
        assert stacked.shape.as_list()[1:] == [2]
        grown = tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(0, 5).write(3, 7)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(stacked), [[1, 2], [3, 4]])
            assert sess.run(grown.size()) == 4 and sess.run(grown.read(3)) == 7
            assert sess.run(ta.identity().read(1)).tolist() == [3.0, 4.0]


def test_errors_as_tensorflow():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="TensorArray dtype is float32 but Op is trying to write dtype int32"):
            ta.write(0, tf.constant(1))
        with pytest.raises(ValueError, match="Size must be provided"):
            tf.TensorArray(tf.float32)
        once = ta.write(0, 1.0)
        cases = [(once.write(0, 2.0).flow, "already been written to"),
                 (ta.write(2, 1.0).flow, "array is not resizeable and size is: 2"),
                 (tf.TensorArray(tf.float32, size=2, infer_shape=False).read(1), "has not yet been written to"),
                 (tf.TensorArray(tf.float32, size=2).write(0, tf.placeholder_with_default([1.0], [None]))
                  .write(1, tf.placeholder_with_default([1.0, 2.0], [None])).flow,
                  "inferred element shape: \\[1\\]"),
                 (once.read(5), "Tried to read from index 5 but array size is: 2"),
                 (tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0]).write(1, [1.0, 2.0]).stack(),
                  "inconsistent shapes"),
                 (tf.TensorArray(tf.float32, size=0).stack(), "size zero, but element shape"),
                 ([once.read(0), once.read(0)], "Could not read index 0 twice because it was cleared")]
        with tf.Session() as sess:
            for fetch, message in cases:
                with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                    sess.run(fetch)
        with tf.Session() as sess:
            assert sess.run(once.read(1)) == 0.0     # unwritten, shape known from the first write: zeros
        kept = tf.TensorArray(tf.float32, size=1, clear_after_read=False).write(0, 3.0)
        with tf.Session() as sess:
            assert sess.run([kept.read(0), kept.read(0), kept.stack()])[2].tolist() == [3.0]
        with pytest.raises(ValueError, match="Inconsistent shapes"):
            tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(1, [1.0, 2.0])


def test_while_loop_rnn_with_gradients_matches_finite_differences():
    rng = np.random.default_rng(0)
    x0, w0 = rng.uniform(-0.5, 0.5, (5, 3)), rng.uniform(-0.5, 0.5, (3, 3))

    def numpy_loss(xv, wv):
        h, total = np.zeros(3), 0.0
        for t in range(5):
            h = np.tanh(xv[t] + h @ wv)
            total += np.sum(h * np.arange(1.0, 4.0))
        return total

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [5, 3])
        w = tf.placeholder(tf.float64, [3, 3])
        inputs = tf.TensorArray(tf.float64, size=5).unstack(x)

        def body(t, h, out):
            h = tf.tanh(inputs.read(t) + tf.reshape(tf.matmul(tf.expand_dims(h, 0), w), [3]))
            return t + 1, h, out.write(t, h)
        _, _, out = tf.while_loop(lambda t, h, out: t < 5, body,
                                  (0, tf.zeros([3], tf.float64), tf.TensorArray(tf.float64, size=5)))
        assert isinstance(out, tf.TensorArray)
        loss = tf.reduce_sum(out.stack() * tf.range(1.0, 4.0, dtype=tf.float64))
        gx, gw = tf.gradients(loss, [x, w])
        with tf.Session() as sess:
            got_loss, got_x, got_w = sess.run([loss, gx, gw], {x: x0, w: w0})
    assert np.isclose(got_loss, numpy_loss(x0, w0))
    for got, base, which in ((got_x, x0, 0), (got_w, w0, 1)):
        num = np.zeros_like(base)
        for k in np.ndindex(base.shape):
            plus, minus = base.copy(), base.copy()
            plus[k] += 1e-6
            minus[k] -= 1e-6
            args_p = (plus, w0) if which == 0 else (x0, plus)
            args_m = (minus, w0) if which == 0 else (x0, minus)
            num[k] = (numpy_loss(*args_p) - numpy_loss(*args_m)) / 2e-6
        np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_map_fn_and_scan_ride_on_tensor_arrays():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [6, 2])
        doubled = tf.map_fn(lambda r: r * 2.0, x)
        sums = tf.scan(lambda a, r: a + r, x, reverse=True)
        assert "TensorArrayScatterV3" in {o.type for o in g.get_operations()}
        grad = tf.gradients(tf.reduce_sum(doubled) + tf.reduce_sum(sums * 2.0), x)[0]
        v = np.arange(12.0).reshape(6, 2)
        with tf.Session() as sess:
            d, s, gr = sess.run([doubled, sums, grad], {x: v})
    np.testing.assert_array_equal(d, v * 2)
    np.testing.assert_array_equal(s, np.cumsum(v[::-1], axis=0)[::-1])
    np.testing.assert_array_equal(gr, 2.0 + 2.0 * np.arange(1, 7)[:, None] * np.ones((6, 2)))


def test_tensor_arrays_through_cond_inside_while_with_gradients():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])

        def body(i, acc):
            acc = tf.cond(tf.equal(i % 2, 0), lambda: acc.write(i, x * tf.cast(i, tf.float64)),
                          lambda: acc.write(i, -x))
            assert isinstance(acc, tf.TensorArray)
            return i + 1, acc
        _, out = tf.while_loop(lambda i, acc: i < 4, body, (0, tf.TensorArray(tf.float64, size=4)))
        z = tf.reduce_sum(out.stack() ** 2)
        gz = tf.gradients(z, x)[0]
        with tf.Session() as sess:
            got_z, got_g = sess.run([z, gz], {x: [1.0, 2.0, 3.0]})
    assert got_z == 84.0                                   # 0, -x, 2x, -x squared and summed
    np.testing.assert_allclose(got_g, 12.0 * np.array([1.0, 2.0, 3.0]))
