"""Linear solves and matrix functions of tf.linalg: matrix_solve, matrix_triangular_solve, cross, slogdet,
self_adjoint_eig(vals), expm, sqrtm (NumPy kernels, TF's gradients), and TF's composites on top of
them: cholesky_solve, logdet, lstsq/matrix_solve_ls, pinv, matrix_rank, matvec, normalize."""
import collections

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.linalg import matmul, norm
from lens.ops.linalg_extra import (_float_input, _square_dims, cholesky, eye, matrix_band_part, matrix_diag,
                                   matrix_diag_part, matrix_inverse, matrix_set_diag, matrix_transpose)
from lens.ops.logic import greater, where
from lens.ops.slicing import slice as _slice
from lens.ops.reduce import reduce_max, reduce_sum
from lens.ops.special_ops import svd


def _fail(op, msg):
    raise errors.InvalidArgumentError(None, op, msg)


def _f64(kernel):
    """Run a kernel in float64 (float16/float32 inputs too) and cast back to the input dtype."""
    def run(*args):
        dtype = np.asarray(args[0]).dtype
        out = kernel(*[np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a for a in args])
        if isinstance(out, tuple):
            return tuple(np.asarray(o).astype(dtype) for o in out)
        return np.asarray(out).astype(dtype)
    return run


def _batch_shape(op, what):
    a, b = op._inputs[0].shape, op._inputs[1].shape
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    _square_dims(op)
    if a.ndims != b.ndims:
        raise ValueError("Shape must be rank %d but is rank %d for '%s' (op: '%s'): %s and its right-hand "
                         "side need the same batch rank." % (a.ndims, b.ndims, op.name, op.type, what))
    rows_a, rows_b = a.as_list()[-2], b.as_list()[-2]
    if rows_a is not None and rows_b is not None and rows_a != rows_b:
        raise ValueError("Dimensions must be equal, but are %d and %d for '%s' (op: '%s'): the matrix has %d "
                         "rows, the right-hand side %d." % (rows_a, rows_b, op.name, op.type, rows_a, rows_b))
    return TensorShape(a.as_list()[:-1] + b.as_list()[-1:])


# ---- MatrixSolve ---------------------------------------------------------------------------------
def _solve_make(op, ctx):
    adjoint = op._attrs["adjoint"]

    def run(a, b):
        a = np.swapaxes(a, -1, -2) if adjoint else a
        try:
            return np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            _fail(op, "Input matrix is not invertible.")
    return _f64(run)


