"""Feature column bases: the transformation cache, input checks, and the dense id layout.

lens has no SparseTensor ops, so a categorical column's ids travel as a dense int64
[batch, k] tensor in which -1 marks an absent value (TF1 drops those values from its
SparseTensor instead); indicator, embedding and linear columns ignore the -1 slots exactly as
TF1's sparse lookups ignore missing entries.
"""
import collections

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor
from lens.ops import array as A
from lens.ops.parsing import SparseTensor

__all__ = ["FeatureColumn", "DenseColumn", "CategoricalColumn", "IdTensor", "LazyBuilder"]


class IdTensor(collections.namedtuple("IdTensor", ["ids", "weights"])):
    """Categorical ids as a dense int64 [batch, k] tensor (-1 = absent) and optional weights."""


class FeatureColumn:
    """A named transformation from raw features to model inputs."""

    @property
    def name(self):
        """The column's name (its variable scope and sort key)."""
        raise NotImplementedError

    @property
    def var_scope_name(self):
        return self.name

    @property
    def parse_example_spec(self):
        """{feature key: FixedLenFeature or VarLenFeature} this column reads."""
        raise NotImplementedError

    def transform_feature(self, builder):
        """The transformed feature, built once per builder (LazyBuilder caches it)."""
        raise NotImplementedError

    def __repr__(self):
        return "%s(name=%r)" % (type(self).__name__, self.name)


class DenseColumn(FeatureColumn):
    """A column that yields a dense float [batch, n] tensor for input_layer."""

    @property
    def variable_shape(self):
        raise NotImplementedError

    def get_dense_tensor(self, builder, trainable=True):
        raise NotImplementedError


class CategoricalColumn(FeatureColumn):
    """A column that yields ids in [0, num_buckets)."""

    @property
    def num_buckets(self):
        raise NotImplementedError

    def get_id_tensor(self, builder):
        """The column's IdTensor."""
        return builder.get(self)


class LazyBuilder:
    """Caches each column's (and raw key's) transformed tensor, as TF1's _LazyBuilder."""

    def __init__(self, features):
        self._features = dict(features)
        self._cache = {}

    def get(self, key):
        """The raw feature for a string key, or the transformed tensor of a column."""
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            if key not in self._features:
                raise ValueError("Feature {} is not in features dictionary.".format(key))
            value = self._features[key]
            if not isinstance(value, SparseTensor):
                value = convert_to_tensor(value)
            self._cache[key] = value
            return value
        if not isinstance(key, FeatureColumn):
            raise TypeError('"key" must be either a "str" or "FeatureColumn". Given: {}'.format(key))
        value = key.transform_feature(self)
        if value is None:
            raise ValueError("Column {} is not supported.".format(key.name))
        self._cache[key] = value
        return value


def missing_marker(dtype):
    """TF1's ignore value of a categorical input: '' for strings, -1 for integers."""
    return b"" if dtype.base_dtype == _dt.string else -1


def dense_2d(column_key, value):
    """A raw categorical input as a dense rank-2 tensor (rank 1 gains a trailing axis)."""
    if isinstance(value, SparseTensor):
        from lens.ops.scatter_ops import sparse_to_dense
        values = convert_to_tensor(value.values)
        value = sparse_to_dense(value.indices, value.dense_shape, values,
                                default_value=missing_marker(values.dtype))
    value = convert_to_tensor(value)
    rank = value.shape.ndims
    if rank == 1:
        return A.expand_dims(value, -1)
    if rank == 0:
        raise ValueError("Feature (key: {}) cannot have rank 0. Given: {}".format(column_key, value))
    if rank is not None and rank > 2:
        return A.reshape(value, A.stack([A.shape(value)[0], convert_to_tensor(-1)]))
    return value


def assert_string_or_int(dtype, prefix):
    if dtype.base_dtype != _dt.string and not dtype.is_integer:
        raise ValueError("{} dtype must be string or integer. dtype: {}.".format(prefix, dtype))


def check_dtype_compatible(key, column_dtype, tensor):
    """TF1's check that a column's dtype and its input agree (both integer or both string)."""
    if column_dtype.is_integer != tensor.dtype.is_integer:
        raise ValueError("Column dtype and SparseTensors dtype must be compatible. key: {}, column "
                         "dtype: {}, tensor dtype: {}".format(key, column_dtype, tensor.dtype))


def is_tensor(x):
    return isinstance(x, Tensor)
