"""Indexing ops: strided_slice (`x[...]`), gather, gather_nd, one_hot, split, reverse, masks, clipping."""
import numbers
import warnings

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import (apply_op, constant, convert_to_tensor, graph_of,
                                    register_tensor_conversion_function)
from lens.framework.graph import Tensor, name_scope
from lens.framework.indexed_slices import IndexedSlices
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops import array as A
from lens.ops.logic import greater_equal, less, where
from lens.ops.math import maximum, minimum, multiply
from lens.ops.reduce import reduce_max, reduce_prod
from lens.ops.sequence import range as _range
from lens.ops.shapes import const_value
from lens.ops.slicing import slice as _slice

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
_INDEX_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                     "tf.int32/tf.int64 tensors are valid indices")


# ------------------------------------------------------------------ StridedSlice
def _spec_key(begin, end, strides, masks):
    """The NumPy index tuple equal to a strided-slice spec under TF1's mask bits."""
    key = []
    for i, (b, e, s) in enumerate(zip(np.ravel(begin), np.ravel(end), np.ravel(strides))):
        bit = 1 << i
        if masks["ellipsis_mask"] & bit:
            key.append(Ellipsis)
        elif masks["new_axis_mask"] & bit:
            key.append(None)
        elif masks["shrink_axis_mask"] & bit:
            key.append(int(b))
        else:
            if int(s) == 0:
                raise ValueError("strides[%d] must be non-zero" % i)
            key.append(slice(None if masks["begin_mask"] & bit else int(b),
                             None if masks["end_mask"] & bit else int(e), int(s)))
    if sum(k is Ellipsis for k in key) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    return tuple(key)


def _dense(rank, key):
    """Pair each output axis with (input axis or None for a new axis, key entry)."""
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    out, axis = [], 0
    if Ellipsis not in key:
        key = key + (Ellipsis,)
    for k in key:
        if k is Ellipsis:
            for _ in range(max(rank - n_real, 0)):
                out.append((axis, slice(None)))
                axis += 1
        elif k is None:
            out.append((None, None))
        else:
            if axis >= rank:
                raise ValueError("Index out of range using input dim %d; input has only %d dims"
                                 % (axis, rank))
            out.append((axis, k))
            axis += 1
    return out


def _masks_of(op):
    return {m: op._attrs.get(m, 0) for m in _MASKS}


def _sliced_dims(dims, key):
    """Static output dims of dims[key] (None where the input dim or a bound is unknown)."""
    out = []
    for axis, k in _dense(len(dims), key):
        if axis is None:
            out.append(1)
            continue
        d = dims[axis]
        if k is _UNKNOWN:   # an index whose value is only known at run time
            continue
        if isinstance(k, int):
            if d is not None and not -d <= k < d:
                raise ValueError("slice index %d of dimension %d out of bounds." % (k, axis))
            continue
        known = k.start is not _UNKNOWN and k.stop is not _UNKNOWN
        out.append(None if d is None or not known else len(range(*k.indices(d))))
    return out


_UNKNOWN = object()


def _partial_vector(t, n):
    """Elements of an int vector known at build time (None for run-time ones): Const or Pack of consts."""
    v = const_value(t)
    if v is not None:
        return [int(a) for a in np.ravel(v)]
    if t.op.type == "Pack":
        return [None if const_value(i) is None else int(const_value(i)) for i in t.op.inputs]
    return [None] * n


def _partial_key(op):
    """The spec key with _UNKNOWN where a begin/end element is not known at build time."""
    n = op._inputs[1].shape.num_elements()
    s = const_value(op._inputs[3])
    if s is None or n is None:
        return None
    b, e = _partial_vector(op._inputs[1], n), _partial_vector(op._inputs[2], n)
    masks = _masks_of(op)
    key = list(_spec_key([0 if v is None else v for v in b], [1 if v is None else v for v in e], s, masks))
    for i, k in enumerate(key):
        if isinstance(k, int) and b[i] is None:
            key[i] = _UNKNOWN
        elif isinstance(k, slice):
            bit = 1 << i
            key[i] = slice(_UNKNOWN if b[i] is None and not masks["begin_mask"] & bit else k.start,
                           _UNKNOWN if e[i] is None and not masks["end_mask"] & bit else k.stop, k.step)
    return tuple(key)


