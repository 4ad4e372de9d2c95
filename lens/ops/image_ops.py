"""tf.image ops: ResizeBilinear and ResizeNearestNeighbor (with their gradient ops) and
AdjustContrastv2; TF1's composites (flips, crops, pads, dtypes...) are in image_composites.py.
Images are NHWC (4-D) or HWC (3-D)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape


class ResizeMethod:
    """TF1's tf.image.ResizeMethod (resize_images in image_resize_more runs all four)."""
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# ---- resize kernels ---------------------------------------------------------------------------
def _scale(in_size, out_size, align_corners):
    """TF's float32 source/target ratio (corner-aligned maps the end pixels onto each other)."""
    if align_corners and out_size > 1:
        return np.float32((in_size - 1) / (out_size - 1))
    return np.float32(in_size / out_size)


def _bilinear_axis(in_size, out_size, align_corners, half_pixel):
    """Per output index along one axis: lower and upper source index and the float32 weight."""
    scale = _scale(in_size, out_size, align_corners)
    o = np.arange(out_size, dtype=np.float32)
    src = (o + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else o * scale
    floor = np.floor(src)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, upper, (src - floor).astype(np.float32)


def _nearest_axis(in_size, out_size, align_corners, half_pixel):
    """Per output index along one axis: the source index TF's nearest-neighbour picks."""
    scale = _scale(in_size, out_size, align_corners)
    o = np.arange(out_size, dtype=np.float32)
    src = (o + np.float32(0.5)) * scale if half_pixel else o * scale
    # align_corners rounds halves away from zero (C roundf); otherwise floor
    idx = np.floor(src + np.float32(0.5)) if align_corners else np.floor(src)
    return np.clip(idx.astype(np.int64), 0, in_size - 1)


def _bilinear_matrix(in_size, out_size, align_corners, half_pixel, dtype):
    """The (out, in) interpolation matrix along one axis: resize = My @ X @ Mx^T per channel."""
    lower, upper, lerp = _bilinear_axis(in_size, out_size, align_corners, half_pixel)
    m = np.zeros((out_size, in_size), dtype)
    rows = np.arange(out_size)
    np.add.at(m, (rows, lower), (1 - lerp).astype(dtype))
    np.add.at(m, (rows, upper), lerp.astype(dtype))
    return m


def _check_resize(op, images, size, what="images"):
    """(images as an array, out_h, out_w) or TF1's InvalidArgumentError for bad shapes or flags."""
    images, size = np.asarray(images), np.asarray(size)
    if op._attrs["half_pixel_centers"] and op._attrs["align_corners"]:
        raise errors.InvalidArgumentError(None, op, "If half_pixel_centers is True, align_corners must be False.")
    if images.ndim != 4:
        raise errors.InvalidArgumentError(None, op, "%s must be 4-dimensional (batch, height, width, channels), "
                                          "got shape %s" % (what, list(images.shape)))
    if size.shape != (2,):
        raise errors.InvalidArgumentError(None, op, "shape_t must be 1-dimensional with 2 elements "
                                          "[new_height, new_width], got shape %s" % list(size.shape))
    out_h, out_w = int(size[0]), int(size[1])
    if out_h <= 0 or out_w <= 0:
        raise errors.InvalidArgumentError(None, op, "output dimensions must be positive, got size %s"
                                          % ([out_h, out_w],))
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise errors.InvalidArgumentError(None, op, "input image must be of non-zero size, got shape %s"
                                          % list(images.shape))
    return images, out_h, out_w


def _flags(op):
    return op._attrs["align_corners"], op._attrs["half_pixel_centers"]


def _resize_bilinear_make(op, ctx):
    def run(images, size):
        x, oh, ow = _check_resize(op, images, size)
        ac, hp = _flags(op)
        y0, y1, yl = _bilinear_axis(x.shape[1], oh, ac, hp)
        x0, x1, xl = _bilinear_axis(x.shape[2], ow, ac, hp)
        xf = x.astype(np.float32, copy=False)  # TF interpolates in float32 whatever the input
        top, bottom = xf[:, y0], xf[:, y1]
        xl = xl[None, None, :, None]
        top = top[:, :, x0] + (top[:, :, x1] - top[:, :, x0]) * xl
        bottom = bottom[:, :, x0] + (bottom[:, :, x1] - bottom[:, :, x0]) * xl
        return top + (bottom - top) * yl[None, :, None, None]
    return run


def _resize_bilinear_grad_make(op, ctx):
    def run(grads, original_image):
        orig = np.asarray(original_image)
        g, oh, ow = _check_resize(op, grads, np.asarray(np.shape(grads)[1:3]), "input_grad")
        if orig.ndim != 4:
            raise errors.InvalidArgumentError(None, op, "original_image must be 4-dimensional, got shape %s"
                                              % list(orig.shape))
        ac, hp = _flags(op)
        acc = np.float64 if orig.dtype == np.float64 else np.float32
        my = _bilinear_matrix(orig.shape[1], oh, ac, hp, acc)
        mx = _bilinear_matrix(orig.shape[2], ow, ac, hp, acc)
        out = np.einsum("ip,nijc,jq->npqc", my, g.astype(acc, copy=False), mx, optimize=True)
        return out.astype(orig.dtype, copy=False)
    return run


def _resize_nearest_make(op, ctx):
    def run(images, size):
        x, oh, ow = _check_resize(op, images, size)
        ac, hp = _flags(op)
        ys = _nearest_axis(x.shape[1], oh, ac, hp)
        xs = _nearest_axis(x.shape[2], ow, ac, hp)
        return x[:, ys][:, :, xs]
    return run


def _resize_nearest_grad_make(op, ctx):
    def run(grads, size):
        g, ih, iw = _check_resize(op, grads, size, "input_grad")
        ac, hp = _flags(op)
        # the forward map from the original (ih, iw) to the grads' size, summed back
        ys = _nearest_axis(ih, g.shape[1], ac, hp)
        xs = _nearest_axis(iw, g.shape[2], ac, hp)
        out = np.zeros((ih, iw, g.shape[0], g.shape[3]), g.dtype)
        np.add.at(out, (ys[:, None], xs[None, :]), g.transpose(1, 2, 0, 3))
        return out.transpose(2, 0, 1, 3).copy()
    return run


def _size_dims(t):
    """The static [h, w] of a size tensor, None where unknown."""
    from lens.ops.shapes import const_value
    v = const_value(t)
    return [None, None] if v is None or np.size(v) != 2 else [int(d) for d in np.ravel(v)]


def _rank4(op, k=0):
    s = op._inputs[k].shape
    if s.ndims is not None and s.ndims != 4:
        raise ValueError("Shape must be rank 4 but is rank %d for '%s' (op: '%s') with input shapes: %s."
                         % (s.ndims, op.name, op.type, ", ".join(str(t.shape) for t in op._inputs)))
    return s.as_list() if s.ndims is not None else [None] * 4


def _resize_shape(op):
    dims = _rank4(op)
    s = op._inputs[1].shape
    if s.ndims is not None and (s.ndims != 1 or s.as_list()[0] not in (None, 2)):
        raise ValueError("size of '%s' (op: '%s') must be a 1-D tensor of 2 elements [new_height, new_width], "
                         "got shape %s" % (op.name, op.type, s))
    return [TensorShape([dims[0]] + _size_dims(op._inputs[1]) + [dims[3]])]


def _bilinear_grad_shape(op):
    _rank4(op)
    return [op._inputs[1].shape if op._inputs[1].shape.ndims is not None else unknown_shape(4)]


def _nearest_grad_shape(op):
    dims = _rank4(op)
    return [TensorShape([dims[0]] + _size_dims(op._inputs[1]) + [dims[3]])]


def _attrs(op):
    return {"align_corners": op._attrs["align_corners"], "half_pixel_centers": op._attrs["half_pixel_centers"]}


def _hw_of(t):
    """A size tensor [h, w] of a 4-D tensor (a constant when static)."""
    dims = t.shape.as_list() if t.shape.ndims == 4 else [None] * 4
    if dims[1] is not None and dims[2] is not None:
        return dims[1:3]
    from lens.ops.indexing import strided_slice
    return strided_slice(A.shape(t), [1], [3], [1])


def _resize_bilinear_grad_fn(op, g):
    return [resize_bilinear_grad(g, op._inputs[0], **_attrs(op)), None]


def _resize_nearest_grad_fn(op, g):
    return [resize_nearest_neighbor_grad(g, _hw_of(op._inputs[0]), **_attrs(op)), None]


def _bilinear_grad_grad_fn(op, gg):
    # ResizeBilinearGrad is the transpose of a linear map: its own gradient is the forward resize
    return [resize_bilinear(gg, _hw_of(op._inputs[0]), **_attrs(op)), None]


def _nearest_grad_grad_fn(op, gg):
    return [resize_nearest_neighbor(gg, _hw_of(op._inputs[0]), **_attrs(op)), None]


register_op("ResizeBilinear", make=_resize_bilinear_make, shape=_resize_shape, grad=_resize_bilinear_grad_fn)
register_op("ResizeBilinearGrad", make=_resize_bilinear_grad_make, shape=_bilinear_grad_shape,
            grad=_bilinear_grad_grad_fn)
register_op("ResizeNearestNeighbor", make=_resize_nearest_make, shape=_resize_shape, grad=_resize_nearest_grad_fn)
register_op("ResizeNearestNeighborGrad", make=_resize_nearest_grad_make, shape=_nearest_grad_shape,
            grad=_nearest_grad_grad_fn)


def _resize_op(op_type, images, size, align_corners, half_pixel_centers, name, out_dtype=None):
    with name_scope(name, op_type, [images, size]) as scope:
        x = convert_to_tensor(images, name="images")
        s = convert_to_tensor(size, dtype=_dt.int32, name="size")
        attrs = {"T": x.dtype.base_dtype, "align_corners": bool(align_corners),
                 "half_pixel_centers": bool(half_pixel_centers)}
        return apply_op(op_type, [(x, "images"), (s, "size")], attrs, name=scope,
                        dtypes=[out_dtype or x.dtype.base_dtype], same_dtype=False)


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """4-D images resized to size=[new_height, new_width] by bilinear interpolation (float32 out)."""
    return _resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name, _dt.float32)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """4-D images resized to size=[new_height, new_width] by nearest-neighbour sampling."""
    return _resize_op("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers, name)


def resize_bilinear_grad(grads, original_image, align_corners=False, half_pixel_centers=False, name=None):
    """The gradient of ResizeBilinear: float32 grads summed back onto original_image's grid."""
    with name_scope(name, "ResizeBilinearGrad", [grads, original_image]) as scope:
        g = convert_to_tensor(grads, dtype=_dt.float32, name="grads")
        orig = convert_to_tensor(original_image, name="original_image")
        attrs = {"T": orig.dtype.base_dtype, "align_corners": bool(align_corners),
                 "half_pixel_centers": bool(half_pixel_centers)}
        return apply_op("ResizeBilinearGrad", [(g, "grads"), (orig, "original_image")], attrs, name=scope,
                        dtypes=[orig.dtype.base_dtype], same_dtype=False)


def resize_nearest_neighbor_grad(grads, size, align_corners=False, half_pixel_centers=False, name=None):
    """The gradient of ResizeNearestNeighbor: grads summed back onto a size=[h, w] grid."""
    with name_scope(name, "ResizeNearestNeighborGrad", [grads, size]) as scope:
        g = convert_to_tensor(grads, name="grads")
        s = convert_to_tensor(size, dtype=_dt.int32, name="size")
        attrs = {"T": g.dtype.base_dtype, "align_corners": bool(align_corners),
                 "half_pixel_centers": bool(half_pixel_centers)}
        return apply_op("ResizeNearestNeighborGrad", [(g, "grads"), (s, "size")], attrs, name=scope,
                        dtypes=[g.dtype.base_dtype], same_dtype=False)


def _batched(images, fn_name):
    """(4-D images, was_batched); TF1's ValueError for a rank other than 3 or 4."""
    ndims = images.shape.ndims
    if ndims is None:
        raise ValueError("'images' contains no shape: %s needs the rank (3 or 4) known when the graph is "
                         "built; give the placeholder a shape." % fn_name)
    if ndims == 3:
        return A.expand_dims(images, 0), False
    if ndims != 4:
        raise ValueError("'images' must have either 3 or 4 dimensions, got shape %s in %s."
                         % (images.shape, fn_name))
    return images, True


# ---- AdjustContrastv2 -------------------------------------------------------------------------
def _adjust_contrast_kernel(images, contrast_factor):
    x = np.asarray(images)
    mean = x.mean(axis=(-3, -2), keepdims=True, dtype=np.float64).astype(x.dtype)
    return ((x - mean) * np.asarray(contrast_factor, x.dtype) + mean).astype(x.dtype, copy=False)


def _adjust_contrast_grad(op, g):
    # y = (x - m) * f + m with m the per-image, per-channel mean over height and width
    from lens.ops import reduce as R
    x, f = op._inputs
    f = A.cast(f, x.dtype.base_dtype) if f.dtype.base_dtype is not x.dtype.base_dtype else f
    one = convert_to_tensor(1, dtype=x.dtype.base_dtype)
    gx = M.add(M.multiply(g, f), M.multiply(M.subtract(one, f), R.reduce_mean(g, axis=[-3, -2], keepdims=True)))
    centred = M.subtract(x, R.reduce_mean(x, axis=[-3, -2], keepdims=True))
    gf = R.reduce_sum(M.multiply(g, centred))
    return [gx, A.cast(gf, op._inputs[1].dtype.base_dtype)]


def _adjust_contrast_shape(op):
    s = op._inputs[0].shape
    if s.ndims is not None and s.ndims < 3:
        raise ValueError("Shape must be at least rank 3 but is rank %d for '%s' (op: 'AdjustContrastv2')"
                         % (s.ndims, op.name))
    return [s]


register_op("AdjustContrastv2", fn=_adjust_contrast_kernel, shape=_adjust_contrast_shape,
            grad=_adjust_contrast_grad)


def adjust_contrastv2(images, contrast_factor, name=None):
    """The raw AdjustContrastv2 op: (x - mean) * contrast_factor + mean per image and channel."""
    with name_scope(name, "AdjustContrastv2", [images, contrast_factor]) as scope:
        x = convert_to_tensor(images, name="images")
        f = convert_to_tensor(contrast_factor, dtype=_dt.float32, name="contrast_factor")
        return apply_op("AdjustContrastv2", [(x, "images"), (f, "contrast_factor")], {"T": x.dtype.base_dtype},
                        name=scope, dtypes=[x.dtype.base_dtype], same_dtype=False)
