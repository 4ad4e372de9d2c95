"""tf.image's SSIM / MS-SSIM (Gaussian-window composites, as TF builds them), ExtractImagePatches
(NumPy kernel, gradient by summing patches back) and resize_image_with_pad."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import reduce as R
from lens.ops.image_composites import convert_image_dtype

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


# ---- SSIM -------------------------------------------------------------------------------------
def _gauss(size, sigma):
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = -0.5 * coords ** 2 / sigma ** 2
    g = g[None, :] + g[:, None]
    g = np.exp(g - g.max())
    return (g / g.sum()).astype(np.float32)


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2):
    """(mean SSIM, mean contrast-structure) per image and channel: [..., channels] each."""
    from lens.ops.conv import depthwise_conv2d
    dims = x.shape.as_list()
    if None in dims[-3:]:
        raise ValueError("ssim needs static [height, width, channels], got %s" % x.shape)
    h, w, c = dims[-3:]
    if h < filter_size or w < filter_size:
        raise ValueError("images (%dx%d) must be at least filter_size (%d) in height and width"
                         % (h, w, filter_size))
    kernel = np.tile(_gauss(filter_size, filter_sigma)[:, :, None, None], [1, 1, c, 1])
    kernel = convert_to_tensor(kernel, name="kernel")
    heads = dims[:-3]

    def reducer(t):
        flat = A.reshape(t, [-1, h, w, c])
        out = depthwise_conv2d(flat, kernel, [1, 1, 1, 1], "VALID")
        oh, ow = h - filter_size + 1, w - filter_size + 1
        return A.reshape(out, [-1 if d is None else d for d in heads] + [oh, ow, c])
    c1 = M.square(M.multiply(k1, max_val))
    c2 = M.square(M.multiply(k2, max_val))
    mean0, mean1 = reducer(x), reducer(y)
    num0 = M.multiply(M.multiply(mean0, mean1), 2.0)
    den0 = M.add(M.square(mean0), M.square(mean1))
    luminance = M.truediv(M.add(num0, c1), M.add(den0, c1))
    num1 = M.multiply(reducer(M.multiply(x, y)), 2.0)
    den1 = reducer(M.add(M.square(x), M.square(y)))
    cs = M.truediv(M.add(M.subtract(num1, num0), c2), M.add(M.subtract(den1, den0), c2))
    return R.reduce_mean(M.multiply(luminance, cs), [-3, -2]), R.reduce_mean(cs, [-3, -2])


def _prepare(img1, img2, max_val):
    img1 = convert_to_tensor(img1, name="img1")
    img2 = convert_to_tensor(img2, name="img2")
    if img1.dtype.base_dtype is not img2.dtype.base_dtype:
        raise TypeError("img1 and img2 must have the same dtype, got %s and %s" % (img1.dtype.name, img2.dtype.name))
    if img1.shape.ndims is not None and img1.shape.ndims < 3:
        raise ValueError("Shape must be at least rank 3, got %s" % img1.shape)
    if not img1.shape.is_compatible_with(img2.shape):
        raise ValueError("Shapes %s and %s are incompatible" % (img1.shape, img2.shape))
    mv = convert_image_dtype(A.cast(max_val, img1.dtype.base_dtype), _dt.float32)
    return convert_image_dtype(img1, _dt.float32), convert_image_dtype(img2, _dt.float32), mv


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
    """The structural similarity of two batches of images ([..., h, w, c]), one value per image."""
    with name_scope(None, "SSIM", [img1, img2]):
        x, y, mv = _prepare(img1, img2, max_val)
        per_channel, _ = _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2)
        return R.reduce_mean(per_channel, [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5,
                    k1=0.01, k2=0.03):
    """Multi-scale SSIM: contrast-structure at each halved scale and SSIM at the last, weighted by power_factors."""
    from lens.ops.pool import avg_pool
    with name_scope(None, "MS-SSIM", [img1, img2]):
        x, y, mv = _prepare(img1, img2, max_val)
        dims = x.shape.as_list()
        heads = dims[:-3]
        imgs, mcs = [x, y], []
        per_channel = None
        for k in range(len(power_factors)):
            if k > 0:
                h, w, c = imgs[0].shape.as_list()[-3:]
                flat = [A.reshape(t, [-1, h, w, c]) for t in imgs]
                if h % 2 or w % 2:
                    flat = [A.pad(t, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC") for t in flat]
                down = [avg_pool(t, [1, 2, 2, 1], [1, 2, 2, 1], "VALID") for t in flat]
                nh, nw = (h + h % 2) // 2, (w + w % 2) // 2
                imgs = [A.reshape(t, [-1 if d is None else d for d in heads] + [nh, nw, c]) for t in down]
            per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], mv, filter_size, filter_sigma, k1, k2)
            mcs.append(M.maximum(cs, 0.0))
        mcs.pop()
        from lens.ops.nn import relu
        stacked = A.stack(mcs + [relu(per_channel)], axis=-1)
        ms = R.reduce_prod(M.pow(stacked, convert_to_tensor(list(power_factors), dtype=_dt.float32)), [-1])
        return R.reduce_mean(ms, [-1])


# ---- ExtractImagePatches ------------------------------------------------------------------------
def _patch_geometry(in_size, k, s, r, padding):
    eff = k + (k - 1) * (r - 1)
    if padding == "VALID":
        out = (in_size - eff) // s + 1 if in_size >= eff else 0
        return out, 0
    out = -(-in_size // s)
    pad = max(0, (out - 1) * s + eff - in_size)
    return out, pad // 2


def _patch_index(h, w, ks, ss, rs, padding):
    """[oh, ow, kh, kw] flat source pixel index (h * w where the patch reads padding)."""
    oh, top = _patch_geometry(h, ks[0], ss[0], rs[0], padding)
    ow, left = _patch_geometry(w, ks[1], ss[1], rs[1], padding)
    ys = np.arange(oh)[:, None] * ss[0] - top + np.arange(ks[0])[None, :] * rs[0]     # [oh, kh]
    xs = np.arange(ow)[:, None] * ss[1] - left + np.arange(ks[1])[None, :] * rs[1]    # [ow, kw]
    inside = ((ys >= 0) & (ys < h))[:, None, :, None] & ((xs >= 0) & (xs < w))[None, :, None, :]
    flat = ys[:, None, :, None] * w + xs[None, :, None, :]
    return np.where(inside, flat, h * w)


def _middle(v):
    return [int(v[1]), int(v[2])]


def _patches_make(op, ctx):
    a = op._attrs
    ks, ss, rs = _middle(a["ksizes"]), _middle(a["strides"]), _middle(a["rates"])

    def run(images):
        x = np.asarray(images)
        if x.ndim != 4:
            raise errors.InvalidArgumentError(None, op, "input must be 4-dimensional, got shape %s" % list(x.shape))
        b, h, w, d = x.shape
        idx = _patch_index(h, w, ks, ss, rs, a["padding"])
        flat = np.concatenate([x.reshape(b, h * w, d), np.zeros((b, 1, d), x.dtype)], 1)
        out = flat[:, idx]                                   # [b, oh, ow, kh, kw, d]
        return out.reshape(b, idx.shape[0], idx.shape[1], -1)
    return run


def _patches_shape(op):
    a = op._attrs
    dims = op._inputs[0].shape.as_list() if op._inputs[0].shape.ndims == 4 else [None] * 4
    ks, ss, rs = _middle(a["ksizes"]), _middle(a["strides"]), _middle(a["rates"])
    oh = _patch_geometry(dims[1], ks[0], ss[0], rs[0], a["padding"])[0] if dims[1] is not None else None
    ow = _patch_geometry(dims[2], ks[1], ss[1], rs[1], a["padding"])[0] if dims[2] is not None else None
    depth = ks[0] * ks[1] * dims[3] if dims[3] is not None else None
    return [TensorShape([dims[0], oh, ow, depth])]


def _patches_grad(op, g):
    from lens.ops.indexing import unsorted_segment_sum
    a = op._attrs
    x = op._inputs[0]
    _, h, w, d = x.shape.as_list()
    if None in (h, w, d):
        raise ValueError("the gradient of ExtractImagePatches '%s' needs static height, width and depth" % op.name)
    ks, ss, rs = _middle(a["ksizes"]), _middle(a["strides"]), _middle(a["rates"])
    idx = _patch_index(h, w, ks, ss, rs, a["padding"])
    oh, ow = idx.shape[:2]
    # [b, oh, ow, kh, kw, d] -> rows per (oh, ow, kh, kw), columns per (b, d); summed by source pixel
    g6 = A.reshape(g, [-1, oh, ow, ks[0], ks[1], d])
    rows = A.reshape(A.transpose(g6, [1, 2, 3, 4, 0, 5]), [oh * ow * ks[0] * ks[1], -1])
    summed = unsorted_segment_sum(rows, convert_to_tensor(idx.reshape(-1).astype(np.int32)), h * w + 1)
    from lens.ops.slicing import slice as _slice
    pix = A.reshape(_slice(summed, [0, 0], [h * w, -1]), [h, w, -1, d])
    return [A.transpose(pix, [2, 0, 1, 3])]


register_op("ExtractImagePatches", make=_patches_make, shape=_patches_shape, grad=_patches_grad)


def _four(v, what):
    v = [int(t) for t in v]
    if len(v) != 4 or v[0] != 1 or v[3] != 1:
        raise ValueError("%s must be [1, rows, cols, 1], got %s" % (what, v))
    return v


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth] patches of 4-D images."""
    ksizes = ksizes if ksizes is not None else sizes
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    with name_scope(name, "ExtractImagePatches", [images]) as scope:
        x = convert_to_tensor(images, name="images")
        if x.shape.ndims not in (None, 4):
            raise ValueError("Shape must be rank 4 but is rank %d for 'ExtractImagePatches'" % x.shape.ndims)
        attrs = {"ksizes": _four(ksizes, "ksizes"), "strides": _four(strides, "strides"),
                 "rates": _four(rates, "rates"), "padding": padding, "T": x.dtype.base_dtype}
        return apply_op("ExtractImagePatches", [(x, "images")], attrs, name=scope)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """tf.image.extract_patches: extract_image_patches with TF2's argument name sizes."""
    return extract_image_patches(images, sizes, strides, rates, padding, name=name)


