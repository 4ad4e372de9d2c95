"""tf.lookup.experimental.MutableHashTable and DenseHashTable: session-held tables written by insert and
remove ops (MutableHashTableV2 / MutableDenseHashTableV2, LookupTableInsertV2 / RemoveV2 / ExportV2)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.lookup_ops import _Table, _table_of

__all__ = ["MutableHashTable", "DenseHashTable"]


def _mutable_make(op, ctx):
    key = ("lookup_table", op._attrs.get("shared_name") or op.name)
    value_shape = tuple(op._attrs.get("value_shape") or ())
    reserved = op._attrs.get("_reserved")

    def run(*reserved_keys):
        if key not in ctx.resources:
            table = _Table(op._attrs["key_dtype"], op._attrs["value_dtype"], mutable=True, value_shape=value_shape)
            table.reserved = {np.asarray(k).item(): what for k, what in zip(reserved_keys, reserved or ())}
            ctx.resources[key] = table
        return key
    return run


def _rows(table, keys, values=None):
    keys = np.asarray(keys)
    vs = len(table.value_shape)
    flat_keys = keys.ravel().tolist()
    for k in flat_keys:
        if k in getattr(table, "reserved", {}):
            raise errors.InvalidArgumentError(None, None, "Using the %s as a table key is not allowed"
                                              % table.reserved[k])
    if values is None:
        return flat_keys
    values = np.asarray(values)
    want = keys.shape + tuple(table.value_shape)
    if values.shape != want:
        raise errors.InvalidArgumentError(None, None, "Expected shape %s for value, got %s" % (list(want),
                                                                                            list(values.shape)))
    return flat_keys, list(values.reshape((len(flat_keys),) + values.shape[values.ndim - vs:])) if vs else \
        values.ravel().tolist()


def _insert_make(op, ctx):
    def run(handle, keys, values):
        table = _table_of(op, ctx, handle)
        try:
            ks, vs = _rows(table, keys, values)
        except errors.InvalidArgumentError as e:
            raise errors.InvalidArgumentError(None, op, e.message) from None
        table.data.update(zip(ks, vs))
    return run


def _remove_make(op, ctx):
    def run(handle, keys):
        table = _table_of(op, ctx, handle)
        try:
            ks = _rows(table, keys)
        except errors.InvalidArgumentError as e:
            raise errors.InvalidArgumentError(None, op, e.message) from None
        for k in ks:
            table.data.pop(k, None)
    return run


def _export_make(op, ctx):
    def run(handle):
        table = _table_of(op, ctx, handle)
        kt = object if table.key_dtype is _dt.string else table.key_dtype.as_numpy_dtype
        vt = object if table.value_dtype is _dt.string else table.value_dtype.as_numpy_dtype
        keys = np.array(list(table.data), dtype=kt)
        values = np.array(list(table.data.values()), dtype=vt).reshape((len(keys),) + tuple(table.value_shape))
        return keys, values
    return run


_RESOURCE = lambda op: [TensorShape([])]  # noqa: E731
register_op("MutableHashTableV2", make=_mutable_make, not_differentiable=True, stateful=True, shape=_RESOURCE)
register_op("MutableDenseHashTableV2", make=_mutable_make, not_differentiable=True, stateful=True, shape=_RESOURCE)
register_op("LookupTableInsertV2", make=_insert_make, not_differentiable=True, stateful=True)
register_op("LookupTableRemoveV2", make=_remove_make, not_differentiable=True, stateful=True)
register_op("LookupTableExportV2", make=_export_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([None]), TensorShape(None)])


class MutableHashTable:
    """A key -> value table that insert() and remove() change during the session (values may be vectors)."""

    _OP = "MutableHashTableV2"

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True):
        self._key_dtype, self._value_dtype = _dt.as_dtype(key_dtype), _dt.as_dtype(value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = self._default_value.shape
        self._name = name
        self._resource_handle = self._create([], {})

    def _create(self, inputs, attrs):
        g = get_default_graph()
        base = {"shared_name": "", "container": "", "use_node_name_sharing": False, "key_dtype": self._key_dtype,
                "value_dtype": self._value_dtype, "value_shape": self._value_shape.as_list()}
        base.update(attrs)
        return g._create_op(self._OP, inputs, [_dt.resource], base, self._name, frames_skip=3)._outputs[0]

    resource_handle = property(lambda self: self._resource_handle, doc="The table's resource tensor.")
    key_dtype = property(lambda self: self._key_dtype, doc="The dtype of the keys.")
    value_dtype = property(lambda self: self._value_dtype, doc="The dtype of the values.")
    default_value = property(lambda self: self._default_value, doc="The value of unknown keys.")
    name = property(lambda self: self._name, doc="The table's name.")

    def _keys(self, keys):
        k = keys if isinstance(keys, Tensor) else convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        if k.dtype.base_dtype is not self._key_dtype:
            raise TypeError("Signature mismatch. Keys must be dtype %s, got %s." % (self._key_dtype, k.dtype))
        return k

    def size(self, name=None):
        """The number of entries (int64)."""
        with name_scope(name, "%s_Size" % self._name, [self._resource_handle]):
            return apply_op("LookupTableSizeV2", [(self._resource_handle, "table_handle")], name="LookupTableSizeV2",
                            dtypes=[_dt.int64], same_dtype=False)

    def lookup(self, keys, name=None):
        """The values of keys (default_value for absent ones)."""
        k = self._keys(keys)
        with name_scope(name, "%s_lookup_table_find" % self._name, [self._resource_handle, k]):
            shape = k.shape.concatenate(self._value_shape) if k.shape.ndims is not None else TensorShape(None)
            return apply_op("LookupTableFindV2", [(self._resource_handle, "table_handle"), (k, "keys"),
                                                  (self._default_value, "default_value")],
                            {"Tin": self._key_dtype, "Tout": self._value_dtype}, name="LookupTableFindV2",
                            dtypes=[self._value_dtype], shapes=[shape], same_dtype=False)

    def insert(self, keys, values, name=None):
        """An op setting keys to values (replacing present keys)."""
        k = self._keys(keys)
        with name_scope(name, "%s_lookup_table_insert" % self._name, [self._resource_handle, k, values]):
            v = convert_to_tensor(values, dtype=self._value_dtype, name="values")
            return apply_op("LookupTableInsertV2", [(self._resource_handle, "table_handle"), (k, "keys"),
                                                    (v, "values")], {"Tin": self._key_dtype, "Tout": self._value_dtype},
                            name="LookupTableInsertV2", dtypes=[], same_dtype=False)

    def remove(self, keys, name=None):
        """An op removing keys (absent keys are ignored)."""
        k = self._keys(keys)
        with name_scope(name, "%s_lookup_table_remove" % self._name, [self._resource_handle, k]):
            return apply_op("LookupTableRemoveV2", [(self._resource_handle, "table_handle"), (k, "keys")],
                            {"Tin": self._key_dtype}, name="LookupTableRemoveV2", dtypes=[], same_dtype=False)

    def export(self, name=None):
        """(keys, values) of every entry."""
        with name_scope(name, "%s_lookup_table_export_values" % self._name, [self._resource_handle]):
            return apply_op("LookupTableExportV2", [(self._resource_handle, "table_handle")],
                            {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype}, name="LookupTableExportV2",
                            dtypes=[self._key_dtype, self._value_dtype], same_dtype=False)


class DenseHashTable(MutableHashTable):
    """A MutableHashTable with reserved empty_key and deleted_key (which may not be used as keys)."""

    _OP = "MutableDenseHashTableV2"

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True):
        self._key_dtype, self._value_dtype = _dt.as_dtype(key_dtype), _dt.as_dtype(value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = self._default_value.shape
        self._name = name
        empty = convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key")
        deleted = convert_to_tensor(deleted_key, dtype=self._key_dtype, name="deleted_key")
        self._resource_handle = self._create([empty, deleted], {"_reserved": ("empty_key", "deleted_key"),
                                                                "initial_num_buckets": initial_num_buckets or 131072})
