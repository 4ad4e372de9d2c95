"""Op-table rows: MatrixSolve, MatrixTriangularSolve, Cross, LogMatrixDeterminant, SelfAdjointEigV2,
MatrixExponential, MatrixSquareRoot (references from other NumPy routes than the kernels)."""
import numpy as np

import lens as tf
from lens.ops import linalg_solve as L
from optable_lib import FIX, F, Row


def _well(x):
    """A well-conditioned matrix from x (diagonally dominant)."""
    return x + 6 * tf.eye(3, dtype=x.dtype)


def _spd(x):
    return tf.matmul(x, x, transpose_b=True) + 3 * tf.eye(3, dtype=x.dtype)


def _np_well(x):
    return x + 6 * np.eye(3)


def _np_spd(x):
    return x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3)


def _expm_ref(x):
    w, v = np.linalg.eig(x)
    return (v @ np.diag(np.exp(w)) @ np.linalg.inv(v)).real


def _sqrtm_ref(x):
    w, v = np.linalg.eigh(x)
    return v @ np.diag(np.sqrt(w)) @ v.T


def _eig_ref(s):
    e, v = np.linalg.eigh(s)
    return [e, v]


def _eig_build(x):
    e, v = L.self_adjoint_eig(_spd(x))
    # the sign of each eigenvector is arbitrary: fix it (largest entry positive) for a comparable value
    sign = tf.sign(tf.reduce_sum(v * tf.cast(tf.equal(tf.abs(v), tf.reduce_max(tf.abs(v), 0, keepdims=True)), v.dtype), 0))
    return [e, v * sign]


def _eig_np(x):
    e, v = np.linalg.eigh(_np_spd(x))
    idx = np.argmax(np.abs(v), axis=0)
    return [e, v * np.sign(v[idx, np.arange(3)])]


ROWS = [
    Row("MatrixSolve", lambda a, b: L.matrix_solve(_well(a), b), lambda a, b: np.linalg.inv(_np_well(a)) @ b,
        [[F(3, 3), F(3, 2)], [F(2, 3, 3), F(2, 3, 1)]]),
    Row("MatrixSolve", lambda a, b: L.matrix_solve(_well(a), b, adjoint=True),
        lambda a, b: np.linalg.inv(_np_well(a).T) @ b, [[F(3, 3), F(3, 2)]], label="MatrixSolve adjoint"),
    Row("MatrixTriangularSolve", lambda a, b: L.matrix_triangular_solve(_well(a), b),
        lambda a, b: np.linalg.inv(np.tril(_np_well(a))) @ b, [[F(3, 3), F(3, 2)]]),
    Row("MatrixTriangularSolve", lambda a, b: L.matrix_triangular_solve(_well(a), b, lower=False, adjoint=True),
        lambda a, b: np.linalg.inv(np.swapaxes(np.triu(_np_well(a)), -1, -2)) @ b, [[F(2, 3, 3), F(2, 3, 2)]],
        label="MatrixTriangularSolve upper adjoint"),
    Row("Cross", L.cross, lambda a, b: np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                                                 a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                                                 a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], -1),
        [[F(4, 3), F(4, 3)]]),
    Row("LogMatrixDeterminant", lambda a: list(L.slogdet(a)),
        lambda a: [np.sign(np.linalg.det(a)), np.log(np.abs(np.linalg.det(a)))], [[F(2, 3, 3)]]),
    Row("SelfAdjointEigV2", _eig_build, _eig_np, [[F(3, 3)]]),
    Row("SelfAdjointEigV2", lambda x: L.self_adjoint_eigvals(_spd(x)), lambda x: np.linalg.eigvalsh(_np_spd(x)),
        [[F(2, 3, 3)]], label="self_adjoint_eigvals"),
    Row("MatrixExponential", L.expm, _expm_ref, [[F(3, 3, lo=-1, hi=1)], [FIX(np.array([[0.0, 5.0], [-5.0, 0.0]]))]]),
    Row("MatrixSquareRoot", lambda x: L.sqrtm(_spd(x)), lambda x: _sqrtm_ref(_np_spd(x)), [[F(3, 3)]]),
]
