"""Special functions (lgamma, digamma, polygamma), setdiff1d (ListDiff) and the QR and singular
value decompositions, with TF1's op types, names, special values and gradients."""
import collections
import math as _math

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.math_grad import binary_grad_pair
from lens.ops.linalg import matmul
from lens.ops.linalg_extra import (_at_least, matrix_band_part, matrix_diag, matrix_inverse,
                                          matrix_set_diag, matrix_transpose)
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape

# B_2k / (2k)! for k = 1..10: the Euler-Maclaurin coefficients of the asymptotic series.
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330]
_EM = [b / _math.factorial(2 * k + 2) for k, b in enumerate(_BERNOULLI)]
_SHIFT = 20.0   # the recurrence moves arguments up to here, where 10 series terms reach 1e-17


def _check_float(value, op_type, arg, allowed):
    """value as a Tensor whose dtype is in allowed; TypeError naming the dtype and the fix."""
    t = convert_to_tensor(value, name=arg)
    if t.dtype.base_dtype not in allowed:
        raise TypeError("Value passed to parameter '%s' of %s has DataType %s not in list of allowed "
                        "values: %s (cast it first, e.g. tf.cast(x, tf.float32))."
                        % (arg, op_type, t.dtype.base_dtype.name, ", ".join(d.name for d in allowed)))
    return t


def _in_float64(fn):
    """A kernel computing fn in float64 and returning the input's dtype (as TF keeps it)."""
    def kernel(*args):
        out = fn(*[np.asarray(a, np.float64) for a in args])
        return np.asarray(out).astype(np.result_type(*args), copy=False)
    return kernel


# ---- kernels (float64 arrays in, float64 arrays out) ----------------------------------------
def _lgamma_scalar(v):
    try:
        return _math.lgamma(v)
    except (ValueError, OverflowError):  # poles 0, -1, -2, ...: TF gives +inf
        return _math.inf


_lgamma_ufunc = np.frompyfunc(_lgamma_scalar, 1, 1)


def _lgamma(x):
    return np.asarray(_lgamma_ufunc(x), dtype=np.float64)


def _cot_pi(x):
    """cot(pi x), reduced to [-1/2, 1/2] first so large |x| keeps full precision."""
    r = x - np.round(x)
    # near +-1/2 use cot(pi r) = tan(pi (1/2 - |r|)): exact zero at half-integers, where
    # cos(pi / 2) would leave 6e-17 that the even cot derivatives turn into a wrong value.
    far = np.abs(r) > 0.25
    return np.where(far, np.sign(r) * np.tan(np.pi * (0.5 - np.abs(r))),
                    1.0 / np.tan(np.pi * np.where(far, 0.25, r)))


def _shift_up(y, target, term):
    """Move y up to >= target by the recurrence; returns (shifted y, sum of term(y + k) skipped)."""
    acc = np.zeros_like(y)
    y = y.copy()
    low = y < target
    while np.any(low):  # at most ceil(target) rounds: a loop over steps, not elements
        acc += np.where(low, term(np.where(low, y, 1.0)), 0.0)
        y = np.where(low, y + 1.0, y)
        low = y < target
    return y, acc


def _digamma_positive(y):
    """psi(y) for y > 0: recurrence up to 20, then log(y) - 1/(2y) - sum B_2k / (2k y^2k)."""
    y, acc = _shift_up(y, _SHIFT, lambda t: 1.0 / t)
    inv2 = 1.0 / (y * y)
    series = np.zeros_like(y)
    for k in range(len(_BERNOULLI), 0, -1):  # Horner in 1/y^2
        series = (series + _BERNOULLI[k - 1] / (2 * k)) * inv2
    return np.log(y) - 0.5 / y - series - acc