# ---- resize_image_with_pad ----------------------------------------------------------------------
def resize_image_with_pad(image, target_height, target_width, method=0, align_corners=False):
    """image resized to fit target_height x target_width keeping its aspect ratio, then zero-padded centred."""
    from lens.ops.image_composites import pad_to_bounding_box
    from lens.ops.image_resize_more import resize_images
    with name_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        dims = image.shape.as_list() if image.shape.ndims is not None else None
        if dims is None or len(dims) not in (3, 4) or None in dims[-3:-1]:
            raise ValueError("resize_image_with_pad needs a 3-D or 4-D image with static height and width, got %s"
                             % image.shape)
        if target_height <= 0 or target_width <= 0:
            raise ValueError("target_height and target_width must be > 0")
        h, w = dims[-3:-1]
        ratio = max(w / float(target_width), h / float(target_height))
        rh, rw = int(np.floor(h / ratio)), int(np.floor(w / ratio))
        resized = resize_images(image, [rh, rw], method=method, align_corners=align_corners)
        # TF pads by the unrounded resized size, truncated: (target - size / ratio) / 2
        top = max(int((target_height - h / ratio) / 2), 0)
        left = max(int((target_width - w / ratio) / 2), 0)
        return pad_to_bounding_box(resized, top, left, target_height, target_width)


