"""tf.linalg.LinearOperator and its structured subclasses, computed through their dense matrix (the same
values as TF's structured algorithms; TF's constructor arguments, hints, names and errors)."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.control_flow import Assert
from lens.ops.indexing import gather, one_hot, reverse
from lens.ops.linalg import matmul
from lens.ops.linalg_extra import (cholesky, eye, matrix_band_part, matrix_determinant, matrix_diag, matrix_diag_part,
                                   matrix_inverse, matrix_transpose)
from lens.ops.linalg_solve import matrix_solve, self_adjoint_eigvals, slogdet
from lens.ops.logic import equal, greater
from lens.ops.reduce import reduce_all, reduce_max, reduce_min, reduce_sum
from lens.ops.special_ops import svd

__all__ = ["LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorIdentity",
           "LinearOperatorScaledIdentity", "LinearOperatorLowerTriangular", "LinearOperatorZeros",
           "LinearOperatorAdjoint", "LinearOperatorInversion", "LinearOperatorComposition", "LinearOperatorBlockDiag",
           "LinearOperatorKronecker", "LinearOperatorPermutation", "LinearOperatorHouseholder",
           "LinearOperatorLowRankUpdate", "LinearOperatorToeplitz", "LinearOperatorTridiag",
           "LinearOperatorBlockLowerTriangular"]


class LinearOperator:
    """A (batch of) linear operator(s) [..., M, N]: matmul, solve, determinant, ... as TF's base class."""

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._dtype = _dt.as_dtype(dtype).base_dtype if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._is_non_singular, self._is_self_adjoint = is_non_singular, is_self_adjoint
        self._is_positive_definite, self._is_square = is_positive_definite, is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})
        self._dense = None

    # ---- what a subclass provides ------------------------------------------------------------------
    def _build_dense(self):
        """The operator's matrix as a Tensor (subclasses)."""
        raise TypeError("LinearOperator is abstract: use one of its subclasses (e.g. LinearOperatorFullMatrix).")

    # ---- properties ------------------------------------------------------------------------------------
    dtype = property(lambda self: self._dtype, doc="The DType of the operator's entries.")
    name = property(lambda self: self._name, doc="The operator's name.")
    graph_parents = property(lambda self: self._graph_parents, doc="The tensors the operator is made of.")
    parameters = property(lambda self: dict(self._parameters), doc="The constructor's arguments.")
    is_non_singular = property(lambda self: self._is_non_singular, doc="Hint: invertible.")
    is_self_adjoint = property(lambda self: self._is_self_adjoint, doc="Hint: equal to its adjoint.")
    is_positive_definite = property(lambda self: self._is_positive_definite, doc="Hint: x^H A x > 0.")

    @property
    def is_square(self):
        """Hint (or the static shape's answer): as many rows as columns."""
        if self._is_square is not None:
            return self._is_square
        rows, cols = self.shape.as_list()[-2:] if self.shape.ndims is not None else (None, None)
        return None if rows is None or cols is None else rows == cols

    def to_dense(self, name="to_dense"):
        """The operator's matrix."""
        if self._dense is None:
            with name_scope(self._name):
                self._dense = self._build_dense()
        return self._dense

    @property
    def shape(self):
        """The static shape [batch..., M, N]."""
        return self.to_dense().shape

    def shape_tensor(self, name="shape_tensor"):
        return A.shape(self.to_dense())

    @property
    def batch_shape(self):
        return self.shape[:-2] if self.shape.ndims is not None else TensorShape(None)

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return self.shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        return A.rank(self.to_dense())

    @property
    def domain_dimension(self):
        return self.shape[-1] if self.shape.ndims is not None else TensorShape(None)

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return self.shape_tensor()[-1]

    @property
    def range_dimension(self):
        return self.shape[-2] if self.shape.ndims is not None else TensorShape(None)

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self.shape_tensor()[-2]

    # ---- algebra ----------------------------------------------------------------------------------------------
    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """self @ x (adjoints on request); another LinearOperator gives their composition."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        with name_scope(self._name), name_scope(name):
            return matmul(self.to_dense(), convert_to_tensor(x, dtype=self._dtype), adjoint_a=adjoint,
                          adjoint_b=adjoint_arg)

    def matvec(self, x, adjoint=False, name="matvec"):
        """self @ x for a (batch of) vector(s) x."""
        with name_scope(self._name), name_scope(name):
            x = convert_to_tensor(x, dtype=self._dtype)
            return A.squeeze(self.matmul(A.expand_dims(x, -1), adjoint=adjoint), [-1])

    def _check_square(self, what):
        if self.is_square is False:
            raise ValueError("%s is only defined for square operators; %s is not square." % (what, self._name))

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with self @ X = rhs."""
        if self.is_non_singular is False:
            raise ValueError("Exact solve not implemented for an operator that is expected to be singular.")
        self._check_square("solve")
        if isinstance(rhs, LinearOperator):
            return self.inverse().matmul(rhs, adjoint=False, adjoint_arg=adjoint_arg) if not adjoint else \
                self.adjoint().inverse().matmul(rhs, adjoint_arg=adjoint_arg)
        with name_scope(self._name), name_scope(name):
            rhs = convert_to_tensor(rhs, dtype=self._dtype)
            if adjoint_arg:
                rhs = matrix_transpose(rhs, conjugate=True)
            return matrix_solve(self.to_dense(), rhs, adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """x with self @ x = rhs for a (batch of) vector(s)."""
        with name_scope(self._name), name_scope(name):
            rhs = convert_to_tensor(rhs, dtype=self._dtype)
            return A.squeeze(self.solve(A.expand_dims(rhs, -1), adjoint=adjoint), [-1])

    def determinant(self, name="det"):
        self._check_square("determinant")
        with name_scope(self._name), name_scope(name):
            return matrix_determinant(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        self._check_square("log_abs_determinant")
        with name_scope(self._name), name_scope(name):
            return slogdet(self.to_dense()).log_abs_determinant

    def diag_part(self, name="diag_part"):
        with name_scope(self._name), name_scope(name):
            return matrix_diag_part(self.to_dense())

    def trace(self, name="trace"):
        with name_scope(self._name), name_scope(name):
            return reduce_sum(self.diag_part(), axis=[-1])

    def add_to_tensor(self, x, name="add_to_tensor"):
        with name_scope(self._name), name_scope(name):
            return M.add(self.to_dense(), convert_to_tensor(x, dtype=self._dtype))

    def eigvals(self, name="eigvals"):
        """The eigenvalues of a self-adjoint operator (ascending)."""
        if not self.is_self_adjoint:
            raise ValueError("eigvals needs a self-adjoint operator (is_self_adjoint=True).")
        with name_scope(self._name), name_scope(name):
            return self_adjoint_eigvals(self.to_dense())

    def cond(self, name="cond"):
        """The condition number: largest over smallest singular value."""
        with name_scope(self._name), name_scope(name):
            s = svd(self.to_dense(), compute_uv=False)
            return M.divide(reduce_max(s, axis=[-1]), reduce_min(s, axis=[-1]))

    def adjoint(self, name="adjoint"):
        return self if self.is_self_adjoint else LinearOperatorAdjoint(self)

    H = property(adjoint)

    def inverse(self, name="inverse"):
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        return LinearOperatorInversion(self)

    def cholesky(self, name="cholesky"):
        if not self._is_positive_definite or not self._is_self_adjoint:
            raise ValueError("Cholesky decomposition only exists for self-adjoint positive definite matrices.")
        with name_scope(self._name), name_scope(name):
            return LinearOperatorLowerTriangular(cholesky(self.to_dense()), is_non_singular=True,
                                                 is_self_adjoint=False, is_square=True)

    def assert_non_singular(self, name="assert_non_singular"):
        with name_scope(self._name), name_scope(name):
            s = svd(self.to_dense(), compute_uv=False)
            return Assert(reduce_all(greater(reduce_min(s, axis=[-1]), 0)), ["Singular operator: " + self._name])

    def assert_positive_definite(self, name="assert_positive_definite"):
        with name_scope(self._name), name_scope(name):
            d = self.to_dense()
            e = self_adjoint_eigvals(M.multiply(0.5, M.add(d, matrix_transpose(d))))
            return Assert(reduce_all(greater(e, 0)), ["Operator not positive definite: " + self._name])

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        with name_scope(self._name), name_scope(name):
            d = self.to_dense()
            return Assert(reduce_all(equal(d, matrix_transpose(d, conjugate=True))),
                          ["Operator not self-adjoint: " + self._name])


def _hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square):
    return dict(is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite, is_square=is_square)


class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a given (batch of) matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        with name_scope(name):
            self._matrix = convert_to_tensor(matrix, name="matrix")
        if self._matrix.shape.ndims is not None and self._matrix.shape.ndims < 2:
            raise ValueError("matrix must have at least 2 dimensions, got shape %s" % self._matrix.shape)
        super().__init__(self._matrix.dtype, [self._matrix], name=name, parameters=dict(matrix=matrix),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square))

    def _build_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """A (batch of) diagonal matrix from its diagonal [..., N]."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorDiag"):
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        with name_scope(name):
            self._diag = convert_to_tensor(diag, name="diag")
        super().__init__(self._diag.dtype, [self._diag], name=name, parameters=dict(diag=diag),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, True))

    diag = property(lambda self: self._diag)

    def _build_dense(self):
        return matrix_diag(self._diag)


class LinearOperatorIdentity(LinearOperator):
    """The N x N identity (optionally batched)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False, name="LinearOperatorIdentity"):
        if is_non_singular is False or is_self_adjoint is False or is_positive_definite is False or is_square is False:
            raise ValueError("An identity operator is always non-singular, self-adjoint, positive definite and square.")
        self._num_rows, self._batch_shape_arg = num_rows, batch_shape
        super().__init__(dtype or _dt.float32, name=name, parameters=dict(num_rows=num_rows, batch_shape=batch_shape),
                         **_hints(True, True, True, True))

    def _build_dense(self):
        return eye(self._num_rows, batch_shape=self._batch_shape_arg, dtype=self._dtype)


