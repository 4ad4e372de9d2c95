"""Dense-from-sparse, scatter and counting ops: sparse_to_dense, tensor_scatter_nd_*,
confusion_matrix, histogram_fixed_width, unravel_index, bitcast (scatter_nd is in indexing.py)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops.indexing import scatter_nd
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape


def _const_shape(t):
    """The value of a constant shape tensor as a TensorShape, else an unknown shape."""
    if t.op.type == "Const":
        return TensorShape([int(d) for d in np.ravel(t.op.get_attr("value"))])
    return unknown_shape()


def _check_indices(op, rows, shape):
    """Index columns for rows of coordinates, or TF's SparseToDense error for a row outside."""
    bad = np.nonzero(((rows < 0) | (rows >= np.asarray(shape[:rows.shape[1]]))).any(axis=1))[0]
    if bad.size:
        raise errors.InvalidArgumentError(
            op.node_def, op, "indices[%d] = [%s] is out of bounds: need 0 <= index < [%s]"
            % (bad[0], ",".join(str(int(i)) for i in rows[bad[0]]), ",".join(str(int(d)) for d in shape)))
    return tuple(rows.T)


# ---- SparseToDense -----------------------------------------------------------------------------
def _sparse_to_dense_make(op, ctx):
    def kernel(indices, output_shape, values, default):
        indices, values = np.asarray(indices), np.asarray(values)
        shape = [int(d) for d in np.ravel(output_shape)]
        out = np.full(shape, default, values.dtype)
        rows = indices.reshape(-1, 1) if indices.ndim < 2 else indices
        out[_check_indices(op, rows, shape)] = values
        return out
    return kernel


def _sparse_to_dense_grad(op, grad):
    from lens.ops import array as A
    from lens.ops import math as M
    from lens.ops.indexing import gather_nd
    from lens.ops.reduce import reduce_sum
    indices, _, values, _ = op._inputs
    rows = A.reshape(indices, [-1, 1]) if indices.shape.ndims is not None and indices.shape.ndims < 2 \
        else indices
    picked = gather_nd(grad, rows)
    if values.shape.ndims == 0:
        picked = reduce_sum(picked)
    return [None, None, picked, M.subtract(reduce_sum(grad), reduce_sum(picked))]


register_op("SparseToDense", make=_sparse_to_dense_make,
            shape=lambda op: [_const_shape(op._inputs[1])], grad=_sparse_to_dense_grad)


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """A dense tensor with sparse_values at sparse_indices and default_value elsewhere."""
    values = convert_to_tensor(sparse_values, name="sparse_values")
    default = convert_to_tensor(default_value, dtype=values.dtype.base_dtype, name="default_value")
    indices = convert_to_tensor(sparse_indices, name="sparse_indices")
    shape = convert_to_tensor(output_shape, dtype=indices.dtype.base_dtype, name="output_shape")
    return apply_op("SparseToDense", [(indices, "sparse_indices"), (shape, "output_shape"),
                                      (values, "sparse_values"), (default, "default_value")],
                    {"validate_indices": bool(validate_indices)}, name=name or "SparseToDense",
                    dtypes=[values.dtype.base_dtype], same_dtype=False)


def confusion_matrix(labels, predictions, num_classes=None, dtype=_dt.int32, name=None,
                     weights=None):
    """[num_classes, num_classes] counts (or summed weights) of (label, prediction) pairs."""
    from lens.ops import array as A
    from lens.ops import math as M
    from lens.ops.reduce import reduce_max
    with name_scope(name, "confusion_matrix", [labels, predictions, num_classes, weights]):
        labels = A.cast(convert_to_tensor(labels, name="labels"), _dt.int64)
        predictions = A.cast(convert_to_tensor(predictions, name="predictions"), _dt.int64)
        known = int(num_classes) if isinstance(num_classes, (int, np.integer)) else None
        if num_classes is None:
            num_classes = M.add(M.maximum(reduce_max(labels), reduce_max(predictions)),
                                convert_to_tensor(1, dtype=_dt.int64))
        else:
            num_classes = A.cast(convert_to_tensor(num_classes, name="num_classes"), _dt.int64)
        indices = A.stack([labels, predictions], axis=1)
        values = A.ones_like(predictions, dtype=dtype) if weights is None \
            else A.cast(convert_to_tensor(weights, name="weights"), dtype)
        shape = [known, known] if known is not None \
            else A.cast(A.stack([num_classes, num_classes]), _dt.int64)
        return scatter_nd(indices, values, shape)


# ---- counting and bit views ----------------------------------------------------------------------
def _histogram_make(op, ctx):
    nbins_attr = op._attrs.get("nbins")

    def kernel(values, value_range, nbins):
        values = np.asarray(values, np.float64)
        lo, hi = (float(v) for v in np.ravel(value_range))
        n = int(nbins if nbins_attr is None else nbins_attr)
        bins = np.clip(np.floor((values - lo) / (hi - lo) * n), 0, n - 1).astype(np.int64)
        return np.bincount(bins.ravel(), minlength=n).astype(op._attrs["dtype"].as_numpy_dtype)
    return kernel


register_op("HistogramFixedWidth", make=_histogram_make, not_differentiable=True,
            shape=lambda op: [TensorShape([int(op._inputs[2].op.get_attr("value"))]
                                          if op._inputs[2].op.type == "Const" else [None])])