# ---- ExtractVolumePatches ---------------------------------------------------------------------
def _volume_index(dims, ks, ss, padding):
    """[od, oh, ow, kd, kh, kw] flat source voxel index (prod(dims) where the patch reads padding)."""
    axes, outs = [], []
    for n, k, s in zip(dims, ks, ss):
        o, before = _patch_geometry(n, k, s, 1, padding)
        pos = np.arange(o)[:, None] * s - before + np.arange(k)[None, :]
        axes.append(pos)
        outs.append(o)
    d, h, w = dims
    z, y, x = axes
    inside = (((z >= 0) & (z < d))[:, None, None, :, None, None] & ((y >= 0) & (y < h))[None, :, None, None, :, None]
              & ((x >= 0) & (x < w))[None, None, :, None, None, :])
    flat = (z[:, None, None, :, None, None] * h + y[None, :, None, None, :, None]) * w + x[None, None, :, None, None, :]
    return np.where(inside, flat, d * h * w)


def _volume_make(op, ctx):
    a = op._attrs
    ks, ss = [int(v) for v in a["ksizes"][1:4]], [int(v) for v in a["strides"][1:4]]

    def run(x):
        x = np.asarray(x)
        if x.ndim != 5:
            raise errors.InvalidArgumentError(None, op, "input must be 5-dimensional, got shape %s" % list(x.shape))
        b, c = x.shape[0], x.shape[4]
        idx = _volume_index(x.shape[1:4], ks, ss, a["padding"])
        flat = np.concatenate([x.reshape(b, -1, c), np.zeros((b, 1, c), x.dtype)], 1)
        return flat[:, idx].reshape(b, idx.shape[0], idx.shape[1], idx.shape[2], -1)
    return run


