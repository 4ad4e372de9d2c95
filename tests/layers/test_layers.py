"""tf.layers: TF1 variable names, reuse, batch-norm updates, dropout, and a small CNN that learns."""
import numpy as np
import pytest

import lens as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_variable_and_op_names_follow_tf1():
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.conv2d(h, 4, 3)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.average_pooling2d(h, 3, 1, padding="same")
    f = tf.layers.flatten(h)
    y = tf.layers.dense(f, 3)
    names = [v.name for v in tf.global_variables()]
    assert names == ["conv2d/kernel:0", "conv2d/bias:0", "conv2d_1/kernel:0", "conv2d_1/bias:0",
                     "dense/kernel:0", "dense/bias:0"]
    assert tf.global_variables()[2].shape.as_list() == [3, 3, 4, 4]
    assert h.op.name == "average_pooling2d/AvgPool" and h.shape.as_list() == [None, 3, 3, 4]
    assert f.op.name == "flatten/Reshape" and f.shape.as_list() == [None, 36]
    assert y.op.name == "dense/BiasAdd" and y.shape.as_list() == [None, 3]
    g = tf.get_default_graph()
    assert g.get_operation_by_name("conv2d/Conv2D").type == "Conv2D"
    assert g.get_operation_by_name("conv2d/Relu").type == "Relu"


