"""Shape-manipulating ops: shape, reshape, fill, broadcast, concat, stack, tile, transpose, pad (cast is in math)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, constant, convert_to_tensor, graph_of, register_tensor_conversion_function
from lens.framework.graph import Tensor, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from lens.ops.concat_offset import concat_offset
from lens.ops.core import identity
from lens.ops.logic import equal
# cast lives in math (truediv and range need it); importing it here keeps lens.ops.array.cast working.
from lens.ops.math import cast, subtract
from lens.ops.sequence import range as _range
from lens.ops.shapes import broadcast_shapes, const_value
from lens.ops.slicing import slice as _slice


def _out_type(op):
    return op._attrs.get("out_type", _dt.int32).as_numpy_dtype


# ------------------------------------------------------------------ Shape, Size, Rank
def _shape_make(op, ctx):
    t = _out_type(op)
    return lambda x: np.array(np.shape(x), dtype=t)


register_op("Shape", make=_shape_make, not_differentiable=True,
            shape=lambda op: [TensorShape([op._inputs[0].shape.ndims])])
register_op("Size", make=lambda op, ctx: (lambda x, t=_out_type(op): np.array(np.size(x), dtype=t)),
            not_differentiable=True, shape=lambda op: [TensorShape([])])
register_op("Rank", fn=lambda x: np.array(np.ndim(x), dtype=np.int32), not_differentiable=True,
            shape=lambda op: [TensorShape([])])


def shape(input, name=None, out_type=_dt.int32):  # noqa: A002
    """The dynamic shape of a tensor as a 1-D int tensor."""
    return apply_op("Shape", [(input, "input")], {"out_type": _dt.as_dtype(out_type)},
                    name=name or "Shape", dtypes=[_dt.as_dtype(out_type)], same_dtype=False)


def grad_shape(x, name="Shape"):
    """TF1.15's array_ops.shape as gradients call it: a Const (named Shape) when x's shape is static."""
    if x.shape.is_fully_defined():
        return constant(np.asarray(x.shape.as_list(), np.int32), name=name)
    return shape(x, name=None if name == "Shape" else name)


def grad_zeros_like(x):
    """TF1.15's zeros_like(x) as gradients build it: for a static shape a Const named zeros_like when
    small (under 1000 elements), else a Fill of a Const shape; a ZerosLike op otherwise."""
    if not x.shape.is_fully_defined():
        return zeros_like(x)
    dims, dtype = x.shape.as_list(), x.dtype.base_dtype
    if x.shape.num_elements() < 1000:
        return constant(np.zeros(dims, dtype.as_numpy_dtype), name="zeros_like")
    with name_scope(None, "zeros_like", [x]) as scope:
        return fill(constant(np.asarray(dims, np.int32), name="shape_as_tensor"), constant(0, dtype=dtype),
                    name=scope)


def grad_ones_like(x):
    """TF1.15's ones_like(x) as gradients build it: a Fill of its Shape (a Const when static) with 1."""
    with name_scope(None, "ones_like", [x]) as scope:
        return fill(grad_shape(x), constant(1, dtype=x.dtype.base_dtype), name=scope)


def size(input, name=None, out_type=_dt.int32):  # noqa: A002
    """Number of elements."""
    return apply_op("Size", [(input, "input")], {"out_type": _dt.as_dtype(out_type)},
                    name=name or "Size", dtypes=[_dt.as_dtype(out_type)], same_dtype=False)


def rank(input, name=None):  # noqa: A002
    """Number of dimensions."""
    return apply_op("Rank", [(input, "input")], name=name or "Rank", dtypes=[_dt.int32],
                    same_dtype=False)


