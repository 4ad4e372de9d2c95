"""Matrix ops as TF1 builds them: eye, matrix_transpose, trace, band and diagonal ops, tensordot,
matrix_inverse, matrix_determinant, cholesky (batched over leading axes, with TF1's gradients).
einsum lives in linalg_einsum.py."""
import numbers

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.linalg import matmul
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape


# ---- shared checks ---------------------------------------------------------------------------
def _fmt(s):
    return "?" if s.ndims is None else "[%s]" % ",".join("?" if d is None else str(d) for d in s.as_list())


def _at_least(op, k, rank_of=0):
    """The static dims of input rank_of, or None; ValueError (as TF) when its rank is below k."""
    s = op._inputs[rank_of].shape
    if s.ndims is None:
        return None
    if s.ndims < k:
        raise ValueError("Shape must be at least rank %d but is rank %d for '%s' (op: '%s') with input "
                         "shapes: %s." % (k, s.ndims, op.name, op.type,
                                          ", ".join(_fmt(t.shape) for t in op._inputs)))
    return s.as_list()


def _square_dims(op):
    """Static dims of a batch of square matrices; ValueError when the last two differ."""
    dims = _at_least(op, 2)
    if dims is not None and None not in dims[-2:] and dims[-2] != dims[-1]:
        raise ValueError("Dimensions must be equal, but are %d and %d for '%s' (op: '%s') with input "
                         "shapes: %s. Pass (a batch of) square matrices."
                         % (dims[-1], dims[-2], op.name, op.type, _fmt(op._inputs[0].shape)))
    return dims


_REAL = (_dt.float16, _dt.float32, _dt.float64)


def _float_input(value, op_type, arg="input"):
    """value as a Tensor of a real float dtype; TypeError naming the dtype otherwise."""
    t = convert_to_tensor(value, name=arg)
    if t.dtype.base_dtype not in _REAL:
        raise TypeError("Value passed to parameter '%s' of %s has DataType %s not in list of allowed "
                        "values: float16, float32, float64 (cast it first, e.g. tf.cast(x, tf.float32))."
                        % (arg, op_type, t.dtype.base_dtype.name))
    return t


def _solve_dtype(kernel):
    """Run a NumPy linalg kernel in float32 for float16 inputs (LAPACK has no half) and cast back."""
    def run(x, *rest):
        x = np.asarray(x)
        if x.dtype == np.float16:
            return kernel(x.astype(np.float32), *rest).astype(np.float16)
        return kernel(x, *rest)
    return run


# ---- MatrixBandPart ----------------------------------------------------------------------------
def _band_mask(rows, cols, lower, upper):
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    return ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))


def _band_make(op, ctx):
    def run(x, lower, upper):
        x = np.asarray(x)
        lower, upper = int(lower), int(upper)
        if lower > x.shape[-2]:
            raise errors.InvalidArgumentError(None, op, "num_lower must be negative or less or equal to "
                                              "number of rows (%d) got: %d" % (x.shape[-2], lower))
        if upper > x.shape[-1]:
            raise errors.InvalidArgumentError(None, op, "num_upper must be negative or less or equal to "
                                              "number of columns (%d) got: %d" % (x.shape[-1], upper))
        return np.where(_band_mask(x.shape[-2], x.shape[-1], lower, upper), x, np.zeros((), x.dtype))
    return run


def _band_shape(op):
    _at_least(op, 2)
    return [op._inputs[0].shape]


def _band_grad(op, grad):
    return [matrix_band_part(grad, op._inputs[1], op._inputs[2]), None, None]