class LinearOperatorScaledIdentity(LinearOperator):
    """multiplier times the N x N identity (multiplier of shape [batch...])."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorScaledIdentity"):
        if is_square is False:
            raise ValueError("A ScaledIdentity operator is always square.")
        with name_scope(name):
            self._multiplier = convert_to_tensor(multiplier, name="multiplier")
        self._num_rows = num_rows
        super().__init__(self._multiplier.dtype, [self._multiplier], name=name,
                         parameters=dict(num_rows=num_rows, multiplier=multiplier),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, True))

    multiplier = property(lambda self: self._multiplier)

    def _build_dense(self):
        return M.multiply(A.expand_dims(A.expand_dims(self._multiplier, -1), -1),
                          eye(self._num_rows, dtype=self._dtype))


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of tril (the rest is ignored)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with name_scope(name):
            self._tril = convert_to_tensor(tril, name="tril")
        super().__init__(self._tril.dtype, [self._tril], name=name, parameters=dict(tril=tril),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, True))

    def _build_dense(self):
        return matrix_band_part(self._tril, -1, 0)


class LinearOperatorZeros(LinearOperator):
    """The M x N zero matrix."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        if is_non_singular or is_positive_definite:
            raise ValueError("A zeros operator is singular and not positive definite.")
        self._rows, self._cols = num_rows, num_rows if num_columns is None else num_columns
        self._batch = list(batch_shape or [])
        super().__init__(dtype or _dt.float32, name=name,
                         parameters=dict(num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape),
                         **_hints(False, is_self_adjoint if self._rows == self._cols else None, False,
                                  self._rows == self._cols))

    def _build_dense(self):
        return A.zeros(self._batch + [self._rows, self._cols], self._dtype)


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (conjugate transpose) of another operator."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operator = operator
        super().__init__(operator.dtype, name=name or operator.name + "_adjoint", parameters=dict(operator=operator),
                         **_hints(operator.is_non_singular if is_non_singular is None else is_non_singular,
                                  operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                                  operator.is_positive_definite if is_positive_definite is None
                                  else is_positive_definite,
                                  operator.is_square if is_square is None else is_square))

    operator = property(lambda self: self._operator)

    def _build_dense(self):
        return matrix_transpose(self._operator.to_dense(), conjugate=True)


