"""Reductions (sum, mean, max, min, prod, any, all, logsumexp), argmax/argmin, invert_permutation, reduce_to."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import unknown_shape
from lens.ops import array as A
from lens.ops.array import _reverse_range  # lives beside transpose, which needs it too
from lens.ops.core import stop_gradient
from lens.ops.logic import equal, is_finite, where
from lens.ops.math import add_v2, exp, floordiv, floormod, log, maximum, multiply, real_div, subtract
from lens.ops.sequence import range as _range
from lens.ops.shapes import const_value, normalize_axes, reduced_shape
from lens.ops.slicing import dynamic_stitch


def _axes_of(op):
    v = const_value(op._inputs[1])
    return None if v is None else v


def _reduce_shape(op):
    axes = _axes_of(op)
    keep = op._attrs.get("keep_dims", False)
    s = op._inputs[0].shape
    if axes is None:
        return [unknown_shape(s.ndims if keep else None)]
    if s.ndims is not None:
        for a in np.ravel(axes):
            if not -s.ndims <= int(a) < max(s.ndims, 1):
                raise ValueError("Invalid reduction dimension %d for input with %d dimensions. for "
                                 "'%s' (op: '%s')" % (int(a), s.ndims, op.name, op.type))
    return [reduced_shape(s, np.ravel(axes), keep)]


def _make_reduce(np_fn, out_dtype=None):
    def make(op, ctx):
        keep = op._attrs.get("keep_dims", False)
        axes = _axes_of(op)
        cast_to = None if out_dtype is None else out_dtype
        if axes is not None:
            ax = tuple(int(a) for a in np.ravel(axes))

            def run(x, _a):
                r = x if not ax and type(x) is np.ndarray else np_fn(x, axis=ax, keepdims=keep)
                return r if cast_to is None else np.asarray(r, dtype=cast_to)
            return run

        def run_dyn(x, a):
            ax = tuple(a.tolist()) if type(a) is np.ndarray and a.ndim == 1 else tuple(np.ravel(a).tolist())
            # No axes (a broadcasting gradient where nothing was broadcast): TF forwards the input.
            r = x if not ax and type(x) is np.ndarray else np_fn(x, axis=ax, keepdims=keep)
            return r if cast_to is None else np.asarray(r, dtype=cast_to)
        return run_dyn
    return make


def _typed(np_fn):
    # numpy promotes float32 means of ints etc.; TF keeps the input dtype.
    def fn(x, axis, keepdims):
        x = np.asarray(x)
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims)).astype(x.dtype, copy=False)
    return fn


def _static_reduce_info(op):
    x = op._inputs[0]
    axes = _axes_of(op)
    if axes is None or not x.shape.is_fully_defined():
        return None
    dims = x.shape.as_list()
    ax = normalize_axes(axes, len(dims))
    kept = [1 if i in ax else d for i, d in enumerate(dims)]
    return dims, ax, kept


def _broadcast_back(op, grad):
    """grad of a reduction broadcast back to the input's shape."""
    x = op._inputs[0]
    info = _static_reduce_info(op)
    if info is not None:
        dims, _, kept = info
        g = A.reshape(grad, kept)
        if kept == dims:
            return g
        return A.broadcast_to(g, dims)
    xs = A.shape(x)
    kept = reduced_shape_op(xs, op._inputs[1])
    return A.broadcast_to(A.reshape(grad, kept), xs)


def reduced_shape_op(input_shape, axes):
    """input_shape with the reduced axes set to 1 (a graph computation, as TF1's reduced_shape)."""
    input_shape = A.cast(input_shape, _dt.int32)
    axes = A.cast(axes, _dt.int32)
    r = A.size(input_shape)
    axes = floormod(add_v2(axes, r), r)
    return dynamic_stitch([_range(0, r), axes], [input_shape, A.fill(A.shape(axes), 1)])


def reduce_to(grad, x, y):
    """(grad summed to x's shape, grad summed to y's shape) undoing broadcasting, TF1-style."""
    sx = A.grad_shape(x)
    sy = A.grad_shape(y)
    rx, ry = A.broadcast_gradient_args(sx, sy)
    return (A.reshape(reduce_sum(grad[0], rx), sx), A.reshape(reduce_sum(grad[1], ry), sy))