def _digamma(x):
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (np.floor(x) == x)  # 0, -1, ..., -inf: TF gives nan
        neg = (x < 0) & ~pole
        safe = np.where(pole | np.isnan(x), 1.0, np.where(neg, 1.0 - x, x))
        out = _digamma_positive(np.where(np.isinf(safe), 1.0, safe))
        out = np.where(np.isinf(safe), np.inf, out)
        out = np.where(neg, out - np.pi * _cot_pi(x), out)  # reflection psi(x) = psi(1-x) - pi cot(pi x)
        return np.where(pole | np.isnan(x), np.nan, out)


def _hurwitz_zeta(s, q):
    """zeta(s, q) = sum (q + k)^-s for s > 1, q > 0: recurrence, then Euler-Maclaurin."""
    q, acc = _shift_up(q, _SHIFT + s, lambda t: t ** -s)
    total = acc + q ** (1.0 - s) / (s - 1.0) + 0.5 * q ** -s
    rising = s.copy()          # s (s+1) ... (s + 2k - 2)
    power = q ** (-s - 1.0)    # q^(-s - 2k + 1)
    for k, c in enumerate(_EM):
        total = total + c * rising * power
        rising = rising * (s + 2 * k + 1) * (s + 2 * k + 2)
        power = power / (q * q)
    return total


def _cot_derivative_poly(n):
    """Coefficients (highest first) of P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x))."""
    p = np.polynomial.Polynomial([0.0, 1.0])
    for _ in range(n):
        p = -(1 + np.polynomial.Polynomial([0.0, 0.0, 1.0])) * p.deriv()
    return p.coef[::-1]


def _polygamma(a, x):
    a, x = np.broadcast_arrays(a, x)
    with np.errstate(all="ignore"):
        n = np.where((a >= 0) & (np.floor(a) == a) & np.isfinite(a), a, 0.0)
        bad_order = (a < 0) | (np.floor(a) != a) | ~np.isfinite(a)  # TF: nan for non-integer orders
        pole = (x <= 0) & (np.floor(x) == x)
        neg = (x < 0) & ~pole
        y = np.where(neg, 1.0 - x, np.where(pole | ~np.isfinite(x), 1.0, x))
        s = n + 1.0
        sign = np.where(n % 2 == 1, 1.0, -1.0)  # (-1)^(n+1)
        fact = np.exp(_lgamma(n + 1.0))
        out = sign * fact * _hurwitz_zeta(np.where(n == 0, 2.0, s), y)
        # psi^(n)(x) = (-1)^n psi^(n)(1-x) - pi d^n/dx^n cot(pi x) for x < 0
        refl = np.zeros_like(x)
        c = _cot_pi(x)
        for order in np.unique(n[neg]).astype(int):
            here = neg & (n == order)
            refl = np.where(here, np.polyval(_cot_derivative_poly(order), c) * np.pi ** (order + 1), refl)
        out = np.where(neg, np.where(n % 2 == 1, -out, out) - refl, out)
        out = np.where(n == 0, _digamma(x), out)
        # special values as TF: a pole or -inf is +inf for odd orders, nan for even ones
        at_pole = np.where(n % 2 == 1, np.inf, np.nan)
        out = np.where(pole & (n > 0), at_pole, out)
        out = np.where((x == np.inf) & (n > 0), sign * 0.0, out)
        tiny = (x > 0) & ~np.isfinite(out) & (n > 0)
        out = np.where(tiny, sign * np.inf, out)
        return np.where(bad_order | np.isnan(x), np.nan, out)


# ---- ops ---------------------------------------------------------------------------------------
_HALF_TO_DOUBLE = (_dt.float16, _dt.float32, _dt.float64)


def _polygamma_of(order, x):
    return polygamma(convert_to_tensor(order, dtype=x.dtype.base_dtype), x)


def _lgamma_grad(op, g):
    return [M.multiply(g, digamma(op._inputs[0]))]


def _digamma_grad(op, g):
    return [M.multiply(g, _polygamma_of(1, op._inputs[0]))]


