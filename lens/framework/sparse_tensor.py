"""SparseTensor / SparseTensorValue: a sparse value as three tensors (indices, values, dense_shape)."""
import collections

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.default_session import _eval_using_default_session
from lens.framework.graph import Tensor, name_scope
from lens.framework.tensor_shape import TensorShape, unknown_shape


class SparseTensorValue(collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])):
    """What Session.run returns for a SparseTensor (and what a sparse placeholder is fed)."""


def _const_shape(t):
    """dense_shape as a TensorShape when it is a constant (or a known-length vector), else unknown."""
    if t.op.type == "Const":
        return TensorShape([int(d) for d in np.ravel(t.op.get_attr("value"))])
    n = t.shape.as_list()[0] if t.shape.ndims == 1 else None
    return unknown_shape() if n is None else TensorShape([None] * n)


class SparseTensor:
    """indices (int64 [N, rank]), values ([N]) and dense_shape (int64 [rank]) of one sparse value."""

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor from a SparseTensorValue (constants) or a SparseTensor (returned as is)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        if not isinstance(sparse_tensor_value, SparseTensorValue):
            raise TypeError("Neither a SparseTensor nor SparseTensorValue: %s." % (sparse_tensor_value,))
        v = sparse_tensor_value
        return cls(v.indices, v.values, v.dense_shape)

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [t for t in (indices, values, dense_shape)
                                               if isinstance(t, Tensor)]):
            indices = convert_to_tensor(indices, name="indices", dtype=_dt.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape", dtype=_dt.int64)
        ishape = indices.shape.with_rank(2)
        vshape = values.shape.with_rank(1)
        sshape = dense_shape.shape.with_rank(1)
        ishape[0].merge_with(vshape[0])   # as TF: N indices for N values, rank columns
        ishape[1].merge_with(sshape[0])
        self._indices, self._values, self._dense_shape = indices, values, dense_shape

    indices = property(lambda self: self._indices, doc="The int64 [N, rank] indices of the values.")
    values = property(lambda self: self._values, doc="The [N] non-default values.")
    dense_shape = property(lambda self: self._dense_shape, doc="The int64 [rank] dense shape.")
    op = property(lambda self: self._values.op, doc="The Operation producing the values.")
    dtype = property(lambda self: self._values.dtype, doc="The dtype of the values.")
    graph = property(lambda self: self._indices.graph, doc="The graph holding the components.")

    @property
    def shape(self):
        """The static dense shape (known where dense_shape is a constant)."""
        return _const_shape(self._dense_shape)

    def get_shape(self):
        """Alias of shape."""
        return self.shape

    def consumers(self):
        """Operations consuming any component."""
        out = []
        for t in (self._indices, self._values, self._dense_shape):
            out.extend(c for c in t.consumers() if c not in out)
        return out

    def eval(self, feed_dict=None, session=None):
        """The SparseTensorValue of this tensor in session (default: the default session)."""
        return _eval_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (self._indices, self._values,
                                                                        self._dense_shape)

    def __iter__(self):
        raise TypeError("'SparseTensor' object is not iterable")


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor for sparse values, else convert_to_tensor(value)."""
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError("Sparse dtype: requested = %s, actual = %s" % (dtype.name, value.dtype.name))
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def is_sparse(x):
    """True for SparseTensor and SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))