def smart_reduce_to(grad, x, y):
    """TF1.15's SmartBroadcastGradientArgs path: with static shapes, Sum + Reshape by constants, and
    only for a side whose shape differs from the output's; else as reduce_to."""
    if not (x.shape.is_fully_defined() and y.shape.is_fully_defined()):
        return reduce_to(grad, x, y)
    xs, ys = x.shape.as_list(), y.shape.as_list()
    rx, ry = A._bga_kernel(np.asarray(xs, np.int32), np.asarray(ys, np.int32))
    res = []
    for g, dims, axes in ((grad[0], xs, rx), (grad[1], ys, ry)):
        same = g.shape.is_fully_defined() and dims == g.shape.as_list()
        res.append(g if same else A.reshape(reduce_sum(g, tuple(int(a) for a in axes)), dims))
    return tuple(res)


def _tiled_back(op, grad):
    """TF1.15's _SumGrad: grad reshaped to the kept-dims shape, then Tiled (constants when shapes are static)."""
    x = op._inputs[0]
    axes = _axes_of(op)
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    if axes is not None and dims is not None and np.array_equal(axes, np.arange(len(dims))):
        # Every dimension reduced: Reshape to ones, Tile by the input's shape.
        g = A.reshape(grad, [1] * len(dims))
        full = None not in dims
        multiples = convert_to_tensor(np.asarray(dims, np.int32)) if full else A.shape(x)
        return A.tile(g, multiples)
    info = _static_reduce_info(op)
    if info is not None:
        dims, _, kept = info
        g = A.reshape(grad, kept)
        return A.tile(g, [d // max(k, 1) for d, k in zip(dims, kept)])
    xs = A.shape(x)
    kept = reduced_shape_op(xs, op._inputs[1])
    return A.tile(A.reshape(grad, kept), floordiv(xs, maximum(kept, 1)))


def _sum_grad(op, grad):
    return [_tiled_back(op, grad), None]


def _mean_grad(op, grad):
    """TF1.15's: Sum's gradient divided (truediv) by the number of elements each output averages."""
    g = _tiled_back(op, grad)
    x, y = op._inputs[0], op._outputs[0]
    dtype = g.dtype.base_dtype
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        factor = convert_to_tensor(x.shape.num_elements() // max(y.shape.num_elements(), 1), dtype=dtype)
    else:
        factor = A.cast(floordiv(reduce_prod(A.shape(x)), _maximum1(reduce_prod(A.shape(y)))), dtype)
    return [g / factor, None]


def _maximum1(t):
    return maximum(t, 1)


def _minmax_grad(op, grad):
    """TF's _MinOrMaxGrad: y and grad reshaped to the kept-dims shape, the input's hits (Equal, Cast)
    share grad evenly: indicators / their count (Sum, Reshape_2) * grad."""
    x = op._inputs[0]
    xs = A.grad_shape(x)
    info = _static_reduce_info(op)
    kept = info[2] if info is not None else reduced_shape_op(xs, op._inputs[1])
    y = A.reshape(op._outputs[0], kept)
    grad = A.reshape(grad, kept)
    indicators = A.cast(equal(y, x), grad.dtype.base_dtype)
    num_selected = A.reshape(reduce_sum(indicators, op._inputs[1]), kept)
    return [indicators / num_selected * grad, None]


def _prod_grad(op, grad):
    # d prod / d x_i = prod / x_i (exact for non-zero inputs).
    x = op._inputs[0]
    y = _broadcast_back(op, op._outputs[0])
    return [multiply(_broadcast_back(op, grad), real_div(y, x)), None]


def _tf_order_sum(x, axis, keepdims):
    """Sum; float32 full reductions add in TF's CPU order so results match TF to the last bit."""
    x = np.asarray(x)
    partial = len({a % x.ndim for a in axis}) != x.ndim
    if partial and x.dtype.kind == "f":
        # What np.sum runs, without its dispatch wrapper (gradients sum broadcast axes every step).
        return np.add.reduce(x, axis=axis, keepdims=keepdims)
    if x.dtype != np.float32 or not 8 <= x.size <= _TF_ORDER_MAX or partial:
        return np.asarray(np.sum(x, axis=axis, keepdims=keepdims)).astype(x.dtype, copy=False)
    flat = x.ravel()
    n8 = flat.size - flat.size % 8
    # TF (Eigen) accumulates 8 SIMD lanes sequentially, folds them pairwise, then adds the tail.
    lane = np.add.reduce(flat[:n8].reshape(-1, 8), axis=0)
    total = ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]))
    tail = np.float32(0)
    for v in flat[n8:]:
        tail = tail + v
    out = np.float32(total + tail)
    return np.reshape(out, (1,) * x.ndim) if keepdims else out