register_op("MatrixBandPart", make=_band_make, shape=_band_shape, grad=_band_grad)


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's argument name
    """Keep the band of each innermost matrix: num_lower subdiagonals, num_upper superdiagonals
    (a negative count keeps that whole triangle), zero elsewhere."""
    with name_scope(name, "MatrixBandPart", [input, num_lower, num_upper]) as scope:
        x = convert_to_tensor(input, name="input")
        lo = convert_to_tensor(num_lower, name="num_lower")
        hi = convert_to_tensor(num_upper, dtype=lo.dtype.base_dtype, name="num_upper")
        for t, arg in ((lo, "num_lower"), (hi, "num_upper")):
            if not t.dtype.is_integer or (t.shape.ndims not in (None, 0)):
                raise TypeError("matrix_band_part: %s must be an integer scalar, got %s of shape %s"
                                % (arg, t.dtype.name, t.shape))
        return apply_op("MatrixBandPart", [(x, "input"), (lo, "num_lower"), (hi, "num_upper")],
                        {"Tindex": lo.dtype}, name=scope, dtypes=[x.dtype.base_dtype], same_dtype=False)


# ---- MatrixDiag / MatrixDiagPart / MatrixSetDiag -----------------------------------------------
def _matrix_diag(d):
    d = np.asarray(d)
    n = d.shape[-1]
    out = np.zeros(d.shape + (n,), d.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = d
    return out


def _diag_part(x):
    return np.diagonal(np.asarray(x), axis1=-2, axis2=-1).copy()


def _set_diag_make(op, ctx):
    def run(x, d):
        x, d = np.asarray(x), np.asarray(d)
        k = min(x.shape[-2], x.shape[-1])
        want = x.shape[:-2] + (k,)
        if d.shape != want:
            raise errors.InvalidArgumentError(
                None, op, "diagonal must have shape %s to set the diagonal of input of shape %s, got %s"
                % (list(want), list(x.shape), list(d.shape)))
        out = x.copy()
        idx = np.arange(k)
        out[..., idx, idx] = d
        return out
    return run


def _diag_shape(op):
    dims = _at_least(op, 1)
    if dims is None:
        return [unknown_shape()]
    return [TensorShape(dims + dims[-1:])]


def _min_dim(a, b):
    return None if a is None or b is None else min(a, b)


def _diag_part_shape(op):
    dims = _at_least(op, 2)
    if dims is None:
        return [unknown_shape()]
    return [TensorShape(dims[:-2] + [_min_dim(dims[-2], dims[-1])])]


def _set_diag_shape(op):
    dims = _at_least(op, 2)
    d = op._inputs[1].shape
    if dims is not None and d.ndims is not None:
        want = TensorShape(dims[:-2] + [_min_dim(dims[-2], dims[-1])])
        if not want.is_compatible_with(d):
            raise ValueError("Dimensions must be equal for '%s' (op: 'MatrixSetDiag'): diagonal has shape "
                             "%s but input of shape %s needs %s." % (op.name, _fmt(d), _fmt(TensorShape(dims)),
                                                                    _fmt(want)))
    return [op._inputs[0].shape]


def _diag_grad(op, grad):
    return [matrix_diag_part(grad)]


def _diag_part_grad(op, grad):
    s = op._inputs[0].shape
    if s.ndims is not None and s.ndims >= 2 and None not in s.as_list()[-2:] \
            and s.as_list()[-1] == s.as_list()[-2]:
        return [matrix_diag(grad)]
    return [matrix_set_diag(A.zeros_like(op._inputs[0]), grad)]


def _set_diag_grad(op, grad):
    diag_grad = matrix_diag_part(grad)
    return [matrix_set_diag(grad, A.zeros_like(diag_grad)), diag_grad]


register_op("MatrixDiag", fn=_matrix_diag, shape=_diag_shape, grad=_diag_grad)
register_op("MatrixDiagPart", fn=_diag_part, shape=_diag_part_shape, grad=_diag_part_grad)
register_op("MatrixSetDiag", make=_set_diag_make, shape=_set_diag_shape, grad=_set_diag_grad)


def _only_main_diagonal(k, fn):
    if not (isinstance(k, numbers.Integral) and k == 0):
        raise ValueError("%s: lens supports only the main diagonal (k=0), got k=%r; shift the input "
                         "with tf.pad/slicing instead." % (fn, k))


def matrix_diag(diagonal, name="diag", k=0):
    """A batch of square matrices with diagonal on the main diagonal, zeros elsewhere."""
    _only_main_diagonal(k, "matrix_diag")
    return apply_op("MatrixDiag", [(diagonal, "diagonal")], name=name or "diag")


def matrix_diag_part(input, name="diag_part", k=0):  # noqa: A002
    """The main diagonal of each innermost matrix (length min(rows, columns))."""
    _only_main_diagonal(k, "matrix_diag_part")
    return apply_op("MatrixDiagPart", [(input, "input")], name=name or "diag_part")


def matrix_set_diag(input, diagonal, name="set_diag", k=0):  # noqa: A002
    """input with the main diagonal of each innermost matrix replaced by diagonal."""
    _only_main_diagonal(k, "matrix_set_diag")
    return apply_op("MatrixSetDiag", [(input, "input"), (diagonal, "diagonal")], name=name or "set_diag")


# ---- composites: eye, matrix_transpose, trace ---------------------------------------------------
def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dt.float32, name=None):
    """An identity matrix (or a batch of them); num_columns defaults to num_rows."""
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        cols = num_rows if num_columns is None else num_columns
        batch = [] if batch_shape is None else batch_shape
        static = not any(isinstance(v, Tensor) for v in (num_rows, cols, batch))
        if static:
            for v, arg in ((num_rows, "num_rows"), (cols, "num_columns")):
                if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 0:
                    raise TypeError("eye: %s must be a non-negative integer or an int32 Tensor, got %r"
                                    % (arg, v))
            batch = [int(b) for b in batch]
            diag_ones = A.ones(batch + [min(num_rows, cols)], dtype=dtype)
            if num_rows == cols:
                return matrix_diag(diag_ones)
            return matrix_set_diag(A.zeros(batch + [num_rows, cols], dtype=dtype), diag_ones)
        rows_t = convert_to_tensor(num_rows, dtype=_dt.int32, name="num_rows")
        cols_t = convert_to_tensor(cols, dtype=_dt.int32, name="num_columns")
        batch_t = convert_to_tensor(batch, dtype=_dt.int32, name="batch_shape")
        size = A.expand_dims(M.minimum(rows_t, cols_t), 0)
        diag_ones = A.ones(A.concat([batch_t, size], 0), dtype=dtype)
        shape = A.concat([batch_t, A.stack([rows_t, cols_t])], 0)
        return matrix_set_diag(A.zeros(shape, dtype=dtype), diag_ones)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two axes of a (a batch of) matrix."""
    with name_scope(name, "matrix_transpose", [a]):
        x = convert_to_tensor(a, name="a")
        nd = x.shape.ndims
        if nd is not None:
            if nd < 2:
                raise ValueError("Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: %s"
                                 % (x.shape,))
            perm = list(range(nd - 2)) + [nd - 1, nd - 2]
        else:
            from lens.ops.sequence import range as _range
            r = A.rank(x)
            perm = A.concat([_range(r - 2), A.stack([r - 1, r - 2])], 0)
        if conjugate and x.dtype.is_complex:
            raise TypeError("matrix_transpose: conjugate=True on complex tensors is not supported in lens")
        return A.transpose(x, perm=perm)


def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix."""
    from lens.ops.reduce import reduce_sum
    with name_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return reduce_sum(matrix_diag_part(x), [-1], name=scope)