def _polygamma_grad(op, g):
    a, x = op._inputs
    dx = M.multiply(g, polygamma(M.add(a, convert_to_tensor(1, dtype=a.dtype.base_dtype)), x))
    return binary_grad_pair(op, None, dx)  # no gradient for the order, as TF


register_op("Lgamma", fn=_in_float64(_lgamma), shape=M._same_shape, grad=_lgamma_grad)
register_op("Digamma", fn=_in_float64(_digamma), shape=M._same_shape, grad=_digamma_grad)
register_op("Polygamma", fn=_in_float64(_polygamma), shape=M._bcast_shape, grad=_polygamma_grad)


def lgamma(x, name=None):
    """log |Gamma(x)| elementwise (+inf at the poles 0, -1, -2, ...)."""
    x = _check_float(x, "Lgamma", "x", _HALF_TO_DOUBLE)
    return apply_op("Lgamma", [(x, "x")], {"T": x.dtype}, name=name or "Lgamma")


def digamma(x, name=None):
    """psi(x) = d/dx lgamma(x) elementwise (nan at the poles, as TF)."""
    x = _check_float(x, "Digamma", "x", _HALF_TO_DOUBLE)
    return apply_op("Digamma", [(x, "x")], {"T": x.dtype}, name=name or "Digamma")


def polygamma(a, x, name=None):
    """psi^(a)(x), the a-th derivative of digamma, for integer orders a >= 0 (nan otherwise)."""
    x = _check_float(x, "Polygamma", "x", (_dt.float32, _dt.float64))
    a = convert_to_tensor(a, dtype=x.dtype.base_dtype, name="a")
    return apply_op("Polygamma", [(a, "a"), (x, "x")], {"T": x.dtype}, name=name or "Polygamma")


# ---- ListDiff ----------------------------------------------------------------------------------
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def _vector_shape(op):
    for t, arg in zip(op._inputs, "xy"):
        if t.shape.ndims is not None and t.shape.ndims != 1:
            raise ValueError("Shape must be rank 1 but is rank %d for '%s' (op: 'ListDiff') with input "
                             "shapes: %s. Pass 1-D tensors for x and y (tf.reshape(%s, [-1]))."
                             % (t.shape.ndims, op.name, ", ".join(str(i.shape.as_list()) if i.shape.ndims
                                                                   is not None else "?" for i in op._inputs),
                                arg))
    return [unknown_shape(1), unknown_shape(1)]


def _listdiff_make(op, ctx):
    index_type = op._attrs["out_idx"].as_numpy_dtype

    def run(x, y):
        x, y = np.asarray(x), np.asarray(y)
        for v, arg in ((x, "x"), (y, "y")):
            if v.ndim != 1:
                raise errors.InvalidArgumentError(None, op, "%s should be a 1D vector (got shape %s)."
                                                  % (arg, list(v.shape)))
        keep = ~np.isin(x, y)
        return x[keep], np.flatnonzero(keep).astype(index_type)
    return run


register_op("ListDiff", make=_listdiff_make, shape=_vector_shape, not_differentiable=True)


def setdiff1d(x, y, index_dtype=_dt.int32, name=None):
    """The values of x not in y, in x's order, and their positions in x: ListDiff(out, idx)."""
    index_dtype = _dt.as_dtype(index_dtype)
    if index_dtype not in (_dt.int32, _dt.int64):
        raise TypeError("index_dtype must be tf.int32 or tf.int64, got %s." % index_dtype.name)
    x = convert_to_tensor(x, name="x")
    outs = apply_op("ListDiff", [(x, "x"), (y, "y")], {"T": x.dtype, "out_idx": index_dtype},
                    name=name or "ListDiff", dtypes=[x.dtype.base_dtype, index_dtype])
    return ListDiff(*outs)


# ---- Qr and Svd --------------------------------------------------------------------------------
_DECOMP_TYPES = (_dt.float16, _dt.float32, _dt.float64)