def _ss_shape(op):
    x = op._inputs[0].shape
    if x.ndims is None:
        return [unknown_shape()]
    try:
        key = _partial_key(op)
        if key is None:
            return [unknown_shape()]
        return [TensorShape(_sliced_dims(x.as_list(), key))]
    except ValueError as e:
        raise ValueError("%s for '%s' (op: 'StridedSlice') with input shapes: %s." % (e, op.name, x)) from None


def _ss_make(op, ctx):
    masks = _masks_of(op)

    def run(x, begin, end, strides):
        x = np.asarray(x)
        try:
            key = _spec_key(begin, end, strides, masks)
            _sliced_dims(list(x.shape), key)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, op, "%s (input shape %s)" % (e, list(x.shape))) from None
        return np.array(x[key])   # a copy: outputs never alias an input buffer
    return run


def _static_shape(x, dtype):
    """TF1.15's array_ops.shape(x, out_type=dtype) in a gradient: a Const (Shape) for a static shape."""
    if x.shape.is_fully_defined():
        return constant(np.asarray(x.shape.as_list(), dtype.as_numpy_dtype), name="Shape")
    return A.shape(x, out_type=dtype)


def _ss_grad(op, grad):
    x, b, e, s = op._inputs
    return [strided_slice_grad(_static_shape(x, b.dtype.base_dtype), b, e, s, grad, **_masks_of(op)),
            None, None, None]


register_op("StridedSlice", make=_ss_make, shape=_ss_shape, grad=_ss_grad)


def _ssg_make(op, ctx):
    masks = _masks_of(op)

    def run(shape, begin, end, strides, dy):
        dy = np.asarray(dy)
        out = np.zeros(tuple(int(d) for d in shape), dtype=dy.dtype)
        out[_spec_key(begin, end, strides, masks)] = dy
        return out
    return run


def _shape_input(op, k):
    """The output shape given by op input k when that input is a constant."""
    v = const_value(op._inputs[k])
    return [unknown_shape() if v is None else TensorShape([int(d) for d in np.ravel(v)])]


def _ssg_shape(op):
    return _shape_input(op, 0)


def _ssg_grad(op, grad):
    _, b, e, s, _ = op._inputs
    return [None, None, None, None, strided_slice(grad, b, e, s, **_masks_of(op))]


register_op("StridedSliceGrad", make=_ssg_make, shape=_ssg_shape, grad=_ssg_grad)


def _index_tensor(v, dtype, name):
    return v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dtype, name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """input_[begin:end:strides] per dimension, with TF1's mask bits (what `x[...]` builds)."""
    with name_scope(name, "StridedSlice", [input_, begin, end]) as scope:
        x = convert_to_tensor(input_, name="input")
        b = _index_tensor(begin, _dt.int32, "begin")
        e = _index_tensor(end, b.dtype.base_dtype, "end")
        if strides is None:
            strides = A.ones_like(b)
        s = _index_tensor(strides, b.dtype.base_dtype, "strides")
        attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
                 "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask,
                 "T": x.dtype.base_dtype, "Index": b.dtype.base_dtype}
        return apply_op("StridedSlice", [(x, "input"), (b, "begin"), (e, "end"), (s, "strides")], attrs,
                        name=scope, dtypes=[x.dtype.base_dtype], same_dtype=False)


def strided_slice_grad(shape, begin, end, strides, dy, begin_mask=0, end_mask=0, ellipsis_mask=0,
                       new_axis_mask=0, shrink_axis_mask=0, name=None):
    """dy scattered into zeros of `shape` at the strided slice (StridedSlice's gradient)."""
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    return apply_op("StridedSliceGrad", [(shape, "shape"), (begin, "begin"), (end, "end"),
                                         (strides, "strides"), (dy, "dy")], attrs,
                    name=name or "StridedSliceGrad", dtypes=[dy.dtype.base_dtype], same_dtype=False)


