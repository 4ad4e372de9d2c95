"""histogram_fixed_width_bins, broadcast_dynamic_shape, parallel_stack, switch_case, recompute_grad,
is_symbolic_tensor, make_tensor_proto, get_seed."""
import numpy as np
import pytest

import lens as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_histogram_bins_match_numpy_digitize():
    v = np.array([[-1.0, 0.0, 1.5], [2.0, 4.999, 15.0]])
    got = _run(tf.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=5))
    np.testing.assert_array_equal(got, np.clip(np.floor(v / 5.0 * 5), 0, 4).astype(np.int32))
    assert got.dtype == np.int32 and got.shape == (2, 3)


def test_broadcast_shapes_and_parallel_stack():
    assert _run(tf.broadcast_dynamic_shape([2, 1, 3], [4, 3])).tolist() == [2, 4, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible"):
        _run(tf.broadcast_dynamic_shape([2, 3], [4, 3]))
    assert _run(tf.parallel_stack([[1, 2], [3, 4]])).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match="fully defined"):
        tf.parallel_stack([tf.placeholder(tf.float32, [None])])


def test_switch_case_runs_one_branch_and_defaults():
    i = tf.placeholder(tf.int32, [])
    r = tf.switch_case(i, {0: lambda: tf.constant(10), 1: lambda: tf.constant(20)}, default=lambda: tf.constant(-1))
    assert [_run(r, {i: k}) for k in (0, 1, 7)] == [10, 20, -1]
    r2 = tf.switch_case(i, [lambda: tf.constant(1.0), lambda: tf.constant(2.0)])
    assert _run(r2, {i: -3}) == 2.0
    with pytest.raises(ValueError, match="contiguous"):
        tf.switch_case(i, {0: lambda: 1, 2: lambda: 2})


def test_recompute_grad_gives_the_same_gradient():
    x = tf.constant([1.0, 2.0], tf.float64)
    f = lambda a: tf.sin(a) * a  # noqa: E731
    g1 = tf.gradients(tf.reduce_sum(tf.recompute_grad(f)(x)), x)[0]
    g2 = tf.gradients(tf.reduce_sum(f(x)), x)[0]
    np.testing.assert_allclose(_run(g1), _run(g2), rtol=1e-12)


def test_small_helpers():
    assert tf.is_symbolic_tensor(tf.constant(1.0)) and not tf.is_symbolic_tensor(np.ones(2))
    proto = tf.make_tensor_proto([1.0, 2.0], dtype=tf.float32, shape=[2])
    assert tf.make_ndarray(proto).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="shape"):
        tf.make_tensor_proto([1.0, 2.0], shape=[3], verify_shape=True)
    tf.set_random_seed(5)
    assert tf.get_seed(None)[0] == 5 and tf.get_seed(3) == (5, 3)
