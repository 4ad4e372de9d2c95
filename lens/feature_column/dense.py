"""Dense columns: numeric, bucketized (also categorical), indicator, embedding."""
import math

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import constant
from lens.framework.tensor_shape import TensorShape
from lens.feature_column.base import CategoricalColumn, DenseColumn, IdTensor
from lens.ops import array as A
from lens.ops import init_ops
from lens.ops.indexing import gather, one_hot
from lens.ops.logic import greater_equal
from lens.ops.math import add, div_no_nan, multiply, sqrt
from lens.ops.parsing import FixedLenFeature, SparseTensor
from lens.ops.reduce import reduce_sum
from lens.ops.variable_scope import get_variable

__all__ = ["numeric_column", "bucketized_column", "indicator_column", "embedding_column"]


def flat_2d(tensor, num_elements):
    """tensor reshaped to [batch, num_elements] (input_layer's per-column layout)."""
    out = A.reshape(tensor, A.stack([A.shape(tensor)[0], constant(num_elements)]))
    batch = tensor.shape[0].value if tensor.shape.ndims else None
    out.set_shape([batch, num_elements])
    return out


class _NumericColumn(DenseColumn):
    def __init__(self, key, shape, default_value, dtype, normalizer_fn):
        self.key, self.shape, self.default_value = key, shape, default_value
        self.dtype, self.normalizer_fn = dtype, normalizer_fn

    name = property(lambda self: self.key)
    variable_shape = property(lambda self: TensorShape(self.shape))

    @property
    def parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def transform_feature(self, builder):
        value = builder.get(self.key)
        if isinstance(value, SparseTensor):
            raise ValueError("The corresponding Tensor of numerical column must be a Tensor. "
                             "SparseTensor is not supported. key: {}".format(self.key))
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        if not (value.dtype.is_floating or value.dtype.is_integer or value.dtype.is_bool):
            # TensorFlow fails later, in the Cast kernel; lens names the column at build time.
            raise errors.UnimplementedError(
                None, None, "Cast {} to float is not supported: numeric_column '{}' was fed a {} "
                "tensor; feed numbers".format(value.dtype.name, self.key, value.dtype.name))
        return A.cast(value, _dt.float32)

    def get_dense_tensor(self, builder, trainable=True):
        return builder.get(self)


def numeric_column(key, shape=(1,), default_value=None, dtype=_dt.float32, normalizer_fn=None):
    """A real-valued feature of the given shape (cast to float32)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for d in shape:
        if not isinstance(d, int) or d < 1:
            raise ValueError("shape dimensions must be greater than 0. shape: {}, key: {}".format(shape, key))
    dtype = _dt.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError("dtype must be convertible to float. dtype: {}, key: {}".format(dtype, key))
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError("normalizer_fn must be a callable. Given: {}".format(normalizer_fn))
    if default_value is not None:
        import numpy as np
        arr = np.broadcast_to(np.asarray(default_value, dtype.as_numpy_dtype), shape)
        default_value = tuple(arr.ravel().tolist()) if len(shape) == 1 else arr.tolist()
    return _NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class _BucketizedColumn(DenseColumn, CategoricalColumn):
    def __init__(self, source_column, boundaries):
        self.source_column, self.boundaries = source_column, tuple(float(b) for b in boundaries)

    name = property(lambda self: self.source_column.name + "_bucketized")
    parse_example_spec = property(lambda self: self.source_column.parse_example_spec)
    num_buckets = property(lambda self: (len(self.boundaries) + 1) * self.source_column.shape[0])
    variable_shape = property(lambda self: TensorShape(
        list(self.source_column.shape) + [len(self.boundaries) + 1]))

    def transform_feature(self, builder):
        value = builder.get(self.source_column)
        # Bucketize: the number of boundaries <= x (TF's Bucketize op).
        above = A.cast(greater_equal(A.expand_dims(value, -1), constant(self.boundaries, _dt.float32)),
                       _dt.int64)
        return reduce_sum(above, -1)

    def get_dense_tensor(self, builder, trainable=True):
        return one_hot(builder.get(self), len(self.boundaries) + 1, on_value=1.0, off_value=0.0)

    def get_id_tensor(self, builder):
        buckets = flat_2d(builder.get(self), self.source_column.shape[0])
        offsets = constant([i * (len(self.boundaries) + 1) for i in range(self.source_column.shape[0])],
                           _dt.int64)
        return IdTensor(add(buckets, offsets), None)


def bucketized_column(source_column, boundaries):
    """A numeric column split at boundaries into one-hot buckets."""
    if not isinstance(source_column, _NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). "
                         "Given: {}".format(source_column))
    if len(source_column.shape) > 1:
        raise ValueError("source_column must be one-dimensional column. Given: {}".format(source_column))
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, boundaries)


class _IndicatorColumn(DenseColumn):
    def __init__(self, categorical_column):
        self.categorical_column = categorical_column

    name = property(lambda self: self.categorical_column.name + "_indicator")
    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)
    variable_shape = property(lambda self: TensorShape([self.categorical_column.num_buckets]))

    def transform_feature(self, builder):
        ids = self.categorical_column.get_id_tensor(builder).ids
        # one_hot of an absent (-1) id is all zeros; repeated ids count (TF1 sums them).
        return reduce_sum(one_hot(ids, self.categorical_column.num_buckets, on_value=1.0,
                                  off_value=0.0), -2)

    def get_dense_tensor(self, builder, trainable=True):
        return builder.get(self)


def indicator_column(categorical_column):
    """A multi-hot (count) representation of a categorical column."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError("Unsupported input type. Input must be a CategoricalColumn. Given: {}".format(
            categorical_column))
    return _IndicatorColumn(categorical_column)