def _check_index(idx):
    if isinstance(idx, numbers.Integral) and not isinstance(idx, (bool, np.bool_)):
        return
    dtype = getattr(idx, "dtype", None)
    ok = dtype is not None and _dt.as_dtype(dtype).base_dtype in (_dt.int32, _dt.int64)
    if ok and isinstance(idx, Tensor):
        ok = idx.shape.ndims in (0, None)
    elif ok:
        ok = np.ndim(idx) == 0
    if not ok:
        raise TypeError("%s, got %r" % (_INDEX_TYPE_ERROR, idx))


def _pack_indices(values, name):
    """One int vector from ints and scalar tensors: a Const when all are ints, else a Pack."""
    if all(not isinstance(v, Tensor) for v in values):
        return constant([int(v) for v in values], dtype=_dt.int32, name=name)
    dtype = next(v.dtype.base_dtype for v in values if isinstance(v, Tensor))
    return A.stack([v if isinstance(v, Tensor) else convert_to_tensor(int(v), dtype=dtype) for v in values],
                 name=name)


def slice_helper(tensor, key):
    """tensor[key] as one StridedSlice op named 'strided_slice' (ints, slices, ..., newaxis, tensors)."""
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(_MASKS, 0)
    for i, k in enumerate(key):
        bit = 1 << i
        if isinstance(k, slice):
            for v, lst, m in ((k.start, begin, "begin_mask"), (k.stop, end, "end_mask")):
                if v is None:
                    lst.append(0)
                    masks[m] |= bit
                else:
                    _check_index(v)
                    lst.append(v)
            if k.step is not None:
                _check_index(k.step)
            strides.append(1 if k.step is None else k.step)
        elif k is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif k is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        else:
            _check_index(k)
            begin.append(k)
            end.append(k + 1)
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    if masks["ellipsis_mask"] & (masks["ellipsis_mask"] - 1):
        raise ValueError("Multiple ellipses in slice spec not allowed: %r" % (key,))
    g = graph_of([tensor] + [v for v in begin + end + strides if isinstance(v, Tensor)])
    with g.as_default(), name_scope(None, "strided_slice", [tensor]) as scope:
        if begin:
            b, e, s = (_pack_indices(v, "stack") for v in (begin, end, strides))
        else:
            b = e = s = constant([], dtype=_dt.int32)
        return strided_slice(tensor, b, e, s, name=scope, **masks)


# ------------------------------------------------------------------ GatherV2 / UnsortedSegmentSum
def _check_range(op, idx, n, what="indices"):
    idx = np.asarray(idx)
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        pos = np.unravel_index(int(np.argmax(bad.ravel())), idx.shape) if idx.ndim else ()
        raise errors.InvalidArgumentError(None, op, "%s[%s] = %d is not in [0, %d)"
                                          % (what, ",".join(map(str, pos)), int(idx[pos]), n))


def _gather_make(op, ctx):
    def run(params, indices, axis):
        params = np.asarray(params)
        a = int(axis) % max(params.ndim, 1)
        _check_range(op, indices, params.shape[a])
        return np.take(params, indices, axis=a)
    return run


def _gather_shape(op):
    p, i = op._inputs[0].shape, op._inputs[1].shape
    a = const_value(op._inputs[2])
    if a is None or p.ndims is None or i.ndims is None:
        return [unknown_shape()]
    a = int(a)
    if not -p.ndims <= a < p.ndims:
        raise ValueError("Shape must be at least rank %d but is rank %d for '%s' (op: 'GatherV2')"
                         % ((a if a >= 0 else -a - 1) + 1, p.ndims, op.name))
    a %= p.ndims
    d = p.as_list()
    return [TensorShape(d[:a] + i.as_list() + d[a + 1:])]


