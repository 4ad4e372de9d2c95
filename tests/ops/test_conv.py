"""tf.nn convolution, pooling and friends: TF1 names, static shapes, errors, and a bigger loop-reference check."""
import numpy as np
import pytest

import conv_refs as R
import lens as tf
from lens import errors


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_ops_have_tf1_types_names_and_static_shapes():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
    f = tf.zeros([5, 5, 1, 32])
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
    p = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    a = tf.nn.avg_pool(y, [1, 3, 3, 1], [1, 2, 2, 1], "VALID")
    d = tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 1, 2]), [1, 1, 1, 1], "SAME")
    t = tf.nn.conv2d_transpose(p, tf.zeros([3, 3, 8, 32]), [4, 28, 28, 8], [1, 2, 2, 1], "SAME")
    assert (y.op.type, y.op.name, y.shape.as_list()) == ("Conv2D", "Conv2D", [None, 28, 28, 32])
    assert (p.op.type, p.shape.as_list()) == ("MaxPool", [None, 14, 14, 32])
    assert (a.op.type, a.shape.as_list()) == ("AvgPool", [None, 13, 13, 32])
    assert (d.op.type, d.op.name, d.shape.as_list()) == ("DepthwiseConv2dNative", "depthwise", [None, 28, 28, 2])
    assert (t.op.type, t.op.name, t.shape.as_list()) == ("Conv2DBackpropInput", "conv2d_transpose", [4, 28, 28, 8])
    assert y.op.get_attr("strides") == [1, 1, 1, 1] and y.op.get_attr("padding") == "SAME"
    gx, gf = tf.gradients(tf.reduce_sum(p), [x, f])
    assert gx.op.type == "Conv2DBackpropInput" and gf.op.type == "Conv2DBackpropFilter"
    assert gx.op.name.startswith("gradients/Conv2D_grad/")


def test_nchw_matches_nhwc_on_a_larger_strided_dilated_case():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 9, 8, 4)).astype(np.float32)
    f = rng.normal(size=(3, 2, 4, 5)).astype(np.float32)
    a = tf.nn.conv2d(x, f, [1, 2, 1, 1], "SAME", dilations=[1, 1, 2, 1])
    b = tf.nn.conv2d(x.transpose(0, 3, 1, 2), f, [1, 1, 2, 1], "SAME", data_format="NCHW", dilations=[1, 1, 1, 2])
    with tf.Session() as s:
        va, vb = s.run([a, b])
    ref = R.conv2d(x.astype(np.float64), f.astype(np.float64), (2, 1), (1, 2), "SAME")
    assert va.dtype == np.float32
    np.testing.assert_allclose(va, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(vb.transpose(0, 2, 3, 1), ref, rtol=1e-4, atol=1e-4)


def test_gradient_of_the_gradient_runs_through_backprop_ops():
    x = tf.constant(np.random.default_rng(0).normal(size=(1, 4, 4, 2)))
    f = tf.constant(np.random.default_rng(1).normal(size=(2, 2, 2, 3)))
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID")
    gx = tf.gradients(tf.reduce_sum(tf.square(y)), x)[0]
    ggf = tf.gradients(tf.reduce_sum(gx), f)[0]
    types = {op.type for op in tf.get_default_graph().get_operations()}
    assert {"Conv2DBackpropInput", "Conv2DBackpropFilter"} <= types
    with tf.Session() as s:
        assert s.run(ggf).shape == (2, 2, 2, 3)


@pytest.mark.parametrize("call, match", [
    (lambda: tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 2, 1]), [1, 1, 1, 1], "SAME"), "input depth"),
    (lambda: tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], "FULL"), "padding"),
    (lambda: tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [2, 1, 1, 1], "SAME"), "batch and depth"),
    (lambda: tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([5, 5, 1, 1]), [1, 1, 1, 1], "VALID"), "negative"),
    (lambda: tf.nn.conv2d(tf.zeros([4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], "SAME"), "rank 4"),
    (lambda: tf.nn.max_pool(tf.zeros([1, 4, 4, 1]), [1, 2, 2, 2], [1, 1, 1, 1], "SAME"), "depth"),
    (lambda: tf.nn.top_k(tf.zeros([2, 3]), 4), "k = 4"),
    (lambda: tf.nn.fused_batch_norm(tf.zeros([1, 2, 2, 3]), tf.ones([3]), tf.zeros([3]), is_training=False),
     "mean"),
])
def test_bad_arguments_raise_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_runtime_errors_name_the_problem():
    k = tf.placeholder(tf.int32, [])
    v, _ = tf.nn.top_k(tf.zeros([2, 3]), k)
    with tf.Session() as s, pytest.raises(errors.InvalidArgumentError, match="at least k columns"):
        s.run(v, {k: 5})


def test_max_pool_routes_gradient_to_the_max_and_same_avg_ignores_padding():
    x = tf.constant(np.array([[1., 5., 2.], [3., 0., 4.]], np.float32).reshape(1, 2, 3, 1))
    m = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    a = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    g = tf.gradients(tf.reduce_sum(m), x)[0]
    with tf.Session() as s:
        vm, va, vg = s.run([m, a, g])
    assert vm.ravel().tolist() == [5., 4.]
    assert va.ravel().tolist() == [2.25, 3.0]     # the right window covers 2 real elements
    assert vg.ravel().tolist() == [0., 1., 0., 0., 0., 1.]


def test_embedding_lookup_top_k_in_top_k_lrn_crelu_names():
    p = tf.constant(np.arange(12.).reshape(6, 2))
    e = tf.nn.embedding_lookup(p, [[1, 5]], max_norm=1.0)
    v, i = tf.nn.top_k([[1., 4., 2.]], 2)
    k = tf.nn.in_top_k([[0.1, 0.7, 0.2]], [2], 2)
    c = tf.nn.crelu(tf.constant([[1., -2.]]))
    assert e.op.name == "embedding_lookup/Identity" and v.op.type == "TopKV2" and k.op.type == "InTopKV2"
    assert c.op.name == "CRelu" and c.shape.as_list() == [1, 4]
    with tf.Session() as s:
        ve, vv, vi, vk, vc = s.run([e, v, i, k, c])
    np.testing.assert_allclose(ve, [[[2 / np.hypot(2, 3), 3 / np.hypot(2, 3)], [10 / np.hypot(10, 11), 11 / np.hypot(10, 11)]]], rtol=1e-6)
    assert vv.tolist() == [[4., 2.]] and vi.tolist() == [[1, 2]] and vk.tolist() == [True]
    assert vc.tolist() == [[1., 0., 0., 2.]]
    # TF1's named pair: code reads .values / .indices, and a run of it gives the same pair back.
    pair = tf.nn.top_k([[1., 4., 2.]], 2)
    assert (pair.values.op.type, pair.indices.dtype) == ("TopKV2", tf.int32)
    with tf.Session() as s:
        got = s.run(pair)
    assert got.values.tolist() == [[4., 2.]] and got.indices.tolist() == [[1, 2]]
