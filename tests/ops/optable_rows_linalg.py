"""Op-table rows: band and diagonal ops, matrix inverse/determinant/Cholesky, and the composites
built on them (eye, trace, matrix_transpose, tensordot). References use other formulas than the
kernels: triangles by np.triu/np.tril, inverses by solving, determinants from eigenvalues,
Cholesky by the textbook row-by-row recurrence."""
import numpy as np

import lens as tf
from lens.ops.linalg_einsum import einsum
from lens.ops.linalg_extra import (cholesky, eye, matrix_band_part, matrix_determinant,
                                          matrix_diag, matrix_diag_part, matrix_inverse, matrix_set_diag,
                                          matrix_transpose, tensordot, trace)
from optable_lib import FIX, F, Row


def _band(x, lo, hi):
    lo, hi = int(lo), int(hi)
    out = x if lo < 0 else np.triu(x, -lo)
    return out if hi < 0 else np.tril(out, hi)


def _eye_mask(m, n):
    return np.arange(m)[:, None] == np.arange(n)[None, :]


def _diag_part(x):
    m, n = x.shape[-2:]
    return np.sum(np.where(_eye_mask(m, n), x, 0), axis=-1)[..., :min(m, n)].astype(x.dtype)


def _set_diag(x, d):
    m, n = x.shape[-2:]
    k = min(m, n)
    padded = np.zeros(x.shape[:-1], x.dtype)
    padded[..., :k] = d
    return np.where(_eye_mask(m, n), padded[..., :, None], x)


def _chol(a):
    """Cholesky-Banachiewicz on each matrix of a batch (a small, plain reference)."""
    a = np.asarray(a, np.float64)
    out = np.zeros_like(a)
    for b in np.ndindex(a.shape[:-2]):
        m, n = a[b], a.shape[-1]
        low = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1):
                s = m[i, j] - low[i, :j] @ low[j, :j]
                low[i, j] = np.sqrt(s) if i == j else s / low[j, j]
        out[b] = low
    return out


def _spd(x):
    """The symmetric positive-definite matrix the Cholesky rows factor: x x^T + n I."""
    n = x.shape[-1]
    return np.matmul(x, np.swapaxes(x, -1, -2)) + n * np.eye(n)


def _spd_tf(x):
    n = x.shape.as_list()[-1]
    return tf.matmul(x, x, transpose_b=True) + n * eye(n, dtype=x.dtype)


def _shifted(x):
    """x + 3 I: keeps random matrices well conditioned for inverses and determinants."""
    return x + 3 * np.eye(x.shape[-1])


def _shifted_tf(x):
    return x + 3 * eye(x.shape.as_list()[-1], dtype=x.dtype)


def _i32(v):
    return FIX(v, np.int32)