class LinearOperatorInversion(LinearOperator):
    """The inverse of another (non-singular, square) operator."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("operator and supplied hints must have is_non_singular equal to True or None.")
        if operator.is_square is False or is_square is False:
            raise ValueError("operator and supplied hints must have is_square equal to True or None.")
        self._operator = operator
        super().__init__(operator.dtype, name=name or operator.name + "_inv", parameters=dict(operator=operator),
                         **_hints(True if operator.is_non_singular else is_non_singular,
                                  operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                                  operator.is_positive_definite if is_positive_definite is None
                                  else is_positive_definite, True))

    operator = property(lambda self: self._operator)

    def _build_dense(self):
        return matrix_inverse(self._operator.to_dense())


def _check_operators(operators, what):
    operators = list(operators)
    if not operators:
        raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
    dtype = operators[0].dtype
    for op in operators:
        if op.dtype != dtype:
            raise TypeError("Expected all operators to have the same dtype.  Found %s" %
                            "   ".join("%s: %s" % (o.name, o.dtype) for o in operators))
    return operators


class LinearOperatorComposition(LinearOperator):
    """The product operators[0] @ operators[1] @ ..."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operators = _check_operators(operators, "Composition")
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always non-singular.")
            is_non_singular = True
        super().__init__(self._operators[0].dtype, name=name or "_o_".join(o.name for o in self._operators),
                         parameters=dict(operators=operators),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square))

    operators = property(lambda self: self._operators)

    def _build_dense(self):
        out = self._operators[0].to_dense()
        for op in self._operators[1:]:
            out = matmul(out, op.to_dense())
        return out


