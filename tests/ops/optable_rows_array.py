"""Op-table rows: shape/array ops, slicing and indexing (NumPy references written here)."""
import numpy as np

import lens as tf
from lens.framework.convert import apply_op
from lens.ops import array as A
from lens.ops.concat_offset import concat_offset
from lens.ops import indexing as X
from optable_lib import FIX, F, Row


def _ss_rows():
    keys = [(1,), (slice(1, None),), (Ellipsis, slice(None, None, -2)), (None, 1, Ellipsis, 2),
            (-1, slice(None), slice(3, 0, -1)), (slice(None), slice(None, None, -1), slice(1, 3)),
            (slice(-2, None), None)]
    return [Row("StridedSlice", lambda x, k=k: x[k], lambda x, k=k: x[k], [[F(2, 3, 4)]], label="StridedSlice%r" % (k,))
            for k in keys]


def _ssg(dy):
    return X.strided_slice_grad([2, 3, 4], [0, 1, 0], [0, 3, 4], [1, 1, 2], dy, begin_mask=1, end_mask=1)


def _ssg_ref(dy):
    out = np.zeros((2, 3, 4), dy.dtype)
    out[:, 1:3, 0:4:2] = dy
    return out


def _seg_ref(d, ids):
    out = np.zeros((4,) + d.shape[1:], d.dtype)
    for i, k in enumerate(ids):
        if k >= 0:
            out[k] += d[i]
    return out


def _scatter_ref(idx, upd):
    out = np.zeros((3, 2), upd.dtype)
    for i in range(idx.shape[0]):
        out[tuple(idx[i])] += upd[i]
    return out


def _one_hot_ref(idx, depth=3, axis=-1):
    out = (idx[..., None] == np.arange(depth)).astype(np.float32)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


