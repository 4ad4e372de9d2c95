"""tf.data.experimental: group_by_reducer with Reducer, from_list, SqlDataset (sqlite),
map_and_batch_with_legacy_function, SHARD_HINT."""
import sqlite3

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.data import structure as nest
from lens.data.dataset import Dataset, _new
from lens.data.functions import TracedFunction
from lens.data.values import DatasetValue

__all__ = ["Reducer", "group_by_reducer", "from_list", "SqlDataset", "map_and_batch_with_legacy_function",
           "SHARD_HINT"]

SHARD_HINT = -1


class Reducer:
    """init_func(key) -> state, reduce_func(state, element) -> state, finalize_func(state) -> output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self.init_func, self.reduce_func, self.finalize_func = init_func, reduce_func, finalize_func


class GroupByReducer(DatasetValue):
    """One output per key, in key order, once the input ends."""

    def __init__(self, inp, key_fn, init_fn, reduce_fn, finalize_fn):
        self.inp, self.key_fn, self.init_fn = inp, key_fn, init_fn
        self.reduce_fn, self.finalize_fn = reduce_fn, finalize_fn

    def iterate(self):
        states = {}
        for e in self.inp.iterate():
            key = int(np.asarray(self.key_fn(e)).reshape(-1)[0])
            if key not in states:
                states[key] = _tuple(self.init_fn((np.int64(key),)))
            states[key] = _tuple(self.reduce_fn(states[key] + tuple(e)))
        for key in sorted(states):
            yield _tuple(self.finalize_fn(states[key]))


def _tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _group_by_reducer_make(op, ctx):
    fns = [op._attrs["_fn"][i].runner(ctx, (op, i)) for i in range(4)]
    return lambda d: GroupByReducer(d, *fns)


register_op("GroupByReducerDataset", make=_group_by_reducer_make, not_differentiable=True, shape=lambda op: [()])


def group_by_reducer(key_func, reducer):
    """A transformation reducing the elements of each int64 key with reducer; one output per key at the end."""
    def apply(dataset):
        key_fn = TracedFunction(key_func, "group_by_reducer() key_func", dataset.output_types, dataset.output_shapes)
        if len(key_fn.outputs) != 1 or key_fn.outputs[0].dtype.base_dtype is not _dt.int64:
            raise ValueError("`key_func` must return a single tf.int64 scalar tensor.")
        init_fn = TracedFunction(reducer.init_func, "Reducer init_func", _dt.int64, TensorShape([]))
        state_types, state_shapes = init_fn.output_types, init_fn.output_shapes
        reduce_fn = TracedFunction(reducer.reduce_func, "Reducer reduce_func", (state_types, dataset.output_types),
                                   (state_shapes, dataset.output_shapes))
        if nest.flatten(reduce_fn.output_types) != nest.flatten(state_types):
            raise TypeError("The element types for the new state must match the initial state. Expected %s; got %s."
                            % (state_types, reduce_fn.output_types))
        finalize_fn = TracedFunction(reducer.finalize_func, "Reducer finalize_func", state_types, state_shapes)
        fns = [key_fn, init_fn, reduce_fn, finalize_fn]
        return dataset._chain("GroupByReducerDataset", [], finalize_fn.output_types, finalize_fn.output_shapes,
                              {"_fn": _Functions(fns), "key_func": key_fn.name})
    return apply


class _Functions(list):
    """The four traced functions of one group_by_reducer, each run per session under its own key."""

    def runner(self, ctx, key):
        return self[key[1]].runner(ctx, key)


def map_and_batch_with_legacy_function(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                                       num_parallel_calls=None):
    """map then batch, as map_and_batch (lens traces every dataset function the same way)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually exclusive.")
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder=drop_remainder)


# ------------------------------------------------------------------ from_list
class ListElements(DatasetValue):
    """The given elements, one by one (their shapes may differ)."""

    def __init__(self, components, n_components):
        self.elements = [tuple(components[i:i + n_components]) for i in range(0, len(components), n_components)]

    def iterate(self):
        return iter(self.elements)


