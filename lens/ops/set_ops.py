"""tf.sets: set_size, set_intersection, set_union, set_difference over the last dimension of dense
or sparse integer/string tensors; results are SparseTensors with each row sorted (not differentiable)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor, SparseTensorValue
from lens.framework.tensor_shape import TensorShape
from lens.ops.sparse_ops import I64, check_bounds, sp_op

__all__ = ["set_size", "set_intersection", "set_union", "set_difference", "size", "intersection", "union",
           "difference"]

_TYPES = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.string)


def _groups_dense(x):
    x = np.asarray(x)
    if x.ndim < 2:
        raise errors.InvalidArgumentError(None, None, "Invalid input rank %d: set operations need rank >= 2"
                                          % x.ndim)
    return {k: set(x[k].tolist()) for k in np.ndindex(x.shape[:-1])}, list(x.shape[:-1])


def _groups_sparse(op, ind, val, shape):
    ind, shape = np.asarray(ind, np.int64), [int(d) for d in shape]
    if len(shape) < 2:
        raise errors.InvalidArgumentError(None, op, "Invalid input rank %d: set operations need rank >= 2"
                                          % len(shape))
    check_bounds(op, ind, np.asarray(shape))
    out = {}
    for r, v in zip(ind, np.asarray(val).tolist()):
        out.setdefault(tuple(int(i) for i in r[:-1]), set()).add(v)
    return out, shape[:-1]


def _combine(op, a, b, how, dtype):
    ga, lead_a = a
    gb, lead_b = b
    if lead_a != lead_b:
        raise errors.InvalidArgumentError(None, op, "Shapes %s vs %s mismatch: the leading dimensions of both "
                                          "sets must match" % (lead_a, lead_b))
    rows, width = [], 0
    for key in np.ndindex(*lead_a):
        sa, sb = ga.get(key, set()), gb.get(key, set())
        res = sa & sb if how == "intersection" else sa | sb if how == "union" else \
            sa - sb if how == "a-b" else sb - sa
        res = sorted(res)
        width = max(width, len(res))
        rows.extend((key + (j,), v) for j, v in enumerate(res))
    ind = np.array([r for r, _ in rows], np.int64).reshape(-1, len(lead_a) + 1)
    val = np.array([v for _, v in rows], dtype=object if dtype is _dt.string else dtype.as_numpy_dtype)
    return ind, val.reshape(-1), np.array(lead_a + [width], np.int64)


def _set_make(kind):
    def make(op, ctx):
        how, dtype = op._attrs["set_operation"], op._attrs["T"]

        def run(*args):
            if kind == "dense_dense":
                a, b = _groups_dense(args[0]), _groups_dense(args[1])
            elif kind == "dense_sparse":
                a, b = _groups_dense(args[0]), _groups_sparse(op, *args[1:4])
            else:
                a, b = _groups_sparse(op, *args[0:3]), _groups_sparse(op, *args[3:6])
            return _combine(op, a, b, how, dtype)
        return run
    return make


def _OUT(op):  # noqa: N802
    first = op._inputs[0].shape
    if op.type == "DenseToDenseSetOperation":
        _check_leading(op, first, op._inputs[1].shape)
    rank = (first.as_list()[1] if first.ndims == 2 else None) if op.type == "SparseToSparseSetOperation" \
        else first.ndims
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


def _check_leading(op, a, b):
    """TF's shape function: equal ranks and equal leading dimensions (the set dimension may differ)."""
    if a.ndims is None or b.ndims is None:
        return
    if a.ndims != b.ndims:
        raise ValueError("Shape must be rank %d but is rank %d for '%s' (op: '%s') with input shapes: %s, %s."
                         % (a.ndims, b.ndims, op.name, op.type, a, b))
    for k, (x, y) in enumerate(zip(a.as_list()[:-1], b.as_list()[:-1])):
        if x is not None and y is not None and x != y:
            raise ValueError("Dimension %d in both shapes must be equal, but are %d and %d. Shapes are %s and %s. "
                             "for '%s' (op: '%s')" % (k, x, y, a.as_list()[:-1], b.as_list()[:-1], op.name, op.type))