def _static_dims(t):
    dims = t.shape.as_list() if t.shape.ndims is not None else None
    if dims is None or None in dims[-2:]:
        raise ValueError("lens needs the matrix dimensions of block operators known statically, got %s" % t.shape)
    return dims


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal operator of square operators."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        self._operators = _check_operators(operators, "BlockDiag")
        for op in self._operators:
            if op.is_square is False:
                raise ValueError("For a BlockDiag operator all operators must be square: %s is not." % op.name)
        if all(o.is_non_singular for o in self._operators):
            is_non_singular = True if is_non_singular is None else is_non_singular
        super().__init__(self._operators[0].dtype, name=name or "_ds_".join(o.name for o in self._operators),
                         parameters=dict(operators=operators),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, True))

    operators = property(lambda self: self._operators)

    def _build_dense(self):
        denses = [o.to_dense() for o in self._operators]
        sizes = [_static_dims(d)[-1] for d in denses]
        total = sum(sizes)
        rows, start = [], 0
        for d, n in zip(denses, sizes):
            rank = d.shape.ndims
            pad = [[0, 0]] * (rank - 1) + [[start, total - start - n]]
            rows.append(A.pad(d, pad))
            start += n
        return A.concat(rows, -2)


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular operator from rows of operators: operators[i] holds blocks (i, 0..i)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        rows = [list(r) for r in operators]
        for i, r in enumerate(rows):
            if len(r) != i + 1:
                raise ValueError("Argument `operators[%d]` must contain `%d` blocks. Found: %d" % (i, i + 1, len(r)))
        _check_operators([o for r in rows for o in r], "BlockLowerTriangular")
        self._operators = rows
        super().__init__(rows[0][0].dtype, name=name, parameters=dict(operators=operators),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square))

    operators = property(lambda self: self._operators)

    def _build_dense(self):
        sizes = [_static_dims(r[-1].to_dense())[-1] for r in self._operators]
        total = sum(sizes)
        out_rows = []
        for i, r in enumerate(self._operators):
            blocks = A.concat([o.to_dense() for o in r], -1)
            rank = blocks.shape.ndims
            out_rows.append(A.pad(blocks, [[0, 0]] * (rank - 1) + [[0, total - sum(sizes[:i + 1])]]))
        return A.concat(out_rows, -2)


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product operators[0] (x) operators[1] (x) ..."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operators = _check_operators(operators, "Kronecker")
        super().__init__(self._operators[0].dtype, name=name or "_x_".join(o.name for o in self._operators),
                         parameters=dict(operators=operators),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square))

    operators = property(lambda self: self._operators)

    def _build_dense(self):
        out = self._operators[0].to_dense()
        for op in self._operators[1:]:
            b = op.to_dense()
            (m, n), (p, q) = _static_dims(out)[-2:], _static_dims(b)[-2:]
            prod = M.multiply(A.expand_dims(A.expand_dims(out, -1), -3), A.expand_dims(A.expand_dims(b, -3), -2))
            if prod.shape.is_fully_defined():
                out = A.reshape(prod, prod.shape.as_list()[:-4] + [m * p, n * q])
            else:
                out = A.reshape(prod, A.concat([A.shape(prod)[:-4], [m * p, n * q]], 0))
        return out


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix with row i holding its 1 in column perm[i]."""

    def __init__(self, perm, dtype=_dt.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        if is_non_singular is False or is_square is False:
            raise ValueError("A permutation operator is always non-singular and square.")
        with name_scope(name):
            self._perm = convert_to_tensor(perm, name="perm")
        if not self._perm.dtype.is_integer:
            raise TypeError("`perm` must be integer dtype, got %s" % self._perm.dtype.name)
        super().__init__(dtype, [self._perm], name=name, parameters=dict(perm=perm),
                         **_hints(True, is_self_adjoint, is_positive_definite, True))

    perm = property(lambda self: self._perm)

    def _build_dense(self):
        n = _static_dims(A.expand_dims(self._perm, -1))[-2]
        return one_hot(self._perm, n, dtype=self._dtype)


class LinearOperatorHouseholder(LinearOperator):
    """The reflection I - 2 v v^H / (v^H v) about the hyperplane orthogonal to reflection_axis v."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        if is_self_adjoint is False or is_non_singular is False or is_square is False:
            raise ValueError("A Householder operator is always self-adjoint, non-singular and square.")
        if is_positive_definite:
            raise ValueError("A Householder operator is always non-positive definite.")
        with name_scope(name):
            self._axis = convert_to_tensor(reflection_axis, name="reflection_axis")
        super().__init__(self._axis.dtype, [self._axis], name=name, parameters=dict(reflection_axis=reflection_axis),
                         **_hints(True, True, False, True))

    reflection_axis = property(lambda self: self._axis)

    def _build_dense(self):
        v = A.expand_dims(self._axis, -1)
        n = _static_dims(v)[-2]
        vv = matmul(v, v, adjoint_a=True)
        return M.subtract(eye(n, dtype=self._dtype), M.multiply(2.0, M.divide(matmul(v, v, adjoint_b=True), vv)))


