"""Op-table rows: lgamma, digamma, polygamma, setdiff1d, qr, svd. References use other formulas than
the kernels: Gamma itself, the defining series of psi, Gram-Schmidt, and the eigenvectors of A^T A."""
import math

import numpy as np

import lens as tf
from lens.ops.special_ops import digamma, lgamma, polygamma, qr, setdiff1d, svd
from optable_lib import FIX, F, Row

EULER = 0.57721566490153286061
POLES = [(float(-k), 0.1) for k in range(0, 6)]


def lgamma_ref(x):
    """log |Gamma(x)| from math.gamma (valid for |x| < 170)."""
    return np.vectorize(lambda v: math.log(abs(math.gamma(v))), otypes=[np.float64])(x)


def digamma_ref(x, terms=200000):
    """psi(x) = -gamma + sum_k (1/(k+1) - 1/(k+x)), summed to `terms` plus the tail's asymptotics."""
    x = np.asarray(x, np.float64)
    k = np.arange(terms, dtype=np.float64)
    flat = x.reshape(-1, 1)
    head = (1.0 / (k + 1) - 1.0 / (k + flat)).sum(axis=1)
    a, b = terms + flat[:, 0], terms + 1.0
    tail = np.log(a / b) - 0.5 / a + 0.5 / b - 1 / (12 * a * a) + 1 / (12 * b * b)
    return (-EULER + head + tail).reshape(x.shape)


def polygamma_ref(n, x, terms=20000):
    """psi^(n)(x) = (-1)^(n+1) n! sum_k (x+k)^-(n+1) for n >= 1 (midpoint-rule tail), psi for n = 0."""
    n, x = np.broadcast_arrays(np.asarray(n, np.float64), np.asarray(x, np.float64))
    out = np.empty(x.shape)
    k = np.arange(terms, dtype=np.float64)
    for idx in np.ndindex(x.shape):
        order, v = int(n[idx]), x[idx]
        if order == 0:
            out[idx] = digamma_ref(np.array([v]))[0]
            continue
        terms_k = (v + k) ** -(order + 1.0)
        # exact summation of the first terms: for x < 0 they cancel in pairs around zero
        total = math.fsum(terms_k[:1000].tolist()) + np.sum(terms_k[1000:]) + (v + terms - 0.5) ** -order / order
        out[idx] = (-1) ** (order + 1) * math.factorial(order) * total
    return out


def setdiff_ref(x, y):
    """Kept values and positions by a plain membership scan."""
    banned = set(np.asarray(y).tolist())
    pos = [i for i, v in enumerate(np.asarray(x).tolist()) if v not in banned]
    return np.asarray(x)[pos], np.array(pos, dtype=np.int32)


def gram_schmidt(a):
    """Reduced QR of each matrix by modified Gram-Schmidt: diag(R) > 0."""
    a = np.asarray(a, np.float64)
    *batch, m, n = a.shape
    q, r = np.zeros(batch + [m, n]), np.zeros(batch + [n, n])
    for idx in np.ndindex(*batch):
        v = a[idx].copy()
        for j in range(n):
            for i in range(j):
                r[idx][i, j] = q[idx][:, i] @ v[:, j]
                v[:, j] -= r[idx][i, j] * q[idx][:, i]
            r[idx][j, j] = np.linalg.norm(v[:, j])
            q[idx][:, j] = v[:, j] / r[idx][j, j]
    return q, r


def qr_positive(x):
    """qr with every diagonal entry of R made positive (signs of columns of Q flipped along)."""
    q, r = qr(x)
    d = tf.sign(tf.matrix_diag_part(r))
    return [q * tf.expand_dims(d, -2), r * tf.expand_dims(d, -1)]


def svd_first_row_positive(x):
    """svd with each singular-vector pair flipped so that U's first row is positive."""
    s, u, v = svd(x)
    d = tf.sign(u[..., :1, :])
    return [s, u * d, v * d]


def svd_ref(a):
    """Singular values and vectors of tall/wide matrices from the eigenvectors of A^T A or A A^T."""
    a = np.asarray(a, np.float64)
    m, n = a.shape[-2:]
    wide = m < n
    b = np.swapaxes(a, -1, -2) if wide else a
    w, vecs = np.linalg.eigh(np.swapaxes(b, -1, -2) @ b)
    w, vecs = w[..., ::-1], vecs[..., ::-1]
    s = np.sqrt(w)
    other = (b @ vecs) / s[..., None, :]
    u, v = (vecs, other) if wide else (other, vecs)
    d = np.sign(u[..., :1, :])
    return [s, u * d, v * d]


_NEG = F(5, lo=-4.9, hi=-0.1, away=POLES)

ROWS = [
    Row("Lgamma", lgamma, lgamma_ref, [[F(3, 4, lo=0.2, hi=8.0)], [_NEG]]),
    Row("Digamma", digamma, digamma_ref, [[F(3, 4, lo=0.2, hi=8.0)], [_NEG]]),
    Row("Polygamma", lambda a, x: polygamma(tf.cast(a, x.dtype), x), polygamma_ref,
        [[FIX([[0.0], [1.0], [2.0]]), F(3, 4, lo=0.3, hi=6.0)], [FIX([1.0, 3.0, 4.0, 2.0, 1.0]), _NEG]]),
    Row("ListDiff", lambda x, y: list(setdiff1d(x, y)), setdiff_ref,
        [[FIX([4, 1, 4, 7, 2, 9, 1], np.int32), FIX([1, 9, 5], np.int32)],
         [FIX([3.5, -1.0, 2.0], np.float64), FIX([8.0], np.float64)],
         [FIX([], np.int32), FIX([1], np.int32)]], grad=False),
    Row("ListDiff", lambda x, y: list(setdiff1d(x, y, index_dtype=tf.int64)),
        lambda x, y: [setdiff_ref(x, y)[0], setdiff_ref(x, y)[1].astype(np.int64)],
        [[FIX([5, 6, 7, 5], np.int64), FIX([5], np.int64)]], grad=False, label="ListDiff int64"),
    Row("Qr", qr_positive, lambda a: list(gram_schmidt(a)), [[F(4, 3)], [F(2, 3, 3)]], rtol=None),
    Row("Svd", svd_first_row_positive, svd_ref, [[F(4, 3)], [F(3, 5)], [F(2, 3, 3)]], rtol=None),
    Row("Svd", lambda x: svd(x, compute_uv=False), lambda a: svd_ref(a)[0], [[F(2, 4, 3)]],
        label="Svd values only"),
]
