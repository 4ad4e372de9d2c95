"""More tf.nn: lrn, top_k, in_top_k, embedding_lookup, crelu, batch_normalization, fused_batch_norm."""
import collections
import numbers

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.core import identity
from lens.ops.indexing import gather, one_hot
from lens.ops.nn import _is_zero, relu
from lens.ops.reduce import reduce_sum
from lens.ops.shapes import const_value
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape

__all__ = ["lrn", "local_response_normalization", "top_k", "in_top_k", "embedding_lookup", "crelu",
           "batch_normalization", "fused_batch_norm", "xw_plus_b", "relu_layer"]


# ------------------------------------------------------------------ LRN
def _window_sum(a, r):
    """Sum over channels c - r .. c + r (clipped at the edges) along the last axis."""
    padded = np.pad(a, [(0, 0)] * (a.ndim - 1) + [(r, r)])
    return sliding_window_view(padded, 2 * r + 1, axis=-1).sum(axis=-1)


def _lrn_parts(op, x):
    r, bias = int(op._attrs["depth_radius"]), op._attrs["bias"]
    alpha, beta = op._attrs["alpha"], op._attrs["beta"]
    norm = bias + alpha * _window_sum(x * x, r)
    return r, alpha, beta, norm


def _lrn_make(op, ctx):
    def run(x):
        x = np.asarray(x)
        _, _, beta, norm = _lrn_parts(op, x)
        return (x * norm ** -beta).astype(x.dtype, copy=False)
    return run


def _lrn_grad_make(op, ctx):
    def run(g, x, y):
        g, x = np.asarray(g), np.asarray(x)
        r, alpha, beta, norm = _lrn_parts(op, x)
        # y_c = x_c * N_c^-beta with N_c summing x_j^2 over a symmetric window, so the
        # cross term for x_j gathers over the same window around j.
        cross = _window_sum(g * x * norm ** (-beta - 1), r)
        return (g * norm ** -beta - 2 * alpha * beta * x * cross).astype(x.dtype, copy=False)
    return run


def _lrn_attrs(op):
    return {k: op._attrs[k] for k in ("depth_radius", "bias", "alpha", "beta")}


def _lrn_grad(op, g):
    x, y = op._inputs[0], op._outputs[0]
    return [apply_op("LRNGrad", [(g, "input_grads"), (x, "input_image"), (y, "output_image")],
                     dict(_lrn_attrs(op), T=x.dtype.base_dtype), name="LRNGrad")]


register_op("LRN", make=_lrn_make, shape=lambda op: [op._inputs[0].shape], grad=_lrn_grad)
# TF registers no gradient for LRNGrad either.
register_op("LRNGrad", make=_lrn_grad_make, shape=lambda op: [op._inputs[1].shape], not_differentiable=True)


def lrn(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002
    """Local response normalization over channels: x / (bias + alpha * sum(x^2 in window)) ** beta."""
    x = convert_to_tensor(input, name="input")
    if not x.dtype.is_floating:
        raise TypeError("lrn needs a float input, got %s" % x.dtype.name)
    if x.shape.ndims not in (None, 4):
        raise ValueError("lrn needs a 4-D input [batch, height, width, channels], got shape %s" % x.shape)
    if int(depth_radius) < 0:
        raise ValueError("depth_radius must be >= 0, got %r" % (depth_radius,))
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta),
             "T": x.dtype.base_dtype}
    return apply_op("LRN", [(x, "input")], attrs, name=name or "LRN")


local_response_normalization = lrn


# ------------------------------------------------------------------ top_k / in_top_k
def _top_k_make(op, ctx):
    def run(x, k):
        x, k = np.asarray(x), int(k)
        n = x.shape[-1] if x.ndim else 0
        if x.ndim < 1 or k < 0 or k > n:
            raise errors.InvalidArgumentError(
                None, op, "input must have at least k columns. Had %d, needed %d" % (n, k) if k >= 0 else
                "Need k >= 0, got %d" % k)
        # Stable sort of the negated values: ties keep the lower index first, as TF does.
        order = np.argsort(-x if x.dtype.kind == "f" else -x.astype(np.int64), axis=-1, kind="stable")[..., :k]
        return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)
    return run


