"""tf.unsorted_segment_mean / sqrt_n / prod (UnsortedSegmentProd with TF's zero-aware gradient) and
tf.tensor_scatter_nd_max / min (TensorScatterMax/Min with TF's tie-splitting gradient)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import gather, gather_nd, scatter_nd, unsorted_segment_sum
from lens.ops.logic import equal, greater, where_v2
from lens.ops.scan_ops import _gather_drop_negatives, _unsorted, _unsorted_make, _unsorted_shape
from lens.ops.scatter_ops import _tensor_scatter, _tensor_scatter_make

__all__ = ["unsorted_segment_mean", "unsorted_segment_sqrt_n", "unsorted_segment_prod", "tensor_scatter_nd_max",
           "tensor_scatter_nd_min"]


def _segment_count(data, segment_ids, num_segments):
    """Per-segment counts (at least 1), shaped to broadcast against the segment sums (TF's _unsorted_segment_N)."""
    ones = A.ones_like(M.cast(segment_ids, data.dtype.base_dtype))
    n = M.maximum(unsorted_segment_sum(ones, segment_ids, num_segments), M.cast(1, data.dtype.base_dtype))
    extra = M.subtract(A.rank(data), A.rank(segment_ids))
    return A.reshape(n, A.concat([A.shape(n), A.ones(A.reshape(extra, [1]), _dt.int32)], 0))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of data over each segment id (empty segments give 0; negative ids are dropped)."""
    with name_scope(name, "UnsortedSegmentMean"):
        data = convert_to_tensor(data, name="data")
        segment_ids = convert_to_tensor(segment_ids, name="segment_ids")
        summed = unsorted_segment_sum(data, segment_ids, num_segments)
        return M.truediv(summed, _segment_count(data, segment_ids, num_segments))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of data over each segment divided by sqrt(its size)."""
    with name_scope(name, "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data, name="data")
        segment_ids = convert_to_tensor(segment_ids, name="segment_ids")
        summed = unsorted_segment_sum(data, segment_ids, num_segments)
        return M.truediv(summed, M.sqrt(_segment_count(data, segment_ids, num_segments)))


def _prod_grad(op, grad):
    data, ids, num = op._inputs
    is_zero = equal(data, A.zeros_like(data))
    num_zeros = unsorted_segment_sum(M.cast(is_zero, _dt.int32), ids, num)
    grad = where_v2(greater(num_zeros, 1), A.zeros_like(grad), grad)      # two zeros: no gradient at all
    non_zero = where_v2(is_zero, A.ones_like(data), data)
    non_zero_prod = unsorted_segment_prod(non_zero, ids, num)
    clipped = M.maximum(ids, A.zeros_like(ids))
    prod_by_el = M.truediv(gather(op._outputs[0], clipped), data)
    partial = where_v2(is_zero, gather(non_zero_prod, clipped), prod_by_el)
    picked, _ = _gather_drop_negatives(grad, ids, data.shape.ndims)
    return [M.multiply(picked, partial), None, None]


register_op("UnsortedSegmentProd", make=_unsorted_make(np.multiply, lambda dt: np.ones((), dt)),
            shape=_unsorted_shape, grad=_prod_grad)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of data over each segment id (empty segments give 1; negative ids are dropped)."""
    return _unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def _minmax_grad(op, grad):
    tensor, indices, updates = op._inputs
    out = op._outputs[0]
    x_ind = M.cast(equal(out, tensor), grad.dtype.base_dtype)
    y_ind = M.cast(equal(gather_nd(out, indices), updates), grad.dtype.base_dtype)
    ys = scatter_nd(indices, y_ind, A.shape(x_ind, out_type=indices.dtype.base_dtype))
    both = M.add(x_ind, ys)            # ties split the gradient, as TF
    y_grad = M.multiply(gather_nd(M.truediv(grad, both), indices), y_ind)
    return [M.truediv(M.multiply(grad, x_ind), both), None, y_grad]


register_op("TensorScatterMax", make=_tensor_scatter_make(np.maximum), shape=lambda op: [op._inputs[0].shape],
            grad=_minmax_grad)
register_op("TensorScatterMin", make=_tensor_scatter_make(np.minimum), shape=lambda op: [op._inputs[0].shape],
            grad=_minmax_grad)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of tensor with tensor[indices[i]] = max(tensor[indices[i]], updates[i])."""
    return _tensor_scatter("TensorScatterMax", tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of tensor with tensor[indices[i]] = min(tensor[indices[i]], updates[i])."""
    return _tensor_scatter("TensorScatterMin", tensor, indices, updates, name)
