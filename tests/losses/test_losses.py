"""tf.losses against NumPy (every reduction), collections, total loss, and contrib regularizers."""
import numpy as np
import pytest

import lens as tf

RNG = np.random.default_rng(7)
LABELS = (RNG.uniform(size=(4, 3)) > 0.5).astype(np.float32)
PRED = RNG.uniform(0.05, 0.95, size=(4, 3)).astype(np.float32)
W = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _softmax_xent(onehot, logits):
    z = logits - logits.max(-1, keepdims=True)
    return -(onehot * (z - np.log(np.exp(z).sum(-1, keepdims=True)))).sum(-1)


def _huber(lab, p, delta=0.3):
    e = np.abs(p - lab)
    q = np.minimum(e, delta)
    return 0.5 * q ** 2 + delta * (e - q)


CASES = {
    "mean_squared_error": (lambda **k: tf.losses.mean_squared_error(LABELS, PRED, **k), (PRED - LABELS) ** 2),
    "absolute_difference": (lambda **k: tf.losses.absolute_difference(LABELS, PRED, **k), np.abs(PRED - LABELS)),
    "log_loss": (lambda **k: tf.losses.log_loss(LABELS, PRED, **k),
                 -LABELS * np.log(PRED + 1e-7) - (1 - LABELS) * np.log(1 - PRED + 1e-7)),
    "hinge_loss": (lambda **k: tf.losses.hinge_loss(LABELS, PRED - 0.5, **k),
                   np.maximum(0, 1 - (2 * LABELS - 1) * (PRED - 0.5))),
    "huber_loss": (lambda **k: tf.losses.huber_loss(LABELS, PRED, delta=0.3, **k), _huber(LABELS, PRED)),
    "sigmoid_cross_entropy": (lambda **k: tf.losses.sigmoid_cross_entropy(LABELS, PRED * 4, **k),
                              np.maximum(PRED * 4, 0) - PRED * 4 * LABELS + np.log1p(np.exp(-np.abs(PRED * 4)))),
}


def _reduce(losses, weights, reduction):
    wl = losses * weights
    if reduction == "none":
        return wl
    if reduction == "weighted_sum":
        return wl.sum()
    if reduction == "weighted_mean":
        return wl.sum() / np.sum(np.ones_like(losses) * weights)
    if reduction == "weighted_sum_over_batch_size":
        return wl.sum() / losses.size
    return wl.sum() / np.sum((np.ones_like(losses) * weights) != 0)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("reduction", ["weighted_sum_by_nonzero_weights", "none", "weighted_sum", "weighted_mean",
                                       "weighted_sum_over_batch_size"])
def test_loss_matches_numpy_for_every_reduction(name, reduction):
    build, per_element = CASES[name]
    loss = build(weights=W, reduction=reduction)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]
    with tf.Session() as s:
        got = s.run(loss)
    np.testing.assert_allclose(got, _reduce(per_element, W, reduction), rtol=2e-5, atol=1e-6)


def test_default_reduction_names_and_scalar_weights():
    loss = tf.losses.mean_squared_error(LABELS, PRED)
    assert loss.op.name == "mean_squared_error/value" and loss.shape.ndims == 0
    assert tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS == "weighted_sum_by_nonzero_weights"
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(loss), np.mean((PRED - LABELS) ** 2), rtol=1e-6)


def test_softmax_losses_with_label_smoothing_and_sparse_labels():
    logits = RNG.normal(size=(4, 3)).astype(np.float32)
    onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
    smooth = tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.3)
    sparse = tf.losses.sparse_softmax_cross_entropy([0, 2, 1, 2], logits, weights=[1., 0., 1., 1.])
    with tf.Session() as s:
        vs, vp = s.run([smooth, sparse])
    np.testing.assert_allclose(vs, _softmax_xent(onehot * 0.7 + 0.1, logits).mean(), rtol=1e-5)
    np.testing.assert_allclose(vp, _softmax_xent(onehot, logits)[[0, 2, 3]].mean(), rtol=1e-5)