# ------------------------------------------------------------------ Reshape
def _reshape_shape(op):
    target = const_value(op._inputs[1])
    if target is None:
        return [unknown_shape() if op._inputs[1].shape.ndims is None or op._inputs[1].shape[0].value is None
                else unknown_shape(op._inputs[1].shape[0].value)]
    dims = [int(d) for d in np.ravel(target)]
    n = op._inputs[0].shape.num_elements()
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1])) if len(dims) > 1 else 1
        if n is not None and known:
            if n % known:
                raise ValueError("Cannot reshape a tensor with %d elements to shape %s" % (n, dims))
            dims = [n // known if d == -1 else d for d in dims]
        else:
            dims = [None if d == -1 else d for d in dims]
    elif n is not None and int(np.prod(dims)) != n:
        raise ValueError("Cannot reshape a tensor with %d elements to shape %s (%d elements) for "
                         "'%s' (op: 'Reshape') with input shapes: %s, [%d]."
                         % (n, dims, int(np.prod(dims)), op.name, op._inputs[0].shape, len(dims)))
    return [TensorShape(dims)]


def _reshape_make(op, ctx):
    target = const_value(op._inputs[1])
    if target is not None:
        dims = tuple(int(d) for d in np.ravel(target))
        # The array method skips np.reshape's dispatch wrapper (a few microseconds a call).
        return lambda x, s: x.reshape(dims) if type(x) is np.ndarray else np.reshape(x, dims)
    # A shape array converts faster as a list (the gradients' Reshape(grad, Shape(x)) every step).
    return lambda x, s: x.reshape(s.tolist() if type(s) is np.ndarray else s) if type(x) is np.ndarray \
        else np.reshape(x, s)


def _reshape_grad(op, grad):
    return [reshape(grad, grad_shape(op._inputs[0])), None]


register_op("Reshape", make=_reshape_make, shape=_reshape_shape, grad=_reshape_grad)


def reshape(tensor, shape, name=None):  # noqa: F811 - TF's argument name
    """Same values in a new shape (one dim may be -1)."""
    with name_scope(name, "Reshape", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        s = convert_to_tensor(shape, dtype=_dt.int32, name="shape") if not isinstance(shape, Tensor) else shape
        return apply_op("Reshape", [(x, "tensor"), (s, "shape")], name=scope, dtypes=[x.dtype.base_dtype],
                        same_dtype=False)


# ------------------------------------------------------------------ Fill / zeros / ones
def _fill_shape(op):
    dims = const_value(op._inputs[0])
    if dims is None:
        n = op._inputs[0].shape
        return [unknown_shape(n[0].value) if n.ndims == 1 and n[0].value is not None else unknown_shape()]
    return [TensorShape([int(d) for d in np.ravel(dims)])]


# The Fill, BroadcastTo, Transpose and Tile gradients need reduce ops (above array): see array_grad.py.
register_op("Fill", fn=lambda dims, value: np.full(tuple(dims), value), shape=_fill_shape)


def fill(dims, value, name=None):
    """A tensor of shape dims filled with value."""
    with name_scope(name, "Fill", [dims, value]) as scope:
        # dims may be int32 or int64 (Fill's index_type), e.g. [x] for an int64 tensor x
        d = convert_to_tensor(dims, preferred_dtype=_dt.int32, name="dims")
        if d.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("fill() dims must be int32 or int64, got %s" % d.dtype.name)
        v = convert_to_tensor(value, name="value")
        return apply_op("Fill", [(d, "dims"), (v, "value")], name=scope, dtypes=[v.dtype.base_dtype],
                        same_dtype=False)


def _static_dims(shape_arg):
    if isinstance(shape_arg, Tensor):
        return None
    if isinstance(shape_arg, TensorShape):
        return shape_arg.as_list() if shape_arg.is_fully_defined() else None
    try:
        dims = [int(d) for d in (shape_arg if isinstance(shape_arg, (list, tuple, np.ndarray)) else [shape_arg])]
    except (TypeError, ValueError):
        return None
    return dims


def _const_filled(shape_arg, value, dtype, name, default):
    dtype = _dt.as_dtype(dtype).base_dtype
    dims = _static_dims(shape_arg)
    if dims is not None:
        return constant(np.full(dims, value, dtype=dtype.as_numpy_dtype), dtype=dtype, name=name or default)
    with name_scope(name, default, [shape_arg]) as scope:
        return fill(shape_arg, constant(value, dtype=dtype), name=scope)


def zeros(shape, dtype=_dt.float32, name=None):  # noqa: F811
    """A tensor of zeros."""
    return _const_filled(shape, 0, dtype, name, "zeros")


def ones(shape, dtype=_dt.float32, name=None):  # noqa: F811
    """A tensor of ones."""
    return _const_filled(shape, 1, dtype, name, "ones")


register_op("ZerosLike", fn=np.zeros_like, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)
register_op("OnesLike", fn=np.ones_like, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with tensor's shape (and dtype unless given)."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if dtype is not None and _dt.as_dtype(dtype).base_dtype is not x.dtype.base_dtype:
            return zeros(shape(x), dtype=dtype, name=scope)
        return apply_op("ZerosLike", [(x, "x")], name=scope)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with tensor's shape (and dtype unless given)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if dtype is not None and _dt.as_dtype(dtype).base_dtype is not x.dtype.base_dtype:
            return ones(shape(x), dtype=dtype, name=scope)
        return apply_op("OnesLike", [(x, "x")], name=scope)


# ------------------------------------------------------------------ Cast shorthands
def to_float(x, name="ToFloat"):
    """cast(x, float32)."""
    return cast(x, _dt.float32, name=name)


def to_int32(x, name="ToInt32"):
    """cast(x, int32)."""
    return cast(x, _dt.int32, name=name)


def to_int64(x, name="ToInt64"):
    """cast(x, int64)."""
    return cast(x, _dt.int64, name=name)


def to_double(x, name="ToDouble"):
    """cast(x, float64)."""
    return cast(x, _dt.float64, name=name)


# ------------------------------------------------------------------ broadcasting helpers
def _bga_kernel(s0, s1):
    n = max(len(s0), len(s1))
    a = np.concatenate([np.ones(n - len(s0), s0.dtype), s0])
    b = np.concatenate([np.ones(n - len(s1), s1.dtype), s1])
    r0 = np.nonzero((a == 1) & (b != 1) | ((a == 1) & (b == 1)))[0]
    r1 = np.nonzero((b == 1) & (a != 1) | ((a == 1) & (b == 1)))[0]
    return r0.astype(s0.dtype), r1.astype(s0.dtype)


register_op("BroadcastGradientArgs", fn=_bga_kernel, not_differentiable=True,
            shape=lambda op: [unknown_shape(1), unknown_shape(1)])


def broadcast_gradient_args(s0, s1, name=None):
    """Axes to sum over to undo broadcasting for each of two shapes."""
    return apply_op("BroadcastGradientArgs", [(s0, "s0"), (s1, "s1")], name=name or "BroadcastGradientArgs",
                    dtypes=[s0.dtype.base_dtype, s0.dtype.base_dtype])


def _broadcast_to_shape(op):
    dims = const_value(op._inputs[1])
    if dims is None:
        return [unknown_shape()]
    target = TensorShape([int(d) for d in np.ravel(dims)])
    broadcast_shapes(op._inputs[0].shape, target)
    return [target]


register_op("BroadcastTo", fn=lambda x, s: np.broadcast_to(x, tuple(s)), shape=_broadcast_to_shape)


def broadcast_to(input, shape, name=None):  # noqa: A002,F811
    """input broadcast to shape."""
    with name_scope(name, "BroadcastTo", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        s = convert_to_tensor(shape, dtype=_dt.int32, name="shape") if not isinstance(shape, Tensor) else shape
        return apply_op("BroadcastTo", [(x, "input"), (s, "shape")], name=scope,
                        dtypes=[x.dtype.base_dtype], same_dtype=False)


# ------------------------------------------------------------------ ExpandDims / Squeeze
def _expand_shape(op):
    axis = const_value(op._inputs[1])
    s = op._inputs[0].shape
    if axis is None or s.ndims is None:
        return [unknown_shape()]
    dims = s.as_list()
    a = int(np.ravel(axis)[0])
    a = a if a >= 0 else len(dims) + 1 + a
    return [TensorShape(dims[:a] + [1] + dims[a:])]


register_op("ExpandDims", fn=lambda x, a: np.expand_dims(x, int(np.ravel(a)[0])), shape=_expand_shape,
            grad=lambda op, g: [reshape(g, grad_shape(op._inputs[0])), None])


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """Insert a dimension of size 1 at axis."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("expand_dims needs axis (or dim)")
    with name_scope(name, "ExpandDims", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        a = convert_to_tensor(axis, dtype=_dt.int32, name="dim")
        return apply_op("ExpandDims", [(x, "input"), (a, "dim")], name=scope, dtypes=[x.dtype.base_dtype],
                        same_dtype=False)


def _squeeze_axes(op):
    return tuple(op._attrs.get("squeeze_dims") or ())


def _squeeze_shape(op):
    s = op._inputs[0].shape
    if s.ndims is None:
        return [unknown_shape()]
    axes = [a % s.ndims for a in _squeeze_axes(op)]
    dims = s.as_list()
    if axes:
        for a in axes:
            if dims[a] not in (1, None):
                raise ValueError("Can not squeeze dim[%d], expected a dimension of 1, got %d for "
                                 "'%s' with input shapes: %s." % (a, dims[a], op.name, s))
        return [TensorShape([d for i, d in enumerate(dims) if i not in axes])]
    if any(d is None for d in dims):
        return [unknown_shape()]
    return [TensorShape([d for d in dims if d != 1])]


def _squeeze_make(op, ctx):
    axes = _squeeze_axes(op)
    return (lambda x: np.squeeze(x, axis=axes)) if axes else np.squeeze


register_op("Squeeze", make=_squeeze_make, shape=_squeeze_shape,
            grad=lambda op, g: [reshape(g, grad_shape(op._inputs[0]))])


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Remove dimensions of size 1 (all, or those in axis)."""
    axis = squeeze_dims if axis is None else axis
    if isinstance(axis, int):
        axis = [axis]
    return apply_op("Squeeze", [(input, "input")], {"squeeze_dims": list(axis or [])}, name=name or "Squeeze")


# ------------------------------------------------------------------ Transpose / Tile
def _transpose_shape(op):
    perm = const_value(op._inputs[1])
    s = op._inputs[0].shape
    if perm is None or s.ndims is None:
        return [unknown_shape(s.ndims)]
    dims = s.as_list()
    return [TensorShape([dims[int(p)] for p in perm])]


register_op("Transpose", fn=lambda x, p: np.transpose(x, p), shape=_transpose_shape)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permute dimensions (reverse them when perm is None)."""
    with name_scope(name, "transpose", [a]) as scope:
        x = convert_to_tensor(a, name="a")
        if perm is None:
            if x.shape.ndims is not None:
                perm = list(range(x.shape.ndims - 1, -1, -1))
            else:
                perm = _reverse_range(x)
        p = convert_to_tensor(perm, dtype=_dt.int32, name="perm") if not isinstance(perm, Tensor) else perm
        return apply_op("Transpose", [(x, "x"), (p, "perm")], name=scope, dtypes=[x.dtype.base_dtype],
                        same_dtype=False)


def _reverse_range(x, ascending=False):
    """The axes of x as a run-time vector, last first (or first first), for an unknown rank."""
    r = rank(x)
    if ascending:
        return _range(0, r)
    return _range(subtract(r, 1), -1, -1)


def _tile_shape(op):
    m = const_value(op._inputs[1])
    s = op._inputs[0].shape
    if m is None or s.ndims is None:
        return [unknown_shape(s.ndims)]
    return [TensorShape([None if d is None else d * int(k) for d, k in zip(s.as_list(), m)])]


register_op("Tile", fn=lambda x, m: np.tile(x, tuple(m)), shape=_tile_shape)


def tile(input, multiples, name=None):  # noqa: A002
    """Repeat input multiples[i] times along dimension i."""
    with name_scope(name, "Tile", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        m = convert_to_tensor(multiples, dtype=_dt.int32, name="multiples") if not isinstance(multiples, Tensor) else multiples
        return apply_op("Tile", [(x, "input"), (m, "multiples")], name=scope, dtypes=[x.dtype.base_dtype],
                        same_dtype=False)


# ------------------------------------------------------------------ Pack / Unpack / Concat
def _pack_shape(op):
    axis = op._attrs["axis"]
    s = op._inputs[0].shape
    for t in op._inputs[1:]:
        s = s.merge_with(t.shape)
    if s.ndims is None:
        return [unknown_shape()]
    dims = s.as_list()
    a = axis if axis >= 0 else len(dims) + 1 + axis
    return [TensorShape(dims[:a] + [len(op._inputs)] + dims[a:])]


def _pack_grad(op, grad):
    return unstack(grad, num=len(op._inputs), axis=op._attrs["axis"])


register_op("Pack", make=lambda op, ctx: (lambda *xs, a=op._attrs["axis"]: np.stack(xs, axis=a)),
            shape=_pack_shape, grad=_pack_grad)


def stack(values, axis=0, name="stack"):
    """Stack a list of rank-R tensors into one rank-(R+1) tensor."""
    with name_scope(name, "stack", values) as scope:
        xs = [convert_to_tensor(v) for v in values]
        base = xs[0].dtype.base_dtype
        xs = [x if x.dtype.base_dtype is base else convert_to_tensor(x, dtype=base) for x in xs]
        rank_ = xs[0].shape.ndims
        if rank_ is not None and not -rank_ - 1 <= axis <= rank_:
            raise ValueError("axis = %d not in [%d, %d)" % (axis, -rank_ - 1, rank_ + 1))
        g = graph_of(xs)
        op = g._create_op("Pack", xs, [base], {"axis": axis, "N": len(xs), "T": base}, scope, frames_skip=3)
        return op._outputs[0]


def _unpack_shape(op):
    s = op._inputs[0].shape
    if s.ndims is None:
        return [unknown_shape()] * op._attrs["num"]
    dims = s.as_list()
    a = op._attrs["axis"] % len(dims)
    return [TensorShape(dims[:a] + dims[a + 1:])] * op._attrs["num"]


def _unpack_make(op, ctx):
    axis = op._attrs["axis"]
    if op._attrs["num"] == 1:  # one output: the plan expects the value itself, not a 1-tuple
        return lambda x: np.moveaxis(np.asarray(x), axis, 0)[0]
    return lambda x: tuple(np.moveaxis(np.asarray(x), axis, 0))


def _unpack_grad(op, *grads):
    grads = [g if g is not None else zeros_like(o) for g, o in zip(grads, op._outputs)]
    return [stack(grads, axis=op._attrs["axis"])]


register_op("Unpack", make=_unpack_make, shape=_unpack_shape, grad=_unpack_grad)


def unstack(value, num=None, axis=0, name="unstack"):
    """Split a rank-R tensor into a list of rank-(R-1) tensors along axis."""
    with name_scope(name, "unstack", [value]) as scope:
        x = convert_to_tensor(value)
        if num is None:
            s = x.shape
            if s.ndims is None or s[axis].value is None:
                raise ValueError("Cannot infer num from shape %s" % s)
            num = s[axis].value
        g = graph_of([x])
        op = g._create_op("Unpack", [x], [x.dtype.base_dtype] * num, {"num": num, "axis": axis, "T": x.dtype},
                          scope, frames_skip=3)
        return op.outputs


def _concat_shape(op):
    axis_v = const_value(op._inputs[-1])
    ins = op._inputs[:-1]
    if axis_v is None or any(t.shape.ndims is None for t in ins):
        return [unknown_shape(next((t.shape.ndims for t in ins if t.shape.ndims is not None), None))]
    rank_ = ins[0].shape.ndims
    a = int(axis_v) % rank_ if rank_ else 0
    dims = list(ins[0].shape.as_list())
    total = 0
    for t in ins:
        d = t.shape.as_list()
        if len(d) != rank_:
            raise ValueError("Shape must be rank %d but is rank %d for '%s' (op: 'ConcatV2')"
                             % (rank_, len(d), op.name))
        total = None if total is None or d[a] is None else total + d[a]
        for i in range(rank_):
            if i != a:
                if dims[i] is None:
                    dims[i] = d[i]
                elif d[i] is not None and d[i] != dims[i]:
                    raise ValueError("Dimension %d in both shapes must be equal, but are %d and %d "
                                     "for '%s' (op: 'ConcatV2')." % (i, dims[i], d[i], op.name))
    dims[a] = total
    return [TensorShape(dims)]


def _concat_grad(op, grad):
    """TF1.15's: axis % Rank, each input's Shape, ConcatOffset, then one Slice per input."""
    ins = op._inputs[:-1]
    axis = op._inputs[-1]
    r = ins[0].shape.ndims
    non_neg_axis = axis % (constant(r, name="Rank") if r is not None else rank(ins[0]))
    sizes = [grad_shape(t) for t in ins]
    offsets = concat_offset(non_neg_axis, sizes)
    return [_slice(grad, o, s) for o, s in zip(offsets, sizes)] + [None]


def cast_onehot(index, depth):
    """Int32 one-hot vector of length depth with a 1 at index."""
    return cast(equal(_range(0, depth), index), _dt.int32)


register_op("ConcatV2", fn=lambda *xs: np.concatenate(xs[:-1], axis=int(xs[-1])), shape=_concat_shape,
            grad=_concat_grad)


def concat(values, axis, name="concat"):
    """Join tensors along axis."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "concat", values) as scope:
        if len(values) == 1:
            return identity(values[0], name=scope)
        xs = [convert_to_tensor(v) for v in values]
        base = xs[0].dtype.base_dtype
        xs = [x if x.dtype.base_dtype is base else convert_to_tensor(x, dtype=base) for x in xs]
        a = convert_to_tensor(axis, dtype=_dt.int32, name="axis")
        g = graph_of(xs)
        op = g._create_op("ConcatV2", xs + [a], [base], {"N": len(xs), "T": base, "Tidx": _dt.int32},
                          scope, frames_skip=3)
        return op._outputs[0]


_ = (as_shape,)


def _pad_make(op, ctx):
    mode = op._attrs.get("mode", "CONSTANT")
    np_mode = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}[mode]
    if np_mode == "constant":
        return lambda x, p, c=0: np.pad(x, np.asarray(p), mode="constant", constant_values=c)
    return lambda x, p: np.pad(x, np.asarray(p), mode=np_mode)


def _pad_shape(op):
    x = op._inputs[0].shape
    p = const_value(op._inputs[1])
    if p is None or x.ndims is None:
        return [unknown_shape(x.ndims)]
    return [TensorShape([None if d is None else d + int(a) + int(b) for d, (a, b) in zip(x.as_list(), p)])]


def _pad_grad(op, grad):
    x, paddings = op._inputs[0], op._inputs[1]
    before = reshape(_slice(paddings, [0, 0], stack([rank(x), 1])), [-1])
    grads = [_slice(grad, before, shape(x)), None]
    return grads + [None] * (len(op._inputs) - 2)


register_op("Pad", make=_pad_make, shape=_pad_shape, grad=_pad_grad)
register_op("PadV2", make=_pad_make, shape=_pad_shape, grad=_pad_grad)
register_op("MirrorPad", make=_pad_make, shape=_pad_shape, grad=None, not_differentiable=True)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):  # noqa: F811
    """Pad with paddings[i] = [before, after] per dimension (CONSTANT, REFLECT or SYMMETRIC)."""
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError("Unknown padding mode: %s" % mode)
    with name_scope(name, "Pad", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        p = convert_to_tensor(paddings, dtype=_dt.int32, name="paddings") if not isinstance(paddings, Tensor) else paddings
        if mode == "CONSTANT":
            if isinstance(constant_values, Tensor) or constant_values != 0:
                c = convert_to_tensor(constant_values, dtype=x.dtype.base_dtype, name="constant_values")
                return apply_op("PadV2", [(x, "input"), (p, "paddings"), (c, "constant_values")],
                                {"mode": mode}, name=scope, dtypes=[x.dtype.base_dtype], same_dtype=False)
            return apply_op("Pad", [(x, "input"), (p, "paddings")], {"mode": mode}, name=scope,
                            dtypes=[x.dtype.base_dtype], same_dtype=False)
        return apply_op("MirrorPad", [(x, "input"), (p, "paddings")], {"mode": mode}, name=scope,
                        dtypes=[x.dtype.base_dtype], same_dtype=False)


def pad_op_for_slice_grad(grad, paddings):
    """Pad grad back to the sliced input's shape (Slice's gradient)."""
    return apply_op("Pad", [(grad, "input"), (paddings, "paddings")], {"mode": "CONSTANT"}, name="Pad",
                    dtypes=[grad.dtype.base_dtype], same_dtype=False)


# TF1's autopacking: [t1, 2.0, t3] converts to a Pack of its elements.
def _holds_tensor(value):
    return any(isinstance(v, Tensor) or hasattr(v, "_as_graph_element") or
               (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in value)


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    """convert_to_tensor for lists and tuples holding tensors; others are left to constant()."""
    return _autopack(value, dtype, name) if _holds_tensor(value) else NotImplemented


def _autopack(value, dtype, name):
    """A list mixing tensors and numbers becomes a Pack of its elements (TF1's 'packed')."""
    with name_scope(name, "packed", [v for v in value if isinstance(v, Tensor)]) as scope:
        if dtype is None:
            dtype = next(v.dtype.base_dtype for v in _flat(value) if isinstance(v, Tensor) or hasattr(v, "dtype"))
        elems = [_autopack(v, dtype, None) if isinstance(v, (list, tuple)) and _holds_tensor(v)
                 else convert_to_tensor(v, dtype=dtype) for v in value]
        return stack(elems, name=scope)


def _flat(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


register_tensor_conversion_function((list, tuple), _autopacking_conversion)
