"""tf.image's composites as TF1 builds them: flips, transpose, crops and pads, dtype conversion,
brightness, contrast, grayscale, per-image standardization (NHWC 4-D or HWC 3-D images)."""
import numbers

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.image_ops import adjust_contrastv2


def _is_tensor(x):
    return isinstance(x, Tensor)


def _at_least_3d(image):
    """image after TF1's rank check (a control_dependency identity, with an assert if dims are dynamic)."""
    from lens.ops.control_flow_assert import assert_positive
    from lens.ops.core import _with_dependencies
    from lens.ops.indexing import strided_slice
    s = image.shape
    if s.ndims is not None and s.ndims < 3:
        raise ValueError("'image' (shape %s) must be at least three-dimensional." % s)
    dims = s.as_list()[-3:] if s.ndims is not None else [None] * 3
    if any(d == 0 for d in dims):
        raise ValueError("all dims of 'image.shape' must be > 0: %s" % s)
    deps = []
    if None in dims:
        deps = [assert_positive(strided_slice(A.shape(image), [-3], [0], [1], end_mask=1),
                                ["all dims of 'image.shape' must be > 0."])]
    return _with_dependencies(deps, image)


def _check(cond, message):
    """TF1's _assert: a Python False raises ValueError now, a tensor condition becomes an Assert op."""
    if _is_tensor(cond):
        from lens.ops.control_flow_assert import Assert
        return [Assert(cond, [message])]
    if not cond:
        raise ValueError(message)
    return []


def _dims(image, rank=4):
    """Each dimension of image: a Python int where static, else a scalar tensor."""
    s = image.shape.with_rank(rank) if image.shape.ndims is None else image.shape
    static = s.as_list()
    if None not in static:
        return static
    dynamic = A.unstack(A.shape(image), rank)
    return [st if st is not None else d for st, d in zip(static, dynamic)]


def _pack(values, name="stack"):
    """A 1-D int32 tensor of values: a constant when all are Python ints (as TF1's stack folds it)."""
    if not any(_is_tensor(v) for v in values):
        return convert_to_tensor([int(v) for v in values], dtype=_dt.int32, name=name)
    return A.stack([v if _is_tensor(v) else convert_to_tensor(int(v), dtype=_dt.int32) for v in values], name=name)


def _to_batch(image):
    """(4-D image, was_batched) as crop/pad take it; ValueError for rank 1, 2 or 5+."""
    ndims = image.shape.ndims
    if ndims == 4:
        return image, True
    if ndims not in (3, None):
        raise ValueError("'image' must have either 3 or 4 dimensions, got shape %s." % image.shape)
    out = A.expand_dims(image, 0)
    if ndims is None:
        out.set_shape([None] * 4)
    return out, False


def _flip(image, axis, scope_name):
    from lens.ops.indexing import reverse
    with name_scope(None, scope_name, [image]):
        image = _at_least_3d(convert_to_tensor(image, name="image"))
        if image.shape.ndims in (3, None):
            return reverse(image, [axis])
        if image.shape.ndims == 4:
            return reverse(image, [axis + 1])
        raise ValueError("'image' must have either 3 or 4 dimensions, got shape %s." % image.shape)


def flip_left_right(image):
    """image mirrored along its width axis."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """image mirrored along its height axis."""
    return _flip(image, 0, "flip_up_down")


def transpose_image(image, name=None):
    """image with height and width swapped."""
    with name_scope(name, "transpose", [image]):
        image = _at_least_3d(convert_to_tensor(image, name="image"))
        if image.shape.ndims in (3, None):
            return A.transpose(image, [1, 0, 2])
        if image.shape.ndims == 4:
            return A.transpose(image, [0, 2, 1, 3])
        raise ValueError("'image' must have either 3 or 4 dimensions, got shape %s." % image.shape)


def per_image_standardization(image):
    """(image - mean) / max(stddev, 1/sqrt(pixels)) over each image's height, width and channels."""
    from lens.ops import reduce as R
    from lens.ops.indexing import strided_slice
    from lens.ops.math_special import reduce_std
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = _at_least_3d(convert_to_tensor(image, name="image"))
        if image.dtype.base_dtype not in (_dt.float16, _dt.float32):
            image = A.cast(image, _dt.float32)
        num_pixels = R.reduce_prod(strided_slice(A.shape(image), [-3], [0], [1], end_mask=1))
        mean = R.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = M.rsqrt(A.cast(num_pixels, image.dtype.base_dtype))
        adjusted_stddev = M.maximum(stddev, min_stddev)
        return M.divide(M.subtract(image, mean), adjusted_stddev, name=scope)


