"""ResizeBicubic (TF's Keys-cubic weight table, a = -0.75 legacy / -0.5 with half-pixel centres and
out-of-image taps dropped), ResizeBicubicGrad, and ResizeArea (box averages over the scaled footprint):
each a separable linear map, applied as out = My @ image @ Mx^T per channel."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.ops import array as A
from lens.ops.image_ops import (_batched, _check_resize, _hw_of, _resize_shape, _scale, _size_dims,
                                resize_bilinear, resize_nearest_neighbor)

_TABLE = 1024


def _coeffs(a):
    """TF's 1025-entry table: [w for |d| in [0, 1], w for |d| in [1, 2]] at d = i / 1024."""
    x = np.arange(_TABLE + 1, dtype=np.float64) / _TABLE
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1.0
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return near.astype(np.float32), far.astype(np.float32)


_LEGACY, _KEYS = _coeffs(-0.75), _coeffs(-0.5)


def _bicubic_matrix(in_size, out_size, align_corners, half_pixel):
    """The (out, in) float64 matrix of TF's bicubic weights along one axis."""
    scale = _scale(in_size, out_size, align_corners)
    near, far = _KEYS if half_pixel else _LEGACY
    m = np.zeros((out_size, in_size))
    for o in range(out_size):
        src = (np.float32(o) + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else np.float32(o) * scale
        loc = int(np.floor(src))
        off = int(np.rint(np.float32(src - loc) * _TABLE))
        idx = [loc - 1, loc, loc + 1, loc + 2]
        w = [far[off], near[off], near[_TABLE - off], far[_TABLE - off]]
        bounded = [min(max(i, 0), in_size - 1) for i in idx]
        if half_pixel:   # taps outside the image get no weight; the rest are renormalized
            w = [wk if b == i else 0.0 for wk, b, i in zip(w, bounded, idx)]
            total = sum(w)
            if abs(total) >= 1000 * np.finfo(np.float32).tiny:
                w = [wk / total for wk in w]
        for b, wk in zip(bounded, w):
            m[o, b] += wk
    return m


def _area_matrix(in_size, out_size, align_corners):
    """The (out, in) matrix averaging each output's [o * s, (o + 1) * s) footprint (indices past the end clamp)."""
    s = float(_scale(in_size, out_size, align_corners))
    m = np.zeros((out_size, in_size))
    for o in range(out_size):
        lo, hi = o * s, (o + 1) * s
        i = int(np.floor(lo))
        while i < hi:
            w = min(i + 1, hi) - max(i, lo)
            m[o, min(i, in_size - 1)] += w
            i += 1
        m[o] /= s
    return m


def _apply(x, my, mx):
    return np.einsum("ip,npqc,jq->nijc", my, x.astype(np.float64), mx, optimize=True).astype(np.float32)


def _bicubic_make(op, ctx):
    def run(images, size):
        x, oh, ow = _check_resize(op, images, size)
        ac, hp = op._attrs["align_corners"], op._attrs["half_pixel_centers"]
        return _apply(x, _bicubic_matrix(x.shape[1], oh, ac, hp), _bicubic_matrix(x.shape[2], ow, ac, hp))
    return run


def _bicubic_grad_make(op, ctx):
    def run(grads, original):
        orig = np.asarray(original)
        g, _, _ = _check_resize(op, grads, np.asarray(np.shape(grads)[1:3]), "input_grad")
        ac, hp = op._attrs["align_corners"], op._attrs["half_pixel_centers"]
        my = _bicubic_matrix(orig.shape[1], g.shape[1], ac, hp)
        mx = _bicubic_matrix(orig.shape[2], g.shape[2], ac, hp)
        return np.einsum("ip,nijc,jq->npqc", my, g.astype(np.float64), mx, optimize=True).astype(orig.dtype)
    return run


def _area_make(op, ctx):
    def run(images, size):
        x, size = np.asarray(images), [int(v) for v in np.ravel(size)]
        if x.ndim != 4 or len(size) != 2 or min(size) <= 0 or 0 in x.shape[1:3]:
            raise errors.InvalidArgumentError(None, op, "ResizeArea needs 4-D images with non-zero height and width "
                                              "and a positive size [new_height, new_width]; got shapes %s and %s"
                                              % (list(x.shape), size))
        oh, ow = size
        ac = op._attrs["align_corners"]
        return _apply(x, _area_matrix(x.shape[1], oh, ac), _area_matrix(x.shape[2], ow, ac))
    return run


def _attrs(op):
    return {"align_corners": op._attrs["align_corners"], "half_pixel_centers": op._attrs["half_pixel_centers"]}


def _bicubic_grad(op, g):
    x = op._inputs[0]
    return [apply_op("ResizeBicubicGrad", [(g, "grads"), (x, "original_image")],
                     dict(_attrs(op), T=x.dtype.base_dtype), dtypes=[x.dtype.base_dtype], same_dtype=False), None]


def _bicubic_grad_grad(op, gg):
    return [resize_bicubic(gg, _hw_of(op._inputs[1]), **_attrs(op)), None]


register_op("ResizeBicubic", make=_bicubic_make, shape=_resize_shape, grad=_bicubic_grad)
register_op("ResizeBicubicGrad", make=_bicubic_grad_make, shape=lambda op: [op._inputs[1].shape],
            grad=_bicubic_grad_grad)
register_op("ResizeArea", make=_area_make, shape=_resize_shape, not_differentiable=True)


def _resize(op_type, images, size, attrs, name):
    with name_scope(name, op_type, [images, size]) as scope:
        x = convert_to_tensor(images, name="images")
        s = convert_to_tensor(size, dtype=_dt.int32, name="size")
        return apply_op(op_type, [(x, "images"), (s, "size")], dict(attrs, T=x.dtype.base_dtype), name=scope,
                        dtypes=[_dt.float32], same_dtype=False)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """4-D images resized to size=[new_height, new_width] by bicubic interpolation (float32 out)."""
    if align_corners and half_pixel_centers:
        raise ValueError("If half_pixel_centers is True, align_corners must be False.")
    return _resize("ResizeBicubic", images, size, {"align_corners": bool(align_corners),
                                                   "half_pixel_centers": bool(half_pixel_centers)}, name)


def resize_area(images, size, align_corners=False, name=None):
    """4-D images resized to size=[new_height, new_width] by area (box) averaging (float32 out)."""
    return _resize("ResizeArea", images, size, {"align_corners": bool(align_corners)}, name)


def resize_images(images, size, method=0, align_corners=False, preserve_aspect_ratio=False, name=None):
    """TF1's resize_images: 3-D or 4-D images to size=[new_height, new_width] by any ResizeMethod
    (BILINEAR 0, NEAREST_NEIGHBOR 1, BICUBIC 2, AREA 3), optionally keeping the aspect ratio."""
    fns = {0: resize_bilinear, "bilinear": resize_bilinear, 1: resize_nearest_neighbor,
           "nearest": resize_nearest_neighbor, 2: resize_bicubic, "bicubic": resize_bicubic, 3: resize_area,
           "area": resize_area}
    if method not in fns:
        raise ValueError("Resize method is not implemented: %r; use a tf.image.ResizeMethod" % (method,))
    with name_scope(name, "resize", [images, size]):
        x = convert_to_tensor(images, name="images")
        x, is_batch = _batched(x, "resize_images")
        try:
            s = convert_to_tensor(size, dtype=_dt.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor [new_height, new_width], got %r" % (size,)) from None
        if not s.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width; got shape %s"
                             % s.shape)
        hw = x.shape.as_list()[1:3]
        if preserve_aspect_ratio:
            new = _size_dims(s)
            if None in new or None in hw:
                raise ValueError("preserve_aspect_ratio needs a constant size and static image height and width")
            factor = min(np.float32(new[0]) / np.float32(hw[0]), np.float32(new[1]) / np.float32(hw[1]))
            s = convert_to_tensor([int(np.round(factor * np.float32(hw[0]))), int(np.round(factor * np.float32(hw[1])))],
                                  dtype=_dt.int32, name="size")
        new_hw = _size_dims(s)
        if None not in new_hw and new_hw == hw:
            return images if is_batch else A.squeeze(x, axis=[0])
        out = fns[method](x, s, align_corners=align_corners)
        return out if is_batch else A.squeeze(out, axis=[0])
