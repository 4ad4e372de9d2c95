"""Big MatMul / Add / Relu / ReluGrad outputs are written into the op's previous output only once
nothing holds it any more: fetched results never change under a later run."""
import weakref

import numpy as np

import lens as tf


def _graph():
    x = tf.placeholder(tf.float32, [None, 300])
    w = tf.constant(np.random.default_rng(0).normal(size=(300, 200)).astype(np.float32))
    h = tf.nn.relu(tf.matmul(x, w) + tf.constant(np.linspace(-1, 1, 200).astype(np.float32)))
    g = tf.gradients(tf.reduce_sum(h * h), x)[0]     # ReluGrad and a transposed MatMul
    return x, w, h, g


def test_fetched_results_stay_and_match_numpy_across_runs():
    rng = np.random.default_rng(1)
    with tf.Graph().as_default():
        x, w, h, g = _graph()
        wv = tf.Session().run(w)
        with tf.Session() as sess:
            feeds = [rng.normal(size=(128, 300)).astype(np.float32) for _ in range(3)]
            kept = [sess.run([h, g], {x: f}) for f in feeds]
    for f, (hv, gv) in zip(feeds, kept):
        want_h = np.maximum(f @ wv + np.linspace(-1, 1, 200).astype(np.float32), 0)
        np.testing.assert_allclose(hv, want_h, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(gv, (2 * want_h * (want_h > 0)) @ wv.T, rtol=1e-4, atol=1e-4)


def test_memory_nobody_holds_is_reused():
    rng = np.random.default_rng(2)
    with tf.Graph().as_default():
        x, w, h, g = _graph()
        with tf.Session() as sess:
            f = rng.normal(size=(128, 300)).astype(np.float32)
            first = sess.run(h, {x: f})
            second = sess.run(h, {x: f})                # `first` is still held: other memory
            assert not np.shares_memory(first, second) and np.array_equal(first, second)
            block = weakref.ref(second if second.base is None else second.base)
            del second
            third = sess.run(h, {x: f * 2})              # the released block is written again
            assert block() is not None and third.base is block()
            want = np.maximum((f * 2) @ sess.run(w) + np.linspace(-1, 1, 200).astype(np.float32), 0)
            np.testing.assert_allclose(third, want, rtol=1e-4, atol=1e-4)