_TF_ORDER_MAX = 1 << 16  # beyond this TF splits the work across threads; NumPy's pairwise sum is used


register_op("Sum", make=_make_reduce(_tf_order_sum), shape=_reduce_shape, grad=_sum_grad)


def make_sum_reshape(members, ctx, fed=()):
    """Kernel of a fused Sum -> Reshape chain (a broadcasting gradient's reduce-then-reshape back
    to the input's shape, run for every bias every step): run(x, axes, shape), one call.

    The common cases run inline with Sum's exact arithmetic (no axes: the input itself; float
    partial sums: np.add.reduce); anything else goes through the two ops' own kernels."""
    sum_op, reshape_op = members
    sum_k, reshape_k = sum_op._op_def.make(sum_op, ctx), reshape_op._op_def.make(reshape_op, ctx)
    keep = sum_op._attrs.get("keep_dims", False)
    ndarray, add_reduce = np.ndarray, np.add.reduce

    def run(x, axes, shape):
        if type(x) is ndarray and type(axes) is ndarray and type(shape) is ndarray and axes.ndim == 1 \
                and shape.ndim == 1 and x.ndim:
            ax = tuple(axes.tolist())
            if not ax:      # nothing was broadcast: TF forwards the gradient
                return x.reshape(shape.tolist())
            n = x.ndim
            if x.dtype.kind == "f" and len({a % n for a in ax}) != n:
                return add_reduce(x, axis=ax, keepdims=keep).reshape(shape.tolist())
        return reshape_k(sum_k(x, axes), shape)
    return run
def _mean(x, axis, keepdims):
    """np.mean's values (float sums in the input's dtype, divided in float64) without its wrappers."""
    if type(x) is np.ndarray and x.dtype in _FLOAT_DTYPES and x.size:
        total = np.add.reduce(x, axis=axis, keepdims=keepdims)
        count = x.size // total.size    # a non-empty x reduces to a non-empty total
        if count <= _EXACT_F32_COUNT or x.dtype == _F64:
            # One division in the input's dtype: a float32 quotient is correctly rounded, so it
            # equals the float64 quotient rounded to float32 (double rounding is harmless for
            # division at these precisions) as long as the count itself is exact in float32.
            q = np.true_divide(total, x.dtype.type(count))
            return q if type(q) is np.ndarray else np.asarray(q)
        return np.asarray(np.true_divide(total, np.float64(count))).astype(x.dtype, copy=False)
    return _typed(np.mean)(x, axis, keepdims)


_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_F64 = np.dtype(np.float64)
_EXACT_F32_COUNT = 1 << 24     # every count up to this is a float32 integer


register_op("Mean", make=_make_reduce(_mean), shape=_reduce_shape, grad=_mean_grad)
register_op("Max", make=_make_reduce(np.max), shape=_reduce_shape, grad=_minmax_grad)
register_op("Min", make=_make_reduce(np.min), shape=_reduce_shape, grad=_minmax_grad)
register_op("Prod", make=_make_reduce(_typed(np.prod)), shape=_reduce_shape, grad=_prod_grad)
register_op("Any", make=_make_reduce(np.any), shape=_reduce_shape, not_differentiable=True)
register_op("All", make=_make_reduce(np.all), shape=_reduce_shape, not_differentiable=True)