class LinearOperatorLowRankUpdate(LinearOperator):
    """base_operator + U D V^H (D = diag(diag_update) or the identity; V = U when not given)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        with name_scope(name):
            self._u = convert_to_tensor(u, dtype=base_operator.dtype, name="u")
            self._v = self._u if v is None else convert_to_tensor(v, dtype=base_operator.dtype, name="v")
            self._diag_update = None if diag_update is None else convert_to_tensor(diag_update, dtype=base_operator.dtype,
                                                                                   name="diag_update")
        self._base = base_operator
        self._is_diag_update_positive = is_diag_update_positive
        super().__init__(base_operator.dtype, name=name,
                         parameters=dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square))

    base_operator = property(lambda self: self._base)
    u = property(lambda self: self._u)
    v = property(lambda self: self._v)
    diag_update = property(lambda self: self._diag_update)
    is_diag_update_positive = property(lambda self: self._is_diag_update_positive)

    def _build_dense(self):
        ud = self._u if self._diag_update is None else M.multiply(self._u, A.expand_dims(self._diag_update, -2))
        return M.add(self._base.to_dense(), matmul(ud, self._v, adjoint_b=True))


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column col and first row row (row[0] is ignored)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        with name_scope(name):
            self._col = convert_to_tensor(col, name="col")
            self._row = convert_to_tensor(row, dtype=self._col.dtype, name="row")
        super().__init__(self._col.dtype, [self._col, self._row], name=name, parameters=dict(col=col, row=row),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, True))

    col = property(lambda self: self._col)
    row = property(lambda self: self._row)

    def _build_dense(self):
        n = _static_dims(A.expand_dims(self._col, -1))[-2]
        # entries reversed(row[1:]) + col, read at (n - 1) + i - j
        line = A.concat([reverse(self._row[..., 1:], [-1]), self._col], -1)
        idx = [[n - 1 + i - j for j in range(n)] for i in range(n)]
        return gather(line, idx, axis=line.shape.ndims - 1)


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal operator from its diagonals ('compact' [..., 3, N], 'sequence' [super, diag, sub] or the
    full 'matrix')."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError("Diagonals Format must be one of compact, matrix, sequence, got : %s" % diagonals_format)
        with name_scope(name):
            if diagonals_format == "sequence":
                self._diagonals = [convert_to_tensor(d, name="diag_%d" % i) for i, d in enumerate(diagonals)]
                dtype = self._diagonals[0].dtype
            else:
                self._diagonals = convert_to_tensor(diagonals, name="diagonals")
                dtype = self._diagonals.dtype
        self._format = diagonals_format
        super().__init__(dtype, name=name, parameters=dict(diagonals=diagonals, diagonals_format=diagonals_format),
                         **_hints(is_non_singular, is_self_adjoint, is_positive_definite, True))

    diagonals = property(lambda self: self._diagonals)
    diagonals_format = property(lambda self: self._format)

    def _build_dense(self):
        if self._format == "matrix":
            return matrix_band_part(self._diagonals, 1, 1)
        if self._format == "compact":
            sup, diag, sub = (self._diagonals[..., k, :] for k in range(3))
        else:
            sup, diag, sub = self._diagonals
        rank = diag.shape.ndims + 1
        upper = A.pad(matrix_diag(sup[..., :-1]), [[0, 0]] * (rank - 2) + [[0, 1], [1, 0]])
        lower = A.pad(matrix_diag(sub[..., 1:]), [[0, 0]] * (rank - 2) + [[1, 0], [0, 1]])
        return M.add(M.add(matrix_diag(diag), upper), lower)
