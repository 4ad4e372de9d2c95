"""Op-table rows: ResizeBilinear, ResizeNearestNeighbor, their gradient ops, AdjustContrastv2.
Bilinear references use hat-function weights (not the kernel's lower/upper/lerp gather); the
float32-only ops get their gradients checked by central differences with a unit step, which is
exact for these linear maps, with the loss summed in float64."""
import numpy as np

import lens as tf
from lens.ops.image_ops import (adjust_contrastv2, resize_bilinear, resize_bilinear_grad,
                                       resize_nearest_neighbor, resize_nearest_neighbor_grad)
from optable_lib import F, FIX, Row, custom


def _source(in_size, out_size, align_corners, half_pixel):
    """Float32 source coordinates of each output index, as TF1 maps them."""
    if align_corners and out_size > 1:
        scale = np.float32((in_size - 1) / (out_size - 1))
    else:
        scale = np.float32(in_size / out_size)
    out = []
    for o in range(out_size):
        s = (np.float32(o) + np.float32(0.5)) * scale if half_pixel else np.float32(o) * scale
        out.append(s)
    return out, scale


def bilinear_weights(in_size, out_size, align_corners=False, half_pixel=False):
    """(out, in) weights: a tent of width 1 around each (clamped) source coordinate."""
    src, _ = _source(in_size, out_size, align_corners, False)
    if half_pixel:
        src = [s - 0.5 for s in _source(in_size, out_size, False, True)[0]]
    src = np.clip(np.asarray(src, np.float64), 0, in_size - 1)
    return np.maximum(0.0, 1.0 - np.abs(src[:, None] - np.arange(in_size)[None, :]))


def nearest_index(in_size, out_size, align_corners=False, half_pixel=False):
    """The source index per output index: floor, or round half away from zero when corner-aligned."""
    src, _ = _source(in_size, out_size, align_corners, half_pixel)
    idx = [int(np.floor(s + np.float32(0.5))) if align_corners else int(np.floor(s)) for s in src]
    return np.array([min(max(i, 0), in_size - 1) for i in idx])


def ref_bilinear(x, size, ac=False, hp=False):
    wy = bilinear_weights(x.shape[1], size[0], ac, hp)
    wx = bilinear_weights(x.shape[2], size[1], ac, hp)
    return np.einsum("ip,npqc,jq->nijc", wy, x.astype(np.float64), wx).astype(np.float32)


def ref_nearest(x, size, ac=False, hp=False):
    ys, xs = nearest_index(x.shape[1], size[0], ac, hp), nearest_index(x.shape[2], size[1], ac, hp)
    return np.stack([np.stack([x[:, y, xx] for xx in xs], axis=1) for y in ys], axis=1)


def ref_nearest_grad(g, size, ac=False, hp=False):
    out = np.zeros((g.shape[0], size[0], size[1], g.shape[3]), g.dtype)
    ys, xs = nearest_index(size[0], g.shape[1], ac, hp), nearest_index(size[1], g.shape[2], ac, hp)
    for i, y in enumerate(ys):
        for j, xx in enumerate(xs):
            out[:, y, xx] += g[:, i, j]
    return out


def _ref_contrast(x, f):
    f = float(np.float32(f))  # the op takes contrast_factor as a float32 tensor
    m = x.astype(np.float64).sum(axis=(-3, -2), keepdims=True) / (x.shape[-3] * x.shape[-2])
    return (f * x + (1 - f) * m).astype(x.dtype)


def linear_grad_check(build, in_shape, seed=0):
    """d sum(w * build(x)) / dx vs central differences with step 1 (exact for linear ops)."""
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1, 1, in_shape).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, in_shape)
        y = build(x)
        w = rng.uniform(0.5, 1.5, y.shape.as_list()).astype(y.dtype.as_numpy_dtype)
        grad = tf.gradients(tf.reduce_sum(y * tf.constant(w)), x)[0]
        with tf.Session(graph=g) as sess:
            analytic = sess.run(grad, {x: x0})
            numeric = np.zeros(in_shape)
            for k in np.ndindex(*in_shape):
                step = np.zeros(in_shape, np.float32)
                step[k] = 1.0
                hi, lo = sess.run(y, {x: x0 + step}), sess.run(y, {x: x0 - step})
                numeric[k] = (np.sum(w * hi.astype(np.float64)) - np.sum(w * lo.astype(np.float64))) / 2
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-5, err_msg="gradient of %s" % build)


