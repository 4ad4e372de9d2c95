"""Core tf.nn ops: activations, softmax, bias_add, losses, moments, l2_normalize, dropout."""
import numbers

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.conv_np import Recycler, add_bias_inplace, relu_into, scratch
from lens.ops.logic import greater, greater_equal, logical_and, less, where
from lens.ops.math import sigmoid, tanh  # noqa: F401 - tf.nn re-exports them
from lens.ops.reduce import reduce_mean, reduce_sum
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops.shapes import broadcast_shapes

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _same_shape(op):
    return [op._inputs[0].shape]


def _c(value, like):
    """A constant of like's dtype (keeps float32 graphs float32)."""
    return convert_to_tensor(value, dtype=like.dtype.base_dtype)


def _typed(fn):
    """Wrap a NumPy expression so the result keeps the input's dtype."""
    return lambda x: np.asarray(fn(np.asarray(x))).astype(np.asarray(x).dtype, copy=False)


def _mask_grad(grad, cond):
    return where(cond, grad, A.zeros_like(grad))


# ------------------------------------------------------------------ activations
def _relu(x, out=None):
    x = np.asarray(x)
    if x.dtype in (np.float32, np.float64):
        if not x.flags.c_contiguous:
            return np.maximum(x, 0)
        return relu_into(x, np.empty(x.shape, x.dtype) if out is None else out)
    return np.asarray(np.maximum(x, 0)).astype(x.dtype, copy=False)


# Outputs from this size up go into the op's previous output once nothing holds it any more
# (fresh big blocks may come as new pages from the system, each faulted in and zeroed).
RECYCLE_MIN_BYTES = 1 << 16


def _relu_make(op, ctx):
    recycler = Recycler(RECYCLE_MIN_BYTES)

    def run(x):
        if type(x) is not np.ndarray or x.nbytes < RECYCLE_MIN_BYTES or not x.flags.c_contiguous:
            return _relu(x)
        return recycler.give(_relu(x, recycler.take(x.shape, x.dtype)))
    return run


def _relu_grad_make(op, ctx):
    recycler = Recycler(RECYCLE_MIN_BYTES)

    def run(g, f):
        # A multiply by the mask, as TF's kernel does (8x faster than np.where; NaN * 0 stays NaN).
        dtype = np.result_type(g)
        if type(g) is not np.ndarray or g.nbytes < RECYCLE_MIN_BYTES or np.shape(f) != g.shape:
            return np.multiply(g, np.greater(f, 0), dtype=dtype)
        mask = np.greater(f, 0, out=scratch("relu_grad_mask", g.shape, np.bool_))
        out = recycler.take(g.shape, dtype)
        return recycler.give(np.multiply(g, mask, dtype=dtype, out=out))
    return run


def _writable_float(x):
    """True for an array a kernel given it by the plan may overwrite with a float result."""
    return type(x) is np.ndarray and x.dtype in _FLOAT_DTYPES and x.flags.writeable and x.flags.c_contiguous


_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# relu_into's arithmetic on the float's bits, per float dtype: (signed int view, the int of -inf).
_RELU_BITS = {np.dtype(t): (np.dtype(i), np.array(-np.inf, t).view(i)[()])
              for t, i in ((np.float32, np.int32), (np.float64, np.int64))}
_RELU_MIN_SIZE = 1024           # below this relu_into takes np.maximum
_RELU_SCRATCH_SIZE = 1 << 18    # masks from this size up go in a reused per-thread buffer


