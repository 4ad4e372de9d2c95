"""assert_near, assert_integer, assert_scalar, assert_rank_in, assert_same_float_dtype, assert_proper_iterable,
assert_shapes, assert_all_finite: static errors at build time, InvalidArgumentError at run time."""
import numpy as np
import pytest

import lens as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(op, feed=None):
    with tf.Session() as sess:
        return sess.run(op, feed)


def test_assert_near_passes_and_fails_at_run_time():
    x = tf.placeholder(tf.float64, [3])
    check = tf.debugging.assert_near(x, np.array([1.0, 2.0, 3.0]), rtol=1e-3, atol=0.0)
    _run(check, {x: [1.0005, 2.001, 3.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="not equal to tolerance"):
        _run(check, {x: [1.1, 2.0, 3.0]})
    assert tf.assert_near is tf.debugging.assert_near


def test_static_assertions():
    tf.assert_integer(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="integer"):
        tf.assert_integer(tf.constant([1.0]))
    s = tf.constant(3.0)
    assert tf.assert_scalar(s) is s
    with pytest.raises(ValueError, match="scalar"):
        tf.debugging.assert_scalar(tf.constant([1.0]))
    tf.assert_rank_in(tf.zeros([2, 3]), [1, 2])
    with pytest.raises(ValueError, match="rank in"):
        tf.assert_rank_in(tf.zeros([2, 3]), [1, 3])
    assert tf.assert_same_float_dtype([tf.zeros([1], tf.float64), tf.ones([2], tf.float64)]) == tf.float64
    assert tf.assert_same_float_dtype() == tf.float32
    with pytest.raises(ValueError):
        tf.assert_same_float_dtype([tf.zeros([1]), tf.zeros([1], tf.float64)])
    tf.assert_proper_iterable([1, 2])
    with pytest.raises(TypeError, match="proper"):
        tf.assert_proper_iterable("abc")


def test_assert_rank_in_at_run_time():
    p = tf.placeholder(tf.float32)
    check = tf.debugging.assert_rank_in(p, [0, 2])
    _run(check, {p: np.zeros([2, 2])})
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank in"):
        _run(check, {p: np.zeros([2])})


def test_assert_shapes_static_and_dynamic():
    a, b = tf.zeros([2, 3]), tf.zeros([3, 4])
    tf.debugging.assert_shapes([(a, ("N", "Q")), (b, ("Q", 4))])
    with pytest.raises(ValueError, match="must have size"):
        tf.debugging.assert_shapes([(a, ("N", "Q")), (b, ("N", 4))])
    p = tf.placeholder(tf.float32, [None, 3])
    check = tf.debugging.assert_shapes([(a, ("N", 3)), (p, ("N", "."))])
    _run(check, {p: np.zeros([2, 3])})
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(check, {p: np.zeros([5, 3])})


def test_assert_all_finite_and_predicates():
    p = tf.placeholder(tf.float32, [2])
    out = tf.debugging.assert_all_finite(p, "bad values")
    assert _run(out, {p: [1.0, 2.0]}).tolist() == [1.0, 2.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad values"):
        _run(out, {p: [np.nan, 1.0]})
    assert tf.debugging.is_nan is tf.is_nan and tf.debugging.is_numeric_tensor(p)
    assert _run(tf.debugging.is_non_decreasing([1, 1, 2]))
