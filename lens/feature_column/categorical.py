"""Categorical columns: vocabulary list / file, identity, hash bucket, crossed (TF1.15's checks)."""
import os

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import constant
from lens.framework.graph import control_dependencies
from lens.feature_column.base import (CategoricalColumn, IdTensor, assert_string_or_int,
                                      check_dtype_compatible, dense_2d, missing_marker)
from lens.ops import array as A
from lens.ops.core import identity
from lens.ops.hash_ops import cross_hashed, string_to_hash_bucket_fast
from lens.ops.logic import equal, greater_equal, less, logical_and, logical_or, where
from lens.ops.math import add
from lens.ops.parsing import VarLenFeature
from lens.ops.reduce import argmax, reduce_all, reduce_any

__all__ = ["categorical_column_with_vocabulary_list", "categorical_column_with_vocabulary_file",
           "categorical_column_with_identity", "categorical_column_with_hash_bucket",
           "crossed_column"]


def _raw_input(column, builder):
    """The column's raw input as a dense rank-2 string or int64 tensor, dtype checked."""
    value = dense_2d(column.key, builder.get(column.key))
    assert_string_or_int(value.dtype, "column_name: {} input_tensor".format(column.key))
    check_dtype_compatible(column.key, column.dtype, value)
    if value.dtype.is_integer and value.dtype.base_dtype != _dt.int64:
        value = A.cast(value, _dt.int64)
    return value


def _present(value):
    from lens.ops.logic import not_equal
    return not_equal(value, missing_marker(value.dtype))


def _oov_ids(value, vocab_size, num_oov_buckets):
    strings = value if value.dtype.base_dtype == _dt.string else _as_string(value)
    return add(string_to_hash_bucket_fast(strings, num_oov_buckets), vocab_size)


def _as_string(value):
    from lens.ops.string_ops import as_string
    return as_string(value)


class _VocabularyColumn(CategoricalColumn):
    """Shared lookup of the vocabulary list and file columns."""

    def __init__(self, key, vocabulary, dtype, default_value, num_oov_buckets):
        self.key, self.dtype = key, dtype
        self.default_value, self.num_oov_buckets = default_value, num_oov_buckets
        self._vocabulary = vocabulary

    name = property(lambda self: self.key)
    num_buckets = property(lambda self: len(self._vocabulary) + self.num_oov_buckets)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def transform_feature(self, builder):
        value = _raw_input(self, builder)
        vocab = constant(np.asarray(self._vocabulary, dtype=object if self.dtype == _dt.string
                                    else np.int64), self.dtype)
        hits = equal(A.expand_dims(value, -1), vocab)
        found = reduce_any(hits, -1)
        index = argmax(A.cast(hits, _dt.int32), -1)
        if self.num_oov_buckets:
            missing = _oov_ids(value, len(self._vocabulary), self.num_oov_buckets)
        else:
            missing = A.fill(A.shape(index), constant(self.default_value, _dt.int64))
        ids = where(found, index, missing)
        return IdTensor(where(_present(value), ids, A.fill(A.shape(ids), constant(-1, _dt.int64))), None)


def _vocab_dtype(key, values, dtype):
    arr = np.asarray(values)
    inferred = _dt.string if arr.dtype.kind in "SUO" else _dt.int64 if arr.dtype.kind in "iu" else None
    if inferred is None:
        raise ValueError("dtype {} and vocabulary dtype {} do not match, column_name: {}".format(
            dtype, arr.dtype, key))
    if dtype is None:
        return inferred
    dtype = _dt.as_dtype(dtype)
    if dtype.is_integer != inferred.is_integer:
        raise ValueError("dtype {} and vocabulary dtype {} do not match, column_name: {}".format(
            dtype, inferred, key))
    assert_string_or_int(dtype, "column_name: {} vocabulary".format(key))
    return dtype


def _check_oov(key, default_value, num_oov_buckets):
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError("Can't specify both num_oov_buckets and default_value in {}.".format(key))
        if num_oov_buckets < 0:
            raise ValueError("Invalid num_oov_buckets {} in {}.".format(num_oov_buckets, key))


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """Ids by position in vocabulary_list; out-of-vocabulary -> default_value or a hash bucket."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError("vocabulary_list {} must be non-empty, column_name: {}".format(vocabulary_list, key))
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError("Duplicate keys in vocabulary_list {}, column_name: {}".format(vocabulary_list, key))
    dtype = _vocab_dtype(key, list(vocabulary_list), dtype)
    _check_oov(key, default_value, num_oov_buckets)
    vocab = [v.encode() if isinstance(v, str) else v for v in vocabulary_list]
    col = _VocabularyColumn(key, vocab, dtype, default_value, num_oov_buckets)
    col.vocabulary_list = tuple(vocabulary_list)
    return col


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None, dtype=_dt.string):
    """Ids by line number in vocabulary_file (one entry per line)."""
    if not vocabulary_file:
        raise ValueError("Missing vocabulary_file in {}.".format(key))
    if vocabulary_size is not None and vocabulary_size < 1:
        raise ValueError("Invalid vocabulary_size in {}.".format(key))
    if num_oov_buckets and default_value is not None:
        raise ValueError("Can't specify both num_oov_buckets and default_value in {}.".format(key))
    if num_oov_buckets < 0:
        raise ValueError("Invalid num_oov_buckets {} in {}.".format(num_oov_buckets, key))
    dtype = _dt.as_dtype(dtype)
    assert_string_or_int(dtype, "column_name: {} vocabulary".format(key))
    if not os.path.isfile(vocabulary_file):
        raise errors.NotFoundError(None, None, "vocabulary_file %s of column %s: file not found"
                                   % (vocabulary_file, key))
    with open(vocabulary_file, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if vocabulary_size is not None:
        if len(lines) < vocabulary_size:
            raise errors.InvalidArgumentError(
                None, None, "Invalid vocab_size in %s: vocabulary_size %d but the file has %d lines"
                % (vocabulary_file, vocabulary_size, len(lines)))
        lines = lines[:vocabulary_size]
    vocab = [int(v) for v in lines] if dtype.is_integer else lines
    col = _VocabularyColumn(key, vocab, dtype, -1 if default_value is None else default_value,
                            num_oov_buckets)
    col.vocabulary_file, col.vocabulary_size = vocabulary_file, len(vocab)
    return col


class _IdentityColumn(CategoricalColumn):
    def __init__(self, key, num_buckets, default_value):
        self.key, self._num_buckets, self.default_value = key, num_buckets, default_value

    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self._num_buckets)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(_dt.int64)})

    def transform_feature(self, builder):
        value = dense_2d(self.key, builder.get(self.key))
        if not value.dtype.is_integer:
            raise ValueError("Invalid input, not integer. key: {} dtype: {}".format(self.key, value.dtype))
        value = A.cast(value, _dt.int64)
        present = _present(value)
        in_range = logical_and(greater_equal(value, 0), less(value, self._num_buckets))
        if self.default_value is None:
            from lens.ops.control_flow import Assert
            ok = reduce_all(logical_or(in_range, equal(value, -1)))
            check = Assert(ok, ['Bucket index for categorical column "{}" is out of range [0, {})'
                                .format(self.key, self._num_buckets), value])
            with control_dependencies([check]):
                value = identity(value)
            ids = value
        else:
            ids = where(in_range, value, A.fill(A.shape(value), constant(self.default_value, _dt.int64)))
        return IdTensor(where(present, ids, A.fill(A.shape(ids), constant(-1, _dt.int64))), None)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """The integer input itself is the id, in [0, num_buckets)."""
    if num_buckets < 1:
        raise ValueError("num_buckets {} < 1, column_name {}".format(num_buckets, key))
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError("default_value {} not in range [0, {}), column_name {}".format(
            default_value, num_buckets, key))
    return _IdentityColumn(key, num_buckets, default_value)


class _HashedColumn(CategoricalColumn):
    def __init__(self, key, hash_bucket_size, dtype):
        self.key, self.hash_bucket_size, self.dtype = key, hash_bucket_size, dtype

    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.hash_bucket_size)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def transform_feature(self, builder):
        value = _raw_input(self, builder)
        strings = value if value.dtype.base_dtype == _dt.string else _as_string(value)
        ids = string_to_hash_bucket_fast(strings, self.hash_bucket_size, name="lookup")
        return IdTensor(where(_present(value), ids, A.fill(A.shape(ids), constant(-1, _dt.int64))), None)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=_dt.string):
    """Ids = FarmHash Fingerprint64(value as string) % hash_bucket_size, as TensorFlow."""
    if hash_bucket_size is None:
        raise ValueError("hash_bucket_size must be set. key: {}".format(key))
    if hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be at least 1. hash_bucket_size: {}, key: {}".format(
            hash_bucket_size, key))
    dtype = _dt.as_dtype(dtype)
    assert_string_or_int(dtype, "column_name: {}".format(key))
    return _HashedColumn(key, hash_bucket_size, dtype)


def _leaf_keys(column):
    keys = []
    for k in column.keys:
        keys.extend(_leaf_keys(k) if isinstance(k, _CrossedColumn) else [k])
    return keys


class _CrossedColumn(CategoricalColumn):
    def __init__(self, keys, hash_bucket_size, hash_key):
        self.keys, self.hash_bucket_size, self.hash_key = tuple(keys), hash_bucket_size, hash_key

    @property
    def name(self):
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self.keys))

    num_buckets = property(lambda self: self.hash_bucket_size)

    @property
    def parse_example_spec(self):
        spec = {}
        for k in self.keys:
            spec.update({k: VarLenFeature(_dt.string)} if isinstance(k, str) else k.parse_example_spec)
        return spec

    def transform_feature(self, builder):
        columns, markers = [], []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                value = dense_2d(key, builder.get(key))
                if value.dtype.is_integer and value.dtype.base_dtype != _dt.int64:
                    value = A.cast(value, _dt.int64)
                columns.append(value)
                markers.append(missing_marker(value.dtype))
            else:
                columns.append(key.get_id_tensor(builder).ids)
                markers.append(-1)
        return IdTensor(cross_hashed(columns, markers, self.hash_bucket_size, self.hash_key), None)


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Hashed cross of string keys and categorical columns (TF1's SparseCross fingerprints)."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be > 1. hash_bucket_size: {}".format(hash_bucket_size))
    if not keys or len(keys) < 2:
        raise ValueError("keys must be a list with length > 1. Given: {}".format(keys))
    for key in keys:
        if not isinstance(key, (str, CategoricalColumn)):
            raise ValueError("Unsupported key type. All keys must be either string, or categorical "
                             "column except _HashedCategoricalColumn. Given: {}".format(key))
        if isinstance(key, _HashedColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for crossing. "
                             "Hashing before crossing will increase probability of collision. "
                             "Instead, use the feature name as a string. Given: {}".format(key))
    return _CrossedColumn(keys, hash_bucket_size, hash_key)