def _relu_inplace(op, ctx, donated):
    """Relu over a donated buffer (the bias add's output), in place."""
    plain = _relu_make(op, ctx)
    ndarray, greater, multiply = np.ndarray, np.greater, np.multiply

    def run(x):
        bits = _RELU_BITS.get(x.dtype) if type(x) is ndarray else None
        if bits is not None and x.size >= _RELU_MIN_SIZE and x.flags.writeable and x.flags.c_contiguous:
            # relu_into(x, x) without its checks: zero the values whose int view is at most -inf's.
            xi = x.view(bits[0])
            keep = greater(xi, bits[1]) if x.size < _RELU_SCRATCH_SIZE else \
                greater(xi, bits[1], out=scratch("relu_keep", x.shape, np.bool_))
            multiply(xi, keep, out=xi)
            return x
        return relu_into(x, x) if _writable_float(x) else plain(x)
    return run


def _relu_grad_inplace(op, ctx, donated):
    """ReluGrad multiplying a donated incoming gradient by the mask in place."""
    plain = _relu_grad_make(op, ctx)
    if 0 not in donated:
        return plain

    ndarray, greater, multiply = np.ndarray, np.greater, np.multiply

    def run(g, f):
        if type(g) is ndarray and type(f) is ndarray and g.dtype in _FLOAT_DTYPES and f.shape == g.shape \
                and g.flags.writeable and g.flags.c_contiguous:
            # A small mask costs less fresh than through the per-thread buffer's lookup.
            mask = greater(f, 0) if g.size < _RELU_SCRATCH_SIZE else \
                greater(f, 0, out=scratch("relu_grad_mask", g.shape, np.bool_))
            return multiply(g, mask, out=g)
        return plain(g, f)
    return run


register_op("Relu", make=_relu_make, shape=_same_shape, inplace=_relu_inplace,
            grad=lambda op, g: [relu_grad(g, op._outputs[0])])
register_op("ReluGrad", make=_relu_grad_make, inplace=_relu_grad_inplace,
            shape=_same_shape,
            grad=lambda op, gg: [relu_grad(gg, op._inputs[1]), A.zeros_like(op._inputs[1])])


def relu_grad(gradients, features, name=None):
    """gradients where features > 0, else 0 (Relu's gradient op)."""
    return apply_op("ReluGrad", [(gradients, "gradients"), (features, "features")], name=name or "ReluGrad")


def relu(features, name=None):
    """max(features, 0)."""
    return apply_op("Relu", [(features, "features")], name=name or "Relu")


def _relu6_grad(op, g):
    x = op._inputs[0]
    return [_mask_grad(g, logical_and(greater(x, _c(0, x)), less(x, _c(6, x))))]


register_op("Relu6", fn=_typed(lambda x: np.clip(x, 0, 6)), shape=_same_shape, grad=_relu6_grad)


def relu6(features, name=None):
    """min(max(features, 0), 6)."""
    with name_scope(name, "Relu6", [features]) as scope:
        x = convert_to_tensor(features, name="features")
        return apply_op("Relu6", [(x, "features")], name=scope)


def _leaky_make(op, ctx):
    alpha = op._attrs["alpha"]
    return _typed(lambda x: np.where(x > 0, x, x * alpha))


def _leaky_grad(op, g):
    x = op._inputs[0]
    return [M.multiply(g, where(greater(x, _c(0, x)), A.ones_like(x), A.fill(A.shape(x), _c(op._attrs["alpha"], x))))]


register_op("LeakyRelu", make=_leaky_make, shape=_same_shape, grad=_leaky_grad)


