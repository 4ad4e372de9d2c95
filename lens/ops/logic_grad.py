"""Gradients of Select and SelectV2 (they need array, slicing and reduce ops, which sit above logic)."""
from lens.framework.convert import apply_op
from lens.framework.registry import RegisterGradient
from lens.ops.array import broadcast_to, concat, grad_zeros_like, ones_like, reshape, shape, zeros_like
from lens.ops.logic import where
from lens.ops.reduce import reduce_to
from lens.ops.slicing import slice as _slice


@RegisterGradient("Select")
def _select_grad(op, grad):
    """grad routed to t where the condition holds and to e elsewhere."""
    c = op._inputs[0]
    x = op._inputs[1]
    zeros = grad_zeros_like(x)   # TF1.15's zeros_like(x): a small static one is a Const
    if c.shape.ndims == 1 and x.shape.ndims is not None and x.shape.ndims > 1:
        cond = broadcast_to(reshape(c, concat([shape(c), ones_like(_slice(shape(x), [1], [-1]))], 0)), shape(x))
    else:
        cond = c
    return [None, where(cond, grad, zeros), where(cond, zeros, grad)]


@RegisterGradient("SelectV2")
def _where_v2_grad(op, grad):
    """grad routed like Select's, then summed back over broadcast dimensions."""
    c, x, y = op._inputs
    zeros = zeros_like(grad)
    gx = apply_op("SelectV2", [(c, "condition"), (grad, "t"), (zeros, "e")], name="SelectV2", same_dtype=False,
                  dtypes=[grad.dtype.base_dtype])
    gy = apply_op("SelectV2", [(c, "condition"), (zeros, "t"), (grad, "e")], name="SelectV2", same_dtype=False,
                  dtypes=[grad.dtype.base_dtype])
    rx, _ = reduce_to((gx, gx), x, op._outputs[0])
    ry, _ = reduce_to((gy, gy), y, op._outputs[0])
    return [None, rx, ry]