def _finite_batches(a, op):
    """(work array, mask of batch items holding inf/nan): TF returns nan there, LAPACK would fail."""
    if a.ndim < 2:
        raise errors.InvalidArgumentError(None, op, "%s needs (a batch of) matrices of rank >= 2, got "
                                          "input of shape %s." % (op.type, list(a.shape)))
    work = a.astype(np.float32) if a.dtype == np.float16 else a  # LAPACK has no half precision
    bad = ~np.isfinite(work).all(axis=(-2, -1)) if work.size else np.zeros(work.shape[:-2], bool)
    return np.where(bad[..., None, None], 0.0, work).astype(work.dtype, copy=False), bad[..., None, None]


def _qr_make(op, ctx):
    mode = "complete" if op._attrs.get("full_matrices") else "reduced"

    def run(a):
        a = np.asarray(a)
        work, bad = _finite_batches(a, op)
        q, r = np.linalg.qr(work, mode=mode)
        upper = np.triu(np.ones(r.shape[-2:], bool))
        q = np.where(bad, np.nan, q)
        r = np.where(bad, np.where(upper, np.nan, 0.0), r)
        return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)
    return run


def _qr_shape(op):
    dims = _at_least(op, 2)
    if dims is None:
        return [unknown_shape(), unknown_shape()]
    *batch, m, n = dims
    if op._attrs.get("full_matrices"):
        return [TensorShape(batch + [m, m]), TensorShape(batch + [m, n])]
    k = None if m is None or n is None else min(m, n)
    return [TensorShape(batch + [m, k]), TensorShape(batch + [k, n])]


def _svd_make(op, ctx):
    full, uv = bool(op._attrs.get("full_matrices")), bool(op._attrs.get("compute_uv", True))

    def run(a):
        a = np.asarray(a)
        work, bad = _finite_batches(a, op)
        if not uv:
            s = np.where(bad[..., 0], np.nan, np.linalg.svd(work, compute_uv=False))
            empty = np.zeros((0,), a.dtype)
            return s.astype(a.dtype, copy=False), empty, empty
        u, s, vh = np.linalg.svd(work, full_matrices=full)
        s = np.where(bad[..., 0], np.nan, s)
        u, v = np.where(bad, np.nan, u), np.where(bad, np.nan, np.swapaxes(vh, -1, -2))
        return s.astype(a.dtype, copy=False), u.astype(a.dtype, copy=False), v.astype(a.dtype, copy=False)
    return run


def _svd_shape(op):
    dims = _at_least(op, 2)
    if dims is None:
        return [unknown_shape()] * 3
    *batch, m, n = dims
    k = None if m is None or n is None else min(m, n)
    if not op._attrs.get("compute_uv", True):
        return [TensorShape(batch + [k]), TensorShape([0]), TensorShape([0])]
    full = op._attrs.get("full_matrices")
    return [TensorShape(batch + [k]), TensorShape(batch + [m, m if full else k]),
            TensorShape(batch + [n, n if full else k])]


def _matrix_dims(op, what):
    dims = op._inputs[0].shape.as_list() if op._inputs[0].shape.ndims is not None else None
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError("%s gradient needs a static inner matrix shape; give the input a known "
                                  "[..., m, n] shape (e.g. with set_shape)." % what)
    return dims[-2], dims[-1]


def _mm(a, b, ta=False, tb=False):
    return matmul(a, b, transpose_a=ta, transpose_b=tb)


