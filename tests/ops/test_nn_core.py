"""tf.nn core ops: TF1 graph names, numerical stability, label gradients, errors, dropout."""
import numpy as np
import pytest

import lens as tf
from lens.ops import nn

BIG = np.array([[1000.0, -1000.0, 3.0], [0.0, 1e4, -1e4]], np.float32)
LABELS = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], np.float32)


def _names():
    return [o.name for o in tf.get_default_graph().get_operations()]


def test_v1_xent_names_stops_label_gradient_and_is_stable():
    with tf.Graph().as_default():
        x, lab = tf.constant(BIG), tf.constant(LABELS)
        loss = nn.softmax_cross_entropy_with_logits(labels=lab, logits=x)
        assert loss.name == "softmax_cross_entropy_with_logits_sg/Reshape_2:0"
        assert "softmax_cross_entropy_with_logits_sg" in _names()
        assert "softmax_cross_entropy_with_logits_sg/labels_stop_gradient" in _names()
        gx, glab = tf.gradients(loss, [x, lab])
        assert glab is None and loss.shape.as_list() == [2]
        with tf.Session() as sess:
            lv, gv = sess.run([loss, gx])
    assert np.all(np.isfinite(lv)) and np.all(np.isfinite(gv))
    np.testing.assert_allclose(lv, [997.0, 1e4], rtol=1e-6)


def test_v2_xent_differentiates_labels():
    with tf.Graph().as_default():
        x, lab = tf.constant(BIG), tf.constant(LABELS)
        loss = nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x)
        glab = tf.gradients(loss, lab)[0]
        assert loss.op.name == "softmax_cross_entropy_with_logits/Reshape_2"
        with tf.Session() as sess:
            gv = sess.run(glab)
    z = BIG - BIG.max(-1, keepdims=True)
    want = -(z - np.log(np.exp(z).sum(-1, keepdims=True)))
    np.testing.assert_allclose(gv, want, rtol=1e-6)


def test_sparse_xent_names_and_bad_label_error():
    with tf.Graph().as_default():
        lab = tf.placeholder(tf.int32, [2])
        loss = nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=tf.constant(BIG))
        assert loss.op.name == "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits"
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(loss, {lab: [2, 1]}), [997.0, 0.0], atol=1e-4)
            with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 3 .* range of \\[0, 3\\)"):
                sess.run(loss, {lab: [3, 0]})
        with pytest.raises(ValueError, match="Rank mismatch"):
            nn.sparse_softmax_cross_entropy_with_logits(labels=[[1]], logits=tf.constant(BIG))
        with pytest.raises(ValueError, match="named arguments"):
            nn.sparse_softmax_cross_entropy_with_logits(1, labels=[1], logits=BIG)


def test_sigmoid_xent_is_stable_and_named_logistic_loss():
    with tf.Graph().as_default():
        loss = nn.sigmoid_cross_entropy_with_logits(labels=tf.constant(LABELS), logits=tf.constant(BIG))
        assert loss.op.name == "logistic_loss"
        with pytest.raises(ValueError, match="same shape"):
            nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([3]), logits=tf.zeros([2]))
        with tf.Session() as sess:
            v = sess.run(loss)
    assert np.all(np.isfinite(v)) and v[0, 0] == pytest.approx(1000.0)


def test_softmax_keeps_float32_and_survives_huge_logits():
    with tf.Graph().as_default():
        s, ls = nn.softmax(tf.constant(BIG)), nn.log_softmax(tf.constant(BIG))
        assert s.op.type == "Softmax" and ls.op.type == "LogSoftmax"
        with tf.Session() as sess:
            sv, lv = sess.run([s, ls])
    assert sv.dtype == np.float32 and np.all(np.isfinite(sv)) and np.allclose(sv.sum(-1), 1)
    assert np.all(np.isfinite(lv[np.isfinite(lv)]))


