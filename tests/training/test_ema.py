"""ExponentialMovingAverage: shadow names, updates vs NumPy, num_updates, zero debias, variables_to_restore."""
import numpy as np
import pytest

import lens as tf


def test_shadow_variables_track_the_average():
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        b = tf.Variable(0.5, name="b")
        ema = tf.train.ExponentialMovingAverage(0.9)
        update = ema.apply([w, b])
        assert update.name == "ExponentialMovingAverage"
        assert ema.average(w).op.name == "w/ExponentialMovingAverage" == ema.average_name(w)
        assert not ema.average(w).trainable
        assert set(tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES)) == {w, b}
        shadow_w, shadow_b = np.float32([1.0, 2.0]), np.float32(0.5)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for value in ([3.0, 0.0], [-1.0, 5.0], [2.0, 2.0]):
                sess.run(w.assign(value))
                sess.run(update)
                shadow_w = shadow_w - np.float32(0.1) * (shadow_w - np.float32(value))
                shadow_b = shadow_b - np.float32(0.1) * (shadow_b - np.float32(0.5))
                np.testing.assert_allclose(sess.run(ema.average(w)), shadow_w, rtol=1e-6)
                np.testing.assert_allclose(sess.run(ema.average(b)), shadow_b, rtol=1e-6)


def test_num_updates_caps_the_decay():
    with tf.Graph().as_default():
        w = tf.Variable(0.0, name="w")
        step = tf.Variable(0, name="n", trainable=False)
        ema = tf.train.ExponentialMovingAverage(0.99, num_updates=step)
        update = ema.apply([w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(10.0))
            sess.run(update)    # decay = min(0.99, 1/10) = 0.1
            np.testing.assert_allclose(sess.run(ema.average(w)), 9.0, rtol=1e-6)


def test_zero_debias_for_tensors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        t = tf.identity(x, name="t")
        ema = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
        update = ema.apply([t])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            biased = np.zeros(2)
            for k, v in enumerate(([2.0, 4.0], [6.0, 0.0], [1.0, 1.0]), 1):
                sess.run(update, {x: v})
                biased = 0.5 * biased + 0.5 * np.array(v)
                np.testing.assert_allclose(sess.run(ema.average(t)), biased / (1 - 0.5 ** k), rtol=1e-6)


def test_variables_to_restore_maps_shadow_names_to_variables():
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        step = tf.Variable(0, name="step", trainable=False)
        ema = tf.train.ExponentialMovingAverage(0.9)
        ema.apply([w])
        mapping = ema.variables_to_restore()
        assert mapping == {"w/ExponentialMovingAverage": w, "step": step}


def test_non_float_variables_are_rejected_by_name():
    with tf.Graph().as_default():
        v = tf.Variable([1, 2], name="counts")
        with pytest.raises(TypeError, match="counts"):
            tf.train.ExponentialMovingAverage(0.9).apply([v])


def test_restore_averages_into_variables_with_a_saver(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 1.0], name="w")
        ema = tf.train.ExponentialMovingAverage(0.5)
        update = ema.apply([w])
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign([3.0, 5.0]))
            sess.run(update)            # shadow = [2, 3]
            path = saver.save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        w = tf.Variable([0.0, 0.0], name="w")
        ema = tf.train.ExponentialMovingAverage(0.5)
        restorer = tf.train.Saver(ema.variables_to_restore())
        with tf.Session() as sess:
            restorer.restore(sess, path)
            np.testing.assert_allclose(sess.run(w), [2.0, 3.0])
