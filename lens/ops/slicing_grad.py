"""Gradients of Slice and DynamicStitch (they need array, math and indexing ops, which sit above slicing)."""
from lens.framework import dtypes as _dt
from lens.framework.registry import RegisterGradient
from lens.ops.array import pad_op_for_slice_grad, shape, stack
from lens.ops.indexing import gather
from lens.ops.math import cast, subtract


@RegisterGradient("Slice")
def _slice_grad(op, grad):
    """grad padded with zeros back to the sliced input's shape."""
    x, begin, _ = op._inputs
    before = begin
    after = subtract(subtract(shape(x), shape(op._outputs[0])), begin)
    paddings = stack([before, after], axis=1)
    return [pad_op_for_slice_grad(grad, paddings), None, None]


@RegisterGradient("DynamicStitch")
def _stitch_grad(op, grad):
    """Each data input's gradient: grad gathered at that input's indices."""
    n = len(op._inputs) // 2
    return [None] * n + [gather(grad, cast(i, _dt.int32)) for i in op._inputs[:n]]
