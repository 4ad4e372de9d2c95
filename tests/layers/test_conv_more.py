"""tf.layers' 1-D / 3-D convolution and pooling layers and separable convolutions: TF1.15's variable
names and shapes, outputs against NumPy computed from the layers' own variables."""
import numpy as np

import lens as tf

RNG = np.random.default_rng(3)


def _conv_valid(x, k):
    """Cross-correlation of [b, *spatial, c] with [*ksize, c, f], VALID, stride 1."""
    n = k.ndim - 2
    out_sp = [x.shape[1 + i] - k.shape[i] + 1 for i in range(n)]
    out = np.zeros([x.shape[0]] + out_sp + [k.shape[-1]])
    for off in np.ndindex(*k.shape[:n]):
        sl = tuple(slice(o, o + s) for o, s in zip(off, out_sp))
        out += np.tensordot(x[(slice(None),) + sl], k[off], axes=([n + 1], [0]))
    return out


def test_conv1d_conv3d_and_pooling_layers_match_numpy():
    x1 = RNG.standard_normal((2, 9, 3)).astype(np.float32)
    x3 = RNG.standard_normal((2, 4, 5, 6, 3)).astype(np.float32)
    c1 = tf.layers.Conv1D(4, 3, activation=tf.nn.relu, bias_initializer=tf.constant_initializer(0.1))
    y1 = c1(tf.constant(x1))
    c3 = tf.layers.Conv3D(2, (2, 3, 2))
    y3 = c3(tf.constant(x3))
    p1 = tf.layers.max_pooling1d(tf.constant(x1), 2, 2)
    p3 = tf.layers.average_pooling3d(tf.constant(x3), 2, 2)
    assert [v.name for v in c1.weights] == ["conv1d/kernel:0", "conv1d/bias:0"]
    assert c3.kernel.shape.as_list() == [2, 3, 2, 3, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k1, k3, b3, got1, got3, gp1, gp3 = sess.run([c1.kernel, c3.kernel, c3.bias, y1, y3, p1, p3])
    np.testing.assert_allclose(got1, np.maximum(_conv_valid(x1, k1) + 0.1, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got3, _conv_valid(x3, k3) + b3, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gp1, x1[:, :8].reshape(2, 4, 2, 3).max(2))
    np.testing.assert_allclose(gp3, x3[:, :4, :4, :6].reshape(2, 2, 2, 2, 2, 3, 2, 3).mean((2, 4, 6)), rtol=1e-6)


def test_separable_and_transposed_layers():
    x2 = RNG.standard_normal((2, 6, 7, 3)).astype(np.float32)
    x1 = RNG.standard_normal((2, 8, 3)).astype(np.float32)
    s2 = tf.layers.SeparableConv2D(5, 3, depth_multiplier=2, use_bias=False)
    s1 = tf.layers.SeparableConv1D(4, 3)
    y2, y1 = s2(tf.constant(x2)), s1(tf.constant(x1))
    xt = tf.placeholder(tf.float32, [1, 2, 3, 2, 4])
    t3 = tf.layers.Conv3DTranspose(3, 2, strides=2)
    yt = t3(xt)
    assert yt.shape.as_list() == [1, 4, 6, 4, 3]
    assert sorted(v.name for v in s2.weights) == ["separable_conv2d/depthwise_kernel:0",
                                                  "separable_conv2d/pointwise_kernel:0"]
    assert s1.depthwise_kernel.shape.as_list() == [3, 3, 1] and s1.pointwise_kernel.shape.as_list() == [1, 3, 4]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        dw, pw, got2, dw1, pw1, b1, got1 = sess.run([s2.depthwise_kernel, s2.pointwise_kernel, y2,
                                                     s1.depthwise_kernel, s1.pointwise_kernel, s1.bias, y1])
        k, xv = sess.run(t3.kernel), RNG.standard_normal((1, 2, 3, 2, 4)).astype(np.float32)
        gt = sess.run(yt, {xt: xv})
    depth = np.concatenate([_conv_valid(x2[..., c:c + 1], dw[:, :, c:c + 1, :]) for c in range(3)], -1)
    np.testing.assert_allclose(got2, depth @ pw[0, 0], rtol=1e-4, atol=1e-4)
    depth1 = np.concatenate([_conv_valid(x1[..., c:c + 1], dw1[:, c:c + 1, :]) for c in range(3)], -1)
    np.testing.assert_allclose(got1, depth1 @ pw1[0] + b1, rtol=1e-4, atol=1e-4)
    # stride-2, kernel-2 VALID transpose: every input voxel writes its own 2x2x2 block
    exp = np.einsum("bdhwi,xyzoi->bdxhywzo", xv, k).reshape(1, 4, 6, 4, 3)
    np.testing.assert_allclose(gt, exp, rtol=1e-4, atol=1e-5)