def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, alpha * features elsewhere."""
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        x = convert_to_tensor(features, name="features")
        if x.dtype.is_integer:
            x = A.cast(x, _dt.float32)
        if isinstance(alpha, Tensor):   # a tensor alpha: TF1 composes maximum(alpha * x, x)
            return M.maximum(M.multiply(alpha, x), x, name=scope)
        return apply_op("LeakyRelu", [(x, "features")], {"alpha": float(alpha), "T": x.dtype.base_dtype},
                        name=scope)


def _elu_grad(op, g):
    x, y = op._inputs[0], op._outputs[0]
    return [M.multiply(g, where(greater(x, _c(0, x)), A.ones_like(x), M.add_v2(y, _c(1, y))))]


register_op("Elu", fn=_typed(lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))), shape=_same_shape,
            grad=_elu_grad)


def elu(features, name=None):
    """features where positive, exp(features) - 1 elsewhere."""
    return apply_op("Elu", [(features, "features")], name=name or "Elu")


def _selu_grad(op, g):
    x, y = op._inputs[0], op._outputs[0]
    neg = M.add_v2(y, _c(_SELU_SCALE * _SELU_ALPHA, y))
    return [M.multiply(g, where(greater(x, _c(0, x)), A.fill(A.shape(x), _c(_SELU_SCALE, x)), neg))]


register_op("Selu", fn=_typed(lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(np.minimum(x, 0)))),
            shape=_same_shape, grad=_selu_grad)


def selu(features, name=None):
    """Scaled ELU with the self-normalizing constants."""
    return apply_op("Selu", [(features, "features")], name=name or "Selu")


register_op("Softplus", fn=_typed(lambda x: np.logaddexp(0, x)), shape=_same_shape,
            grad=lambda op, g: [M.multiply(g, sigmoid(op._inputs[0]))])


def softplus(features, name=None):
    """log(exp(features) + 1), computed stably."""
    return apply_op("Softplus", [(features, "features")], name=name or "Softplus")


def _softsign_grad(op, g):
    x = op._inputs[0]
    return [M.real_div(g, M.square(M.add_v2(_c(1, x), M.abs(x))))]


register_op("Softsign", fn=_typed(lambda x: x / (1 + np.abs(x))), shape=_same_shape, grad=_softsign_grad)


def softsign(features, name=None):
    """features / (|features| + 1)."""
    return apply_op("Softsign", [(features, "features")], name=name or "Softsign")


# ------------------------------------------------------------------ softmax
def _softmax_np(x):
    z = x - np.max(x, axis=-1, keepdims=True)   # shift so exp never overflows
    e = np.exp(z)
    return (e / np.sum(e, axis=-1, keepdims=True)).astype(x.dtype, copy=False)


def _log_softmax_np(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    return (z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))).astype(x.dtype, copy=False)


def _rank1_shape(op):
    s = op._inputs[0].shape
    if s.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for '%s' (op: '%s')" % (op.name, op.type))
    return [s]


def _softmax_grad(op, g):
    # Operators, as TF1.15's: Softmax_grad/mul, Sum, sub, mul_1.
    y = op._outputs[0]
    return [(g - reduce_sum(g * y, -1, keepdims=True)) * y]


def _log_softmax_grad(op, g):
    # TF1.15's: LogSoftmax_grad/Exp, Sum, mul, sub.
    softmax = M.exp(op._outputs[0])
    return [g - reduce_sum(g, -1, keepdims=True) * softmax]


register_op("Softmax", fn=lambda x: _softmax_np(np.asarray(x)), shape=_rank1_shape, grad=_softmax_grad)
register_op("LogSoftmax", fn=lambda x: _log_softmax_np(np.asarray(x)), shape=_rank1_shape,
            grad=_log_softmax_grad)


def _softmax_along(op_type, logits, axis, name):
    x = convert_to_tensor(logits)
    rank = x.shape.ndims
    if axis is None or axis == -1 or (rank is not None and axis == rank - 1):
        return apply_op(op_type, [(x, "logits")], name=name or op_type)
    if rank is None:
        raise ValueError("%s along axis %d needs a tensor of known rank" % (op_type, axis))
    if not -rank <= axis < rank:
        raise ValueError("`axis` %d is out of bounds for a rank-%d tensor" % (axis, rank))
    axis %= rank
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]   # the swap is its own inverse
    out = apply_op(op_type, [(A.transpose(x, perm), "logits")])
    return A.transpose(out, perm, name=name or "transpose")


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / sum(exp(logits)) along axis (last by default), computed stably."""
    return _softmax_along("Softmax", logits, dim if axis is None else axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(sum(exp(logits))) along axis, computed stably."""
    return _softmax_along("LogSoftmax", logits, dim if axis is None else axis, name)


# ------------------------------------------------------------------ bias_add
def _channel_axis(op, rank):
    return 1 if op._attrs.get("data_format", "NHWC") in ("NCHW", "NCDHW") and rank > 2 else rank - 1


def _bias_make(op, ctx):
    def run(x, b):
        x = np.asarray(x)
        c = _channel_axis(op, x.ndim)
        shape = [1] * x.ndim
        shape[c] = -1
        return x + np.reshape(b, shape)
    return run


def _bias_shape(op):
    x, b = op._inputs[0].shape, op._inputs[1].shape
    if x.ndims is not None:
        if x.ndims < 2:
            raise ValueError("Shape must be at least rank 2 but is rank %d for '%s' (op: 'BiasAdd')"
                             % (x.ndims, op.name))
        c = x.as_list()[_channel_axis(op, x.ndims)]
        n = b.as_list()[0] if b.ndims == 1 else None
        if c is not None and n is not None and c != n:
            raise ValueError("Dimensions must be equal, but are %d and %d for '%s' (op: 'BiasAdd') with "
                             "input shapes: %s, %s." % (c, n, op.name, x, b))
    return [x]


def _bias_grad(op, g):
    return [g, bias_add_grad(g, data_format=op._attrs.get("data_format", "NHWC"))]


def _bias_inplace(op, ctx, donated):
    """BiasAdd into a donated value buffer (a product nobody else reads), in place."""
    plain = _bias_make(op, ctx)
    if 0 not in donated:
        return plain

    def run(x, b):
        if _writable_float(x) and type(b) is np.ndarray and b.dtype == x.dtype and b.ndim == 1 \
                and x.ndim >= 2 and x.shape[_channel_axis(op, x.ndim)] == b.shape[0]:
            c = _channel_axis(op, x.ndim)
            if c == x.ndim - 1:
                add_bias_inplace(x.reshape(-1, b.shape[0]), b)
                return x
            shape = [1] * x.ndim
            shape[c] = -1
            return np.add(x, b.reshape(shape), out=x)
        return plain(x, b)
    return run


register_op("BiasAdd", make=_bias_make, shape=_bias_shape, grad=_bias_grad, inplace=_bias_inplace)


# Summing a (rows, C) array down its rows with a small C makes NumPy's inner loop only C long;
# summing (rows / k, k * C) rows of about this many values and folding the k partial sums is
# several times faster (and, with fewer terms per running sum, a little more accurate).
_BIAS_GRAD_ROW = 512


def channel_sums(g2):
    """Column sums of a C-contiguous (rows, C) array, read in long rows."""
    rows, c = g2.shape
    k = _BIAS_GRAD_ROW // max(c, 1)
    if k < 2 or rows < 2 * k or not g2.flags.c_contiguous:
        return g2.sum(0)
    main = rows - rows % k
    total = g2[:main].reshape(-1, k * c).sum(0).reshape(k, c).sum(0)
    if main < rows:
        total += g2[main:].sum(0)
    return total


def _bias_grad_make(op, ctx):
    def run(g):
        g = np.asarray(g)
        c = _channel_axis(op, g.ndim)
        if c == g.ndim - 1 and g.ndim >= 2 and g.flags.c_contiguous and g.dtype.kind == "f":
            return channel_sums(g.reshape(-1, g.shape[-1])).astype(g.dtype, copy=False)
        return np.sum(g, axis=tuple(i for i in range(g.ndim) if i != c)).astype(g.dtype, copy=False)
    return run


def _bias_grad_shape(op):
    s = op._inputs[0].shape
    if s.ndims is None:
        return [unknown_shape(1)]
    return [TensorShape([s.as_list()[_channel_axis(op, s.ndims)]])]


def _bias_grad_grad(op, gg):
    g = op._inputs[0]
    rank = g.shape.ndims
    if rank is None:
        raise ValueError("lens differentiates BiasAddGrad %r only for inputs of known rank" % op.name)
    shape = [1] * rank
    shape[_channel_axis(op, rank)] = -1
    return [A.broadcast_to(A.reshape(gg, shape), A.shape(g))]


register_op("BiasAddGrad", make=_bias_grad_make, shape=_bias_grad_shape, grad=_bias_grad_grad)


def bias_add_grad(out_backprop, data_format="NHWC", name=None):
    """Sum of out_backprop over every axis but the channel axis."""
    return apply_op("BiasAddGrad", [(out_backprop, "out_backprop")], {"data_format": data_format},
                    name=name or "BiasAddGrad")


def bias_add(value, bias, data_format=None, name=None):
    """value + bias along the channel axis (last for NHWC, 1 for NCHW)."""
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW", "N..C", "NC..", "NDHWC", "NCDHW"):
        raise ValueError("data_format must be NHWC or NCHW, got %r" % (data_format,))
    fmt = "NCHW" if data_format in ("NCHW", "NC..", "NCDHW") else "NHWC"
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        x = convert_to_tensor(value, name="input")
        b = convert_to_tensor(bias, dtype=x.dtype.base_dtype, name="bias")
        if b.shape.ndims not in (None, 1):
            raise ValueError("Shape must be rank 1 but is rank %d for bias of '%s'" % (b.shape.ndims, scope[:-1]))
        return apply_op("BiasAdd", [(x, "value"), (b, "bias")], {"data_format": fmt, "T": x.dtype.base_dtype},
                        name=scope)


# ------------------------------------------------------------------ l2_loss
register_op("L2Loss", fn=lambda t: np.asarray(np.sum(np.square(t)) / 2, dtype=np.asarray(t).dtype),
            shape=lambda op: [TensorShape([])],
            grad=lambda op, g: [op._inputs[0] * g])   # TF1.15's L2Loss_grad/mul


def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    return apply_op("L2Loss", [(t, "t")], name=name or "L2Loss")



# ------------------------------------------------------------------ cross entropies
def _is_zero(t):
    """True when t is statically all zeros (an unused second output of a loss op)."""
    if t is None or t.op.type == "ZerosLike":
        return True
    v = t.op.get_attr("value") if t.op.type == "Const" else None
    return v is not None and not np.any(v)


def _xent_np(x, labels):
    if type(x) is np.ndarray and type(labels) is np.ndarray and x.dtype in _FLOAT_DTYPES \
            and labels.dtype == x.dtype and x.ndim == 2 and labels.shape == x.shape and x.shape[1]:
        return _xent_rows(x, labels)
    x = np.asarray(x)
    z = x - np.max(x, axis=-1, keepdims=True)   # stable: exp(z) <= 1 and the sum is >= 1
    logp = z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))
    loss = -np.sum(labels * logp, axis=-1)
    return loss.astype(x.dtype, copy=False), (np.exp(logp) - labels).astype(x.dtype, copy=False)


def _xent_rows(x, labels):
    """TF's kernel: e = exp(x - max), loss = sum(labels * (log(sum e) - (x - max))),
    backprop = e / sum e - labels; each temporary written in place."""
    z = x - x.max(-1, keepdims=True)
    e = np.exp(z)
    total = np.add.reduce(e, axis=-1, keepdims=True)
    np.subtract(np.log(total), z, out=z)
    np.multiply(z, labels, out=z)
    e /= total
    e -= labels
    return np.add.reduce(z, axis=-1), e


def _xent_shape(op):
    f, lab = op._inputs[0].shape, op._inputs[1].shape
    want = 2 if op.type == "SoftmaxCrossEntropyWithLogits" else 1
    for s, r in ((f, 2), (lab, want)):
        if s.ndims not in (None, r):
            raise ValueError("Shape must be rank %d but is rank %d for '%s' (op: '%s')" % (r, s.ndims, op.name, op.type))
    if op.type == "SoftmaxCrossEntropyWithLogits":
        if not f.is_compatible_with(lab):
            raise ValueError("logits and labels must be same size: logits_size=%s labels_size=%s" % (f, lab))
        f = f.merge_with(lab)
    if f.ndims is None:
        return [unknown_shape(1), unknown_shape(2)]
    return [TensorShape(f.as_list()[:1]), f]


def _second_order(logits, grad, grad_grad):
    """Adds the softmax term the backprop output contributes when it is itself differentiated."""
    if _is_zero(grad_grad):
        return grad
    sm = softmax(logits)
    return M.add_v2(grad, M.multiply(M.subtract(grad_grad, reduce_sum(M.multiply(grad_grad, sm), -1, keepdims=True)), sm))


def _xent_grad(op, grad_loss, grad_grad):
    logits = op._inputs[0]
    # TF1.15's _BroadcastMul twice: ExpandDims + mul, then LogSoftmax, Neg, ExpandDims_1 + mul_1.
    grad = _second_order(logits, A.expand_dims(grad_loss, -1) * op._outputs[1], grad_grad)
    neg_log_softmax = -log_softmax(logits)
    labels_grad = A.expand_dims(grad_loss, -1) * neg_log_softmax
    if not _is_zero(grad_grad):
        labels_grad = M.subtract(labels_grad, grad_grad)
    return [grad, labels_grad]


register_op("SoftmaxCrossEntropyWithLogits", fn=_xent_np, shape=_xent_shape, grad=_xent_grad)


def _sparse_xent_make(op, ctx):
    def run(x, labels):
        x, labels = np.asarray(x), np.asarray(labels)
        n = x.shape[-1]
        bad = (labels < 0) | (labels >= n)
        if bad.any():
            raise errors.InvalidArgumentError(
                None, op, "Received a label value of %d which is outside the valid range of [0, %d).  "
                "Label values: %s" % (int(labels[bad][0]), n, " ".join(map(str, labels.ravel()))))
        onehot = (labels[:, None] == np.arange(n)).astype(x.dtype)
        return _xent_np(x, onehot)
    return run


def _sparse_xent_grad(op, grad_loss, grad_grad):
    logits = op._inputs[0]
    grad = A.expand_dims(grad_loss, -1) * op._outputs[1]   # TF1.15's ExpandDims + mul
    return [_second_order(logits, grad, grad_grad), None]


register_op("SparseSoftmaxCrossEntropyWithLogits", make=_sparse_xent_make, shape=_xent_shape,
            grad=_sparse_xent_grad)


def _ensure_xent_args(name, sentinel, labels, logits):
    if sentinel is not None:
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...)" % name)
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")


def _flatten_outer_dims(t):
    """t reshaped to [-1, last dim] (TF1's graph: Rank, Shape, Sub, Slice, concat, Reshape)."""
    r = A.rank(t)
    last = _slice_op(A.shape(t), A.expand_dims(M.subtract(r, 1), 0), [1])
    out = A.reshape(t, A.concat([[-1], last], 0))
    dims = t.shape.as_list() if t.shape.ndims is not None else None
    if dims and all(d is not None for d in dims[:-1]):
        out.set_shape([int(np.prod(dims[:-1])), dims[-1]])
    return out


def _slice_op(x, begin, size):
    from lens.ops.slicing import slice as _slice
    return _slice(x, begin, size)


def _move_axis_last(t, axis):
    rank = t.shape.ndims
    if rank is None:
        raise ValueError("softmax_cross_entropy_with_logits along axis %d needs logits of known rank" % axis)
    axis %= rank
    return A.transpose(t, [i for i in range(rank) if i != axis] + [axis])


def _same_rows(a, b):
    """True when flattening the outer dims gives a and b one shape ([10] and [1, 10], as TF does)."""
    da, db = a.as_list(), b.as_list()
    if not (da and db) or da[-1] != db[-1] or None in da or None in db:
        return False
    return int(np.prod(da[:-1])) == int(np.prod(db[:-1]))


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """-sum(labels * log_softmax(logits)) along axis; gradients flow into logits and labels."""
    axis = -1 if axis is None and dim is None else (dim if axis is None else axis)
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = A.cast(convert_to_tensor(labels, name="labels"), logits.dtype.base_dtype)
        static = logits.shape
        if static.ndims is not None and labels.shape.ndims is not None and \
                not static.is_compatible_with(labels.shape) and not _same_rows(static, labels.shape):
            # TF's kernel broadcasts labels against logits (e.g. labels [10] with logits [1, 10]).
            broadcast_shapes(static, labels.shape)  # ValueError naming both shapes if they can't
            labels = A.broadcast_to(labels, A.shape(logits))
        input_rank = A.rank(logits)
        if axis != -1 and not (static.ndims is not None and axis == static.ndims - 1):
            logits, labels = _move_axis_last(logits, axis), _move_axis_last(labels, axis)
        input_shape = A.shape(logits)
        flat_logits, flat_labels = _flatten_outer_dims(logits), _flatten_outer_dims(labels)
        cost, _ = apply_op("SoftmaxCrossEntropyWithLogits", [(flat_logits, "features"), (flat_labels, "labels")],
                           name=scope, dtypes=[logits.dtype.base_dtype] * 2)
        out_shape = _slice_op(input_shape, [0], A.expand_dims(M.subtract(input_rank, 1), 0))
        cost = A.reshape(cost, out_shape)
        if static.ndims is not None:
            dims = static.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return cost


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF1's v1 loss: like _v2 but labels get no gradient (op named softmax_cross_entropy_with_logits_sg)."""
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    axis = dim if axis is None else axis
    from lens.ops.core import stop_gradient
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis, name=scope)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Cross entropy of logits against integer class labels (one fewer dimension than logits)."""
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        if labels.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("labels must be int32 or int64 class indices, got %s" % labels.dtype.name)
        ls, gs = labels.shape, logits.shape
        if gs.ndims == 0:
            raise ValueError("Logits cannot be scalars - received shape %s." % gs)
        if gs.ndims is not None and ls.ndims is not None:
            if ls.ndims != gs.ndims - 1:
                raise ValueError("Rank mismatch: Rank of labels (received %s) should equal rank of logits "
                                 "minus 1 (received %s)." % (ls.ndims, gs.ndims))
            if not ls.is_compatible_with(TensorShape(gs.as_list()[:-1])):
                raise ValueError("Shape mismatch: The shape of labels (received %s) should equal the shape of "
                                 "logits except for the last dimension (received %s)." % (ls, gs))
        if gs.ndims == 2:
            cost, _ = apply_op("SparseSoftmaxCrossEntropyWithLogits", [(logits, "features"), (labels, "labels")],
                               name=name, dtypes=[logits.dtype.base_dtype] * 2, same_dtype=False)
            return cost
        labels_shape = A.shape(labels)
        n = A.expand_dims(A.shape(logits)[-1], 0)
        flat = A.reshape(logits, A.concat([[-1], n], 0))
        cost, _ = apply_op("SparseSoftmaxCrossEntropyWithLogits",
                           [(flat, "features"), (A.reshape(labels, [-1]), "labels")],
                           name=name, dtypes=[logits.dtype.base_dtype] * 2, same_dtype=False)
        cost = A.reshape(cost, labels_shape)
        if gs.ndims is not None:
            cost.set_shape(gs.as_list()[:-1])
        return cost


def _check_same_shape(labels, logits):
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError("logits and labels must have the same shape (%s vs %s)" % (logits.shape, labels.shape))


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)): stable logistic loss of logits x against labels z."""
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype=logits.dtype.base_dtype, name="labels")
        _check_same_shape(labels, logits)
        zeros = A.zeros_like(logits)
        cond = greater_equal(logits, zeros)
        relu_logits = where(cond, logits, zeros)
        neg_abs_logits = where(cond, M.negative(logits), logits)
        # Operators, as TF1.15's (logistic_loss/mul, sub): their gradients are named after them.
        return M.add(relu_logits - logits * labels, M.log1p(M.exp(neg_abs_logits)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """Logistic loss with the positive term weighted by pos_weight (stable form)."""
    labels = targets if labels is None else labels
    if labels is None or logits is None or pos_weight is None:
        raise ValueError("weighted_cross_entropy_with_logits needs labels (or targets), logits and pos_weight")
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype=logits.dtype.base_dtype, name="labels")
        _check_same_shape(labels, logits)
        one = _c(1, logits)
        log_weight = M.add(one, M.multiply(M.subtract(pos_weight, one), labels))
        soft = M.add(M.log1p(M.exp(M.negative(M.abs(logits)))), relu(M.negative(logits)))
        return M.add(M.multiply(M.subtract(one, labels), logits), M.multiply(log_weight, soft), name=scope)


# ------------------------------------------------------------------ statistics and normalization
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over axes."""
    from lens.ops.core import stop_gradient
    keep = bool(keep_dims if keepdims is None else keepdims)
    with name_scope(name, "moments", [x, axes]):
        y = convert_to_tensor(x)
        if y.dtype.base_dtype is _dt.float16:
            y = A.cast(y, _dt.float32)
        mean = reduce_mean(y, axes, keepdims=True, name="mean")
        variance = reduce_mean(M.squared_difference(y, stop_gradient(mean)), axes, keepdims=True, name="variance")
        if not keep:
            mean, variance = A.squeeze(mean, axes), A.squeeze(variance, axes)
        if x.dtype.base_dtype is _dt.float16:
            return A.cast(mean, _dt.float16), A.cast(variance, _dt.float16)
        return mean, variance


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    axis = dim if axis is None else axis
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = reduce_sum(M.square(x), axis, keepdims=True)
        inv_norm = M.rsqrt(M.maximum(square_sum, _c(epsilon, x)))
        return M.multiply(x, inv_norm, name=scope)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """x / keep_prob where a uniform draw keeps it, else 0 (TF1: give keep_prob or rate)."""
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both keep_prob and rate for dropout; use rate.")
    if keep_prob is not None:
        if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1:
            raise ValueError("keep_prob must be a scalar tensor or a float in the range (0, 1], got %g" % keep_prob)
        rate = 1 - keep_prob
    if rate is None:
        raise ValueError("You must provide a rate to dropout (or keep_prob).")
    from lens.ops.random import random_uniform   # lazy: random.py is its own op family
    with name_scope(name, "dropout", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be scaled. Got a %s "
                             "tensor instead." % x.dtype.name)
        if isinstance(rate, numbers.Real):
            if not 0 <= rate < 1:
                raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), got %g" % rate)
        rate = convert_to_tensor(rate, dtype=x.dtype.base_dtype, name="rate")
        if rate.shape.ndims not in (None, 0):
            raise ValueError("rate must be a scalar, got shape %s" % rate.shape)
        shape = A.shape(x) if noise_shape is None else noise_shape
        random_tensor = random_uniform(shape, seed=seed, dtype=x.dtype.base_dtype)
        keep = M.subtract(_c(1, x), rate)
        scale = M.real_div(_c(1, x), keep)
        keep_mask = greater_equal(random_tensor, rate)
        # Python operators, as TF1 writes it: the result is 'dropout/mul_1'.
        ret = x * scale * A.cast(keep_mask, x.dtype.base_dtype)
        ret.set_shape(x.shape)
        return ret