ROWS = [
    Row("MatrixBandPart", matrix_band_part, _band,
        [[F(4, 5), _i32(1), _i32(2)], [F(2, 4, 3), _i32(-1), _i32(0)], [F(3, 3), _i32(0), _i32(-1)],
         [F(2, 3, 3), _i32(-1), _i32(-1)]]),
    Row("MatrixDiag", matrix_diag, lambda d: d[..., None, :] * np.eye(d.shape[-1], dtype=d.dtype),
        [[F(4)], [F(2, 3)], [F(2, 1, 3)]]),
    Row("MatrixDiagPart", matrix_diag_part, _diag_part, [[F(3, 3)], [F(2, 3, 5)], [F(4, 2)]]),
    Row("MatrixSetDiag", matrix_set_diag, _set_diag, [[F(3, 3), F(3)], [F(2, 3, 5), F(2, 3)], [F(4, 2), F(2)]]),
    Row("MatrixInverse", lambda x: matrix_inverse(_shifted_tf(x)),
        lambda x: np.linalg.solve(_shifted(x), np.broadcast_to(np.eye(x.shape[-1]), x.shape)).astype(x.dtype),
        [[F(3, 3, lo=-1, hi=1)], [F(2, 2, 2, lo=-1, hi=1)]]),
    Row("MatrixInverse", lambda x: matrix_inverse(_shifted_tf(x), adjoint=True),
        lambda x: np.swapaxes(np.linalg.solve(_shifted(x), np.eye(x.shape[-1])), -1, -2).astype(x.dtype),
        [[F(3, 3, lo=-1, hi=1)], [F(2, 2, 2, lo=-1, hi=1)]], label="MatrixInverse adjoint"),
    Row("MatrixDeterminant", lambda x: matrix_determinant(_shifted_tf(x)),
        lambda x: np.prod(np.linalg.eigvals(_shifted(x).astype(np.float64)), axis=-1).real.astype(x.dtype),
        [[F(3, 3, lo=-1, hi=1)], [F(2, 4, 4, lo=-1, hi=1)], [F(1, 1)]]),
    Row("MatrixDeterminant", matrix_determinant, lambda x: (x[..., 0, 0] * x[..., 1, 1] - x[..., 0, 1] * x[..., 1, 0]),
        [[F(3, 2, 2)]], label="MatrixDeterminant 2x2 unshifted"),
    Row("Cholesky", lambda x: cholesky(_spd_tf(x)), lambda x: _chol(_spd(x)).astype(x.dtype),
        [[F(3, 3, lo=-1, hi=1)], [F(2, 4, 4, lo=-1, hi=1)]]),
    # composites: each row names the op it must build and checks the whole function
    Row("MatrixDiag", lambda: eye(3), lambda: np.identity(3, np.float32), [[]], label="eye"),
    Row("MatrixSetDiag", lambda: eye(2, 4, batch_shape=[3], dtype=tf.float64),
        lambda: np.tile(np.eye(2, 4), (3, 1, 1)), [[]], label="eye rectangular batch"),
    Row("Transpose", matrix_transpose, lambda x: np.einsum("...ij->...ji", x), [[F(3, 4)], [F(2, 3, 4)]],
        label="matrix_transpose"),
    Row("MatrixDiagPart", trace, lambda x: np.trace(x, axis1=-2, axis2=-1).astype(x.dtype),
        [[F(3, 3)], [F(2, 3, 4)]], label="trace"),
    Row("MatMul", lambda a, b: tensordot(a, b, 1), lambda a, b: np.tensordot(a, b, 1),
        [[F(2, 3, 4), F(4, 5)]], label="tensordot axes=1"),
    Row("MatMul", lambda a, b: tensordot(a, b, [[0, 2], [2, 1]]), lambda a, b: np.tensordot(a, b, ([0, 2], [2, 1])),
        [[F(2, 3, 4), F(5, 4, 2)]], label="tensordot axes pairs"),
    Row("MatMul", lambda a, b: tensordot(a, b, 0), lambda a, b: np.multiply.outer(a, b),
        [[F(2, 3), F(3)]], label="tensordot outer"),
    Row("MatMul", lambda a, b: tensordot(a, b, [1, 0]), lambda a, b: np.einsum("ij,jk->ik", a, b),
        [[F(2, 3), F(3, 2)]], label="tensordot int pair"),
    # einsum: references by matmul, sums and outer products, never np.einsum
    Row("Einsum", lambda a, b: einsum("ij,jk->ik", a, b), lambda a, b: a @ b, [[F(2, 3), F(3, 4)]]),
    Row("Einsum", lambda a, b: einsum("bij,bjk->bik", a, b), np.matmul, [[F(2, 2, 3), F(2, 3, 2)]],
        label="Einsum batched"),
    Row("Einsum", lambda a, b: einsum("ba,ac->cb", a, b), lambda a, b: (a @ b).T, [[F(2, 3), F(3, 4)]],
        label="Einsum permuted output"),
    Row("Einsum", lambda a: einsum("ij->ji", a), lambda a: a.T, [[F(2, 3)]], label="Einsum transpose"),
    Row("Einsum", lambda a: einsum("ijk->k", a), lambda a: a.sum(axis=(0, 1)), [[F(2, 3, 4)]],
        label="Einsum reduce"),
    Row("Einsum", lambda a, b: einsum("ij,ij->i", a, b), lambda a, b: (a * b).sum(axis=1),
        [[F(3, 4), F(3, 4)]], label="Einsum rowwise dot"),
    Row("Einsum", lambda a, b: einsum("i,j->ij", a, b), np.outer, [[F(3), F(4)]], label="Einsum outer"),
    Row("Einsum", lambda a, b: einsum("abc,cd->ad", a, b), lambda a, b: a.sum(axis=1) @ b,
        [[F(2, 3, 4), F(4, 2)]], label="Einsum index only in one operand"),
    Row("Einsum", lambda a, b, c: einsum("ij,jk,kl->il", a, b, c), lambda a, b, c: a @ b @ c,
        [[F(2, 3), F(3, 2), F(2, 3)]], label="Einsum three operands"),
    Row("Einsum", lambda a, b: einsum("ij,jk", a, b), lambda a, b: a @ b, [[F(2, 3), F(3, 2)]],
        label="Einsum implicit output"),
]