def histogram_fixed_width(values, value_range, nbins=100, dtype=_dt.int32, name=None):
    """Counts of values in nbins equal bins over value_range (outliers go to the end bins)."""
    with name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        v = convert_to_tensor(values, name="values")
        r = convert_to_tensor(value_range, dtype=v.dtype.base_dtype, name="value_range")
        n = convert_to_tensor(nbins, dtype=_dt.int32, name="nbins")
        return apply_op("HistogramFixedWidth", [(v, "values"), (r, "value_range"), (n, "nbins")],
                        {"dtype": _dt.as_dtype(dtype)}, name=scope,
                        dtypes=[_dt.as_dtype(dtype)], same_dtype=False)


def _unravel_make(op, ctx):
    def kernel(indices, dims):
        indices, dims = np.asarray(indices), np.asarray(dims)
        if (indices < 0).any() or (indices >= np.prod(dims)).any():
            raise errors.InvalidArgumentError(
                op.node_def, op, "index is out of bound as with dims")
        return np.stack(np.unravel_index(indices, tuple(int(d) for d in dims))).astype(indices.dtype)
    return kernel


register_op("UnravelIndex", make=_unravel_make, not_differentiable=True,
            shape=lambda op: [TensorShape(op._inputs[1].shape.as_list()
                                          + op._inputs[0].shape.as_list())
                              if op._inputs[0].shape.ndims is not None
                              and op._inputs[1].shape.ndims is not None else unknown_shape()])


def unravel_index(indices, dims, name=None):
    """Each flat index as coordinates into an array of shape dims: [len(dims)] + indices.shape."""
    i = convert_to_tensor(indices, name="indices")
    d = convert_to_tensor(dims, dtype=i.dtype.base_dtype, name="dims")
    return apply_op("UnravelIndex", [(i, "indices"), (d, "dims")], name=name or "UnravelIndex",
                    dtypes=[i.dtype.base_dtype], same_dtype=False)


def _bitcast_shape(op):
    src, dst = op._inputs[0].dtype.base_dtype.size, op._attrs["type"].size
    shape = op._inputs[0].shape
    if shape.ndims is None:
        return [unknown_shape()]
    dims = shape.as_list()
    if src > dst:
        return [TensorShape(dims + [src // dst])]
    if src < dst:
        if dims and dims[-1] is not None and dims[-1] != dst // src:
            raise ValueError("Cannot bitcast from %s to %s: the last dimension must be %d, got "
                             "shape %s" % (op._inputs[0].dtype.name, op._attrs["type"].name,
                                           dst // src, shape))
        return [TensorShape(dims[:-1])]
    return [shape]


def _bitcast_make(op, ctx):
    target = op._attrs["type"].as_numpy_dtype

    def kernel(x):
        x = np.ascontiguousarray(x)
        out = x.view(target)
        src, dst = x.dtype.itemsize, np.dtype(target).itemsize
        if src > dst:
            return out.reshape(x.shape + (src // dst,))
        if src < dst:
            return out.reshape(x.shape[:-1])
        return out
    return kernel


register_op("Bitcast", make=_bitcast_make, shape=_bitcast_shape, not_differentiable=True)


def bitcast(input, type, name=None):  # noqa: A002 - TF's argument names
    """The same bytes seen as another dtype (a size change adds or drops the last axis)."""
    x = convert_to_tensor(input, name="input")
    t = _dt.as_dtype(type)
    return apply_op("Bitcast", [(x, "input")], {"type": t}, name=name or "Bitcast", dtypes=[t],
                    same_dtype=False)


# ---- TensorScatterUpdate / Add / Sub (TF 1.14+) ---------------------------------------------
def _tensor_scatter_make(combine):
    def make(op, ctx):
        from lens.ops.indexing import _nd_key

        def kernel(tensor, indices, updates):
            out = np.array(tensor, copy=True)
            where = _nd_key(op, out.shape, indices, into="shape")
            updates = np.asarray(updates, out.dtype)
            if combine is None:
                out[where] = updates  # with repeated indices the last update wins, as in TF
            else:
                combine.at(out, where, updates)
            return out
        return kernel
    return make


def _tensor_scatter_grad(sign):
    def grad(op, g):
        from lens.ops import math as M
        from lens.ops.indexing import gather_nd
        tensor, indices, _ = op._inputs
        picked = gather_nd(g, indices)
        if sign is None:  # the update replaced those entries: no gradient reaches them in tensor
            from lens.ops import array as A
            kept = tensor_scatter_nd_update(g, indices, A.zeros_like(picked))
            return [kept, None, picked]
        return [g, None, picked if sign > 0 else M.negative(picked)]
    return grad


for _type, _combine, _sign in [("TensorScatterUpdate", None, None), ("TensorScatterAdd", np.add, 1),
                               ("TensorScatterSub", np.subtract, -1)]:
    register_op(_type, make=_tensor_scatter_make(_combine), shape=lambda op: [op._inputs[0].shape],
                grad=_tensor_scatter_grad(_sign))


def _tensor_scatter(op_type, tensor, indices, updates, name):
    t = convert_to_tensor(tensor, name="tensor")
    i = convert_to_tensor(indices, name="indices")
    u = convert_to_tensor(updates, dtype=t.dtype.base_dtype, name="updates")
    return apply_op(op_type, [(t, "tensor"), (i, "indices"), (u, "updates")], name=name or op_type,
                    dtypes=[t.dtype.base_dtype], same_dtype=False)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of tensor with the entries at indices replaced by updates."""
    return _tensor_scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of tensor with updates added at indices (repeats add up)."""
    return _tensor_scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of tensor with updates subtracted at indices (repeats add up)."""
    return _tensor_scatter("TensorScatterSub", tensor, indices, updates, name)


# TF 1.14's names, kept as aliases in TF 1.15
tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub
