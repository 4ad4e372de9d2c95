"""Vocabulary tables: index_table_from_tensor/_file, index_to_string_table_from_tensor/_file,
IdTableWithHashBuckets and StaticVocabularyTable (out-of-vocabulary keys hashed into extra buckets)."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.sparse_tensor import SparseTensor
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.hash_ops import string_to_hash_bucket_fast
from lens.ops.logic import not_equal, where
from lens.ops.lookup_ops import KeyValueTensorInitializer, StaticHashTable, TextFileIndex, TextFileInitializer
from lens.ops.sequence import range as _range
from lens.ops.string_ops import as_string

__all__ = ["index_table_from_tensor", "index_table_from_file", "index_to_string_table_from_tensor",
           "index_to_string_table_from_file", "IdTableWithHashBuckets", "StaticVocabularyTable", "FastHashSpec",
           "HasherSpec"]


class HasherSpec(tuple):
    """(hasher, key): how out-of-vocabulary keys are hashed; lens implements the 'fasthash' hasher."""

    def __new__(cls, hasher, key):
        return super().__new__(cls, (hasher, key))

    hasher = property(lambda self: self[0])
    key = property(lambda self: self[1])


FastHashSpec = HasherSpec("fasthash", None)


def _check_oov(num_oov_buckets):
    if num_oov_buckets < 0:
        raise ValueError("num_oov_buckets must be greater or equal than 0, got %d." % num_oov_buckets)


class IdTableWithHashBuckets:
    """Ids from table, and vocab_size + hash(key) % num_oov_buckets for the keys it lacks."""

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None, key_dtype=None):
        _check_oov(num_oov_buckets)
        if hasher_spec != FastHashSpec:
            raise ValueError("lens hashes out-of-vocabulary keys with FastHashSpec only, got %r" % (hasher_spec,))
        if table is not None and table.value_dtype is not _dt.int64:
            raise TypeError("Invalid value dtype, expected %s but got %s." % (_dt.int64, table.value_dtype))
        self._table, self._num_oov_buckets = table, num_oov_buckets
        self._key_dtype = _dt.as_dtype(key_dtype) if key_dtype is not None else table.key_dtype
        self._name = name or (table.name if table is not None else "hash_bucket")

    name = property(lambda self: self._name, doc="The table's name.")
    key_dtype = property(lambda self: self._key_dtype, doc="The dtype of the keys.")
    value_dtype = property(lambda self: _dt.int64, doc="int64 ids.")
    initializer = property(lambda self: self._table.initializer if self._table is not None else None,
                           doc="The op filling the wrapped table.")
    init = initializer

    def size(self, name=None):
        """Vocabulary size plus the out-of-vocabulary buckets."""
        with name_scope(name, "%s_Size" % self._name):
            n = self._table.size() if self._table is not None else convert_to_tensor(0, _dt.int64)
            return M.add(n, convert_to_tensor(self._num_oov_buckets, _dt.int64))

    def lookup(self, keys, name=None):
        """int64 ids of keys (a SparseTensor maps its values)."""
        sparse = isinstance(keys, SparseTensor)
        values = keys.values if sparse else convert_to_tensor(keys, name="keys")
        if values.dtype.base_dtype is not self._key_dtype and not (values.dtype.is_integer and
                                                                    self._key_dtype.is_integer):
            raise TypeError("Dtype of argument `keys` must be %s, received: %s" % (self._key_dtype, values.dtype))
        if self._table is not None and self._table.key_dtype is _dt.int64 and values.dtype.base_dtype is not _dt.int64:
            values = M.cast(values, _dt.int64)
        if self._num_oov_buckets == 0:
            ids = self._table.lookup(values, name=name)
        else:
            with name_scope(name, "%s_Lookup" % self._name):
                text = values if values.dtype.base_dtype is _dt.string else as_string(values)
                buckets = string_to_hash_bucket_fast(text, self._num_oov_buckets, name="hash_bucket")
                if self._table is not None:
                    ids = self._table.lookup(values)
                    buckets = M.add(buckets, self._table.size())
                    ids = where(not_equal(ids, self._table.default_value), ids, buckets)
                else:
                    ids = buckets
        return SparseTensor(keys.indices, ids, keys.dense_shape) if sparse else ids


class StaticVocabularyTable(IdTableWithHashBuckets):
    """A vocabulary table (initializer values are int64 ids) with num_oov_buckets >= 1 hashed buckets."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None):
        if num_oov_buckets <= 0:
            raise ValueError("oov_buckets must be > 0.")
        if initializer.value_dtype is not _dt.int64:
            raise TypeError("Invalid value dtype, expected %s but got %s." % (_dt.int64, initializer.value_dtype))
        table = StaticHashTable(initializer, -1)
        super().__init__(table, num_oov_buckets, name=name or "vocabulary", key_dtype=lookup_key_dtype)