register_op("ListDataset", make=lambda op, ctx: lambda *c: ListElements(c, op._attrs["_n_components"]),
            not_differentiable=True, shape=lambda op: [()])


def from_list(elements, name=None):
    """A dataset of the given elements (same structure and dtypes; shapes may differ)."""
    if not isinstance(elements, list) or not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    structures = [nest.map_structure(lambda v: convert_to_tensor(v), e) for e in elements]
    types = nest.map_structure(lambda t: t.dtype.base_dtype, structures[0])
    flat = []
    for s in structures:
        nest.assert_same_structure(structures[0], s, "from_list()")
        if [t.dtype.base_dtype for t in nest.flatten(s)] != nest.flatten(types):
            raise TypeError("Incompatible dtypes in from_list(): %s vs %s"
                            % (nest.map_structure(lambda t: t.dtype, s), types))
        flat.extend(nest.flatten(s))
    k = len(nest.flatten(types))
    shapes = []
    for c in range(k):
        dims = [flat[i].shape for i in range(c, len(flat), k)]
        first = dims[0]
        same_rank = all(d.ndims == first.ndims for d in dims)
        shapes.append(TensorShape([a if all(d.as_list()[j] == a for d in dims) else None
                                   for j, a in enumerate(first.as_list())]) if same_rank else TensorShape(None))
    return _new("ListDataset", flat, types, nest.pack_as(types, shapes), {"_n_components": k})


# ------------------------------------------------------------------ SqlDataset
class SqlRows(DatasetValue):
    """The rows of a query against a sqlite database, converted to output_types."""

    def __init__(self, driver, source, query, types):
        self.driver, self.source, self.query, self.types = _s(driver), _s(source), _s(query), types

    def iterate(self):
        if self.driver != "sqlite":
            raise errors.InvalidArgumentError(None, None, "The database type, %s, is not supported by SqlDataset. "
                                              "The set of supported databases is: {'sqlite'}." % self.driver)
        try:
            conn = sqlite3.connect(self.source)
            rows = conn.execute(self.query)
        except sqlite3.Error as e:
            raise errors.InvalidArgumentError(None, None, "SqlDataset query failed: %s" % e) from None
        try:
            for row in rows:
                if len(row) != len(self.types):
                    raise errors.InvalidArgumentError(None, None, "The number of columns in query (%d) must match "
                                                      "the number of elements in output_types (%d)."
                                                      % (len(row), len(self.types)))
                yield tuple(_cell(v, t) for v, t in zip(row, self.types))
        finally:
            conn.close()


def _s(v):
    v = np.asarray(v, dtype=object)[()]
    return v.decode() if isinstance(v, bytes) else str(v)


def _cell(value, dtype):
    if dtype is _dt.string:
        value = b"" if value is None else value if isinstance(value, bytes) else str(value).encode()
        return np.array(value, dtype=object)
    return np.asarray(0 if value is None else value, dtype=dtype.as_numpy_dtype)


register_op("SqlDataset", make=lambda op, ctx: lambda d, s, q: SqlRows(d, s, q, op._attrs["output_types"]),
            not_differentiable=True, shape=lambda op: [()])


class SqlDataset(Dataset):
    """The rows of an SQL query (driver 'sqlite') as tuples of scalars typed by output_types."""

    def __init__(self, driver_name, data_source_name, query, output_types):
        types = nest.normalize_types(output_types)
        ins = [convert_to_tensor(driver_name, _dt.string, name="driver_name"),
               convert_to_tensor(data_source_name, _dt.string, name="data_source_name"),
               convert_to_tensor(query, _dt.string, name="query")]
        ds = _new("SqlDataset", ins, types, nest.map_structure(lambda _: TensorShape([]), types), {})
        super().__init__(ds._variant_tensor, ds.output_types, ds.output_shapes)