def combine_rows(weights, ids, combiner, max_norm=None):
    """Rows of weights picked by ids [batch, k] (-1 = absent), combined per example; with max_norm
    each picked row is first clipped to that L2 norm (as TF's embedding lookups do)."""
    present = A.cast(greater_equal(ids, 0), _dt.float32)
    rows = gather(weights, _clip_ids(ids))
    if max_norm is not None:
        from lens.ops.clip import clip_by_norm
        rows = clip_by_norm(rows, max_norm, axes=[2])
    summed = reduce_sum(multiply(rows, A.expand_dims(present, -1)), 1)
    if combiner == "sum":
        return summed
    count = reduce_sum(present, 1, keepdims=True)
    if combiner == "mean":
        return div_no_nan(summed, count)
    return div_no_nan(summed, sqrt(count))


def _clip_ids(ids):
    from lens.ops.math import maximum
    return maximum(ids, constant(0, _dt.int64))


class _EmbeddingColumn(DenseColumn):
    def __init__(self, categorical_column, dimension, combiner, initializer, max_norm, trainable):
        self.categorical_column, self.dimension, self.combiner = categorical_column, dimension, combiner
        self.initializer, self.max_norm, self.trainable = initializer, max_norm, trainable

    name = property(lambda self: self.categorical_column.name + "_embedding")
    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)
    variable_shape = property(lambda self: TensorShape([self.dimension]))

    def transform_feature(self, builder):
        return self.categorical_column.get_id_tensor(builder)

    def get_dense_tensor(self, builder, trainable=True):
        ids = builder.get(self).ids
        weights = get_variable("embedding_weights", shape=[self.categorical_column.num_buckets,
                                                           self.dimension],
                               dtype=_dt.float32, initializer=self.initializer,
                               trainable=self.trainable and trainable)
        return combine_rows(weights, ids, self.combiner, self.max_norm)


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """A dense, learned [dimension] vector per id, combined over an example's ids."""
    if dimension is None or dimension < 1:
        raise ValueError("Invalid dimension {}.".format(dimension))
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if ckpt_to_load_from is not None:
        raise NotImplementedError("embedding_column(ckpt_to_load_from=...) is not supported by lens; "
                                  "warm-start the embedding with tf.estimator.WarmStartSettings instead")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified. Embedding of column_name: {}".format(
            categorical_column.name))
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError('combiner must be "mean", "sqrtn" or "sum", got {!r}'.format(combiner))
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return _EmbeddingColumn(categorical_column, dimension, combiner, initializer, max_norm, trainable)