def _top_k_shape(op):
    s = op._inputs[0].shape
    if s.ndims is None:
        return [unknown_shape(), unknown_shape()]
    if s.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for '%s' (op: 'TopKV2')" % op.name)
    k = const_value(op._inputs[1])
    dims = s.as_list()[:-1] + [None if k is None else int(k)]
    n = s.as_list()[-1]
    if k is not None and n is not None and int(k) > n:
        raise ValueError("input must have last dimension >= k = %d but is %d for '%s' (op: 'TopKV2')"
                         % (int(k), n, op.name))
    return [TensorShape(dims), TensorShape(dims)]


def _top_k_grad(op, g_values, g_indices):
    x, idx = op._inputs[0], op._outputs[1]
    n = A.shape(x)[-1]
    hot = one_hot(idx, n, dtype=x.dtype.base_dtype)
    return [reduce_sum(M.multiply(hot, A.expand_dims(g_values, -1)), -2), None]


register_op("TopKV2", make=_top_k_make, shape=_top_k_shape, grad=_top_k_grad)


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002
    """The k largest entries of the last dimension and their indices (ties: lower index first),
    as TF1's named pair (values, indices)."""
    x = convert_to_tensor(input, name="input")
    kt = convert_to_tensor(k, dtype=_dt.int32, name="k")
    return TopKV2(*apply_op("TopKV2", [(x, "input"), (kt, "k")],
                            {"sorted": bool(sorted), "T": x.dtype.base_dtype}, name=name or "TopKV2",
                            dtypes=[x.dtype.base_dtype, _dt.int32], same_dtype=False))


def _in_top_k_kernel(pred, targets, k):
    pred, targets, k = np.asarray(pred), np.asarray(targets), int(k)
    n = pred.shape[1]
    ok = (targets >= 0) & (targets < n)
    tv = pred[np.arange(pred.shape[0]), np.where(ok, targets, 0)]
    # TF counts the predictions strictly above the target's: ties do not push the target out.
    above = np.sum(pred > tv[:, None], axis=1)
    return ok & np.isfinite(tv) & (above < k)


def _in_top_k_shape(op):
    p, t = op._inputs[0].shape, op._inputs[1].shape
    if p.ndims not in (None, 2):
        raise ValueError("Shape must be rank 2 but is rank %d for predictions of '%s' (op: 'InTopKV2')"
                         % (p.ndims, op.name))
    if t.ndims not in (None, 1):
        raise ValueError("Shape must be rank 1 but is rank %d for targets of '%s' (op: 'InTopKV2')"
                         % (t.ndims, op.name))
    return [TensorShape([p.as_list()[0] if p.ndims else None]).merge_with(t if t.ndims else unknown_shape(1))]


register_op("InTopKV2", fn=_in_top_k_kernel, shape=_in_top_k_shape, not_differentiable=True)


def in_top_k(predictions, targets, k, name=None):
    """Whether each target class is among the k highest predictions of its row."""
    with name_scope(name, "in_top_k", [predictions, targets]):
        p = convert_to_tensor(predictions, dtype=_dt.float32, name="predictions")
        t = convert_to_tensor(targets, name="targets")
        if t.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("in_top_k targets must be int32 or int64 class ids, got %s" % t.dtype.name)
        kt = convert_to_tensor(k, dtype=t.dtype.base_dtype, name="k")
        return apply_op("InTopKV2", [(p, "predictions"), (t, "targets"), (kt, "k")], {"T": t.dtype.base_dtype},
                        name="InTopKV2", dtypes=[_dt.bool], same_dtype=False)


