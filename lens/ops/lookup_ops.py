"""tf.lookup: hash tables held by the session (HashTableV2, LookupTableImportV2, InitializeTableFromTextFileV2,
LookupTableFindV2, LookupTableSizeV2), their initializers and tables_initializer."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import GraphKeys, Tensor, add_to_collection, get_collection, get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape
from lens.ops.core import group
from lens.ops.init_ops import initializers

__all__ = ["KeyValueTensorInitializer", "TextFileInitializer", "TextFileIndex", "StaticHashTable", "HashTable",
           "tables_initializer"]


class _Table:
    """One session's table: key -> value, filled once by an initializer op."""

    def __init__(self, key_dtype, value_dtype, mutable=False, value_shape=None):
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        self.data = {}
        self.initialized = mutable          # mutable tables start empty and usable
        self.value_shape = value_shape

    def insert(self, op, keys, values):
        """Add pairs; a key already holding another value is TF's FailedPrecondition."""
        if self.initialized:
            return        # TF: initializing an initialized table is a no-op
        data = {}
        for k, v in zip(keys, values):
            if k in data and data[k] != v:
                raise errors.FailedPreconditionError(None, op, "HashTable has different value for same key. Key %s "
                                                     "has %s and trying to add value %s" % (_text(k), _text(data[k]),
                                                                                            _text(v)))
            data[k] = v
        self.data = data
        self.initialized = True


def _text(x):
    return x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)


def _table_of(op, ctx, handle):
    table = ctx.resources.get(handle)
    if table is None:
        raise errors.FailedPreconditionError(None, op, "Table not initialized.")
    return table


# ---- kernels -----------------------------------------------------------------------------------
def _hash_table_make(op, ctx):
    key = ("lookup_table", op._attrs.get("shared_name") or op.name)

    def run():
        if key not in ctx.resources:
            ctx.resources[key] = _Table(op._attrs["key_dtype"], op._attrs["value_dtype"])
        return key
    return run


def _import_make(op, ctx):
    def run(handle, keys, values):
        keys, values = np.asarray(keys), np.asarray(values)
        if keys.shape != values.shape:
            raise errors.InvalidArgumentError(None, op, "Expected shape %s for value, got %s"
                                              % (list(keys.shape), list(values.shape)))
        _table_of(op, ctx, handle).insert(op, keys.ravel().tolist(), values.ravel().tolist())
    return run


def _parse(text, dtype, what, line_no, filename, op):
    if dtype is _dt.string:
        return text
    try:
        return int(text) if dtype.is_integer else float(text)
    except ValueError:
        raise errors.InvalidArgumentError(None, op, "Field %s in line %d of %s is not a valid %s: %r"
                                          % (what, line_no, filename, dtype.name, _text(text))) from None


def _text_init_make(op, ctx):
    key_index, value_index = op._attrs["key_index"], op._attrs["value_index"]
    vocab_size, delim = op._attrs.get("vocab_size", -1), op._attrs.get("delimiter", "\t").encode()

    def run(handle, filename):
        table = _table_of(op, ctx, handle)
        name = _text(filename.item() if isinstance(filename, np.ndarray) else filename)
        try:
            with open(name, "rb") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            raise errors.NotFoundError(None, op, "%s; No such file or directory" % name) from None
        if vocab_size != -1:
            if len(lines) < vocab_size:
                raise errors.InvalidArgumentError(None, op, "Invalid vocab_size in %s: expected %d but got %d"
                                                  % (name, vocab_size, len(lines)))
            lines = lines[:vocab_size]
        keys, values = [], []
        for n, line in enumerate(lines):
            cols = line.split(delim)

            def field(index, dtype):
                if index == -2:
                    return _parse(line, dtype, "whole line", n, name, op)
                if index == -1:
                    return n
                if index >= len(cols):
                    raise errors.InvalidArgumentError(None, op, "Invalid number of columns in %s line %d (%r) : "
                                                      "expected at least %d got %d" % (name, n, _text(line),
                                                                                       index + 1, len(cols)))
                return _parse(cols[index], dtype, "column %d" % index, n, name, op)
            keys.append(field(key_index, table.key_dtype))
            values.append(field(value_index, table.value_dtype))
        table.insert(op, keys, values)
    return run


