"""Gradients of Fill, BroadcastTo, Transpose and Tile: they need reduce ops, which sit above array."""
from lens.framework.registry import RegisterGradient
from lens.framework.convert import constant
from lens.ops.array import broadcast_gradient_args, grad_shape, reshape, shape, size, stack, transpose
from lens.ops.reduce import invert_permutation, reduce_sum
from lens.ops.sequence import range as _range


@RegisterGradient("Fill")
def _fill_grad(op, grad):
    """The value's gradient is the sum of grad (no gradient for dims)."""
    return [None, reduce_sum(grad)]


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    """grad summed over the broadcast dimensions, back to the input's shape."""
    x = op._inputs[0]
    sx = shape(x)
    rx, _ = broadcast_gradient_args(sx, op._inputs[1])
    return [reshape(reduce_sum(grad, rx), sx), None]


@RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    """grad transposed by the inverse permutation."""
    return [transpose(grad, invert_permutation(op._inputs[1])), None]


@RegisterGradient("Tile")
def _tile_grad(op, grad):
    """grad reshaped to [multiples[0], shape[0], multiples[1], ...] and summed over the multiples axes."""
    x, multiples = op._inputs
    sx = grad_shape(x)   # TF1.15's Shape and Size fold to Consts when static
    split_shape = reshape(transpose(stack([multiples, sx])), [-1])
    n = split_shape.shape.num_elements() if split_shape.shape.is_fully_defined() else None
    axes = _range(0, size(split_shape) if n is None else constant(n, name="Size"), 2)
    return [reduce_sum(reshape(grad, split_shape), axes), None]