# ------------------------------------------------------------------ embedding_lookup, crelu, xw_plus_b
def _clip_rows(emb, ids, max_norm):
    """Rescale each looked-up embedding to L2 norm <= max_norm."""
    if max_norm is None:
        return emb
    er, ir = emb.shape.ndims, ids.shape.ndims
    if er is None or ir is None:
        raise ValueError("embedding_lookup with max_norm needs ids and params of known rank")
    axes = list(range(ir, er))
    if not axes:
        return emb
    norm = M.sqrt(reduce_sum(M.square(emb), axes, keepdims=True))
    mx = convert_to_tensor(max_norm, dtype=emb.dtype.base_dtype, name="max_norm")
    return M.multiply(emb, M.real_div(mx, M.maximum(norm, mx)))


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows of params at ids; a list of params is one table sharded by 'mod' or 'div'."""
    shards = list(params) if isinstance(params, (list, tuple)) else [params]
    if not shards:
        raise ValueError("Need at least one param")
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: %r; use 'mod' or 'div'" % (partition_strategy,))
    with name_scope(name, "embedding_lookup", shards + [ids]) as scope:
        ids = convert_to_tensor(ids, name="ids")
        if ids.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("embedding_lookup ids must be int32 or int64, got %s" % ids.dtype.name)
        if len(shards) == 1:
            return identity(_clip_rows(gather(shards[0], ids, name=scope), ids, max_norm))
        return identity(_clip_rows(_sharded_lookup(shards, ids, partition_strategy), ids, max_norm))


def _sharded_lookup(shards, ids, strategy):
    """Sum over shards of (rows found in that shard, zeros elsewhere): vectorized, differentiable."""
    tensors = [convert_to_tensor(p) for p in shards]
    sizes = [t.shape.as_list()[0] if t.shape.ndims else None for t in tensors]
    if any(s is None for s in sizes) or any(t.shape.ndims is None for t in tensors):
        raise ValueError("embedding_lookup over several shards needs shards with known shapes")
    n, total = len(tensors), sum(sizes)
    ids64 = A.cast(ids, _dt.int64)
    if strategy == "mod":
        shard, local = M.floormod(ids64, n), M.floordiv(ids64, n)
    else:
        per, extras = total // n, total % n
        from lens.ops.logic import less, where
        big = M.floordiv(ids64, per + 1)
        small = M.floordiv(M.subtract(ids64, extras), max(per, 1))
        shard = M.maximum(big, small)
        local = where(less(shard, extras), M.floormod(ids64, per + 1), M.floormod(M.subtract(ids64, extras), max(per, 1)))
    from lens.ops.logic import equal
    out = None
    for s, (t, size) in enumerate(zip(tensors, sizes)):
        rows = gather(t, M.minimum(M.maximum(local, 0), size - 1))
        mask = A.cast(equal(shard, s), t.dtype.base_dtype)
        for _ in range(t.shape.ndims - 1):
            mask = A.expand_dims(mask, -1)
        part = M.multiply(rows, mask)
        out = part if out is None else M.add(out, part)
    return out


def crelu(features, name=None, axis=-1):
    """relu of [features, -features] concatenated along axis (twice the channels)."""
    with name_scope(name, "CRelu", [features]) as scope:
        x = convert_to_tensor(features, name="features")
        c = A.concat([x, M.negative(x)], axis, name="concat")
        return relu(c, name=scope)


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases."""
    from lens.ops.linalg import matmul
    from lens.ops.nn import bias_add
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        return bias_add(matmul(x, weights), biases, name=scope)


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases)."""
    from lens.ops.linalg import matmul
    from lens.ops.nn import bias_add
    with name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        return relu(bias_add(matmul(x, weights), biases), name=scope)


# ------------------------------------------------------------------ batch normalization
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, composed from elementwise ops."""
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert_to_tensor(x)
        variance = convert_to_tensor(variance, dtype=x.dtype.base_dtype)
        mean = convert_to_tensor(mean, dtype=x.dtype.base_dtype)
        inv = M.rsqrt(variance + convert_to_tensor(variance_epsilon, dtype=x.dtype.base_dtype))
        if scale is not None:
            inv = inv * scale
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * inv + shift


from lens.ops.fused_bn import fused_batch_norm  # noqa: E402 - registers FusedBatchNorm
