"""ApplyAdam's sliced in-place path (big variables): the same values as the plain NumPy rule."""
import math

import numpy as np
import pytest

import lens as tf
from lens.training import optimizers_ops as O


def _reference(w, grads, lr, b1, b2, eps):
    """Adam by hand in float64 over the given gradients (float32-rounded hyperparameters)."""
    lr, b1, b2, eps = (float(np.float32(v)) for v in (lr, b1, b2, eps))
    w, m, v = w.astype(np.float64), np.zeros(w.shape), np.zeros(w.shape)
    p1, p2 = np.float32(b1), np.float32(b2)
    for g in grads:
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr * math.sqrt(1 - float(p2)) / (1 - float(p1)) * m / (np.sqrt(v) + eps)
        p1, p2 = p1 * np.float32(b1), p2 * np.float32(b2)
    return w


@pytest.mark.parametrize("block", [1 << 15, 1000])     # slices ending mid-row and a ragged last slice
def test_big_variable_trains_as_the_reference(block, monkeypatch):
    monkeypatch.setattr(O, "ADAM_BLOCK", block)
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=(301, 111)).astype(np.float32)          # 33,411 elements: above one block
    target = rng.normal(size=w0.shape).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.Variable(w0)
        loss = 0.5 * tf.reduce_sum(tf.square(w - target))
        train = tf.train.AdamOptimizer(0.01, beta1=0.8, beta2=0.95).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            grads = []
            for _ in range(4):
                grads.append(sess.run(w) - target)
                sess.run(train)
            got = sess.run(w)
    want = _reference(w0, [g.astype(np.float64) for g in grads], 0.01, 0.8, 0.95, 1e-8)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


def test_sliced_rule_is_bit_identical_to_the_plain_rule(monkeypatch):
    rng = np.random.default_rng(1)
    f = np.float32
    var, m, g = (rng.normal(size=(40, 1000)).astype(f) for _ in range(3))
    v = np.abs(rng.normal(size=var.shape)).astype(f)
    hyper = [np.array(x, f) for x in (0.9 ** 3, 0.999 ** 3, 1e-3, 0.9, 0.999, 1e-7)]
    sliced, plain = [var.copy(), m.copy(), v.copy()], [var.copy(), m.copy(), v.copy()]
    monkeypatch.setattr(O, "ADAM_BLOCK", 4096)
    O._adam({}, *sliced, *hyper, g)
    monkeypatch.setattr(O, "ADAM_BLOCK", 1 << 40)                 # every variable takes the plain rule
    O._adam({}, *plain, *hyper, g)
    for a, b in zip(sliced, plain):
        assert np.array_equal(a, b)
    assert not np.array_equal(sliced[0], var)