def _find_make(op, ctx):
    def run(handle, keys, default):
        table = _table_of(op, ctx, handle)
        if not table.initialized:
            raise errors.FailedPreconditionError(None, op, "Table not initialized.")
        keys, default = np.asarray(keys), np.asarray(default)
        value_shape = table.value_shape if table.value_shape is not None else default.shape
        data = table.data
        if value_shape:          # vector values (mutable tables): one row per key
            found = [data.get(k, default) for k in keys.ravel().tolist()]
        else:
            d = default.item()
            found = [data.get(k, d) for k in keys.ravel().tolist()]
        np_type = object if table.value_dtype is _dt.string else table.value_dtype.as_numpy_dtype
        return np.array(found, dtype=np_type).reshape(keys.shape + tuple(value_shape))
    return run


def _size_make(op, ctx):
    def run(handle):
        table = _table_of(op, ctx, handle)
        return np.int64(len(table.data) if table.initialized else 0)
    return run


register_op("HashTableV2", make=_hash_table_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([])])
register_op("LookupTableImportV2", make=_import_make, not_differentiable=True, stateful=True)
register_op("InitializeTableFromTextFileV2", make=_text_init_make, not_differentiable=True, stateful=True)
register_op("LookupTableFindV2", make=_find_make, not_differentiable=True, stateful=True,
            shape=lambda op: [op._inputs[1].shape])
register_op("LookupTableSizeV2", make=_size_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([])])


# ---- initializers ------------------------------------------------------------------------------
class TextFileIndex:
    """Special column indices of TextFileInitializer: the whole line, or its line number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class KeyValueTensorInitializer:
    """Fills a table from a tensor of keys and a tensor of values."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with name_scope(name, "key_value_init", []) as scope:
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
            self._name = scope
        self.key_dtype = self._keys.dtype.base_dtype
        self.value_dtype = self._values.dtype.base_dtype

    def initialize(self, table):
        """The LookupTableImportV2 op filling table (added to TABLE_INITIALIZERS)."""
        _check_types(table, self.key_dtype, self.value_dtype)
        with name_scope(self._name):
            op = apply_op("LookupTableImportV2", [(table.resource_handle, "table_handle"), (self._keys, "keys"),
                                                  (self._values, "values")],
                          {"Tin": self.key_dtype, "Tout": self.value_dtype}, name="LookupTableImportV2",
                          dtypes=[], same_dtype=False)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


