"""Session.run's fast path for signatures already run: same results, checks and errors as the full path."""
import warnings

import numpy as np
import pytest

import lens as tf


def _graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [])
        v = tf.placeholder(tf.float32, [2])
        y = x * 2 + 1
        z = v / 0.0
    return g, x, v, y, z


def test_float_feed_rounds_as_asarray_astype():
    g, x, _, y, _ = _graph()
    with tf.Session(graph=g) as sess:
        for value in [3.0, 0.1, 1e39, -1e-46, float("nan")]:
            with np.errstate(over="ignore"):    # 1e39 overflows float32 (NumPy warns, as before)
                got = sess.run(y, {x: value})
                want = np.asarray(value).astype(np.float32) * np.float32(2) + np.float32(1)
            assert type(got) is np.float32
            np.testing.assert_array_equal(got, want)


def test_fast_path_keeps_the_feed_checks():
    g, x, v, y, z = _graph()
    with tf.Session(graph=g) as sess:
        sess.run(z, {v: np.ones(2, np.float32)})
        with pytest.raises(ValueError, match="shape"):
            sess.run(z, {v: np.ones(3, np.float32)})
        with pytest.raises(ValueError, match="shape"):
            sess.run(z, {v: 1.0})
        sess.run(y, {x: 1.0})
        with pytest.raises(ValueError, match="shape"):
            sess.run(y, {x: np.ones(2, np.float32)})


def test_fp_warnings_off_in_runs_and_caller_state_restored():
    g, _, v, _, z = _graph()
    before = np.geterr()
    with tf.Session(graph=g) as sess, warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            out = sess.run(z, {v: np.array([1, -1], np.float32)})
            assert np.isinf(out).all()
        assert np.geterr() == before
        with np.errstate(divide="raise"):
            sess.run(z, {v: np.array([1, -1], np.float32)})
            assert np.geterr()["divide"] == "raise"
            with pytest.raises(FloatingPointError):
                np.float32(1) / np.float32(0)
    assert np.geterr() == before


def test_closed_session_raises_on_a_cached_signature():
    g, x, _, y, _ = _graph()
    sess = tf.Session(graph=g)
    sess.run(y, {x: 1.0})
    sess.close()
    with pytest.raises(RuntimeError, match="closed"):
        sess.run(y, {x: 1.0})


def test_sessions_with_a_timeout_still_run():
    g, x, _, y, _ = _graph()
    config = tf.ConfigProto(operation_timeout_in_ms=10000)
    with tf.Session(graph=g, config=config) as sess:
        assert sess._plain_runs is not sess._runs
        assert [float(sess.run(y, {x: 2.0})) for _ in range(2)] == [5.0, 5.0]
