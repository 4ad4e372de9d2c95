"""tf.math / tf.* composites (sort, repeat, bincount, polyval, ...) against NumPy, and the compat helpers."""
import numpy as np
import pytest

import lens as tf


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_sort_and_argsort_along_any_axis():
    x = np.random.default_rng(0).normal(size=(3, 4, 5))
    for axis in (0, 1, -1):
        np.testing.assert_allclose(_run(tf.sort(x, axis=axis)), np.sort(x, axis=axis))
        np.testing.assert_array_equal(_run(tf.argsort(x, axis=axis)), np.argsort(x, axis=axis, kind="stable"))
    np.testing.assert_allclose(_run(tf.sort(x, direction="DESCENDING")), -np.sort(-x))
    with pytest.raises(ValueError, match="ASCENDING"):
        tf.sort(x, direction="UP")


def test_sort_gradient_routes_to_the_sorted_positions():
    x = tf.constant([3.0, 1.0, 2.0])
    g = tf.gradients(tf.reduce_sum(tf.sort(x) * tf.constant([1.0, 10.0, 100.0])), x)[0]
    np.testing.assert_allclose(_run(g), [100.0, 1.0, 10.0])


def test_repeat_matches_numpy():
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(_run(tf.repeat(x, 2)), np.repeat(x, 2))
    np.testing.assert_array_equal(_run(tf.repeat(x, [1, 3], axis=0)), np.repeat(x, [1, 3], axis=0))
    np.testing.assert_array_equal(_run(tf.repeat(x, [0, 2, 1], axis=1)), np.repeat(x, [0, 2, 1], axis=1))


def test_bincount_lengths_and_weights():
    a = np.array([1, 1, 4, 0])
    np.testing.assert_array_equal(_run(tf.math.bincount(a)), np.bincount(a))
    np.testing.assert_array_equal(_run(tf.math.bincount(a, minlength=7)), np.bincount(a, minlength=7))
    np.testing.assert_array_equal(_run(tf.math.bincount(a, maxlength=2)), np.bincount(a)[:2])
    np.testing.assert_allclose(_run(tf.math.bincount(a, weights=[0.5, 1.0, 2.0, 3.0])),
                               np.bincount(a, weights=[0.5, 1.0, 2.0, 3.0]))
    assert _run(tf.math.bincount(np.zeros([0], np.int32))).shape == (0,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        _run(tf.math.bincount([1, -1]))


def test_composites_match_numpy():
    x = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]])
    np.testing.assert_allclose(_run(tf.math.log_sigmoid(x)), -np.log1p(np.exp(-x)))
    np.testing.assert_allclose(_run(tf.math.polyval([2.0, -1.0, 3.0], x)), np.polyval([2.0, -1.0, 3.0], x))
    np.testing.assert_allclose(_run(tf.math.reduce_euclidean_norm(x, axis=1)), np.linalg.norm(x, axis=1))
    np.testing.assert_allclose(_run(tf.math.cumulative_logsumexp(x, axis=1)),
                               np.log(np.cumsum(np.exp(x), axis=1)))
    np.testing.assert_allclose(_run(tf.math.cumulative_logsumexp(x, axis=1, reverse=True)),
                               np.log(np.cumsum(np.exp(x)[:, ::-1], axis=1)[:, ::-1]))
    np.testing.assert_allclose(_run(tf.math.reciprocal_no_nan(x)), np.where(x == 0, 0, 1 / np.where(x == 0, 1, x)))
    assert _run(tf.math.zero_fraction(x)) == pytest.approx(1 / 6)
    np.testing.assert_allclose(_run(tf.scalar_mul(2.0, x)), 2 * x)
    with pytest.raises(ValueError, match="Only scalar"):
        tf.scalar_mul([1.0, 2.0], x)
    np.testing.assert_allclose(_run(tf.math.accumulate_n([x, x, x])), 3 * x)
    assert _run(tf.math.is_non_decreasing([1, 2, 2])) and not _run(tf.math.is_strictly_increasing([1, 2, 2]))
    assert _run(tf.math.is_strictly_increasing([[1, 2], [3, 4]]))


def test_searchsorted_dynamic_partition_batch_gather_shape_n():
    seq = np.array([[1.0, 3.0, 5.0], [2.0, 2.0, 6.0]])
    vals = np.array([[3.0, 0.0], [2.0, 9.0]])
    for side in ("left", "right"):
        got = _run(tf.searchsorted(seq, vals, side=side))
        np.testing.assert_array_equal(got, [np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    parts = _run(tf.dynamic_partition(np.arange(10.0).reshape(5, 2), [0, 2, 0, 1, 2], 3))
    np.testing.assert_array_equal(parts[2], [[2.0, 3.0], [8.0, 9.0]])
    params = np.arange(24).reshape(2, 3, 4)
    idx = np.array([[2, 0], [1, 1]])
    np.testing.assert_array_equal(_run(tf.batch_gather(params, idx)), np.take_along_axis(params, idx[:, :, None], 1))
    a, b = tf.shape_n([tf.zeros([2, 3]), tf.zeros([4])])
    assert _run(a).tolist() == [2, 3] and _run(b).tolist() == [4]


def test_ensure_shape_fails_at_run_time_and_at_build_time():
    p = tf.placeholder(tf.float32, [None, 3])
    out = tf.ensure_shape(p, [2, 3])
    assert out.shape.as_list() == [2, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not compatible"):
        _run(out, {p: np.zeros([4, 3])})
    with pytest.raises(ValueError):
        tf.ensure_shape(p, [2, 4])


def test_compat_helpers():
    t = tf.constant([1.0])
    assert tf.is_tensor(t) and not tf.is_tensor(np.ones(1)) and tf.is_numeric_tensor(t)
    assert not tf.is_numeric_tensor(tf.constant("a"))
    assert tf.dimension_value(tf.TensorShape([3, None])[0]) == 3 and tf.dimension_value(None) is None
    assert tf.dimension_at_index(tf.TensorShape([3, None]), 1).value is None
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() == [2, 3]
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.get_static_value(tf.placeholder(tf.float32)) is None
    assert tf.reverse_v2 is tf.reverse and tf.floor_div is tf.floordiv
    assert not tf.control_flow_v2_enabled() and not tf.resource_variables_enabled()
    tf.disable_v2_behavior()
    assert tf.Variable(1.0).op.type == "VariableV2"
    with tf.control_dependencies([t]):
        with tf.init_scope():
            free = tf.constant(2.0)
    assert not free.op.control_inputs
    with tf.op_scope([t], "outer", "dflt") as scope:
        assert scope.startswith("outer")
    out = tf.numpy_function(lambda a: a * 2, [t], tf.float32)
    assert _run(out).tolist() == [2.0]
    assert tf.gradients(tf.reduce_sum(t), t, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert tf.VariableAggregation.MEAN.value == 2 and tf.AggregationMethod.DEFAULT == 0
