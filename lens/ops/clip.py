"""Norm clipping: clip_by_norm, clip_by_average_norm, clip_by_global_norm, global_norm (composed ops)."""
import collections.abc

from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.framework.indexed_slices import IndexedSlices

__all__ = ["clip_by_norm", "clip_by_average_norm", "clip_by_global_norm", "global_norm"]


def _ops():
    from lens.ops import array, core, logic, math, reduce
    return array, core, logic, math, reduce


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t * clip_norm / max(l2norm(t, axes), clip_norm): rescale so the L2 norm is at most clip_norm."""
    array, core, logic, m, reduce = _ops()
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        # IndexedSlices are clipped by the norm of their values (as TF1) and stay IndexedSlices.
        values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t")
        l2sum = reduce.reduce_sum(m.multiply(values, values), axes, keepdims=True)
        # A zero norm would make sqrt's gradient infinite: take sqrt only where the sum is positive.
        positive = logic.greater(l2sum, 0.0)
        safe = logic.where(positive, l2sum, array.ones_like(l2sum))
        l2norm = logic.where(positive, m.sqrt(safe), l2sum)
        clip_norm = convert_to_tensor(clip_norm, dtype=values.dtype.base_dtype, name="clip_norm")
        scaled = m.multiply(values, clip_norm)
        out = core.identity(m.truediv(scaled, m.maximum(l2norm, clip_norm)), name=scope)
        return IndexedSlices(out, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else out


def clip_by_average_norm(t, clip_norm, name=None):
    """t * clip_norm / max(l2norm(t) / size(t), clip_norm): clip the norm averaged over elements."""
    array, core, _, m, reduce = _ops()
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        dtype = t.dtype.base_dtype
        n = array.cast(array.size(t), dtype)
        inv_norm = m.rsqrt(reduce.reduce_sum(m.multiply(t, t)))
        clip_norm = convert_to_tensor(clip_norm, dtype=dtype, name="clip_norm")
        factor = m.minimum(m.multiply(inv_norm, n), m.truediv(convert_to_tensor(1.0, dtype=dtype), clip_norm))
        return core.identity(m.multiply(m.multiply(t, clip_norm), factor), name=scope)


def _check_list(t_list, fn):
    if isinstance(t_list, (str, bytes, Tensor)) or not isinstance(t_list, collections.abc.Sequence):
        raise TypeError("%s: t_list should be a sequence (list or tuple) of tensors, got %s"
                        % (fn, type(t_list).__name__))
    return list(t_list)


def global_norm(t_list, name=None):
    """sqrt(sum of the squared L2 norms of every tensor in t_list); None entries are ignored."""
    array, _, _, m, reduce = _ops()
    from lens.ops.nn import l2_loss
    t_list = _check_list(t_list, "global_norm")
    with name_scope(name, "global_norm", t_list):
        tensors = [convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t_%d" % i)
                   for i, t in enumerate(t_list) if t is not None]
        if not tensors:
            raise ValueError("global_norm: t_list has no tensors (every entry is None).")
        halves = []
        for t in tensors:
            with _colocated(t):
                halves.append(l2_loss(t))
        half = reduce.reduce_sum(array.stack(halves))
        two = convert_to_tensor(2.0, dtype=half.dtype.base_dtype, name="Const")
        return m.sqrt(m.multiply(half, two), name="global_norm")


def _colocated(t):
    return t.graph.colocate_with(t.op)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by clip_norm / max(global_norm, clip_norm); returns (clipped list, global norm).

    None entries stay None; an infinite or NaN global norm makes every clipped value NaN (as TF1)."""
    array, core, _, m, _ = _ops()
    t_list = _check_list(t_list, "clip_by_global_norm")
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as scope:
        use_norm = convert_to_tensor(use_norm)
        dtype = use_norm.dtype.base_dtype
        clip_norm = convert_to_tensor(clip_norm, dtype=dtype, name="clip_norm")
        one = convert_to_tensor(1.0, dtype=dtype, name="Const")
        scale = m.multiply(clip_norm, m.minimum(m.truediv(one, use_norm), m.truediv(one, clip_norm)))
        # (use_norm - use_norm) is NaN exactly when the norm is not finite: it poisons the scale then.
        scale = m.add(scale, m.subtract(use_norm, use_norm))
        clipped = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            sliced = t if isinstance(t, IndexedSlices) else None
            t = convert_to_tensor(t.values if sliced is not None else t, name="t_%d" % i)
            with _colocated(t):
                s = scale if t.dtype.base_dtype is dtype else array.cast(scale, t.dtype.base_dtype)
                c = core.identity(m.multiply(t, s), name="%s_%d" % (scope, i))
            clipped.append(c if sliced is None else IndexedSlices(c, sliced.indices, sliced.dense_shape))
        return clipped, use_norm
