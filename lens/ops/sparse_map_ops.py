"""SparseTensorsMap ops: park SparseTensors in the session under int64 handles so queues can carry them
(tf.train.batch of VarLenFeature values), then take a batch of them back as one SparseTensor."""
import itertools
import threading

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape

__all__ = ["add_sparse_to_tensors_map", "add_many_sparse_to_tensors_map", "take_many_sparse_from_tensors_map"]


class SparseTensorsMap:
    """handle -> (indices, values, dense_shape) for one map in one session."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items = {}
        self.next = itertools.count(1)

    def add(self, parts):
        with self.lock:
            handle = next(self.next)
            self.items[handle] = parts
        return handle

    def take(self, handle, op):
        with self.lock:
            try:
                return self.items.pop(int(handle))
            except KeyError:
                raise errors.InvalidArgumentError(None, op, "Unable to find SparseTensor: %d in map: %s"
                                                  % (handle, op._attrs["shared_name"])) from None


def _map(ctx, op):
    key = ("sparse_map", op._attrs["shared_name"])
    found = ctx.resources.get(key)
    if found is None:
        found = ctx.resources[key] = SparseTensorsMap()
    return found


def _add_make(op, ctx):
    def run(indices, values, shape):
        return np.int64(_map(ctx, op).add((np.asarray(indices), np.asarray(values), np.asarray(shape))))
    return run


def _add_many_make(op, ctx):
    def run(indices, values, shape):
        indices, values, shape = np.asarray(indices), np.asarray(values), np.asarray(shape)
        if shape.shape[0] < 2:
            raise errors.InvalidArgumentError(None, op, "Rank of input SparseTensor should be > 1, but saw rank: %d"
                                              % shape.shape[0])
        m = _map(ctx, op)
        handles = []
        for row in range(int(shape[0])):
            mask = indices[:, 0] == row
            handles.append(m.add((indices[mask][:, 1:], values[mask], shape[1:])))
        return np.asarray(handles, dtype=np.int64)
    return run


def _take_many_make(op, ctx):
    dtype = op._attrs["dtype"].as_numpy_dtype

    def run(handles):
        handles = np.asarray(handles).reshape(-1)
        m = _map(ctx, op)
        parts = [m.take(h, op) for h in handles]
        if not parts:
            raise errors.InvalidArgumentError(None, op, "Must have at least 1 SparseTensor handle to take")
        ranks = {p[2].shape[0] for p in parts}
        if len(ranks) != 1:
            raise errors.InvalidArgumentError(None, op, "Inconsistent rank across SparseTensors: %s" % sorted(ranks))
        shape = np.max(np.stack([p[2] for p in parts]), axis=0)
        # Each part's indices get its position in the batch as a new first column.
        indices = np.concatenate([
            np.concatenate([np.full((len(p[0]), 1), b, np.int64), p[0].reshape(len(p[0]), len(p[2]))], axis=1)
            for b, p in enumerate(parts)])
        values = np.concatenate([p[1] for p in parts])
        if dtype is not object:
            values = values.astype(dtype)
        return indices.astype(np.int64), values, np.concatenate([[len(parts)], shape]).astype(np.int64)
    return run


register_op("AddSparseToTensorsMap", make=_add_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([])])
register_op("AddManySparseToTensorsMap", make=_add_many_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([None])])
register_op("TakeManySparseFromTensorsMap", make=_take_many_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([None, None]), TensorShape([None]), TensorShape([None])])


def _add(op_type, sp_input, shared_name, name):
    g = sp_input.indices.graph
    with g.as_default(), name_scope(name, op_type) as scope:
        op = g._create_op(op_type, [sp_input.indices, sp_input.values, sp_input.dense_shape], [_dt.int64],
                          {"T": sp_input.dtype.base_dtype, "container": "", "shared_name": shared_name or scope[:-1]},
                          scope, frames_skip=4)
    return op._outputs[0]


def add_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """An int64 scalar handle for sp_input, parked in the session's map named shared_name."""
    return _add("AddSparseToTensorsMap", sp_input, shared_name, name)


def add_many_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """An int64 handle per row (first dimension) of sp_input, each row parked as one SparseTensor."""
    return _add("AddManySparseToTensorsMap", sp_input, shared_name, name)


def take_many_sparse_from_tensors_map(sparse_map_op, sparse_handles, rank=None, name=None):
    """The SparseTensors behind a vector of handles, stacked along a new first dimension."""
    g = get_default_graph()
    shared_name = sparse_map_op.get_attr("shared_name") if hasattr(sparse_map_op, "get_attr") else sparse_map_op
    dtype = sparse_map_op.get_attr("T") if hasattr(sparse_map_op, "get_attr") else None
    with name_scope(name, "TakeManySparseFromTensorsMap") as scope:
        op = g._create_op("TakeManySparseFromTensorsMap", [sparse_handles], [_dt.int64, dtype, _dt.int64],
                          {"dtype": dtype, "container": "", "shared_name": shared_name}, scope, frames_skip=4)
    indices, values, shape = op._outputs
    if rank is not None:
        indices.set_shape([None, rank])
        shape.set_shape([rank])
    return SparseTensor(indices, values, shape)