_FLAGS = [(False, False), (True, False), (False, True)]
_SIZES = [[3, 4], [9, 13], [1, 1]]


def _bilinear_rows():
    rows = []
    for ac, hp in _FLAGS:
        for size in _SIZES:
            label = "ResizeBilinear %s ac=%s hp=%s" % (size, ac, hp)
            rows.append(Row("ResizeBilinear",
                            lambda x, s=size, a=ac, h=hp: resize_bilinear(x, s, align_corners=a, half_pixel_centers=h),
                            lambda x, s=size, a=ac, h=hp: ref_bilinear(x, s, a, h),
                            [[F(2, 5, 7, 3)]], grad=False, rtol=2e-5, label=label))
            rows.append(custom("ResizeBilinear", lambda s=size, a=ac, h=hp: linear_grad_check(
                lambda x: resize_bilinear(x, s, align_corners=a, half_pixel_centers=h), (1, 4, 5, 2)),
                label=label + " gradient"))
            rows.append(Row("ResizeBilinearGrad",
                            lambda g, o, a=ac, h=hp: resize_bilinear_grad(g, o, align_corners=a, half_pixel_centers=h),
                            lambda g, o, s=size, a=ac, h=hp: np.einsum(
                                "ip,nijc,jq->npqc", bilinear_weights(5, s[0], a, h), g.astype(np.float64),
                                bilinear_weights(7, s[1], a, h)).astype(np.float32),
                            [[F(2, size[0], size[1], 3), F(2, 5, 7, 3)]], dtypes=("float32",), grad=False,
                            rtol=2e-5, label="ResizeBilinearGrad %s ac=%s hp=%s" % (size, ac, hp)))
            rows.append(custom("ResizeBilinearGrad", lambda s=size, a=ac, h=hp: linear_grad_check(
                lambda g: resize_bilinear_grad(g, tf.zeros([1, 4, 5, 2]), align_corners=a, half_pixel_centers=h),
                (1, s[0], s[1], 2)), label="ResizeBilinearGrad %s ac=%s hp=%s gradient" % (size, ac, hp)))
    return rows


def _nearest_rows():
    rows = []
    for ac, hp in _FLAGS:
        for size in _SIZES:
            rows.append(Row("ResizeNearestNeighbor",
                            lambda x, s=size, a=ac, h=hp: resize_nearest_neighbor(x, s, align_corners=a,
                                                                                  half_pixel_centers=h),
                            lambda x, s=size, a=ac, h=hp: ref_nearest(x, s, a, h), [[F(2, 5, 7, 3)]],
                            label="ResizeNearestNeighbor %s ac=%s hp=%s" % (size, ac, hp)))
            rows.append(Row("ResizeNearestNeighborGrad",
                            lambda g, a=ac, h=hp: resize_nearest_neighbor_grad(g, [5, 7], align_corners=a,
                                                                               half_pixel_centers=h),
                            lambda g, a=ac, h=hp: ref_nearest_grad(g, [5, 7], a, h), [[F(2, size[0], size[1], 3)]],
                            label="ResizeNearestNeighborGrad %s ac=%s hp=%s" % (size, ac, hp)))
    rows.append(Row("ResizeNearestNeighbor", lambda x: resize_nearest_neighbor(x, [7, 3]),
                    lambda x: ref_nearest(x, [7, 3]),
                    [[FIX(np.arange(2 * 4 * 5 * 1).reshape(2, 4, 5, 1), np.uint8)]],
                    label="ResizeNearestNeighbor uint8"))
    return rows


ROWS = _bilinear_rows() + _nearest_rows() + [
    Row("AdjustContrastv2", lambda x: adjust_contrastv2(x, 1.7), lambda x: _ref_contrast(x, 1.7),
        [[F(2, 3, 4, 2)], [F(3, 4, 3)]]),
    Row("AdjustContrastv2", lambda x: adjust_contrastv2(x, -0.4), lambda x: _ref_contrast(x, -0.4),
        [[F(1, 2, 5, 6, 1)]], label="AdjustContrastv2 rank 5"),
]