def test_reuse_shares_variables_and_unnamed_layers_get_new_ones():
    x = tf.placeholder(tf.float32, [None, 4])
    a = tf.layers.dense(x, 2, name="fc")
    b = tf.layers.dense(x, 2, name="fc", reuse=True)
    c = tf.layers.dense(x, 2)
    assert [v.name for v in tf.trainable_variables()] == ["fc/kernel:0", "fc/bias:0", "dense/kernel:0",
                                                         "dense/bias:0"]
    # Without reuse, the functional API enters name= as the variable scope itself (checked
    # against TF1's layers in tf_keras): the second fc/kernel is refused, nothing is added.
    count = len(tf.trainable_variables())
    with pytest.raises(ValueError, match="Variable fc/kernel already exists, disallowed"):
        tf.layers.dense(x, 2, name="fc")
    assert len(tf.trainable_variables()) == count
    # A layer object named the same is a default name, made unique (fc_1), as in TF1.
    tf.layers.Dense(2, name="fc")(x)
    assert tf.trainable_variables()[-2].name == "fc_1/kernel:0"
    with pytest.raises(ValueError, match="does not exist"):
        tf.layers.dense(x, 2, name="nope", reuse=True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        va, vb, vc = s.run([a, b, c], {x: np.ones((2, 4))})
    np.testing.assert_array_equal(va, vb)
    assert not np.allclose(va, vc)


def test_named_layer_in_a_reentered_auto_reuse_scope_shares_variables():
    x = tf.placeholder(tf.float32, [None, 4])
    for _ in range(2):
        with tf.variable_scope("tower", reuse=tf.AUTO_REUSE):
            tf.layers.dense(x, 2, name="shared")
    assert [v.name for v in tf.trainable_variables()] == ["tower/shared/kernel:0", "tower/shared/bias:0"]


def test_dense_errors_and_regularizer_collection():
    with pytest.raises(ValueError, match="last dimension"):
        tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 3)
    x = tf.placeholder(tf.float32, [None, 3])
    tf.layers.dense(x, 2, kernel_regularizer=tf.contrib.layers.l2_regularizer(0.5))
    regs = tf.losses.get_regularization_losses()
    assert [r.op.name for r in regs] == ["dense_1/kernel/Regularizer/l2_regularizer"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        k, r = s.run([tf.trainable_variables()[0], tf.losses.get_regularization_loss()])
    np.testing.assert_allclose(r, 0.5 * np.sum(k ** 2) / 2, rtol=1e-5)


def test_dropout_training_flag_python_and_tensor():
    x = tf.ones([200, 50])
    off = tf.layers.dropout(x, 0.5, training=False)
    on = tf.layers.dropout(x, 0.5, training=True)
    flag = tf.placeholder(tf.bool, [])
    fed = tf.layers.dropout(x, 0.5, training=flag)
    with tf.Session() as s:
        v_off, v_on = s.run([off, on])
        v_fed_off, v_fed_on = s.run(fed, {flag: False}), s.run(fed, {flag: True})
    assert np.all(v_off == 1) and np.all(v_fed_off == 1)
    for v in (v_on, v_fed_on):
        assert set(np.unique(v)) == {0.0, 2.0} and 0.4 < np.mean(v == 0) < 0.6


@pytest.mark.parametrize("shape, fused", [((6, 3, 3, 4), True), ((16, 5), False)])
def test_batch_normalization_normalizes_and_updates_moving_stats(shape, fused):
    rng = np.random.default_rng(0)
    data = (rng.normal(size=shape) * 3 + 2).astype(np.float32)
    x = tf.placeholder(tf.float32, shape)
    y = tf.layers.batch_normalization(x, momentum=0.9, training=True)
    assert (y.op.type == "FusedBatchNorm") == fused
    names = [v.name for v in tf.global_variables()]
    assert names == ["batch_normalization/gamma:0", "batch_normalization/beta:0",
                     "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [u.op.name for u in updates] == ["batch_normalization/AssignMovingAvg",
                                            "batch_normalization/AssignMovingAvg_1"]
    infer = tf.layers.batch_normalization(x, training=False, name="batch_normalization", reuse=True)
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2   # inference adds no updates
    axes = tuple(range(len(shape) - 1))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vy, _ = s.run([y, updates], {x: data})
        mm, mv = s.run(tf.global_variables()[2:])
        vi = s.run(infer, {x: data})
    np.testing.assert_allclose(vy.mean(axes), 0, atol=1e-4)
    np.testing.assert_allclose(vy.std(axes), 1, rtol=1e-2)
    n = data.size // shape[-1]
    var = data.var(axes) * (n / (n - 1) if fused else 1.0)   # the fused op reports the unbiased variance
    np.testing.assert_allclose(mm, 0.1 * data.mean(axes), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * var, rtol=1e-4)
    np.testing.assert_allclose(vi, (data - mm) / np.sqrt(mv + 1e-3), rtol=1e-4, atol=1e-4)


def test_conv2d_transpose_layer_shape_and_variables():
    x = tf.placeholder(tf.float32, [None, 7, 7, 3])
    y = tf.layers.conv2d_transpose(x, 5, 3, strides=2, padding="valid")
    assert y.shape.as_list() == [None, 15, 15, 5]
    assert tf.global_variables()[0].shape.as_list() == [3, 3, 5, 3]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(y, {x: np.ones((2, 7, 7, 3))}).shape == (2, 15, 15, 5)


def _stripes(n, rng):
    """28x28 images: class 0 has a horizontal bar, class 1 a vertical bar, class 2 a diagonal; plus noise."""
    labels = rng.integers(0, 3, size=n)
    img = rng.normal(0, 0.3, size=(n, 28, 28, 1)).astype(np.float32)
    pos = rng.integers(4, 24, size=n)
    idx = np.arange(28)
    img[labels == 0, pos[labels == 0], :, 0] += 1.5
    img[labels == 1, :, pos[labels == 1], 0] += 1.5
    diag = np.nonzero(labels == 2)[0]
    img[diag[:, None], idx[None, :], idx[None, :], 0] += 1.5
    return img, labels.astype(np.int32)


def test_small_cnn_learns_stripe_orientation():
    tf.set_random_seed(1)
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    labels = tf.placeholder(tf.int32, [None])
    h = tf.layers.conv2d(x, 8, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    logits = tf.layers.dense(tf.layers.flatten(h), 3)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    correct = tf.reduce_mean(tf.cast(tf.nn.in_top_k(logits, labels, 1), tf.float32))
    test_x, test_y = _stripes(300, rng)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        before = s.run(correct, {x: test_x, labels: test_y})
        for _ in range(60):
            bx, by = _stripes(32, rng)
            s.run(train, {x: bx, labels: by})
        after = s.run(correct, {x: test_x, labels: test_y})
    assert before < 0.6 and after >= 0.9, (before, after)
