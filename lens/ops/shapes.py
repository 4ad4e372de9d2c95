"""Static shape helpers shared by shape functions and gradient shortcuts."""
from lens.framework.tensor_shape import TensorShape, unknown_shape


def broadcast_shapes(a, b):
    """Static NumPy broadcasting of two TensorShapes; ValueError if incompatible."""
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y if x is None else None)
        elif x == y:
            out.append(x)
        else:
            raise ValueError("Dimensions must be equal, but are %d and %d (shapes %s and %s do not "
                             "broadcast)" % (x, y, a, b))
    return TensorShape(out)


def const_value(t):
    """The numpy value of a tensor if it is a Const (or a Shape of a static shape), else None."""
    op = t.op
    if op.type == "Const":
        return op.get_attr("value")
    if op.type == "Shape" and op.inputs[0].shape.is_fully_defined():
        import numpy as np
        return np.array(op.inputs[0].shape.as_list(), dtype=t.dtype.as_numpy_dtype)
    return None


def normalize_axes(axes, rank):
    """Axes as a sorted tuple of non-negative ints."""
    if axes is None:
        return tuple(range(rank))
    import numpy as np
    return tuple(sorted(int(a) % rank if rank else int(a) for a in np.ravel(axes)))


def reduced_shape(shape, axes, keepdims):
    """Static output shape of a reduction."""
    if shape.ndims is None:
        return unknown_shape()
    if axes is None:
        return TensorShape([1] * shape.ndims if keepdims else [])
    rank = shape.ndims
    axes = normalize_axes(axes, rank)
    dims = shape.as_list()
    if keepdims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])