def _gather_grad(op, grad):
    params, indices, axis = op._inputs
    a, pr, ir = const_value(axis), params.shape.ndims, indices.shape.ndims
    if a is None or pr is None or ir is None:
        raise ValueError("lens differentiates GatherV2 %r only with a constant axis and params/indices "
                         "of known rank; give them static shapes (e.g. placeholder shapes)." % op.name)
    a = int(a) % pr
    if a == 0:
        # TF1: the gradient of a row gather is IndexedSlices (the rows and their gradients).
        # TF1.15's: Shape (int64) and Cast, Size (Consts when static), ExpandDims, strided_slice [1:].
        params_shape = A.cast(_static_shape(params, _dt.int64), _dt.int32)
        n = indices.shape.num_elements() if indices.shape.is_fully_defined() else None
        size = A.expand_dims(A.size(indices) if n is None else constant(n, name="Size"), 0)
        values = A.reshape(grad, A.concat([size, params_shape[1:]], 0))
        return [IndexedSlices(values, A.reshape(indices, size), params_shape), None, None]
    front = list(range(a, a + ir)) + list(range(a)) + list(range(a + ir, pr - 1 + ir))
    g = A.transpose(grad, front) if front != sorted(front) else grad
    tail = _slice(A.shape(g), [ir], [-1])
    g = A.reshape(g, A.concat([[-1], tail], 0))
    ps = A.shape(params)
    n = A.reshape(_slice(ps, [a], [1]), [])
    summed = unsorted_segment_sum(g, A.reshape(indices, [-1]), n)
    if a:
        summed = A.transpose(summed, list(range(1, a + 1)) + [0] + list(range(a + 1, pr)))
    return [summed, None, None]


register_op("GatherV2", make=_gather_make, shape=_gather_shape, grad=_gather_grad)


_LARGE_SPARSE_NUM_ELEMENTS = 100000000


def _static_shape_value(t):
    """The value of a dense_shape tensor known at build time (Const, Shape, or a Cast of them), else None."""
    if t.op.type == "Cast":
        v = const_value(t.op.inputs[0])
        return None if v is None else np.asarray(v).astype(t.dtype.as_numpy_dtype)
    return const_value(t)


def _indexed_slices_to_tensor(value, dtype=None, name=None, as_ref=False):
    """An IndexedSlices as its dense tensor (rows summed), with TF's memory warnings."""
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                         % (dtype.name, value.dtype.name, value))
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: %s" % str(value))
    shape = _static_shape_value(value.dense_shape)
    if shape is None:
        warnings.warn("Converting sparse IndexedSlices to a dense Tensor of unknown shape. This may consume "
                      "a large amount of memory.", stacklevel=3)
    elif int(np.prod(shape)) >= _LARGE_SPARSE_NUM_ELEMENTS:
        warnings.warn("Converting sparse IndexedSlices to a dense Tensor with %d elements. This may consume a "
                      "large amount of memory." % int(np.prod(shape)), stacklevel=3)
    return unsorted_segment_sum(value.values, value.indices, value.dense_shape[0], name=name)


register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor)


