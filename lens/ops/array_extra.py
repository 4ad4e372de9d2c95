"""More array ops: space_to_depth/depth_to_space (NHWC), count_nonzero, meshgrid."""
from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape


def _block(op):
    return int(op._attrs["block_size"])


def _dims(op):
    shape = op._inputs[0].shape
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError("%s (op %s) needs a 4-D NHWC input, got shape %s"
                         % (op.name, op.type, shape))
    return [None] * 4 if shape.ndims is None else shape.as_list()


def _divisible(value, by, op):
    if value is not None and value % by:
        raise ValueError("Dimension size must be evenly divisible by %d but is %d for '%s' (op "
                         "%s) with input shapes: %s" % (by, value, op.name, op.type,
                                                        op._inputs[0].shape))


def _space_to_depth_shape(op):
    n, h, w, c = _dims(op)
    b = _block(op)
    _divisible(h, b, op)
    _divisible(w, b, op)
    return [TensorShape([n, None if h is None else h // b, None if w is None else w // b,
                         None if c is None else c * b * b])]


def _depth_to_space_shape(op):
    n, h, w, c = _dims(op)
    b = _block(op)
    _divisible(c, b * b, op)
    return [TensorShape([n, None if h is None else h * b, None if w is None else w * b,
                         None if c is None else c // (b * b)])]


def _space_to_depth_make(op, ctx):
    b = _block(op)

    def kernel(x):
        n, h, w, c = x.shape
        if h % b or w % b:
            raise errors.InvalidArgumentError(
                op.node_def, op, "Image width %d and height %d should be divisible by block_size: %d"
                % (w, h, b))
        # Each b x b patch becomes one pixel; its pixels go to depth in row-major order.
        blocks = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
        return blocks.reshape(n, h // b, w // b, b * b * c)
    return kernel


def _depth_to_space_make(op, ctx):
    b = _block(op)

    def kernel(x):
        n, h, w, c = x.shape
        if c % (b * b):
            raise errors.InvalidArgumentError(
                op.node_def, op, "Input depth dimension %d should be divisible by: %d" % (c, b * b))
        blocks = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
        return blocks.reshape(n, h * b, w * b, c // (b * b))
    return kernel


register_op("SpaceToDepth", make=_space_to_depth_make, shape=_space_to_depth_shape,
            grad=lambda op, g: [depth_to_space(g, _block(op))])
register_op("DepthToSpace", make=_depth_to_space_make, shape=_depth_to_space_shape,
            grad=lambda op, g: [space_to_depth(g, _block(op))])


def _nhwc_only(data_format):
    if data_format != "NHWC":
        raise ValueError("lens runs space_to_depth/depth_to_space in NHWC only, got data_format=%r; "
                         "transpose to NHWC first" % (data_format,))


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Move each block_size x block_size patch of pixels into the depth axis."""
    _nhwc_only(data_format)
    x = convert_to_tensor(input, name="input")
    return apply_op("SpaceToDepth", [(x, "input")], {"block_size": int(block_size),
                                                     "data_format": "NHWC"},
                    name=name or "SpaceToDepth")


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Spread depth into block_size x block_size patches of pixels (space_to_depth's inverse)."""
    _nhwc_only(data_format)
    x = convert_to_tensor(input, name="input")
    return apply_op("DepthToSpace", [(x, "input")], {"block_size": int(block_size),
                                                     "data_format": "NHWC"},
                    name=name or "DepthToSpace")


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype=_dt.int64, name=None,
                  reduction_indices=None, keep_dims=None):
    """How many entries are not zero (not False) over axis, as dtype (int64 by default)."""
    from lens.ops import array as A
    from lens.ops import logic as L
    from lens.ops import reduce as R
    axis = reduction_indices if axis is None else axis
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        zero = A.zeros_like(x) if x.dtype.base_dtype != _dt.bool else convert_to_tensor(False)
        nonzero = A.cast(L.not_equal(x, zero), _dt.int64)
        return A.cast(R.reduce_sum(nonzero, axis=axis, keepdims=keepdims), dtype)


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors; indexing='xy' (default, swaps the first two) or 'ij'."""
    from lens.ops import array as A
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError("meshgrid() got unexpected keyword arguments: %s" % ", ".join(sorted(kwargs)))
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing must be 'xy' or 'ij', got %r" % (indexing,))
    with name_scope(name, "meshgrid", list(args)):
        n = len(args)
        vectors = [A.reshape(convert_to_tensor(a), [-1]) for a in args]
        shapes = [[1] * i + [-1] + [1] * (n - i - 1) for i in range(n)]
        if indexing == "xy" and n > 1:
            shapes[0][:2], shapes[1][:2] = [1, -1], [-1, 1]
        sizes = [A.size(v) for v in vectors]
        if indexing == "xy" and n > 1:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        ones = A.ones(A.stack(sizes), dtype=vectors[0].dtype.base_dtype)
        return [A.reshape(v, s) * ones for v, s in zip(vectors, shapes)]
