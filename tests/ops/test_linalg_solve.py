"""tf.linalg's solves and composites (lstsq, pinv, matrix_rank, logdet, normalize, ...) against NumPy, and their names."""
import numpy as np
import pytest

import lens as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


RNG = np.random.default_rng(3)


def test_least_squares_fast_and_robust():
    a, b = RNG.normal(size=(6, 3)), RNG.normal(size=(6, 2))
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    np.testing.assert_allclose(_run(tf.linalg.lstsq(a, b)), want, atol=1e-10)
    np.testing.assert_allclose(_run(tf.matrix_solve_ls(a, b, fast=False)), want, atol=1e-10)
    ridge = np.linalg.solve(a.T @ a + 0.5 * np.eye(3), a.T @ b)
    np.testing.assert_allclose(_run(tf.linalg.lstsq(a, b, l2_regularizer=0.5)), ridge, atol=1e-10)
    wide = RNG.normal(size=(2, 4))
    np.testing.assert_allclose(_run(tf.linalg.lstsq(wide, b[:2])), np.linalg.pinv(wide) @ b[:2], atol=1e-10)


def test_pinv_rank_logdet_normalize_matvec():
    a = RNG.normal(size=(4, 3))
    np.testing.assert_allclose(_run(tf.linalg.pinv(a)), np.linalg.pinv(a), atol=1e-12)
    assert _run(tf.linalg.matrix_rank(np.outer([1.0, 2, 3], [1.0, 1, 0]))) == 1
    spd = a.T @ a + np.eye(3)
    assert _run(tf.linalg.logdet(spd)) == pytest.approx(np.linalg.slogdet(spd)[1])
    n, norm = _run(tf.linalg.normalize(a, axis=1))
    np.testing.assert_allclose(norm[:, 0], np.linalg.norm(a, axis=1))
    np.testing.assert_allclose(n, a / norm)
    np.testing.assert_allclose(_run(tf.linalg.matvec(a, np.array([1.0, 2.0, 3.0]))), a @ [1.0, 2.0, 3.0])
    np.testing.assert_allclose(_run(tf.linalg.cholesky_solve(np.linalg.cholesky(spd), a.T)), np.linalg.solve(spd, a.T))


def test_singular_matrix_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        _run(tf.linalg.solve(np.zeros((2, 2)), np.ones((2, 1))))
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.linalg.solve(np.eye(3), np.ones((2, 1)))


def test_names():
    assert tf.linalg.solve is tf.matrix_solve and tf.linalg.triangular_solve is tf.matrix_triangular_solve
    assert tf.linalg.eigh is tf.self_adjoint_eig and tf.linalg.sqrtm is tf.matrix_square_root
    assert tf.linalg.cross is tf.cross and tf.linalg.tensor_diag is tf.diag
    assert _run(tf.linalg.adjoint([[1.0, 2.0], [3.0, 4.0]])).tolist() == [[1.0, 3.0], [2.0, 4.0]]