def _int_indices(t, op_name, arg="indices"):
    if t.dtype.base_dtype not in (_dt.int32, _dt.int64):
        raise TypeError("Value passed to parameter '%s' of %s has DataType %s not in list of allowed "
                        "values: int32, int64" % (arg, op_name, t.dtype.name))
    return t


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of params along axis at indices: output shape params[:axis] + indices + params[axis+1:]."""
    if batch_dims != 0:
        raise ValueError("lens supports tf.gather with batch_dims=0 only, got %r" % (batch_dims,))
    with name_scope(name, "GatherV2", [params, indices]) as scope:
        p = convert_to_tensor(params, name="params")
        i = _int_indices(convert_to_tensor(indices, name="indices"), "GatherV2")
        a = _index_tensor(0 if axis is None else axis, _dt.int32, "axis")
        return apply_op("GatherV2", [(p, "params"), (i, "indices"), (a, "axis")],
                        {"Tparams": p.dtype.base_dtype, "Tindices": i.dtype.base_dtype}, name=scope,
                        dtypes=[p.dtype.base_dtype], same_dtype=False)


def _uss_make(op, ctx):
    def run(data, ids, num):
        data, ids, n = np.asarray(data), np.asarray(ids), int(num)
        inner = data.shape[ids.ndim:]
        out = np.zeros((n,) + inner, dtype=data.dtype)
        flat_ids = ids.ravel()
        flat = data.reshape((flat_ids.size,) + inner)
        keep = flat_ids >= 0   # TF drops negative ids
        _check_range(op, np.where(keep, flat_ids, 0), n, "segment_ids")
        np.add.at(out, flat_ids[keep], flat[keep])
        return out
    return run


def _uss_shape(op):
    d, i = op._inputs[0].shape, op._inputs[1].shape
    n = const_value(op._inputs[2])
    if d.ndims is None or i.ndims is None:
        return [unknown_shape()]
    return [TensorShape([None if n is None else int(n)] + d.as_list()[i.ndims:])]


def _uss_grad(op, grad):
    data, ids = op._inputs[0], op._inputs[1]
    gathered = gather(grad, maximum(ids, convert_to_tensor(0, dtype=ids.dtype.base_dtype)))
    if data.shape.ndims is None or ids.shape.ndims is None:
        raise ValueError("lens differentiates UnsortedSegmentSum %r only for inputs of known rank" % op.name)
    keep = A.cast(greater_equal(ids, convert_to_tensor(0, dtype=ids.dtype.base_dtype)), grad.dtype.base_dtype)
    extra = data.shape.ndims - ids.shape.ndims
    if extra:
        keep = A.reshape(keep, A.concat([A.shape(ids), [1] * extra], 0))
    return [multiply(gathered, keep), None, None]


register_op("UnsortedSegmentSum", make=_uss_make, shape=_uss_shape, grad=_uss_grad)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """out[k] = sum of data[i] where segment_ids[i] == k (negative ids are dropped)."""
    with name_scope(name, "UnsortedSegmentSum", [data, segment_ids]) as scope:
        d = convert_to_tensor(data, name="data")
        i = _int_indices(convert_to_tensor(segment_ids, name="segment_ids"), "UnsortedSegmentSum",
                         "segment_ids")
        n = _index_tensor(num_segments, _dt.int32, "num_segments")
        return apply_op("UnsortedSegmentSum", [(d, "data"), (i, "segment_ids"), (n, "num_segments")],
                        name=scope, dtypes=[d.dtype.base_dtype], same_dtype=False)


# ------------------------------------------------------------------ GatherNd / ScatterNd
def _nd_key(op, params_shape, idx, into="param shape"):
    idx = np.asarray(idx)
    k = idx.shape[-1]
    if k > len(params_shape):
        raise errors.InvalidArgumentError(None, op, "indices.shape[-1] must be <= params.rank, got %d > %d"
                                          % (k, len(params_shape)))
    for j in range(k):
        bad = (idx[..., j] < 0) | (idx[..., j] >= params_shape[j])
        if bad.any():
            pos = np.unravel_index(int(np.argmax(bad.ravel())), bad.shape)
            raise errors.InvalidArgumentError(None, op, "indices[%s] = [%s] does not index into %s [%s]"
                                              % (",".join(map(str, pos)),
                                                 ",".join(str(int(v)) for v in np.ravel(idx[pos])), into,
                                                 ",".join(str(int(d)) for d in params_shape)))
    return tuple(np.moveaxis(idx, -1, 0))


def _gather_nd_make(op, ctx):
    def run(params, indices):
        params = np.asarray(params)
        return np.array(params[_nd_key(op, params.shape, indices)])
    return run


def _gather_nd_shape(op):
    p, i = op._inputs[0].shape, op._inputs[1].shape
    if p.ndims is None or i.ndims is None or i.as_list()[-1] is None:
        return [unknown_shape()]
    k = i.as_list()[-1]
    return [TensorShape(i.as_list()[:-1] + p.as_list()[k:])]


def _gather_nd_grad(op, grad):
    params, indices = op._inputs
    return [scatter_nd(indices, grad, A.shape(params, out_type=indices.dtype.base_dtype)), None]


register_op("GatherNd", make=_gather_nd_make, shape=_gather_nd_shape, grad=_gather_nd_grad)


def gather_nd(params, indices, name=None, batch_dims=0):
    """params at the index tuples in the last dimension of indices."""
    if batch_dims != 0:
        raise ValueError("lens supports tf.gather_nd with batch_dims=0 only, got %r" % (batch_dims,))
    with name_scope(name, "GatherNd", [params, indices]) as scope:
        p = convert_to_tensor(params, name="params")
        i = _int_indices(convert_to_tensor(indices, name="indices"), "GatherNd")
        return apply_op("GatherNd", [(p, "params"), (i, "indices")], name=scope,
                        dtypes=[p.dtype.base_dtype], same_dtype=False)


def _scatter_nd_make(op, ctx):
    def run(indices, updates, shape):
        updates = np.asarray(updates)
        out = np.zeros(tuple(int(d) for d in shape), dtype=updates.dtype)
        np.add.at(out, _nd_key(op, out.shape, indices, into="shape"), updates)
        return out
    return run


def _scatter_nd_grad(op, grad):
    return [None, gather_nd(grad, op._inputs[0]), None]


register_op("ScatterNd", make=_scatter_nd_make, shape=lambda op: _shape_input(op, 2), grad=_scatter_nd_grad)


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of `shape` with updates added at the index tuples in indices."""
    with name_scope(name, "ScatterNd", [indices, updates, shape]) as scope:
        i = _int_indices(convert_to_tensor(indices, name="indices"), "ScatterNd")
        u = convert_to_tensor(updates, name="updates")
        s = _index_tensor(shape, i.dtype.base_dtype, "shape")
        return apply_op("ScatterNd", [(i, "indices"), (u, "updates"), (s, "shape")], name=scope,
                        dtypes=[u.dtype.base_dtype], same_dtype=False)