def index_table_from_tensor(vocabulary_list, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec,
                            dtype=_dt.string, name=None):
    """A table mapping each element of vocabulary_list to its position (int64); others to default_value
    or to one of num_oov_buckets buckets after the vocabulary."""
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    _check_oov(num_oov_buckets)
    dtype = _dt.as_dtype(dtype)
    with name_scope(name, "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError("Expected %s, got %s." % ("integer" if dtype.is_integer else "non-integer", keys.dtype))
        if not dtype.is_integer and keys.dtype.base_dtype is not dtype:
            raise ValueError("Expected %s, got %s." % (dtype, keys.dtype))
        values = M.cast(_range(A.size(keys)), _dt.int64)
        with name_scope(None, "hash_table"):
            table_keys = M.cast(keys, _dt.int64) if keys.dtype.is_integer else keys
            init = KeyValueTensorInitializer(table_keys, values, table_keys.dtype.base_dtype, _dt.int64,
                                             name="table_init")
            table = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec, key_dtype=dtype)
        return table


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1,
                          hasher_spec=FastHashSpec, key_dtype=_dt.string, name=None,
                          key_column_index=TextFileIndex.WHOLE_LINE, value_column_index=TextFileIndex.LINE_NUMBER,
                          delimiter="\t"):
    """A table mapping each line (or column) of vocabulary_file to its line number (int64)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    _check_oov(num_oov_buckets)
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("vocab_size must be greater than 0, got %d. vocabulary_file: %s" % (vocab_size,
                                                                                             vocabulary_file))
    key_dtype = _dt.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype is not _dt.string:
        raise TypeError("Only integer and string keys are supported.")
    with name_scope(name, "string_to_index"):
        with name_scope(None, "hash_table"):
            init = TextFileInitializer(vocabulary_file, _dt.int64 if key_dtype.is_integer else key_dtype,
                                       key_column_index, _dt.int64, value_column_index, vocab_size=vocab_size,
                                       delimiter=delimiter, name="table_init")
            table = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec, key_dtype=key_dtype)
        return table


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table mapping int64 position i to vocabulary_list[i]; other ids to default_value."""
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    with name_scope(name, "index_to_string"):
        vocab = convert_to_tensor(vocabulary_list, _dt.string)
        keys = M.cast(_range(A.size(vocab)), _dt.int64)
        init = KeyValueTensorInitializer(keys, vocab, _dt.int64, _dt.string, name="table_init")
        return StaticHashTable(init, default_value)


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK", name=None,
                                    key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE, delimiter="\t"):
    """A table mapping line number i to line i of vocabulary_file; other ids to default_value."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("vocab_size must be greater than 0, got %d." % vocab_size)
    with name_scope(name, "index_to_string"):
        init = TextFileInitializer(vocabulary_file, _dt.int64, key_column_index, _dt.string, value_column_index,
                                   vocab_size=vocab_size, delimiter=delimiter, name="table_init")
        return StaticHashTable(init, default_value)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """The strings of int64 ids through mapping (TF1's contrib.lookup.index_to_string)."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value, name=name)
    return table.lookup(tensor)