def _solve_grad(op, g):
    a, _ = op._inputs
    c = op._outputs[0]
    adjoint = op._attrs["adjoint"]
    grad_b = matrix_solve(a, g, adjoint=not adjoint)
    if adjoint:
        grad_a = M.negative(matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = M.negative(matmul(grad_b, c, adjoint_b=True))
    return [grad_a, grad_b]


register_op("MatrixSolve", make=_solve_make, shape=lambda op: [_batch_shape(op, "matrix_solve")], grad=_solve_grad)


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs (adjoint(matrix) @ X = rhs when adjoint) for each innermost square matrix."""
    with name_scope(name, "MatrixSolve", [matrix, rhs]) as scope:
        a = _float_input(matrix, "MatrixSolve", "matrix")
        b = convert_to_tensor(rhs, dtype=a.dtype.base_dtype, name="rhs")
        return apply_op("MatrixSolve", [(a, "matrix"), (b, "rhs")], {"adjoint": bool(adjoint), "T": a.dtype},
                        name=scope)


# ---- MatrixTriangularSolve -----------------------------------------------------------------------
def _tri_make(op, ctx):
    lower, adjoint = op._attrs["lower"], op._attrs["adjoint"]

    def run(a, b):
        a = np.tril(a) if lower else np.triu(a)
        diag = np.diagonal(a, axis1=-2, axis2=-1)
        if (diag == 0).any():
            _fail(op, "Input matrix is not invertible.")
        if adjoint:
            a = np.swapaxes(a, -1, -2)
        return np.linalg.solve(a, b)
    return _f64(run)


def _tri_grad(op, g):
    a, _ = op._inputs
    c = op._outputs[0]
    lower, adjoint = op._attrs["lower"], op._attrs["adjoint"]
    grad_b = matrix_triangular_solve(a, g, lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_a = M.negative(matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = M.negative(matmul(grad_b, c, adjoint_b=True))
    grad_a = matrix_band_part(grad_a, -1, 0) if lower else matrix_band_part(grad_a, 0, -1)
    return [grad_a, grad_b]


register_op("MatrixTriangularSolve", make=_tri_make, grad=_tri_grad,
            shape=lambda op: [_batch_shape(op, "matrix_triangular_solve")])


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix @ X = rhs, reading only matrix's lower (or upper) triangle."""
    with name_scope(name, "MatrixTriangularSolve", [matrix, rhs]) as scope:
        a = _float_input(matrix, "MatrixTriangularSolve", "matrix")
        b = convert_to_tensor(rhs, dtype=a.dtype.base_dtype, name="rhs")
        return apply_op("MatrixTriangularSolve", [(a, "matrix"), (b, "rhs")],
                        {"lower": bool(lower), "adjoint": bool(adjoint), "T": a.dtype}, name=scope)


# ---- Cross -----------------------------------------------------------------------------------------
def _cross_make(op, ctx):
    def run(a, b):
        if a.shape != b.shape or a.shape[-1:] != (3,):
            _fail(op, "Both inputs must be of the same shape with an innermost dimension of 3, got %s and %s"
                  % (list(a.shape), list(b.shape)))
        return np.cross(a, b)
    return run


def _cross_shape(op):
    a, b = op._inputs[0].shape, op._inputs[1].shape
    if a.ndims is not None and a.as_list()[-1] not in (None, 3):
        raise ValueError("Dimension must be 3 but is %d for '%s' (op: 'Cross'): tf.cross needs 3-vectors."
                         % (a.as_list()[-1], op.name))
    return [a.merge_with(b) if a.is_compatible_with(b) else a]


register_op("Cross", make=_cross_make, shape=_cross_shape,
            grad=lambda op, g: [cross(op._inputs[1], g), cross(g, op._inputs[0])])


def cross(a, b, name=None):
    """The cross product of 3-vectors along the last axis."""
    a = convert_to_tensor(a, name="a")
    b = convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
    return apply_op("Cross", [(a, "a"), (b, "b")], {"T": a.dtype}, name=name or "Cross")


# ---- LogMatrixDeterminant ----------------------------------------------------------------------------
def _slogdet_grad(op, g_sign, g_logdet):
    inv_t = matrix_inverse(op._inputs[0], adjoint=True)
    return [M.multiply(A.expand_dims(A.expand_dims(g_logdet, -1), -1), inv_t)]


def _det_shape(op):
    dims = _square_dims(op)
    s = unknown_shape() if dims is None else TensorShape(dims[:-2])
    return [s, s]


register_op("LogMatrixDeterminant", fn=_f64(lambda a: np.linalg.slogdet(a)), shape=_det_shape, grad=_slogdet_grad)
Slogdet = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def slogdet(input, name=None):  # noqa: A002 - TF's argument name
    """(sign, log |det|) of each innermost square matrix."""
    x = _float_input(input, "LogMatrixDeterminant")
    outs = apply_op("LogMatrixDeterminant", [(x, "input")], {"T": x.dtype}, name=name or "LogMatrixDeterminant",
                    dtypes=[x.dtype.base_dtype] * 2)
    return Slogdet(*outs)


# ---- SelfAdjointEigV2 ------------------------------------------------------------------------------------
def _eig_make(op, ctx):
    compute_v = op._attrs["compute_v"]

    def run(a):
        e, v = np.linalg.eigh(a, UPLO="L")
        return e, (v if compute_v else np.zeros([0], a.dtype))
    return _f64(run)


def _eig_shape(op):
    dims = _square_dims(op)
    if dims is None:
        return [unknown_shape(), unknown_shape()]
    return [TensorShape(dims[:-1]), TensorShape(dims) if op._attrs["compute_v"] else TensorShape([0])]


def _eig_grad(op, grad_e, grad_v):
    """TF's formula: V (diag(gE) + F o (V^T gV)) V^T, symmetrized onto the lower triangle read by the op."""
    e, v = op._outputs
    if not op._attrs["compute_v"]:
        _, v = self_adjoint_eig(op._inputs[0])
    diff = M.subtract(A.expand_dims(e, -2), A.expand_dims(e, -1))
    inv = M.div_no_nan(convert_to_tensor(1, dtype=e.dtype.base_dtype), diff)
    f = matrix_set_diag(inv, A.zeros_like(e))
    middle = matrix_diag(grad_e) if grad_e is not None else A.zeros_like(matrix_diag(e))
    if grad_v is not None and op._attrs["compute_v"]:
        middle = M.add(middle, M.multiply(f, matmul(v, grad_v, adjoint_a=True)))
    grad_a = matmul(v, matmul(middle, v, adjoint_b=True))
    grad_a = matrix_band_part(M.add(grad_a, matrix_transpose(grad_a)), -1, 0)
    return [matrix_set_diag(grad_a, M.multiply(convert_to_tensor(0.5, dtype=e.dtype.base_dtype),
                                               matrix_diag_part(grad_a)))]


register_op("SelfAdjointEigV2", make=_eig_make, shape=_eig_shape, grad=_eig_grad)


def self_adjoint_eig(tensor, name=None):
    """(e, v): ascending eigenvalues and eigenvectors (columns) of each symmetric matrix's lower triangle."""
    x = _float_input(tensor, "SelfAdjointEigV2")
    return tuple(apply_op("SelfAdjointEigV2", [(x, "input")], {"compute_v": True, "T": x.dtype},
                          name=name or "SelfAdjointEigV2", dtypes=[x.dtype.base_dtype] * 2))


def self_adjoint_eigvals(tensor, name=None):
    """The ascending eigenvalues of each symmetric matrix (its lower triangle)."""
    x = _float_input(tensor, "SelfAdjointEigV2")
    return apply_op("SelfAdjointEigV2", [(x, "input")], {"compute_v": False, "T": x.dtype},
                    name=name or "SelfAdjointEigV2", dtypes=[x.dtype.base_dtype] * 2)[0]


# ---- MatrixExponential, MatrixSquareRoot ----------------------------------------------------------------
def _expm(a):
    """Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s) with a 24-term Taylor series at norm < 1/2."""
    out = np.empty_like(a)
    for idx in np.ndindex(a.shape[:-2]):
        m = a[idx]
        size = np.abs(m).sum(axis=0).max() if m.size else 0.0
        s = max(0, int(np.ceil(np.log2(size / 0.5)))) if size > 0.5 else 0
        x = m / 2.0 ** s
        term, total = np.eye(m.shape[-1]), np.eye(m.shape[-1])
        for k in range(1, 24):
            term = term @ x / k
            total = total + term
        for _ in range(s):
            total = total @ total
        out[idx] = total
    return out


def _expm_grad(op, g):
    """The Frechet adjoint: the upper-right block of exp([[A^T, G], [0, A^T]])."""
    a_t = matrix_transpose(op._inputs[0])
    top = A.concat([a_t, g], -1)
    bottom = A.concat([A.zeros_like(a_t), a_t], -1)
    big = expm(A.concat([top, bottom], -2))
    n = A.shape(a_t)[-1]
    rank = op._inputs[0].shape.ndims
    begin = A.concat([A.zeros([rank - 2], _dt.int32), A.stack([0, n])], 0)
    size = A.concat([A.fill([rank - 2], -1), A.stack([n, n])], 0)
    return [_slice(big, begin, size)]


def _sqrtm(a):
    """The principal square root by the Denman-Beavers iteration (no eigenvalues on the closed negative axis)."""
    out = np.empty_like(a)
    for idx in np.ndindex(a.shape[:-2]):
        y, z = a[idx], np.eye(a.shape[-1])
        for _ in range(100):
            y_next = 0.5 * (y + np.linalg.inv(z))
            z = 0.5 * (z + np.linalg.inv(y))
            done = np.abs(y_next - y).max() <= 1e-15 * max(np.abs(y_next).max(), 1e-300)
            y = y_next
            if done:
                break
        out[idx] = y
    return out


def _sqrtm_grad(op, g):
    """Solve S^T X + X S^T = G (the Sylvester equation of d(S S) = dA) through its Kronecker form."""
    s = op._outputs[0]
    n = A.shape(s)[-1]
    s_t = matrix_transpose(s)
    ident = eye(n, dtype=s.dtype.base_dtype)
    # K[(i,j),(k,l)] = S^T[i,k] d(j,l) + d(i,k) S^T[l,j]... written for X[k,l] in row-major vec
    left = M.multiply(A.expand_dims(A.expand_dims(s_t, -1), -3), A.expand_dims(A.expand_dims(ident, -2), -4))
    right = M.multiply(A.expand_dims(A.expand_dims(ident, -1), -3), A.expand_dims(A.expand_dims(s, -2), -4))
    kron = M.add(left, right)                                           # [..., i, j, k, l]
    batch = A.shape(s)[:-2]
    nn = M.multiply(n, n)
    k2 = A.reshape(kron, A.concat([batch, A.stack([nn, nn])], 0))
    x = matrix_solve(k2, A.reshape(g, A.concat([batch, A.stack([nn, 1])], 0)))
    return [A.reshape(x, A.shape(s))]


register_op("MatrixExponential", make=lambda op, ctx: _f64(_expm), shape=lambda op: [op._inputs[0].shape],
            grad=_expm_grad)
register_op("MatrixSquareRoot", make=lambda op, ctx: _f64(_sqrtm), shape=lambda op: [op._inputs[0].shape],
            grad=_sqrtm_grad)


def expm(input, name=None):  # noqa: A002
    """The matrix exponential of each innermost square matrix."""
    x = _float_input(input, "MatrixExponential")
    _check_square(x)
    return apply_op("MatrixExponential", [(x, "input")], {"T": x.dtype}, name=name or "matrix_exponential")


def sqrtm(input, name=None):  # noqa: A002
    """The principal square root of each innermost square matrix."""
    x = _float_input(input, "MatrixSquareRoot")
    _check_square(x)
    return apply_op("MatrixSquareRoot", [(x, "input")], {"T": x.dtype}, name=name or "MatrixSquareRoot")


def _check_square(x):
    s = x.shape
    if s.ndims is not None and (s.ndims < 2 or None not in s.as_list()[-2:] and s.as_list()[-1] != s.as_list()[-2]):
        raise ValueError("Input must be (a batch of) square matrices, got shape %s" % s)


# ---- composites ------------------------------------------------------------------------------------------
def cholesky_solve(chol, rhs, name=None):
    """X with (chol chol^T) X = rhs, from the lower Cholesky factor chol (two triangular solves)."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        y = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
        return matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def logdet(matrix, name=None):
    """log det of each Hermitian positive-definite matrix: 2 sum log diag(cholesky)."""
    with name_scope(name, "logdet", [matrix]):
        chol = cholesky(matrix)
        return M.multiply(convert_to_tensor(2.0, dtype=chol.dtype.base_dtype),
                          reduce_sum(M.log(matrix_diag_part(chol)), axis=[-1]))


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares (ridge with l2_regularizer) solution of matrix @ X = rhs.

    fast=True uses the normal equations with Cholesky, as TF; fast=False the pseudo-inverse (minimum-norm
    solution; TF ignores l2_regularizer there too)."""
    with name_scope(name, "matrix_solve_ls", [matrix, rhs]):
        a = _float_input(matrix, "MatrixSolveLs", "matrix")
        b = convert_to_tensor(rhs, dtype=a.dtype.base_dtype, name="rhs")
        if not fast:
            return matmul(pinv(a), b)
        m, n = a.shape.as_list()[-2:] if a.shape.ndims is not None else (None, None)
        if m is None or n is None:
            raise ValueError("matrix_solve_ls(fast=True) needs the matrix's last two dimensions known, got %s"
                             % a.shape)
        reg = convert_to_tensor(l2_regularizer, dtype=a.dtype.base_dtype, name="l2_regularizer")
        if m >= n:
            gram = M.add(matmul(a, a, adjoint_a=True), M.multiply(reg, eye(n, dtype=a.dtype.base_dtype)))
            return cholesky_solve(cholesky(gram), matmul(a, b, adjoint_a=True))
        gram = M.add(matmul(a, a, adjoint_b=True), M.multiply(reg, eye(m, dtype=a.dtype.base_dtype)))
        return matmul(a, cholesky_solve(cholesky(gram), b), adjoint_a=True)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """tf.linalg.lstsq: matrix_solve_ls."""
    return matrix_solve_ls(matrix, rhs, l2_regularizer=l2_regularizer, fast=fast, name=name)


def _cutoff(s, m, n, rcond):
    if rcond is None:
        rcond = 10.0 * max(m, n) * np.finfo(s.dtype.as_numpy_dtype).eps
    return M.multiply(convert_to_tensor(rcond, dtype=s.dtype.base_dtype), reduce_max(s, axis=[-1], keepdims=True))


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse from the SVD, dropping singular values below rcond * max."""
    del validate_args
    with name_scope(name, "pinv", [a]):
        a = _float_input(a, "pinv", "a")
        m, n = a.shape.as_list()[-2:]
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        keep = greater(s, _cutoff(s, m, n, rcond))
        inv_s = where(keep, M.div_no_nan(A.ones_like(s), s), A.zeros_like(s))
        return matmul(M.multiply(v, A.expand_dims(inv_s, -2)), u, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above tol (default: max(s) * max(m, n) * eps), as int32."""
    del validate_args
    with name_scope(name, "matrix_rank", [a]):
        a = _float_input(a, "matrix_rank", "a")
        m, n = a.shape.as_list()[-2:]
        s = svd(a, compute_uv=False)
        if tol is None:
            cut = M.multiply(convert_to_tensor(max(m, n) * np.finfo(a.dtype.as_numpy_dtype).eps, dtype=s.dtype),
                             reduce_max(s, axis=[-1], keepdims=True))
        else:
            cut = convert_to_tensor(tol, dtype=s.dtype.base_dtype)
        return reduce_sum(M.cast(greater(s, cut), _dt.int32), axis=[-1])


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for a (batch of) matrix a and vector b."""
    del a_is_sparse, b_is_sparse
    with name_scope(name, "MatVec", [a, b]):
        out = matmul(a, A.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
        return A.squeeze(out, axis=[-1])


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's argument name
    """(tensor / norm, norm) with the norm kept broadcastable."""
    with name_scope(name, "normalize", [tensor]):
        t = convert_to_tensor(tensor, name="tensor")
        n = norm(t, ord=ord, axis=axis, keepdims=True)
        return M.divide(t, n), n


def adjoint(matrix, name=None):
    """The conjugate transpose of each innermost matrix."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


__all__ = ["matrix_solve", "matrix_triangular_solve", "cross", "slogdet", "self_adjoint_eig", "self_adjoint_eigvals",
           "expm", "sqrtm", "cholesky_solve", "logdet", "matrix_solve_ls", "lstsq", "pinv", "matrix_rank", "matvec",
           "normalize", "adjoint"]