# ------------------------------------------------------------------ OneHot
def _one_hot_make(op, ctx):
    axis = op._attrs.get("axis", -1)

    def run(indices, depth, on_value, off_value):
        idx = np.asarray(indices)
        if not -1 <= axis <= idx.ndim:
            raise errors.InvalidArgumentError(
                None, op, "Expected axis to be -1 or between [0, %d).  But received: %d"
                % (idx.ndim + 1, axis))
        if int(depth) < 0:
            raise errors.InvalidArgumentError(None, op, "depth must be non-negative, got: %d" % int(depth))
        hot = idx[..., None] == np.arange(int(depth), dtype=idx.dtype)   # out-of-range rows stay off
        out = np.where(hot, on_value, off_value).astype(np.asarray(on_value).dtype, copy=False)
        return out if axis == -1 else np.moveaxis(out, -1, axis)
    return run


def _one_hot_shape(op):
    i = op._inputs[0].shape
    d = const_value(op._inputs[1])
    axis = op._attrs.get("axis", -1)
    if axis < -1:
        raise ValueError("axis must be >= -1, got %d" % axis)
    if i.ndims is None:
        return [unknown_shape()]
    dims = i.as_list()
    if axis > len(dims):    # TF's kernel, not its shape function, rejects this
        return [unknown_shape()]
    pos = len(dims) if axis == -1 else axis
    return [TensorShape(dims[:pos] + [None if d is None else int(d)] + dims[pos:])]


register_op("OneHot", make=_one_hot_make, shape=_one_hot_shape, not_differentiable=True)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """on_value where the index matches the position along axis (default last), off_value elsewhere."""
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        # TF1 infers dtype from on_value/off_value even when they are Python numbers.
        on_value = None if on_value is None else convert_to_tensor(on_value, dtype=dtype, name="on_value")
        off_value = None if off_value is None else convert_to_tensor(off_value, dtype=dtype, name="off_value")
        known = [v.dtype.base_dtype for v in (on_value, off_value) if isinstance(v, Tensor)]
        if dtype is None:
            dtype = known[0] if known else _dt.float32
        dtype = _dt.as_dtype(dtype).base_dtype
        if any(k is not dtype for k in known):
            raise TypeError("dtype %s of on_value/off_value does not match dtype %s" % (known, dtype.name))
        on = _index_tensor(1 if on_value is None else on_value, dtype, "on_value")
        off = _index_tensor(0 if off_value is None else off_value, dtype, "off_value")
        i = _int_indices(convert_to_tensor(indices, name="indices"), "OneHot")
        d = _index_tensor(depth, _dt.int32, "depth")
        return apply_op("OneHot", [(i, "indices"), (d, "depth"), (on, "on_value"), (off, "off_value")],
                        {"axis": -1 if axis is None else int(axis), "T": dtype, "TI": i.dtype.base_dtype},
                        name=scope, dtypes=[dtype], same_dtype=False)


# ------------------------------------------------------------------ Split / SplitV
def _split_make(op, ctx):
    n = op._attrs["num_split"]

    def run(axis, value):
        value = np.asarray(value)
        a = int(axis) % max(value.ndim, 1)
        if value.shape[a] % n:
            raise errors.InvalidArgumentError(
                None, op, "Number of ways to split should evenly divide the split dimension, but got "
                "split_dim %d (size = %d) and num_split %d" % (a, value.shape[a], n))
        parts = tuple(np.split(value, n, axis=a))
        return parts if n > 1 else parts[0]
    return run


