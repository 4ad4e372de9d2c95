"""Sparse updates of variables in place: tf.scatter_update/add/sub/mul/div/min/max and
tf.scatter_nd_update/add/sub (TF1's ref-variable ops; stateful, not differentiable)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.framework.indexed_slices import IndexedSlices
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.sequence import range as _range
from lens.ops.variables import Variable, _ref_of

__all__ = ["scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_min",
           "scatter_max", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "batch_scatter_update"]


def _set_at(arr, idx, upd):
    arr[idx] = upd


def _div_at(arr, idx, upd):
    if arr.dtype.kind in "iu":
        np.floor_divide.at(arr, idx, upd)
    else:
        np.divide.at(arr, idx, upd)


_COMBINE = {"Update": _set_at, "Add": np.add.at, "Sub": np.subtract.at, "Mul": np.multiply.at,
            "Div": _div_at, "Min": np.minimum.at, "Max": np.maximum.at}


def _writable(store, name):
    arr = store[name]
    if arr.base is not None or not arr.flags.owndata:
        arr = store[name] = np.array(arr, copy=True)
    arr.flags.writeable = True
    return arr


def _scatter_make(how, nd):
    combine = _COMBINE[how]

    def make(op, ctx):
        store = ctx.variables
        name = op._inputs[0].op.name

        def run(indices, updates):
            cur = store[name]
            indices, updates = np.asarray(indices), np.asarray(updates, cur.dtype)
            if nd:
                k = indices.shape[-1] if indices.ndim else 0
                if k > cur.ndim:
                    raise errors.InvalidArgumentError(None, op, "Dimensions [0,%d) of indices[shape=%s] must "
                                                      "index into ref[shape=%s]" % (k, list(indices.shape),
                                                                                    list(cur.shape)))
                want = list(indices.shape[:-1]) + list(cur.shape[k:])
                flat = indices.reshape(-1, k)
                bad = np.nonzero(((flat < 0) | (flat >= np.asarray(cur.shape[:k]))).any(axis=1))[0]
                if len(bad):
                    raise errors.InvalidArgumentError(None, op, "indices[%d] = [%s] does not index into shape %s"
                                                      % (bad[0], ", ".join(map(str, flat[bad[0]])),
                                                         list(cur.shape)))
                idx = tuple(indices[..., j] for j in range(k))
            else:
                want = list(indices.shape) + list(cur.shape[1:])
                bad = np.nonzero((indices.ravel() < 0) | (indices.ravel() >= cur.shape[0]))[0]
                if len(bad):
                    raise errors.InvalidArgumentError(None, op, "indices[%d] = %d is not in [0, %d)"
                                                      % (bad[0], indices.ravel()[bad[0]], cur.shape[0]))
                idx = indices
            if updates.ndim and list(updates.shape) != want:
                raise errors.InvalidArgumentError(None, op, "Must have updates.shape = indices.shape + "
                                                  "params.shape[1:] or updates.shape = [], got updates.shape "
                                                  "%s, indices.shape %s, params.shape %s"
                                                  % (list(updates.shape), list(indices.shape), list(cur.shape)))
            arr = _writable(store, name)
            try:
                combine(arr, idx, np.broadcast_to(updates, want) if not updates.ndim else updates)
            finally:
                arr.flags.writeable = False
            return arr
        return run
    return make


_TYPES = {}
for _how in _COMBINE:
    _TYPES["Scatter" + _how] = (_how, False)
for _how in ("Update", "Add", "Sub"):
    _TYPES["ScatterNd" + _how] = (_how, True)
for _t, (_how, _nd) in _TYPES.items():
    register_op(_t, make=_scatter_make(_how, _nd), handle_inputs=(0,), not_differentiable=True, stateful=True,
                shape=lambda op: [op._inputs[0].shape])


def _scatter(op_type, ref, indices, updates, use_locking, name):
    ref = _ref_of(ref)
    g = ref.graph
    with g.as_default(), name_scope(name, op_type, [ref, indices, updates]) as scope:
        i = convert_to_tensor(indices, name="indices")
        if i.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("Value passed to parameter 'indices' has DataType %s not in list of allowed values: "
                            "int32, int64" % i.dtype.name)
        u = convert_to_tensor(updates, dtype=ref.dtype.base_dtype, name="updates")
        _check_static(op_type, ref.shape, i.shape, u.shape)
        with g.colocate_with(ref.op):
            op = g._create_op(op_type, [ref, i, u], [ref.dtype], {"T": ref.dtype.base_dtype,
                                                                  "Tindices": i.dtype.base_dtype,
                                                                  "use_locking": bool(use_locking)},
                              scope, frames_skip=3)
    return op._outputs[0]


def _check_static(op_type, ref, ind, upd):
    if ref.ndims is None or ind.ndims is None or upd.ndims in (None, 0):
        return
    if op_type.startswith("ScatterNd"):
        k = ind.as_list()[-1]
        if k is None:
            return
        want = TensorShape(ind.as_list()[:-1] + ref.as_list()[k:])
    else:
        want = TensorShape(ind.as_list() + ref.as_list()[1:])
    if not want.is_compatible_with(upd):
        raise ValueError("Shapes %s and %s are incompatible: %s needs updates.shape = %s"
                         % (upd, want, op_type, want))


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[indices, ...] = updates (the last write wins for repeated indices); returns ref."""
    return _scatter("ScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] += updates (repeated indices add up)."""
    return _scatter("ScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] -= updates."""
    return _scatter("ScatterSub", ref, indices, updates, use_locking, name)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] *= updates."""
    return _scatter("ScatterMul", ref, indices, updates, use_locking, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] /= updates."""
    return _scatter("ScatterDiv", ref, indices, updates, use_locking, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] = min(ref[indices, ...], updates)."""
    return _scatter("ScatterMin", ref, indices, updates, use_locking, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] = max(ref[indices, ...], updates)."""
    return _scatter("ScatterMax", ref, indices, updates, use_locking, name)


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """ref[indices[i]] = updates[i] for index tuples in the last dimension of indices."""
    return _scatter("ScatterNdUpdate", ref, indices, updates, use_locking, name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i]] += updates[i]."""
    return _scatter("ScatterNdAdd", ref, indices, updates, use_locking, name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i]] -= updates[i]."""
    return _scatter("ScatterNdSub", ref, indices, updates, use_locking, name)