def _qr_grad(op, dq, dr):
    """d A from d Q, d R for the reduced QR of a tall (m >= n) matrix, as TF1 derives it."""
    m, n = _matrix_dims(op, "Qr")
    if n > m or (op._attrs.get("full_matrices") and m != n):
        raise NotImplementedError("QrGrad not implemented when ncols > nrows or full_matrices is true and "
                                  "ncols != nrows (got a %dx%d input, full_matrices=%s); pass the transposed "
                                  "matrix or full_matrices=False." % (m, n, op._attrs.get("full_matrices")))
    q, r = op._outputs
    qdq = _mm(q, dq, ta=True)
    rdr = _mm(r, dr, tb=True)
    lower = matrix_band_part(M.add(M.subtract(qdq, matrix_transpose(qdq)),
                                   M.subtract(rdr, matrix_transpose(rdr))), -1, 0)
    r_inv_t = matrix_inverse(r, adjoint=True)  # x @ R^-T solves the triangular system
    through_r = _mm(q, M.add(dr, _mm(lower, r_inv_t)))
    through_q = _mm(M.subtract(dq, _mm(q, qdq)), r_inv_t)
    return [M.add(through_r, through_q)]


def _svd_grad(op, ds, du, dv):
    """d A from d s (and d U, d V when computed) for distinct singular values, as TF1 derives it."""
    a = op._inputs[0]
    if not op._attrs.get("compute_uv", True):
        _, u, v = svd(a, compute_uv=True)
        return [_mm(u, _mm(matrix_diag(ds), v, tb=True))]
    m, n = _matrix_dims(op, "Svd")
    full = bool(op._attrs.get("full_matrices"))
    if full and abs(m - n) > 1:
        raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 when full_matrices is "
                                  "True. Received: m=%d and n=%d; use full_matrices=False." % (m, n))
    s, u, v = op._outputs
    transposed = m > n  # work on A^T so that m <= n
    if transposed:
        m, n, u, v, du, dv = n, m, v, u, dv, du
    s2 = M.square(s)
    f = matrix_set_diag(M.reciprocal(M.subtract(A.expand_dims(s2, -2), A.expand_dims(s2, -1))),
                        A.zeros_like(s))  # f[i, j] = 1 / (s_j^2 - s_i^2), 0 on the diagonal
    s_mat = matrix_diag(s)
    v1, dv1 = v[..., :, :m], dv[..., :, :m]
    f_u = M.multiply(f, _mm(u, du, ta=True))
    f_v = M.multiply(f, _mm(v1, dv1, ta=True))
    inner = M.add(M.add(matrix_diag(ds), _mm(M.add(f_u, matrix_transpose(f_u)), s_mat)),
                  _mm(s_mat, M.add(f_v, matrix_transpose(f_v))))
    grad = _mm(u, _mm(inner, v1, tb=True))
    if m != n:
        dv1_t = matrix_transpose(dv1)
        rest = M.subtract(dv1_t, _mm(_mm(dv1_t, v1), v1, tb=True))
        if full:
            v2, dv2 = v[..., :, m:n], dv[..., :, m:n]
            rest = M.subtract(rest, _mm(_mm(v1, dv2, ta=True), v2, tb=True))
        grad = M.add(grad, _mm(_mm(u, matrix_diag(M.reciprocal(s))), rest))
    return [matrix_transpose(grad) if transposed else grad]


register_op("Qr", make=_qr_make, shape=_qr_shape, grad=_qr_grad)
register_op("Svd", make=_svd_make, shape=_svd_shape, grad=_svd_grad)

Qr = collections.namedtuple("Qr", ["q", "r"])


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's argument name
    """The QR factorization of each innermost matrix: Qr(q, r) with orthonormal q, upper r."""
    x = _check_float(input, "Qr", "input", _DECOMP_TYPES)
    return Qr(*apply_op("Qr", [(x, "input")], {"full_matrices": bool(full_matrices), "T": x.dtype},
                        name=name or "Qr", dtypes=[x.dtype.base_dtype] * 2))


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (descending) of each innermost matrix, and U, V with A = U diag(s) V^T
    when compute_uv: returns (s, u, v), or s alone."""
    x = _check_float(tensor, "Svd", "input", _DECOMP_TYPES)
    s, u, v = apply_op("Svd", [(x, "input")], {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices),
                                               "T": x.dtype}, name=name or "Svd", dtypes=[x.dtype.base_dtype] * 3)
    return (s, u, v) if compute_uv else s