def _volume_shape(op):
    a = op._attrs
    dims = op._inputs[0].shape.as_list() if op._inputs[0].shape.ndims == 5 else [None] * 5
    outs = [None if n is None else _patch_geometry(n, int(k), int(s), 1, a["padding"])[0]
            for n, k, s in zip(dims[1:4], a["ksizes"][1:4], a["strides"][1:4])]
    depth = None if dims[4] is None else int(np.prod(a["ksizes"][1:4])) * dims[4]
    return [TensorShape([dims[0]] + outs + [depth])]


def _volume_grad(op, g):
    from lens.ops.indexing import unsorted_segment_sum
    from lens.ops.slicing import slice as _slice
    a = op._attrs
    dims = op._inputs[0].shape.as_list()
    if None in dims[1:]:
        raise ValueError("the gradient of ExtractVolumePatches '%s' needs static spatial dims and depth" % op.name)
    ks, ss = [int(v) for v in a["ksizes"][1:4]], [int(v) for v in a["strides"][1:4]]
    idx = _volume_index(dims[1:4], ks, ss, a["padding"])
    total, c = int(np.prod(dims[1:4])), dims[4]
    rows = A.reshape(A.transpose(A.reshape(g, [-1] + list(idx.shape[:3]) + ks + [c]), [1, 2, 3, 4, 5, 6, 0, 7]),
                     [int(np.prod(idx.shape)), -1])
    summed = unsorted_segment_sum(rows, convert_to_tensor(idx.reshape(-1).astype(np.int32)), total + 1)
    vox = A.reshape(_slice(summed, [0, 0], [total, -1]), dims[1:4] + [-1, c])
    return [A.transpose(vox, [3, 0, 1, 2, 4])]


register_op("ExtractVolumePatches", make=_volume_make, shape=_volume_shape, grad=_volume_grad)


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """[batch, out_planes, out_rows, out_cols, kd * kh * kw * depth] patches of 5-D input."""
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    ks, ss = [int(v) for v in ksizes], [int(v) for v in strides]
    if len(ks) != 5 or len(ss) != 5 or ks[0] != 1 or ks[4] != 1 or ss[0] != 1 or ss[4] != 1:
        raise ValueError("ksizes and strides must be [1, planes, rows, cols, 1], got %s and %s" % (ks, ss))
    with name_scope(name, "ExtractVolumePatches", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("ExtractVolumePatches", [(x, "input")],
                        {"ksizes": ks, "strides": ss, "padding": padding, "T": x.dtype.base_dtype}, name=scope)
