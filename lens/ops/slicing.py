"""Slice and DynamicStitch (what gradients need); indexing.py has strided_slice, gather and friends."""
import builtins

import numpy as np

from lens.framework import dtypes as _dt, errors
from lens.framework.convert import apply_op, convert_to_tensor, graph_of
from lens.framework.graph import Tensor, name_scope
from lens.ops.shapes import const_value
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape


def _slice_kernel(x, begin, size):
    x = np.asarray(x)
    begin, size = [int(b) for b in np.ravel(begin)], [int(s) for s in np.ravel(size)]
    _check_slice(x.shape, begin, size)
    # builtins.slice: this module's own `slice` (the tf.slice wrapper) shadows the builtin.
    idx = tuple(builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return x[idx]


def _check_slice(shape, begin, size):
    """TF's bounds checks: NumPy would clip a slice past the end and return a smaller value."""
    if len(begin) != len(shape) or len(size) != len(shape):
        raise errors.InvalidArgumentError(
            None, None, "Expected begin and size arguments to be 1-D tensors of size %d, but got "
            "shapes [%d] and [%d] instead." % (len(shape), len(begin), len(size)))
    for i, (b, s, n) in enumerate(zip(begin, size, shape)):
        if not 0 <= b <= n:
            raise errors.InvalidArgumentError(None, None, "Expected begin[%d] in [0, %d], but got %d"
                                              % (i, n, b))
        if s != -1 and not 0 <= s <= n - b:
            raise errors.InvalidArgumentError(None, None, "Expected size[%d] in [0, %d], but got %d"
                                              % (i, n - b, s))


def _slice_shape(op):
    x, b, s = op._inputs
    bv, sv = const_value(b), const_value(s)
    if sv is None or x.shape.ndims is None:
        return [unknown_shape(x.shape.ndims)]
    dims = x.shape.as_list()
    out = []
    for i, n in enumerate(np.ravel(sv)):
        n = int(n)
        if n == -1:
            out.append(None if dims[i] is None or bv is None else dims[i] - int(np.ravel(bv)[i]))
        else:
            out.append(n)
    return [TensorShape(out)]


# The Slice and DynamicStitch gradients need ops from families above slicing: they live in slicing_grad.py.
register_op("Slice", fn=_slice_kernel, shape=_slice_shape)


def slice(input_, begin, size, name=None):  # noqa: A001
    """input_[begin[i] : begin[i] + size[i]] for each dimension (size -1 = to the end)."""
    with name_scope(name, "Slice", [input_]) as scope:
        x = convert_to_tensor(input_, name="input")
        b = convert_to_tensor(begin, dtype=_dt.int32, name="begin") if not isinstance(begin, Tensor) else begin
        s = convert_to_tensor(size, dtype=b.dtype.base_dtype, name="size") if not isinstance(size, Tensor) else size
        return apply_op("Slice", [(x, "input"), (b, "begin"), (s, "size")], name=scope,
                        dtypes=[x.dtype.base_dtype], same_dtype=False)


def _stitch_kernel(*args):
    n = len(args) // 2
    indices, data = args[:n], args[n:]
    flat_idx = [np.asarray(i).ravel() for i in indices]
    first = np.asarray(data[0])
    inner = first.shape[np.ndim(indices[0]):]
    size = max((int(i.max()) + 1 for i in flat_idx if i.size), default=0)
    out = np.zeros((size,) + inner, dtype=first.dtype)
    for idx, d in zip(flat_idx, data):
        out[idx] = np.asarray(d).reshape((idx.size,) + inner)
    return out


register_op("DynamicStitch", fn=_stitch_kernel)


def dynamic_stitch(indices, data, name=None):
    """Interleave data tensors into one tensor at the given indices."""
    idx = [convert_to_tensor(i, dtype=_dt.int32) for i in indices]
    ds = [convert_to_tensor(d) for d in data]
    g = graph_of(idx + ds)
    op = g._create_op("DynamicStitch", idx + ds, [ds[0].dtype.base_dtype], {"N": len(idx)},
                      name or "DynamicStitch", frames_skip=3)
    return op._outputs[0]