def central_crop(image, central_fraction):
    """The central central_fraction (in (0, 1]) of each image's height and width."""
    from lens.ops.slicing import slice as slice_
    with name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        if not isinstance(central_fraction, numbers.Real) or not 0.0 < central_fraction <= 1.0:
            raise ValueError("central_fraction must be within (0, 1], got %r" % (central_fraction,))
        if central_fraction == 1.0:
            return image
        image = _at_least_3d(image)
        rank = image.shape.ndims
        if rank not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = %s." % rank)
        dims = image.shape.as_list()
        h_axis = rank - 3
        starts, sizes, static = [], [], []
        for axis in (h_axis, h_axis + 1):
            d = dims[axis]
            if d is None:
                full = A.cast(A.shape(image)[axis], _dt.float64)
                start = A.cast((full - full * central_fraction) / 2, _dt.int32)
                sizes.append(A.shape(image)[axis] - start * 2)
            else:
                start = int((float(d) - float(d) * central_fraction) / 2)
                sizes.append(d - start * 2)
            starts.append(start)
            static.append(None if d is None else sizes[-1])
        lead = [0] if rank == 4 else []
        out = slice_(image, _pack(lead + starts + [0]), _pack([-1] * len(lead) + sizes + [-1], name="stack_1"))
        out.set_shape(dims[:h_axis] + static + [dims[-1]])
        return out


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The target_height x target_width window of image starting at (offset_height, offset_width)."""
    from lens.ops.slicing import slice as slice_
    from lens.ops.core import _with_dependencies
    with name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch = _to_batch(convert_to_tensor(image, name="image"))
        image = _at_least_3d(image)
        batch, height, width, depth = _dims(image)
        deps = _check(offset_width >= 0, "offset_width must be >= 0.")
        deps += _check(offset_height >= 0, "offset_height must be >= 0.")
        deps += _check(target_width > 0, "target_width must be > 0.")
        deps += _check(target_height > 0, "target_height must be > 0.")
        deps += _check(width >= target_width + offset_width, "width must be >= target + offset.")
        deps += _check(height >= target_height + offset_height, "height must be >= target + offset.")
        if deps:
            image = _with_dependencies(deps, image)
        out = slice_(image, _pack([0, offset_height, offset_width, 0]),
                     _pack([-1, target_height, target_width, -1], name="stack_1"))
        out.set_shape([None if _is_tensor(d) else d for d in (batch, target_height, target_width, depth)])
        return out if is_batch else A.squeeze(out, axis=[0])


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """image zero-padded to target_height x target_width with its top-left at (offset_height, offset_width)."""
    from lens.ops.core import _with_dependencies
    with name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch = _to_batch(convert_to_tensor(image, name="image"))
        image = _at_least_3d(image)
        batch, height, width, depth = _dims(image)
        after_width = target_width - offset_width - width
        after_height = target_height - offset_height - height
        deps = _check(offset_height >= 0, "offset_height must be >= 0")
        deps += _check(offset_width >= 0, "offset_width must be >= 0")
        deps += _check(after_width >= 0, "width must be <= target - offset")
        deps += _check(after_height >= 0, "height must be <= target - offset")
        if deps:
            image = _with_dependencies(deps, image)
        paddings = A.reshape(_pack([0, 0, offset_height, after_height, offset_width, after_width, 0, 0]), [4, 2])
        out = A.pad(image, paddings)
        out.set_shape([None if _is_tensor(d) else d for d in (batch, target_height, target_width, depth)])
        return out if is_batch else A.squeeze(out, axis=[0])


def _max(x, y):
    return M.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def _min(x, y):
    return M.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """image centrally cropped and/or zero-padded to target_height x target_width."""
    from lens.ops.core import _with_dependencies
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = _to_batch(convert_to_tensor(image, name="image"))
        deps = _check(target_width > 0, "target_width must be > 0.")
        deps += _check(target_height > 0, "target_height must be > 0.")
        image = _with_dependencies(deps, _at_least_3d(image)) if deps else _at_least_3d(image)
        _, height, width, _ = _dims(image)
        width_diff, height_diff = target_width - width, target_height - height
        cropped = crop_to_bounding_box(image, _max(-height_diff // 2, 0), _max(-width_diff // 2, 0),
                                       _min(target_height, height), _min(target_width, width))
        out = pad_to_bounding_box(cropped, _max(height_diff // 2, 0), _max(width_diff // 2, 0),
                                  target_height, target_width)
        return out if is_batch else A.squeeze(out, axis=[0])


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def saturate_cast(value, dtype, name=None):
    """value cast to dtype after clamping it to dtype's range."""
    dtype = _dt.as_dtype(dtype).base_dtype
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        src = value.dtype.base_dtype
        if src.min < dtype.min:
            value = M.maximum(value, convert_to_tensor(dtype.min, dtype=src, name="min"))
        if src.max > dtype.max:
            top = np.asarray(dtype.max).astype(src.as_numpy_dtype)
            if src.is_floating and float(top) > float(dtype.max):
                # int32.max rounds up to 2**31 in float32, which overflows the cast: step below it
                top = np.nextafter(top, src.as_numpy_dtype(0))
            value = M.minimum(value, convert_to_tensor(top, dtype=src, name="max"))
        return A.cast(value, dtype, name=scope)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """image in dtype, rescaled: floats span [0, 1], integers [0, dtype.max]."""
    image = convert_to_tensor(image, name="image")
    dtype = _dt.as_dtype(dtype).base_dtype
    src = image.dtype.base_dtype
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer, got %s" % dtype.name)
    if not (src.is_floating or src.is_integer):
        raise TypeError("convert_image_dtype: image must be a float or integer tensor, got %s" % src.name)
    if src is dtype:
        from lens.ops.core import identity
        return identity(image, name=name)
    cast = saturate_cast if saturate else A.cast
    with name_scope(name, "convert_image", [image]) as scope:
        if src.is_integer and dtype.is_integer:
            if src.max > dtype.max:
                # scale down first: in.max lands in [out.max, out.max + 1), safe to cast
                scaled = M.floordiv(image, convert_to_tensor((int(src.max) + 1) // (int(dtype.max) + 1), dtype=src))
                return cast(scaled, dtype, name=scope)
            return M.multiply(cast(image, dtype), convert_to_tensor((int(dtype.max) + 1) // (int(src.max) + 1),
                                                                    dtype=dtype), name=scope)
        if src.is_floating and dtype.is_floating:
            return A.cast(image, dtype, name=scope)
        if src.is_integer:
            return M.multiply(A.cast(image, dtype), convert_to_tensor(1.0 / float(src.max), dtype=dtype), name=scope)
        # from float: the extra half keeps 1.0 from rounding below dtype.max in the truncating cast
        scaled = M.multiply(image, convert_to_tensor(float(dtype.max) + 0.5, dtype=src))
        return cast(scaled, dtype, name=scope)


def rgb_to_grayscale(images, name=None):
    """The luma (0.2989 R + 0.5870 G + 0.1140 B) of RGB images, with a channel axis of 1."""
    from lens.ops.linalg_extra import tensordot
    with name_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        orig = images.dtype.base_dtype
        flt = convert_image_dtype(images, _dt.float32)
        gray = A.expand_dims(tensordot(flt, [0.2989, 0.5870, 0.1140], [-1, -1]), -1)
        return convert_image_dtype(gray, orig, name=scope)


def _as_float(image):
    """image itself when float16/32, else converted to float32 (TF1's adjust_* rule)."""
    if image.dtype.base_dtype in (_dt.float16, _dt.float32):
        return image
    return convert_image_dtype(image, _dt.float32)


def adjust_brightness(image, delta):
    """image + delta in float, converted back to image's dtype with saturation."""
    with name_scope(None, "adjust_brightness", [image, delta]) as scope:
        image = convert_to_tensor(image, name="image")
        flt = _as_float(image)
        adjusted = M.add(flt, A.cast(delta, flt.dtype.base_dtype), name=scope)
        return convert_image_dtype(adjusted, image.dtype.base_dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean per image and channel, in images' dtype."""
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as scope:
        images = convert_to_tensor(images, name="images")
        adjusted = adjust_contrastv2(_as_float(images), contrast_factor, name=scope)
        return convert_image_dtype(adjusted, images.dtype.base_dtype, saturate=True)