def _split_shape(op):
    n = op._attrs["num_split"]
    a, v = const_value(op._inputs[0]), op._inputs[1].shape
    if a is None or v.ndims is None:
        return [unknown_shape(v.ndims)] * n
    a = int(a) % v.ndims
    dims = v.as_list()
    if dims[a] is not None and dims[a] % n:
        raise ValueError("Dimension size must be evenly divisible by %d but is %d for '%s' (op: 'Split') "
                         "with input shapes: [], %s." % (n, dims[a], op.name, v))
    dims[a] = None if dims[a] is None else dims[a] // n
    return [TensorShape(dims)] * n


def _split_grad(op, *grads):
    return [None, A.concat(list(grads), op._inputs[0])]


register_op("Split", make=_split_make, shape=_split_shape, grad=_split_grad)


def _resolve_sizes(sizes, total):
    sizes = [int(s) for s in np.ravel(sizes)]
    if sizes.count(-1) > 1:
        raise ValueError("size_splits may contain at most one -1, got %s" % sizes)
    if -1 in sizes:
        sizes[sizes.index(-1)] = total - (sum(sizes) + 1)
    if sum(sizes) != total or min(sizes, default=0) < 0:
        raise ValueError("Determined shape must either match input shape along split_dim exactly if fully "
                         "specified, or be less than the size of the input along split_dim if not fully "
                         "specified.  Got: %d (size_splits %s)" % (total, sizes))
    return sizes


def _splitv_make(op, ctx):
    n = op._attrs["num_split"]

    def run(value, size_splits, axis):
        value = np.asarray(value)
        a = int(axis) % max(value.ndim, 1)
        try:
            sizes = _resolve_sizes(size_splits, value.shape[a])
        except ValueError as e:
            raise errors.InvalidArgumentError(None, op, str(e)) from None
        parts = tuple(np.split(value, np.cumsum(sizes)[:-1], axis=a))
        return parts if n > 1 else parts[0]
    return run


def _splitv_shape(op):
    n = op._attrs["num_split"]
    v = op._inputs[0].shape
    sizes, a = const_value(op._inputs[1]), const_value(op._inputs[2])
    if a is None or sizes is None or v.ndims is None:
        return [unknown_shape(v.ndims)] * n
    a = int(a) % v.ndims
    dims = v.as_list()
    if dims[a] is not None:
        sizes = _resolve_sizes(sizes, dims[a])
    out = []
    for s in np.ravel(sizes):
        d = list(dims)
        d[a] = None if int(s) == -1 else int(s)
        out.append(TensorShape(d))
    return out


def _splitv_grad(op, *grads):
    return [A.concat(list(grads), op._inputs[2]), None, None]