ROWS = _ss_rows() + [
    Row("StridedSliceGrad", _ssg, _ssg_ref, [[F(2, 2, 2)]]),
    Row("GatherV2", lambda p, i: tf.gather(p, i), lambda p, i: p[i], [[F(4, 3), FIX([3, 0, 3], np.int32)]]),
    Row("GatherV2", lambda p, i: tf.gather(p, i, axis=1), lambda p, i: np.take(p, i, axis=1),
        [[F(2, 3, 2), FIX([[2, 0], [1, 1]], np.int64)]], label="GatherV2-axis1-2d-indices"),
    Row("UnsortedSegmentSum", lambda d, i: X.unsorted_segment_sum(d, i, 4), _seg_ref,
        [[F(5, 2), FIX([0, 3, 0, -1, 2], np.int32)]]),
    Row("GatherNd", tf.gather_nd, lambda p, i: p[tuple(np.moveaxis(i, -1, 0))],
        [[F(3, 4), FIX([[0, 1], [2, 3], [0, 1]], np.int32)], [F(3, 2, 2), FIX([[1], [0]], np.int32)]]),
    Row("ScatterNd", lambda i, u: X.scatter_nd(i, u, [3, 2]), _scatter_ref,
        [[FIX([[0, 1], [2, 0], [0, 1]], np.int32), F(3)]]),
    Row("OneHot", lambda i: tf.one_hot(i, 3), _one_hot_ref, [[FIX([0, 2, -1, 5], np.int32)]], grad=False),
    Row("OneHot", lambda i: tf.one_hot(i, 3, axis=0), lambda i: _one_hot_ref(i, axis=0),
        [[FIX([[0, 2], [1, 1]], np.int64)]], grad=False, label="OneHot-axis0"),
    Row("Split", lambda x: tf.split(x, 2, axis=1), lambda x: np.split(x, 2, axis=1), [[F(3, 4)]]),
    Row("SplitV", lambda x: tf.split(x, [1, -1, 2], axis=0), lambda x: np.split(x, [1, 3], axis=0),
        [[F(5, 2)]]),
    Row("ReverseV2", lambda x: tf.reverse(x, [0, -1]), lambda x: x[::-1, :, ::-1], [[F(2, 3, 2)]]),
    # ---- shapes, casts, fills
    Row("Shape", tf.shape, lambda x: np.array(x.shape, np.int32), [[F(2, 3)]], grad=False),
    Row("Size", tf.size, lambda x: np.array(x.size, np.int32), [[F(2, 3)]], grad=False),
    Row("Rank", tf.rank, lambda x: np.array(x.ndim, np.int32), [[F(2, 3)]], grad=False),
    Row("Reshape", lambda x: tf.reshape(x, [3, -1]), lambda x: x.reshape(3, -1), [[F(2, 3, 2)]]),
    Row("Fill", lambda v: tf.fill([2, 3], v), lambda v: np.full((2, 3), v), [[F()]]),
    Row("ZerosLike", tf.zeros_like, np.zeros_like, [[F(2, 3)]]),
    Row("OnesLike", tf.ones_like, np.ones_like, [[F(2, 3)]]),
    Row("Cast", lambda x: tf.cast(x, tf.int32), lambda x: x.astype(np.int32), [[F(2, 3, lo=-5, hi=5)]], grad=False),
    Row("Cast", lambda x: tf.cast(x, tf.float32) * 1.0, lambda x: x.astype(np.float32),
        [[FIX([[1, -2], [3, 4]], np.int64)]], grad=False, label="Cast-int-to-float"),
    Row("BroadcastTo", lambda x: tf.broadcast_to(x, [2, 3, 4]), lambda x: np.broadcast_to(x, (2, 3, 4)),
        [[F(3, 1)], [F(4)]]),
    Row("BroadcastGradientArgs", lambda a, b: A.broadcast_gradient_args(a, b),
        lambda a, b: [np.array([], np.int32), np.array([0, 1, 2], np.int32)],
        [[FIX([2, 3, 4], np.int32), FIX([1, 1], np.int32)]], grad=False),
    Row("ConcatOffset", lambda d, a, b, c: concat_offset(d, [a, b, c]),
        lambda d, a, b, c: [np.array([0, 0, 0], np.int32), np.array([0, 2, 0], np.int32),
                            np.array([0, 5, 0], np.int32)],
        [[FIX(-2, np.int32), FIX([4, 2, 3], np.int32), FIX([4, 3, 3], np.int32), FIX([4, 1, 3], np.int32)]],
        grad=False),
    Row("ExpandDims", lambda x: tf.expand_dims(x, 1), lambda x: np.expand_dims(x, 1), [[F(2, 3)]]),
    Row("Squeeze", lambda x: tf.squeeze(x, [2]), lambda x: np.squeeze(x, 2), [[F(2, 3, 1)]]),
    Row("Squeeze", tf.squeeze, np.squeeze, [[F(1, 3, 1)]], label="Squeeze-all"),
    Row("Transpose", lambda x: tf.transpose(x, [2, 0, 1]), lambda x: np.transpose(x, (2, 0, 1)), [[F(2, 3, 4)]]),
    Row("Transpose", tf.transpose, np.transpose, [[F(2, 3)]], label="Transpose-default"),
    Row("Tile", lambda x: tf.tile(x, [2, 3]), lambda x: np.tile(x, (2, 3)), [[F(2, 2)]]),
    Row("Pack", lambda a, b: tf.stack([a, b], axis=1), lambda a, b: np.stack([a, b], 1), [[F(2, 3), F(2, 3)]]),
    Row("Unpack", lambda x: tf.unstack(x, axis=1), lambda x: list(np.moveaxis(x, 1, 0)), [[F(2, 3)]]),
    Row("ConcatV2", lambda a, b: tf.concat([a, b], -1), lambda a, b: np.concatenate([a, b], -1),
        [[F(2, 3), F(2, 1)]]),
    Row("Pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), lambda x: np.pad(x, [[1, 0], [2, 1]]), [[F(2, 3)]]),
    Row("PadV2", lambda x: tf.pad(x, [[0, 1], [1, 1]], constant_values=1.5),
        lambda x: np.pad(x, [[0, 1], [1, 1]], constant_values=1.5), [[F(2, 3)]]),
    Row("MirrorPad", lambda x: tf.pad(x, [[1, 1], [0, 2]], mode="REFLECT"),
        lambda x: np.pad(x, [[1, 1], [0, 2]], mode="reflect"), [[F(3, 3)]], grad=False),
    Row("Slice", lambda x: tf.slice(x, [1, 0], [1, -1]), lambda x: x[1:2, 0:], [[F(3, 4)]]),
    Row("DynamicStitch", lambda a, b: tf.dynamic_stitch([[0, 2], [1]], [a, b]),
        lambda a, b: np.stack([a[0], b[0], a[1]]), [[F(2, 3), F(1, 3)]]),
    Row("InvertPermutation", tf.invert_permutation, np.argsort, [[FIX([2, 0, 3, 1], np.int32)]], grad=False),
    Row("Range", lambda n: tf.range(1, n, 2), lambda n: np.arange(1, n, 2, dtype=np.int32),
        [[FIX(8, np.int32)]], grad=False),
    Row("LinSpace", lambda a: tf.linspace(a, 3.0 * tf.ones_like(a), 4), lambda a: np.linspace(a, 3.0, 4),
        [[FIX(np.float32(1.0))]], grad=False),
    Row("Identity", tf.identity, lambda x: x, [[F(2, 3)]]),
    Row("IdentityN", lambda a, b: tf.identity_n([a, b]), lambda a, b: [a, b], [[F(2), F(3)]]),
    Row("Snapshot", lambda x: apply_op("Snapshot", [(x, "input")]), lambda x: x, [[F(2, 3)]]),
    Row("StopGradient", lambda x: tf.stop_gradient(x) * x, lambda x: x * x, [[F(3)]], grad=False),
    Row("PreventGradient", lambda x: apply_op("PreventGradient", [(x, "input")]), lambda x: x, [[F(3)]],
        grad=False),
    Row("PlaceholderWithDefault", lambda x: tf.placeholder_with_default(x, [2, 3]), lambda x: x, [[F(2, 3)]]),
]