def _reduce(op_type, input_tensor, axis, keepdims, name, default_name, reduction_indices=None,
            keep_dims=None):
    if reduction_indices is not None:
        axis = reduction_indices
    if keep_dims is not None:
        keepdims = keep_dims
    keepdims = bool(keepdims)
    with name_scope(name, default_name, [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        if op_type in ("Any", "All") and x.dtype.base_dtype is not _dt.bool:
            raise TypeError("%s expects a bool tensor, got %s" % (op_type, x.dtype.name))
        if axis is None:
            if x.shape.ndims is not None:
                axis = list(range(x.shape.ndims))
            else:
                axis = _reverse_range(x, ascending=True)
        a = convert_to_tensor(axis, dtype=_dt.int32, name="reduction_indices") if not isinstance(axis, Tensor) else axis
        return apply_op(op_type, [(x, "input"), (a, "reduction_indices")], {"keep_dims": keepdims, "T": x.dtype},
                        name=scope, dtypes=[x.dtype.base_dtype], same_dtype=False)


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """Sum over axis (all axes when None)."""
    return _reduce("Sum", input_tensor, axis, keepdims, name, "Sum", reduction_indices, keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """Mean over axis (integer inputs give an integer mean, as TF1)."""
    return _reduce("Mean", input_tensor, axis, keepdims, name, "Mean", reduction_indices, keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """Max over axis."""
    return _reduce("Max", input_tensor, axis, keepdims, name, "Max", reduction_indices, keep_dims)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """Min over axis."""
    return _reduce("Min", input_tensor, axis, keepdims, name, "Min", reduction_indices, keep_dims)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """Product over axis."""
    return _reduce("Prod", input_tensor, axis, keepdims, name, "Prod", reduction_indices, keep_dims)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """Logical or over axis."""
    return _reduce("Any", input_tensor, axis, keepdims, name, "Any", reduction_indices, keep_dims)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """Logical and over axis."""
    return _reduce("All", input_tensor, axis, keepdims, name, "All", reduction_indices, keep_dims)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) over axis, computed stably."""
    if keep_dims is not None:
        keepdims = keep_dims
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor)
        raw_max = reduce_max(x, axis, keepdims=True, reduction_indices=reduction_indices)
        my_max = stop_gradient(where(is_finite(raw_max), raw_max, A.zeros_like(raw_max)))
        result = log(reduce_sum(exp(subtract(x, my_max)), axis, keepdims=keepdims,
                                reduction_indices=reduction_indices))
        if not keepdims:
            my_max = A.reshape(my_max, A.shape(result))
        return add_v2(result, my_max, name=scope)


def _argminmax(op_type, np_fn):
    def make(op, ctx):
        out = op._attrs["output_type"].as_numpy_dtype
        return lambda x, a: np.asarray(np_fn(x, axis=int(a)), dtype=out)

    def shape(op):
        a = const_value(op._inputs[1])
        s = op._inputs[0].shape
        if a is None or s.ndims is None:
            return [unknown_shape()]
        a = int(a) % s.ndims
        return [A.TensorShape([d for i, d in enumerate(s.as_list()) if i != a])]
    register_op(op_type, make=make, shape=shape, not_differentiable=True)


_argminmax("ArgMax", np.argmax)
_argminmax("ArgMin", np.argmin)


def _arg(op_type, input, axis, name, dimension, output_type):  # noqa: A002
    if dimension is not None:
        axis = dimension
    if axis is None:
        axis = 0
    out = _dt.as_dtype(output_type)
    with name_scope(name, op_type, [input]) as scope:
        x = convert_to_tensor(input, name="input")
        a = convert_to_tensor(axis, dtype=_dt.int32, name="dimension")
        return apply_op(op_type, [(x, "input"), (a, "dimension")], {"output_type": out}, name=scope,
                        dtypes=[out], same_dtype=False)


def argmax(input, axis=None, name=None, dimension=None, output_type=_dt.int64):  # noqa: A002
    """Index of the largest value along axis (int64 by default, as TF1)."""
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=_dt.int64):  # noqa: A002
    """Index of the smallest value along axis."""
    return _arg("ArgMin", input, axis, name, dimension, output_type)


def arg_max(input, dimension, output_type=_dt.int64, name=None):  # noqa: A002
    """TF1's tf.arg_max: argmax with a required dimension (the raw ArgMax op's signature)."""
    return _arg("ArgMax", input, dimension, name, None, output_type)


def arg_min(input, dimension, output_type=_dt.int64, name=None):  # noqa: A002
    """TF1's tf.arg_min: argmin with a required dimension."""
    return _arg("ArgMin", input, dimension, name, None, output_type)


register_op("InvertPermutation", fn=lambda p: np.argsort(p).astype(np.asarray(p).dtype),
            shape=lambda op: [op._inputs[0].shape], not_differentiable=True)


def invert_permutation(x, name=None):
    """The inverse of a permutation vector."""
    return apply_op("InvertPermutation", [(x, "x")], name=name or "InvertPermutation")