class TextFileInitializer:
    """Fills a table from a text file: keys and values from columns (or whole lines / line numbers)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None):
        if not isinstance(filename, str) and not hasattr(filename, "dtype"):
            raise TypeError("filename must be a string or a string Tensor, got %r" % (filename,))
        if key_index < -2:
            raise ValueError("Invalid key index %s." % key_index)
        if key_index == TextFileIndex.LINE_NUMBER and _dt.as_dtype(key_dtype) is not _dt.int64:
            raise ValueError("Signature mismatch. Keys must be dtype %s, got %s." % (_dt.int64, key_dtype))
        if key_index == TextFileIndex.WHOLE_LINE and not (_dt.as_dtype(key_dtype).is_integer or
                                                          _dt.as_dtype(key_dtype) is _dt.string):
            raise ValueError("Signature mismatch. Keys must be integer or string, got %s." % key_dtype)
        if value_index < -2:
            raise ValueError("Invalid value index %s." % value_index)
        if value_index == TextFileIndex.LINE_NUMBER and _dt.as_dtype(value_dtype) is not _dt.int64:
            raise ValueError("Signature mismatch. Values must be dtype %s, got %s." % (_dt.int64, value_dtype))
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError("Invalid vocab_size %s." % vocab_size)
        self._filename, self._vocab_size, self._delimiter = filename, vocab_size, delimiter
        self._key_index, self._value_index = key_index, value_index
        self.key_dtype, self.value_dtype = _dt.as_dtype(key_dtype), _dt.as_dtype(value_dtype)
        self._name = name or "text_file_init"

    def initialize(self, table):
        """The InitializeTableFromTextFileV2 op filling table."""
        _check_types(table, self.key_dtype, self.value_dtype)
        with name_scope(self._name, "text_file_init", []):
            filename = convert_to_tensor(self._filename, _dt.string, name="asset_filepath")
            op = apply_op("InitializeTableFromTextFileV2", [(table.resource_handle, "table_handle"),
                                                            (filename, "filename")],
                          {"key_index": self._key_index, "value_index": self._value_index,
                           "vocab_size": -1 if self._vocab_size is None else int(self._vocab_size),
                           "delimiter": self._delimiter}, name="InitializeTableFromTextFileV2", dtypes=[],
                          same_dtype=False)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


def _check_types(table, key_dtype, value_dtype):
    if table.key_dtype is not key_dtype:
        raise TypeError("Invalid key dtype, expected %s but got %s." % (table.key_dtype, key_dtype))
    if table.value_dtype is not value_dtype:
        raise TypeError("Invalid value dtype, expected %s but got %s." % (table.value_dtype, value_dtype))


# ---- tables ------------------------------------------------------------------------------------
class StaticHashTable:
    """A read-only key -> value table filled by an initializer; unknown keys map to default_value."""

    def __init__(self, initializer, default_value, name=None):
        self._name = name or "hash_table"
        self._key_dtype, self._value_dtype = initializer.key_dtype, initializer.value_dtype
        g = get_default_graph()
        self._resource_handle = g._create_op(
            "HashTableV2", [], [_dt.resource], {"shared_name": "", "container": "", "use_node_name_sharing": False,
                                                "key_dtype": self._key_dtype, "value_dtype": self._value_dtype},
            self._name, frames_skip=2)._outputs[0]
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._init_op = initializer.initialize(self)

    resource_handle = property(lambda self: self._resource_handle, doc="The table's resource tensor.")
    key_dtype = property(lambda self: self._key_dtype, doc="The dtype of the keys.")
    value_dtype = property(lambda self: self._value_dtype, doc="The dtype of the values.")
    default_value = property(lambda self: self._default_value, doc="The value of unknown keys.")
    name = property(lambda self: self._name, doc="The table's name.")
    initializer = property(lambda self: self._init_op, doc="The op filling the table.")
    init = initializer

    def size(self, name=None):
        """The number of entries (int64 scalar)."""
        with name_scope(name, "%s_Size" % self._name, [self._resource_handle]):
            return apply_op("LookupTableSizeV2", [(self._resource_handle, "table_handle")], name="LookupTableSizeV2",
                            dtypes=[_dt.int64], same_dtype=False)

    def lookup(self, keys, name=None):
        """The values of keys (default_value for unknown ones); a SparseTensor maps its values."""
        sparse = isinstance(keys, SparseTensor)
        flat = keys.values if sparse else keys if isinstance(keys, Tensor) else \
            convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        if flat.dtype.base_dtype is not self._key_dtype:
            raise TypeError("Dtype of argument `keys` must be %s, received: %s" % (self._key_dtype, flat.dtype))
        with name_scope(name, "%s_Lookup" % self._name, [self._resource_handle, flat]):
            values = apply_op("LookupTableFindV2", [(self._resource_handle, "table_handle"), (flat, "keys"),
                                                    (self._default_value, "default_value")],
                              {"Tin": self._key_dtype, "Tout": self._value_dtype}, name="LookupTableFindV2",
                              dtypes=[self._value_dtype], same_dtype=False)
        return SparseTensor(keys.indices, values, keys.dense_shape) if sparse else values


HashTable = StaticHashTable


def tables_initializer(name="init_all_tables"):
    """One op running every table initializer of the default graph (a no_op when there are none)."""
    inits = get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*inits, name=name)


initialize_all_tables = tables_initializer


initializers.tables_initializer = tables_initializer      # tf.initializers.tables_initializer
