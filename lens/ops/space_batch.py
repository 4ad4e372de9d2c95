"""SpaceToBatchND / BatchToSpaceND (NumPy kernels; each is the other's gradient), TF1's
space_to_batch / batch_to_space wrappers, required_space_to_batch_paddings and with_space_to_batch."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.shapes import const_value


def _args(op, x, block, pads, what):
    x = np.asarray(x)
    block = np.asarray(block, np.int64).reshape(-1)
    pads = np.asarray(pads, np.int64).reshape(-1, 2)
    m = len(block)
    if pads.shape[0] != m or x.ndim < m + 1:
        raise errors.InvalidArgumentError(None, op, "block_shape (%d dims) and %s %s do not fit an input of shape %s"
                                          % (m, what, list(pads.shape), list(x.shape)))
    if (block < 1).any() or (pads < 0).any():
        raise errors.InvalidArgumentError(None, op, "block_shape must be positive and %s non-negative, got %s and %s"
                                          % (what, block.tolist(), pads.tolist()))
    return x, block, pads, m


def _s2b(op, x, block, pads):
    x, block, pads, m = _args(op, x, block, pads, "paddings")
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - m - 1))
    b = x.shape[0]
    spatial = x.shape[1:m + 1]
    bad = [i for i in range(m) if spatial[i] % block[i]]
    if bad:
        raise errors.InvalidArgumentError(None, op, "padded_shape[%d]=%d is not divisible by block_shape[%d]=%d"
                                          % (bad[0], spatial[bad[0]], bad[0], block[bad[0]]))
    rest = x.shape[m + 1:]
    shape = [b]
    for s, k in zip(spatial, block):
        shape += [s // k, k]
    x = x.reshape(shape + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    x = x.transpose(perm)
    return x.reshape([b * int(np.prod(block))] + [s // k for s, k in zip(spatial, block)] + list(rest))


def _b2s(op, x, block, crops):
    x, block, crops, m = _args(op, x, block, crops, "crops")
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise errors.InvalidArgumentError(None, op, "Input batch dimension (%d) is not divisible by product of "
                                          "block sizes (%d)" % (x.shape[0], prod))
    b = x.shape[0] // prod
    spatial, rest = x.shape[1:m + 1], x.shape[m + 1:]
    x = x.reshape(list(block) + [b] + list(spatial) + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = x.transpose(perm).reshape([b] + [s * k for s, k in zip(spatial, block)] + list(rest))
    index = [slice(None)] + [slice(c[0], x.shape[1 + i] - c[1]) for i, c in enumerate(crops)]
    if any(c[0] + c[1] > x.shape[1 + i] for i, c in enumerate(crops)):
        raise errors.InvalidArgumentError(None, op, "crops %s exceed the block-expanded shape %s"
                                          % (crops.tolist(), list(x.shape)))
    return np.ascontiguousarray(x[tuple(index)])


def _static_shape(op, forward):
    x = op._inputs[0].shape
    block, pads = const_value(op._inputs[1]), const_value(op._inputs[2])
    if x.ndims is None or block is None or pads is None:
        return [TensorShape(None) if x.ndims is None else TensorShape([None] * x.ndims)]
    dims = x.as_list()
    block = [int(v) for v in np.ravel(block)]
    pads = np.asarray(pads).reshape(-1, 2)
    prod = int(np.prod(block))
    out = [None if dims[0] is None else (dims[0] * prod if forward else dims[0] // prod)]
    for i, k in enumerate(block):
        d = dims[1 + i]
        if d is None:
            out.append(None)
        elif forward:
            out.append((d + int(pads[i].sum())) // k)
        else:
            out.append(d * k - int(pads[i].sum()))
    return [TensorShape(out + dims[1 + len(block):])]


def _s2b_grad(op, g):
    return [batch_to_space_nd(g, op._inputs[1], op._inputs[2]), None, None]


def _b2s_grad(op, g):
    return [space_to_batch_nd(g, op._inputs[1], op._inputs[2]), None, None]


register_op("SpaceToBatchND", make=lambda op, ctx: (lambda x, b, p: _s2b(op, x, b, p)),
            shape=lambda op: _static_shape(op, True), grad=_s2b_grad)
register_op("BatchToSpaceND", make=lambda op, ctx: (lambda x, b, c: _b2s(op, x, b, c)),
            shape=lambda op: _static_shape(op, False), grad=_b2s_grad)


def _nd(op_type, x, block_shape, pads, what, name):
    with name_scope(name, op_type, [x, block_shape, pads]) as scope:
        x = convert_to_tensor(x, name="input")
        b = convert_to_tensor(block_shape, name="block_shape")
        if not b.dtype.base_dtype.is_integer:
            b = convert_to_tensor(block_shape, dtype=_dt.int32, name="block_shape")
        p = convert_to_tensor(pads, dtype=b.dtype.base_dtype, name=what)
        return apply_op(op_type, [(x, "input"), (b, "block_shape"), (p, what)],
                        {"T": x.dtype.base_dtype, "Tblock_shape": b.dtype.base_dtype, "Tpaddings": p.dtype.base_dtype},
                        name=scope, dtypes=[x.dtype.base_dtype], same_dtype=False)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Spatial blocks of the padded input moved into the batch dimension."""
    return _nd("SpaceToBatchND", input, block_shape, paddings, "paddings", name)


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of space_to_batch_nd: batch blocks moved back into space, then cropped."""
    return _nd("BatchToSpaceND", input, block_shape, crops, "crops", name)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's space_to_batch on 4-D input with a square block_size."""
    block_size = block_size if block_size is not None else block_shape
    if block_size is None:
        raise TypeError("space_to_batch needs block_size")
    if np.ndim(block_size) == 0:
        block_size = [int(block_size)] * 2
    return _nd("SpaceToBatchND", input, block_size, paddings, "paddings", name or "SpaceToBatch")


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """TF1's batch_to_space on 4-D input with a square block_size."""
    block_size = block_size if block_size is not None else block_shape
    if np.ndim(block_size) == 0:
        block_size = [int(block_size)] * 2
    return _nd("BatchToSpaceND", input, block_size, crops, "crops", name or "BatchToSpace")


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) making input_shape + base_paddings divisible by block_shape (static values)."""
    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        shape = np.asarray(const_value(convert_to_tensor(input_shape)) if hasattr(input_shape, "op") else input_shape)
        block = np.asarray(const_value(convert_to_tensor(block_shape)) if hasattr(block_shape, "op") else block_shape)
        if shape is None or block is None or shape.dtype == object:
            raise ValueError("required_space_to_batch_paddings: lens needs constant input_shape and block_shape")
        shape, block = shape.astype(np.int64).reshape(-1), block.astype(np.int64).reshape(-1)
        base = np.zeros((len(block), 2), np.int64) if base_paddings is None else \
            np.asarray(base_paddings, np.int64).reshape(-1, 2)
        full = shape + base.sum(1)
        extra = (block - full % block) % block
        pads = np.stack([base[:, 0], base[:, 1] + extra], 1)
        crops = np.stack([np.zeros_like(extra), extra], 1)
        return (convert_to_tensor(pads.astype(np.int32), name="paddings"),
                convert_to_tensor(crops.astype(np.int32), name="crops"))


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """op(input, num_spatial_dims, padding) run at dilation_rate through space_to_batch / batch_to_space."""
    x = convert_to_tensor(input, name="input")
    rate = [int(r) for r in np.ravel(dilation_rate)]
    n = len(rate)
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be either VALID or SAME: %r" % (padding,))
    if data_format is not None and data_format.startswith("NC"):
        raise ValueError("with_space_to_batch: lens takes channels-last data_format only, got %r" % data_format)
    if spatial_dims is not None and list(spatial_dims) != list(range(1, n + 1)):
        raise ValueError("with_space_to_batch: lens takes spatial_dims 1..N, got %s" % (spatial_dims,))
    if all(r == 1 for r in rate):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        fs = [int(v) for v in np.ravel(const_value(convert_to_tensor(filter_shape)))]
        eff = [(f - 1) * r + 1 for f, r in zip(fs, rate)]
        total = [e - 1 for e in eff]
        base = [[t // 2, t - t // 2] for t in total]
    else:
        base = [[0, 0]] * n
    dims = x.shape.as_list()[1:n + 1]
    if None in dims:
        raise ValueError("with_space_to_batch: lens needs static spatial dims, got %s" % x.shape)
    pads, crops = required_space_to_batch_paddings(dims, rate, base)
    y = op(space_to_batch_nd(x, rate, pads), n, "VALID")
    return batch_to_space_nd(y, rate, crops)