def test_relu_gradient_is_relu_grad_op_and_bias_add_checks_shapes():
    with tf.Graph().as_default():
        x = tf.constant([[-1.0, 2.0]])
        g = tf.gradients(nn.relu(x), x)[0]
        assert g.op.type == "ReluGrad"
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            nn.bias_add(tf.zeros([2, 3]), tf.zeros([4]))
        with pytest.raises(ValueError, match="data_format"):
            nn.bias_add(tf.zeros([2, 3]), tf.zeros([3]), data_format="HWCN")
        b = tf.constant([1.0, 2.0, 3.0])
        gb = tf.gradients(nn.bias_add(tf.zeros([2, 3]), b), b)[0]
        assert gb.op.type == "BiasAddGrad"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(g), [[0.0, 1.0]])
            np.testing.assert_array_equal(sess.run(gb), [2.0, 2.0, 2.0])


def test_moments_and_l2_normalize():
    x_np = np.random.default_rng(0).normal(size=(4, 3))
    with tf.Graph().as_default():
        mean, var = nn.moments(tf.constant(x_np), [0])
        assert mean.op.name.startswith("moments/") and mean.shape.as_list() == [3]
        n = nn.l2_normalize(tf.constant(x_np), axis=1)
        with tf.Session() as sess:
            mv, vv, nv = sess.run([mean, var, n])
    np.testing.assert_allclose(mv, x_np.mean(0))
    np.testing.assert_allclose(vv, x_np.var(0))
    np.testing.assert_allclose(nv, x_np / np.linalg.norm(x_np, axis=1, keepdims=True))


def test_dropout_scales_kept_values_and_rejects_bad_rates():
    with tf.Graph().as_default():
        x = tf.ones([2000])
        y = nn.dropout(x, keep_prob=0.8, seed=1)
        assert y.op.name == "dropout/mul_1" and y.shape.as_list() == [2000]
        with tf.Session() as sess:
            v = sess.run(y)
        assert set(np.unique(v)) <= {0.0, np.float32(1.25)}
        assert 0.75 < np.mean(v > 0) < 0.85
        with pytest.raises(ValueError, match="range"):
            nn.dropout(x, rate=1.5)
        with pytest.raises(ValueError, match="floating point"):
            nn.dropout(tf.constant([1, 2]), rate=0.5)


def _np_xent(labels, logits):
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(labels * logp).sum(-1)


def test_v2_xent_broadcasts_labels_as_tensorflow():
    # TF1 accepts labels [10] with logits [1, 10] (flattened alike) and labels [1, 10] with logits [4, 10].
    rng = np.random.RandomState(0)
    one_hot = np.eye(10, dtype=np.float32)[3]
    z1 = rng.randn(1, 10).astype(np.float32)
    z4 = rng.randn(4, 10).astype(np.float32)
    l1, lz1 = tf.constant(one_hot), tf.constant(z1)
    l4, lz4 = tf.constant(one_hot[None]), tf.constant(z4)
    x1 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=l1, logits=lz1)
    x4 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=l4, logits=lz4)
    g1 = tf.gradients(x1, [lz1, l1])
    g4 = tf.gradients(x4, [lz4, l4])
    with tf.Session() as s:
        v1, v4, (gz1, gl1), (gz4, gl4) = s.run([x1, x4, g1, g4])
    assert x1.shape.as_list() == [1] and x4.shape.as_list() == [4]
    np.testing.assert_allclose(v1, _np_xent(one_hot[None], z1), rtol=1e-5)
    np.testing.assert_allclose(v4, _np_xent(one_hot[None], z4), rtol=1e-5)
    assert gz1.shape == (1, 10) and gl1.shape == (10,)
    assert gz4.shape == (4, 10) and gl4.shape == (1, 10)
    # d/dlabels of -sum(labels * log_softmax) summed over the broadcast rows.
    logp4 = z4 - z4.max(-1, keepdims=True)
    logp4 = logp4 - np.log(np.exp(logp4).sum(-1, keepdims=True))
    np.testing.assert_allclose(gl4, -logp4.sum(0, keepdims=True), rtol=1e-5)


def test_v2_xent_rejects_labels_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"\(3, 10\) and \(3, 7\)"):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.zeros([3, 7]), logits=tf.zeros([3, 10]))