def test_total_loss_adds_regularization_and_errors_are_clear():
    with pytest.raises(ValueError, match="No losses"):
        tf.losses.get_total_loss()
    with pytest.raises(ValueError, match="Invalid Reduction"):
        tf.losses.mean_squared_error(LABELS, PRED, reduction="avg")
    with pytest.raises(ValueError, match="weights can not be broadcast"):
        tf.losses.mean_squared_error(LABELS, PRED, weights=np.ones(4, np.float32))
    with pytest.raises(ValueError, match="incompatible"):
        tf.losses.absolute_difference(LABELS, PRED[:, :2])
    w = tf.get_variable("w", initializer=np.array([1., -2.], np.float32),
                        regularizer=tf.contrib.layers.l1_regularizer(0.5))
    data = tf.losses.absolute_difference([0., 0.], w)
    assert tf.losses.get_losses() == [data]
    total = tf.losses.get_total_loss()
    assert total.op.name == "total_loss"
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vd, vr, vt = s.run([data, tf.losses.get_regularization_loss(), total])
    assert (vd, vr, vt) == (1.5, 1.5, 3.0)


def test_contrib_regularizers_values_names_and_validation():
    w = tf.constant([[1., -2.], [3., 0.5]])
    l1 = tf.contrib.layers.l1_regularizer(0.5)(w)
    l2 = tf.contrib.layers.l2_regularizer(0.5)(w)
    both = tf.contrib.layers.l1_l2_regularizer(0.5, 0.25)(w)
    summed = tf.contrib.layers.sum_regularizer([tf.contrib.layers.l1_regularizer(1.0),
                                                tf.contrib.layers.l1_regularizer(2.0)])(w)
    applied = tf.contrib.layers.apply_regularization(tf.contrib.layers.l2_regularizer(0.1), [w, w])
    assert (l1.op.name, l2.op.name, applied.op.name) == ("l1_regularizer", "l2_regularizer",
                                                         "get_regularization_penalty")
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [applied]
    assert tf.contrib.layers.l2_regularizer(0.0)(w) is None
    with pytest.raises(ValueError, match="less than 0"):
        tf.contrib.layers.l1_regularizer(-1.0)
    with pytest.raises(ValueError, match="integer"):
        tf.contrib.layers.l2_regularizer(2)
    with pytest.raises(ValueError, match="No weights"):
        tf.contrib.layers.apply_regularization(tf.contrib.layers.l2_regularizer(0.1))
    with tf.Session() as s:
        got = s.run([l1, l2, both, summed, applied])
    np.testing.assert_allclose(got, [3.25, 3.5625, 3.25 + 1.78125, 19.5, 1.425], rtol=1e-6)


def test_sparse_softmax_cross_entropy_squeezes_label_and_weight_axes_as_tf1():
    # Class ids shaped [batch, 1] and per-example weights shaped [batch, 1] are squeezed
    # (TF1's squeezable dimensions), so the loss is the weighted mean over the nonzero weights.
    rng = np.random.default_rng(5)
    logits = rng.normal(size=(4, 3)).astype(np.float32)
    ids = np.array([0, 2, 1, 2], np.int32)
    w = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    xent = -np.log(e[np.arange(4), ids] / e.sum(axis=1))
    want = (xent * w).sum() / np.count_nonzero(w)
    with tf.Graph().as_default():
        losses = [tf.losses.sparse_softmax_cross_entropy(ids.reshape(4, 1), logits, weights=w.reshape(4, 1)),
                  tf.losses.sparse_softmax_cross_entropy(ids, logits, weights=w.reshape(4, 1)),
                  tf.losses.sparse_softmax_cross_entropy(ids.reshape(4, 1), logits, weights=w)]
        with tf.Session() as sess:
            got = sess.run(losses)
    np.testing.assert_allclose(got, [want] * 3, rtol=1e-5)