# ---- Variable.scatter_* (TF1's RefVariable methods take an IndexedSlices sparse_delta) -------------
def _sparse_delta_method(fn, default_locking):
    def method(self, sparse_delta, use_locking=default_locking, name=None):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError("sparse_delta is not IndexedSlices: %s" % (sparse_delta,))
        return fn(self, sparse_delta.indices, sparse_delta.values, use_locking=use_locking, name=name)
    method.__doc__ = "%s with an IndexedSlices of (indices, values)." % fn.__name__
    return method


def _nd_method(fn):
    def method(self, indices, updates, name=None):
        return fn(self, indices, updates, name=name)
    method.__doc__ = fn.__doc__
    return method


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[i_0, ..., i_{n-1}, indices[i_0, ..., i_{n-1}, j], ...] = updates: scatter_update per batch row."""
    with name_scope(name, "BatchScatterUpdate", [ref, indices, updates]):
        idx = convert_to_tensor(indices, name="indices")
        rank = idx.shape.ndims
        if rank is None:
            raise ValueError("batch_scatter_update needs indices of known rank")
        shape = A.shape(idx, out_type=idx.dtype.base_dtype)
        grids = []
        for d in range(rank - 1):
            n = shape[d]
            r = M.cast(A.reshape(_range(0, n), [-1 if k == d else 1 for k in range(rank)]), idx.dtype.base_dtype)
            grids.append(A.broadcast_to(r, shape))
        nd = A.stack(grids + [idx], axis=-1)
        return scatter_nd_update(ref, nd, updates, use_locking=use_locking)


for _name, _fn, _lock in (("scatter_update", scatter_update, True), ("scatter_add", scatter_add, False),
                          ("scatter_sub", scatter_sub, False), ("scatter_mul", scatter_mul, False),
                          ("scatter_div", scatter_div, False), ("scatter_min", scatter_min, False),
                          ("scatter_max", scatter_max, False)):
    setattr(Variable, _name, _sparse_delta_method(_fn, _lock))
for _name, _fn in (("scatter_nd_update", scatter_nd_update), ("scatter_nd_add", scatter_nd_add),
                   ("scatter_nd_sub", scatter_nd_sub)):
    setattr(Variable, _name, _nd_method(_fn))
Variable.batch_scatter_update = lambda self, sparse_delta, use_locking=True, name=None: batch_scatter_update(
    self, sparse_delta.indices, sparse_delta.values, use_locking=use_locking, name=name)