register_op("SplitV", make=_splitv_make, shape=_splitv_shape, grad=_splitv_grad)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split value along axis into num_or_size_splits equal parts, or parts of the given sizes."""
    # TF1 converts num_or_size_splits before opening the scope, leaving a top-level 'Const'.
    sizes = convert_to_tensor(num_or_size_splits)
    x = convert_to_tensor(value)
    g = graph_of([x])
    if isinstance(num_or_size_splits, numbers.Integral) and not isinstance(num_or_size_splits, bool):
        if num_or_size_splits < 1:
            raise ValueError("num_or_size_splits must be >= 1, got %d" % num_or_size_splits)
        with g.as_default(), name_scope(name, "split", [x]) as scope:
            a = _index_tensor(axis, _dt.int32, "split_dim")
            op = g._create_op("Split", [a, x], [x.dtype.base_dtype] * num_or_size_splits,
                              {"num_split": int(num_or_size_splits), "T": x.dtype.base_dtype}, scope,
                              frames_skip=3)
            return op.outputs
    if sizes.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                         "Argument provided: %s" % (num_or_size_splits,))
    if num is None:
        num = sizes.shape.as_list()[0] if sizes.shape.ndims is not None else None
        if num is None:
            raise ValueError("Cannot infer num from shape %s; pass num=" % (num_or_size_splits,))
    with g.as_default(), name_scope(name, "split", [x]) as scope:
        a = _index_tensor(axis, _dt.int32, "axis")
        op = g._create_op("SplitV", [x, sizes, a], [x.dtype.base_dtype] * num,
                          {"num_split": int(num), "T": x.dtype.base_dtype, "Tlen": sizes.dtype.base_dtype},
                          scope, frames_skip=3)
        return op.outputs


# ------------------------------------------------------------------ ReverseV2
def _reverse_kernel(x, axis):
    x = np.asarray(x)
    axes = tuple(int(a) % max(x.ndim, 1) for a in np.ravel(axis))
    if len(set(axes)) != len(axes):
        raise ValueError("axis %s specified more than once" % list(np.ravel(axis)))
    return np.flip(x, axes).copy() if axes else x


register_op("ReverseV2", fn=_reverse_kernel, shape=lambda op: [op._inputs[0].shape],
            grad=lambda op, g: [reverse(g, op._inputs[1]), None])


def reverse(tensor, axis, name=None):
    """tensor with the given axes reversed (op ReverseV2)."""
    with name_scope(name, "ReverseV2", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        a = _index_tensor(axis, _dt.int32, "axis")
        return apply_op("ReverseV2", [(x, "tensor"), (a, "axis")], name=scope, dtypes=[x.dtype.base_dtype],
                        same_dtype=False)


reverse_v2 = reverse


# ------------------------------------------------------------------ compositions (no new op types)
def sequence_mask(lengths, maxlen=None, dtype=_dt.bool, name=None):
    """mask[i, j] = j < lengths[i] (TF1's composition: Range, ExpandDims, Less)."""
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = reduce_max(lengths)
        else:
            maxlen = convert_to_tensor(maxlen)
            if maxlen.shape.ndims not in (0, None):
                raise ValueError("maxlen must be scalar for sequence_mask, got shape %s" % maxlen.shape)
        row = _range(constant(0, dtype=maxlen.dtype.base_dtype), maxlen,
                     constant(1, dtype=maxlen.dtype.base_dtype))
        matrix = A.cast(A.expand_dims(lengths, -1), maxlen.dtype.base_dtype)
        result = less(row, matrix)
        if _dt.as_dtype(dtype).base_dtype is _dt.bool:
            return result
        return A.cast(result, dtype)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of tensor where mask is true (mask covers dims axis..axis+mask.ndim)."""
    with name_scope(name, "boolean_mask", [tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        nd = mask.shape.ndims
        if nd == 0:
            raise ValueError("mask cannot be scalar.")
        if nd is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        if mask.dtype.base_dtype is not _dt.bool:
            raise TypeError("boolean_mask needs a bool mask, got %s" % mask.dtype.name)
        axis = 0 if axis is None else int(axis)
        ts = tensor.shape
        if ts.ndims is not None:
            part = TensorShape(ts.as_list()[axis:axis + nd])
            if not part.is_compatible_with(mask.shape):
                raise ValueError("Shapes %s and %s are incompatible: boolean_mask's mask must match "
                                 "tensor dims %d..%d" % (part, mask.shape, axis, axis + nd - 1))
        sh = A.shape(tensor)
        lead = reduce_prod(sh[axis:axis + nd], [0])
        tensor = A.reshape(tensor, A.concat([sh[:axis], A.reshape(lead, [1]), sh[axis + nd:]], 0))
        idx = A.squeeze(where(A.reshape(mask, [-1])), axis=[1])
        return gather(tensor, idx, axis=axis)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """t clipped to [clip_value_min, clip_value_max] (TF1.15's Minimum then Maximum)."""
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert_to_tensor(t, name="t")
        t_min = minimum(values, clip_value_max)
        if not values.shape.is_compatible_with(t_min.shape):
            raise ValueError("clip_by_value: clip_value_max of shape %s would broadcast t of shape %s"
                             % (t_min.shape, values.shape))
        t_max = maximum(t_min, clip_value_min, name=scope)
        if not values.shape.is_compatible_with(t_max.shape):
            raise ValueError("clip_by_value: clip_value_min would broadcast t of shape %s to %s"
                             % (values.shape, t_max.shape))
        return t_max