register_op("DenseToDenseSetOperation", make=_set_make("dense_dense"), shape=_OUT, not_differentiable=True)
register_op("DenseToSparseSetOperation", make=_set_make("dense_sparse"), shape=_OUT, not_differentiable=True)
register_op("SparseToSparseSetOperation", make=_set_make("sparse_sparse"), shape=_OUT, not_differentiable=True)


def _size_make(op, ctx):
    def run(ind, val, shape):
        groups, lead = _groups_sparse(op, ind, val, shape)
        out = np.zeros(lead, np.int32)
        for k, s in groups.items():
            out[k] = len(s)
        return out
    return run


register_op("SetSize", make=_size_make, not_differentiable=True, shape=lambda op: [TensorShape(None)])


def _check_type(t):
    if t.dtype.base_dtype not in _TYPES:
        raise TypeError("Invalid dtype %s: set operations take int8, int16, int32, int64, uint8, uint16 or "
                        "string" % t.dtype.name)
    return t


def _as_set(x, name):
    if isinstance(x, SparseTensorValue):
        x = SparseTensor.from_value(x)
    if isinstance(x, SparseTensor):
        _check_type(x.values)
        return x
    return _check_type(convert_to_tensor(x, name=name))


def set_size(a, validate_indices=True):
    """The number of unique values in each set (last dimension) of the SparseTensor a, as int32."""
    a = SparseTensor.from_value(a) if isinstance(a, SparseTensorValue) else a
    if not isinstance(a, SparseTensor):
        raise TypeError("Expected `SparseTensor`, got %s." % (a,))
    _check_type(a.values)
    with name_scope(None, "SetSize", [a.values]) as scope:
        return sp_op("SetSize", [(a.indices, "set_indices"), (a.values, "set_values"), (a.dense_shape, "set_shape")],
                     [_dt.int32], scope, {"validate_indices": bool(validate_indices)})[0]


def _set_op(a, b, how, validate_indices):
    a, b = _as_set(a, "a"), _as_set(b, "b")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        a, b = b, a    # TF flips to dense-sparse; a difference swaps its direction
        how = {"a-b": "b-a", "b-a": "a-b"}.get(how, how)
    if b.dtype.base_dtype is not a.dtype.base_dtype:
        raise TypeError("Types don't match, %s vs %s." % (a.dtype.name, b.dtype.name))
    attrs = {"set_operation": how, "validate_indices": bool(validate_indices), "T": a.dtype.base_dtype}
    outs = [I64, a.dtype.base_dtype, I64]
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        op_type, ins = "DenseToDenseSetOperation", [(a, "set1"), (b, "set2")]
    elif not isinstance(a, SparseTensor):
        op_type = "DenseToSparseSetOperation"
        ins = [(a, "set1"), (b.indices, "set2_indices"), (b.values, "set2_values"), (b.dense_shape, "set2_shape")]
    else:
        op_type = "SparseToSparseSetOperation"
        ins = [(a.indices, "set1_indices"), (a.values, "set1_values"), (a.dense_shape, "set1_shape"),
               (b.indices, "set2_indices"), (b.values, "set2_values"), (b.dense_shape, "set2_shape")]
    with name_scope(None, op_type, []) as scope:
        ind, val, shp = sp_op(op_type, ins, outs, scope, attrs)
    return SparseTensor(ind, val, shp)


def set_intersection(a, b, validate_indices=True):
    """Per-row intersection of the sets in the last dimension of a and b (a SparseTensor, rows sorted)."""
    return _set_op(a, b, "intersection", validate_indices)


def set_union(a, b, validate_indices=True):
    """Per-row union of the sets in the last dimension of a and b."""
    return _set_op(a, b, "union", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """Per-row a - b (or b - a when aminusb=False)."""
    return _set_op(a, b, "a-b" if aminusb else "b-a", validate_indices)


size, intersection, union, difference = set_size, set_intersection, set_union, set_difference