# ---- MatrixInverse / MatrixDeterminant / Cholesky --------------------------------------------
def _lapack_make(op_type, kernel, failure):
    """A kernel factory for a NumPy linalg kernel; LinAlgError becomes TF1's InvalidArgumentError."""
    def make(op, ctx):
        run = _solve_dtype(lambda x: kernel(op, x))

        def checked(x):
            shape = np.shape(x)
            if len(shape) < 2 or shape[-1] != shape[-2]:
                raise errors.InvalidArgumentError(
                    None, op, "%s needs (a batch of) square matrices, got input of shape %s"
                    % (op_type, list(shape)))
            try:
                return run(x)
            except np.linalg.LinAlgError:
                raise errors.InvalidArgumentError(None, op, failure) from None
        return checked
    return make


def _inverse(op, x):
    if op._attrs.get("adjoint", False):
        x = np.swapaxes(x, -1, -2)
    return np.linalg.inv(x)


def _square_shape(op):
    _square_dims(op)
    return [op._inputs[0].shape]


def _det_shape(op):
    dims = _square_dims(op)
    return [unknown_shape() if dims is None else TensorShape(dims[:-2])]


def _inverse_grad(op, grad):
    # With Y = A^-1: dY = -Y dA Y, so dL/dA = -Y^T G Y^T; with adjoint, Y = A^-T and dL/dA = -Y G^T Y.
    y = op._outputs[0]
    if op._attrs.get("adjoint", False):
        return [M.negative(matmul(y, matmul(grad, y, adjoint_a=True)))]
    return [M.negative(matmul(y, matmul(grad, y, adjoint_b=True), adjoint_a=True))]


def _det_grad(op, grad):
    # d det(A) / dA = det(A) * A^-T, scaled per batch item by the incoming gradient.
    scale = M.multiply(grad, op._outputs[0])
    return [M.multiply(A.expand_dims(A.expand_dims(scale, -1), -1),
                       matrix_inverse(op._inputs[0], adjoint=True))]


def _cholesky_grad(op, grad):
    # TF's formula for A = L L^T: Phi(L^T G) with the diagonal halved, mapped back through L^-1 and
    # symmetrised; L^-1 comes from MatrixInverse so higher derivatives keep working.
    l_factor = op._outputs[0]
    l_inv = matrix_inverse(l_factor)
    middle = matmul(l_factor, grad, adjoint_a=True)
    middle = matrix_set_diag(middle, M.multiply(_half(middle), matrix_diag_part(middle)))
    middle = matrix_band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inv, middle, adjoint_a=True), l_inv)
    grad_a = M.add(grad_a, matrix_transpose(grad_a))
    return [M.multiply(_half(grad_a), grad_a)]


def _half(t):
    return convert_to_tensor(0.5, dtype=t.dtype.base_dtype)


register_op("MatrixInverse", make=_lapack_make("MatrixInverse", _inverse, "Input is not invertible."),
            shape=_square_shape, grad=_inverse_grad)
register_op("MatrixDeterminant",
            make=_lapack_make("MatrixDeterminant", lambda op, x: np.linalg.det(x), "Determinant failed."),
            shape=_det_shape, grad=_det_grad)
register_op("Cholesky",
            make=_lapack_make("Cholesky", lambda op, x: np.linalg.cholesky(x),
                              "Cholesky decomposition was not successful. The input might not be valid."),
            shape=_square_shape, grad=_cholesky_grad)


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each innermost square matrix (of its adjoint when adjoint=True)."""
    with name_scope(name, "MatrixInverse", [input]) as scope:
        x = _float_input(input, "MatrixInverse")
        return apply_op("MatrixInverse", [(x, "input")], {"adjoint": bool(adjoint), "T": x.dtype}, name=scope)


def matrix_determinant(input, name=None):  # noqa: A002
    """The determinant of each innermost square matrix."""
    with name_scope(name, "MatrixDeterminant", [input]) as scope:
        x = _float_input(input, "MatrixDeterminant")
        return apply_op("MatrixDeterminant", [(x, "input")], {"T": x.dtype}, name=scope)


def cholesky(input, name=None):  # noqa: A002
    """The lower Cholesky factor L (A = L L^T) of each symmetric positive-definite matrix; only the
    lower triangle of input is read."""
    with name_scope(name, "Cholesky", [input]) as scope:
        x = _float_input(input, "Cholesky")
        return apply_op("Cholesky", [(x, "input")], {"T": x.dtype}, name=scope)


# ---- tensordot (a composite, as TF1: transpose + reshape + MatMul + reshape) -----------------
def _axes_list(v, rank, which):
    v = [v] if isinstance(v, numbers.Integral) else list(v)
    out = []
    for ax in v:
        if not isinstance(ax, numbers.Integral) or not -rank <= ax < rank:
            raise ValueError("tensordot: axis %r of %s is out of range for a tensor of rank %d"
                             % (ax, which, rank))
        out.append(int(ax) % rank)
    if len(set(out)) != len(out):
        raise ValueError("tensordot: axes %r of %s repeat an axis" % (v, which))
    return out


def _tensordot_axes(axes, ra, rb):
    """(a_axes, b_axes) from an int or a pair [a_axes, b_axes], as TF1 reads them."""
    if isinstance(axes, Tensor):
        raise TypeError("tensordot: lens needs axes as Python ints or lists, not a Tensor")
    if isinstance(axes, numbers.Integral):
        if not 0 <= axes <= min(ra, rb):
            raise ValueError("'axes' must be at least 0 and not larger than the rank of a (%d) or b (%d), "
                             "got %d." % (ra, rb, axes))
        return list(range(ra - axes, ra)), list(range(axes))
    axes = list(axes) if isinstance(axes, (list, tuple, np.ndarray)) else None
    if axes is None or len(axes) != 2:
        raise ValueError("'axes' must be an integer or have length 2 ([a_axes, b_axes]), got %r." % (axes,))
    a_axes, b_axes = _axes_list(axes[0], ra, "a"), _axes_list(axes[1], rb, "b")
    if len(a_axes) != len(b_axes):
        raise ValueError("Different number of contraction axes 'a' and 'b', %d != %d."
                         % (len(a_axes), len(b_axes)))
    return a_axes, b_axes


def _as_matrix(x, axes, contracted_first):
    """x permuted and reshaped to [free, contracted] (or [contracted, free]); also its free dims."""
    from lens.ops.indexing import gather
    from lens.ops.reduce import reduce_prod
    rank = x.shape.ndims
    orig = x.shape.as_list()
    free = [i for i in range(rank) if i not in axes]
    perm = axes + free if contracted_first else free + axes
    if perm != list(range(rank)):
        x = A.transpose(x, perm)
    free_dims = [orig[i] for i in free]
    axes_dims = [orig[i] for i in axes]
    if None not in free_dims + axes_dims:
        n_free, n_axes = int(np.prod(free_dims, dtype=np.int64)), int(np.prod(axes_dims, dtype=np.int64))
        target = [n_axes, n_free] if contracted_first else [n_free, n_axes]
        if x.shape.as_list() != target:
            x = A.reshape(x, target)
        return x, free_dims
    # Some size is only known at run time: read it from the tensor's shape.
    s = A.shape(x)
    n = len(free)
    free_t = gather(s, list(range(len(axes), rank)) if contracted_first else list(range(n)))
    axes_t = gather(s, list(range(len(axes))) if contracted_first else list(range(n, rank)))
    pf, pa = reduce_prod(free_t), reduce_prod(axes_t)
    x = A.reshape(x, A.stack([pa, pf] if contracted_first else [pf, pa]))
    return x, free_t


def tensordot(a, b, axes, name=None):
    """Sum of a * b over the axes pairs: axes=N contracts the last N of a with the first N of b;
    axes=[a_axes, b_axes] names them (an int or a list on each side)."""
    with name_scope(name, "Tensordot", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None:
            raise ValueError("tensordot: lens needs the ranks of a and b known when the graph is built "
                             "(got %s and %s); give the placeholders a shape." % (a.shape, b.shape))
        a_axes, b_axes = _tensordot_axes(axes, ra, rb)
        da, db = a.shape.as_list(), b.shape.as_list()
        for i, j in zip(a_axes, b_axes):
            if da[i] is not None and db[j] is not None and da[i] != db[j]:
                raise ValueError("tensordot: axis %d of a (size %d) and axis %d of b (size %d) must have "
                                 "the same size; shapes %s and %s" % (i, da[i], j, db[j], a.shape, b.shape))
        a_mat, a_free = _as_matrix(a, a_axes, False)
        b_mat, b_free = _as_matrix(b, b_axes, True)
        product = matmul(a_mat, b_mat)
        if isinstance(a_free, list) and isinstance(b_free, list):
            return A.reshape(product, a_free + b_free, name=scope)
        parts = [convert_to_tensor(f, dtype=_dt.int32) if isinstance(f, list) else f for f in (a_free, b_free)]
        return A.reshape(product, A.concat(parts, 0), name=scope)
