"""tf.image colour ops: RGBToHSV / HSVToRGB / AdjustHue / AdjustSaturation (NumPy kernels, TF's
RGBToHSV gradient), and the composites TF builds on them and on the array ops: adjust_hue /
saturation / gamma, YIQ and YUV, grayscale_to_rgb, rot90, total_variation, psnr, sobel_edges,
image_gradients and the random_* augmentations."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import logic as L
from lens.ops import reduce as R
from lens.ops.image_composites import _at_least_3d, adjust_brightness, adjust_contrast, convert_image_dtype
from lens.ops.indexing import reverse


# ---- HSV kernels ------------------------------------------------------------------------------
def _rgb_to_hsv_np(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(-1)
    rng = v - rgb.min(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, 0)
        norm = np.where(rng > 0, 1.0 / (6.0 * rng), 0)
        h = np.where(r == v, norm * (g - b), np.where(g == v, norm * (b - r) + 2.0 / 6.0,
                                                        norm * (r - g) + 4.0 / 6.0))
    h = np.where(rng > 0, h, 0)
    h = np.where(h < 0, h + 1, h)
    return np.stack([h, s, v], -1).astype(rgb.dtype)


def _hsv_to_rgb_np(hsv):
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    c = s * v
    m = v - c
    dh = h * 6
    x = c * (1 - np.abs(np.fmod(dh, 2) - 1))
    rr, gg, bb = np.zeros_like(h), np.zeros_like(h), np.zeros_like(h)
    for lo, (rv, gv, bv) in enumerate([(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)]):
        sel = (dh >= lo) & (dh < lo + 1) if lo < 5 else (dh >= 5)
        rr, gg, bb = np.where(sel, rv, rr), np.where(sel, gv, gg), np.where(sel, bv, bb)
    sel = dh < 0   # TF's kernel leaves negative hues at (0, 0, 0) + m
    rr, gg, bb = [np.where(sel, 0, t) for t in (rr, gg, bb)]
    return np.stack([rr + m, gg + m, bb + m], -1).astype(hsv.dtype)


def _last3(op, x):
    if np.ndim(x) < 1 or np.shape(x)[-1] != 3:
        raise errors.InvalidArgumentError(None, op, "input must have 3 channels but input only has %s channels"
                                          % (np.shape(x)[-1] if np.ndim(x) else 0))


def _hsv_make(fn):
    def make(op, ctx):
        def run(x):
            _last3(op, x)
            return fn(np.asarray(x))
        return run
    return make


def _rgb_to_hsv_grad(op, g):
    # TF's _RGBToHSVGrad: the derivatives of (h, s, v) with respect to (r, g, b) where each is defined
    rgb = op._inputs[0]
    return [_hsv_grad_op(rgb, g)]


def _hsv_grad_kernel(rgb, grad):
    """d loss / d rgb through h, s, v (max/min picks one channel each; ties go to the first)."""
    rgb = np.asarray(rgb, np.float64)
    gh, gs, gv = [np.asarray(grad, np.float64)[..., i] for i in range(3)]
    imax, imin = rgb.argmax(-1), rgb.argmin(-1)
    v = np.take_along_axis(rgb, imax[..., None], -1)[..., 0]
    mn = np.take_along_axis(rgb, imin[..., None], -1)[..., 0]
    rng = v - mn
    out = np.zeros_like(rgb)
    onehot_max = np.eye(3)[imax]
    onehot_min = np.eye(3)[imin]
    out += gv[..., None] * onehot_max
    with np.errstate(divide="ignore", invalid="ignore"):
        ds_dmax = np.where(v > 0, mn / v ** 2, 0)
        ds_dmin = np.where(v > 0, -1.0 / v, 0)
        out += (gs * ds_dmax)[..., None] * onehot_max + (gs * ds_dmin)[..., None] * onehot_min
        r, gg, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
        # h = (a - c) / (6 rng) + k with a, c the other two channels in TF's order for the max channel
        a_idx = np.choose(imax, [1, 2, 0])
        c_idx = np.choose(imax, [2, 0, 1])
        a = np.take_along_axis(rgb, a_idx[..., None], -1)[..., 0]
        c = np.take_along_axis(rgb, c_idx[..., None], -1)[..., 0]
        num = a - c
        inv = np.where(rng > 0, 1.0 / (6.0 * rng), 0)
        dh = np.zeros_like(rgb)
        dh += (inv)[..., None] * np.eye(3)[a_idx] - inv[..., None] * np.eye(3)[c_idx]
        d_rng = np.where(rng > 0, -num / (6.0 * rng ** 2), 0)
        dh += d_rng[..., None] * (onehot_max - onehot_min)
        del r, gg, b
    out += gh[..., None] * dh
    return out.astype(np.asarray(grad).dtype)


register_op("RGBToHSV", make=_hsv_make(_rgb_to_hsv_np), shape=lambda op: [op._inputs[0].shape],
            grad=_rgb_to_hsv_grad)
register_op("HSVToRGB", make=_hsv_make(_hsv_to_rgb_np), shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)
register_op("RGBToHSVGradLens", fn=_hsv_grad_kernel, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)


def _hsv_grad_op(rgb, g):
    return apply_op("RGBToHSVGradLens", [(rgb, "images"), (g, "grad")], {"T": rgb.dtype.base_dtype},
                    name="RGBToHSVGrad")


def _adjust_make(kind):
    def make(op, ctx):
        def run(images, factor):
            _last3(op, images)
            x = np.asarray(images)
            hsv = _rgb_to_hsv_np(x.astype(np.float32))
            f = np.float32(factor)
            if kind == "hue":
                h = np.fmod(hsv[..., 0] + f, np.float32(1.0))
                hsv[..., 0] = np.where(h < 0, h + 1, h)
            else:
                hsv[..., 1] = np.clip(hsv[..., 1] * f, 0, 1)
            return _hsv_to_rgb_np(hsv).astype(x.dtype)
        return run
    return make


register_op("AdjustHue", make=_adjust_make("hue"), shape=lambda op: [op._inputs[0].shape], not_differentiable=True)
register_op("AdjustSaturation", make=_adjust_make("saturation"), shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)


def _float_images(images, op_type):
    x = convert_to_tensor(images, name="images")
    if not x.dtype.base_dtype.is_floating:
        raise TypeError("Value passed to parameter 'images' of %s has DataType %s not in list of allowed values: "
                        "float16, bfloat16, float32, float64" % (op_type, x.dtype.base_dtype.name))
    if x.shape.ndims is not None and x.shape.as_list()[-1] not in (None, 3):
        raise ValueError("Dimension must be 3 but is %d for '%s' with input shape %s"
                         % (x.shape.as_list()[-1], op_type, x.shape))
    return x


def rgb_to_hsv(images, name=None):
    """RGB images in [0, 1] as HSV (hue in [0, 1))."""
    with name_scope(name, "RGBToHSV", [images]) as scope:
        x = _float_images(images, "RGBToHSV")
        return apply_op("RGBToHSV", [(x, "images")], {"T": x.dtype.base_dtype}, name=scope)


def hsv_to_rgb(images, name=None):
    """HSV images (all in [0, 1]) as RGB."""
    with name_scope(name, "HSVToRGB", [images]) as scope:
        x = _float_images(images, "HSVToRGB")
        return apply_op("HSVToRGB", [(x, "images")], {"T": x.dtype.base_dtype}, name=scope)


def _adjust(op_type, image, factor, name, default):
    with name_scope(name, default, [image]):
        image = convert_to_tensor(image, name="image")
        orig = image.dtype.base_dtype
        flt = image if orig in (_dt.float16, _dt.float32) else convert_image_dtype(image, _dt.float32)
        f = convert_to_tensor(factor, dtype=_dt.float32, name="delta" if op_type == "AdjustHue" else "scale")
        out = apply_op(op_type, [(flt, "images"), (f, "delta")], {"T": flt.dtype.base_dtype},
                       dtypes=[flt.dtype.base_dtype], same_dtype=False)
        return convert_image_dtype(out, orig)


def adjust_hue(image, delta, name=None):
    """image with delta (in [-1, 1]) added to its hue, wrapping around."""
    return _adjust("AdjustHue", image, delta, name, "adjust_hue")


def adjust_saturation(image, saturation_factor, name=None):
    """image with its saturation multiplied by saturation_factor (clipped to [0, 1])."""
    return _adjust("AdjustSaturation", image, saturation_factor, name, "adjust_saturation")


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma in float, converted back to image's dtype (gamma must be non-negative)."""
    with name_scope(None, "adjust_gamma", [image, gamma, gain]) as scope:
        image = convert_to_tensor(image, name="image")
        orig = image.dtype.base_dtype
        flt = image if orig in (_dt.float16, _dt.float32) else convert_image_dtype(image, _dt.float32)
        if not hasattr(gamma, "op") and gamma < 0:
            raise ValueError("Gamma should be a non-negative real number.")
        g = convert_to_tensor(gamma, dtype=flt.dtype.base_dtype, name="gamma")
        out = M.multiply(convert_to_tensor(gain, dtype=flt.dtype.base_dtype), M.pow(flt, g), name=scope)
        return convert_image_dtype(out, orig, saturate=True)


# ---- colour spaces by matrices -----------------------------------------------------------------
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _by_matrix(images, kernel, default):
    from lens.ops.linalg_extra import tensordot
    with name_scope(None, default, [images]):
        images = convert_to_tensor(images, name="images")
        k = convert_to_tensor(kernel, dtype=images.dtype.base_dtype, name="kernel")
        return tensordot(images, k, axes=[[images.shape.ndims - 1], [0]])


def rgb_to_yiq(images):
    """RGB images (floats in [0, 1]) as YIQ."""
    return _by_matrix(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    """YIQ images as RGB."""
    return _by_matrix(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images):
    """RGB images (floats in [0, 1]) as YUV."""
    return _by_matrix(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """YUV images as RGB."""
    return _by_matrix(images, _YUV_TO_RGB, "yuv_to_rgb")


def grayscale_to_rgb(images, name=None):
    """Single-channel images repeated into 3 channels."""
    with name_scope(name, "grayscale_to_rgb", [images]):
        images = _at_least_3d(convert_to_tensor(images, name="images"))
        last = images.shape.as_list()[-1] if images.shape.ndims else None
        if last not in (None, 1):
            raise ValueError("Last dimension of a grayscale image should be size 1, got shape %s" % images.shape)
        rank = images.shape.ndims
        return A.tile(images, [1] * (rank - 1) + [3])


# ---- geometry and differences -------------------------------------------------------------------
def rot90(image, k=1, name=None):
    """image rotated counter-clockwise by k quarter turns (3-D or 4-D; k may be a tensor)."""
    with name_scope(name, "rot90", [image, k]):
        image = _at_least_3d(convert_to_tensor(image, name="image"))
        off = 1 if image.shape.ndims == 4 else 0
        perm = [0, 2, 1, 3] if off else [1, 0, 2]

        def turn(q):
            if q == 1:
                return A.transpose(reverse(image, [off + 1]), perm)
            if q == 2:
                return reverse(image, [off, off + 1])
            if q == 3:
                return reverse(A.transpose(image, perm), [off + 1])
            return image
        from lens.framework.graph import Tensor
        if not isinstance(k, Tensor):
            return turn(int(k) % 4)
        from lens.ops.control_flow_case import case
        kk = M.floormod(M.cast(k, _dt.int32), 4)
        from lens.ops.logic import equal
        return case([(equal(kk, q), (lambda q=q: turn(q))) for q in (1, 2, 3)], default=lambda: turn(0),
                    exclusive=True)


def total_variation(images, name=None):
    """The sum of absolute differences between neighbouring pixels: a scalar (3-D) or one per image (4-D)."""
    with name_scope(name, "total_variation", [images]):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank == 3:
            dh = images[1:, :, :] - images[:-1, :, :]
            dw = images[:, 1:, :] - images[:, :-1, :]
            axes = None
        elif rank == 4:
            dh = images[:, 1:, :, :] - images[:, :-1, :, :]
            dw = images[:, :, 1:, :] - images[:, :, :-1, :]
            axes = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return M.add(R.reduce_sum(M.abs(dh), axis=axes), R.reduce_sum(M.abs(dw), axis=axes))


def psnr(a, b, max_val, name=None):
    """The peak signal-to-noise ratio between images a and b in dB (one per image, float32)."""
    from lens.ops.math import squared_difference
    with name_scope(name, "PSNR", [a, b]):
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        if a.dtype.base_dtype is not b.dtype.base_dtype:
            raise TypeError("a and b must have the same dtype, got %s and %s" % (a.dtype.name, b.dtype.name))
        mv = convert_image_dtype(A.cast(max_val, a.dtype.base_dtype), _dt.float32)
        a, b = convert_image_dtype(a, _dt.float32), convert_image_dtype(b, _dt.float32)
        mse = R.reduce_mean(squared_difference(a, b), [-3, -2, -1])
        return M.subtract(M.truediv(M.multiply(20.0, M.log(mv)), np.float32(np.log(10.0))),
                          M.multiply(np.float32(10 / np.log(10)), M.log(mse)), name="psnr")


def sobel_edges(image):
    """[batch, h, w, d, 2]: the vertical (dy) and horizontal (dx) Sobel responses (reflect-padded)."""
    from lens.ops.conv import depthwise_conv2d
    with name_scope(None, "sobel_edges", [image]):
        image = convert_to_tensor(image, name="image")
        ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
        kernels = np.stack([ky, ky.T], -1)                       # [3, 3, 2]
        depth = image.shape.as_list()[-1]
        if depth is None:
            raise ValueError("sobel_edges needs the static channel count of 'image'")
        k = np.tile(kernels[:, :, None, :], [1, 1, depth, 1]).astype(image.dtype.as_numpy_dtype)
        padded = A.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
        out = depthwise_conv2d(padded, convert_to_tensor(k, name="sobel_filters"), [1, 1, 1, 1], "VALID")
        dims = out.shape.as_list()
        shape = [-1 if dims[0] is None else dims[0]] + [d if d is not None else -1 for d in dims[1:3]] + [depth, 2]
        if dims.count(None) > 1:
            shape = A.concat([A.shape(image), [2]], 0)
        return A.reshape(out, shape)


def image_gradients(image):
    """(dy, dx): forward differences along height and width, zero in the last row / column."""
    with name_scope(None, "image_gradients", [image]):
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims != 4:
            raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not %s." % image.shape)
        dy = image[:, 1:, :, :] - image[:, :-1, :, :]
        dx = image[:, :, 1:, :] - image[:, :, :-1, :]
        dy = A.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
        dx = A.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
        return dy, dx


# ---- random augmentations ---------------------------------------------------------------------
def _uniform(shape, lo, hi, seed, dtype=_dt.float32):
    from lens.ops.random import random_uniform
    return random_uniform(shape, lo, hi, dtype=dtype, seed=seed)


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform([], -max_delta, max_delta, seed))


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, _uniform([], lower, upper, seed))


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta) (max_delta in [0, 0.5])."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _uniform([], -max_delta, max_delta, seed))


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, _uniform([], lower, upper, seed))


def _random_flip(image, axis, seed, default):
    from lens.ops.control_flow_cond import cond
    with name_scope(None, default, [image]) as scope:
        image = _at_least_3d(convert_to_tensor(image, name="image"))
        if image.shape.ndims == 3:
            mirror = L.less(_uniform([], 0, 1.0, seed), 0.5)
            return cond(mirror, lambda: reverse(image, [axis]), lambda: image, name=scope)
        if image.shape.ndims == 4:
            batch = A.shape(image)[0]
            flips = M.cast(M.round(A.reshape(_uniform(A.reshape(batch, [1]), 0, 1.0, seed), [-1, 1, 1, 1])),
                           image.dtype.base_dtype)
            return M.add(M.multiply(flips, reverse(image, [axis + 1])), M.multiply(M.subtract(1, flips), image))
        raise ValueError("'image' must have either 3 or 4 dimensions.")


def random_flip_left_right(image, seed=None):
    """image mirrored left-right with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """image mirrored up-down with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def random_crop(value, size, seed=None, name=None):
    """A slice of value of the given size at a uniformly random offset."""
    from lens.ops.control_flow_assert import Assert
    from lens.ops.core import _with_dependencies
    from lens.ops.slicing import slice as _slice
    with name_scope(name, "random_crop", [value, size]):
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=_dt.int32, name="size")
        shape = A.shape(value)
        check = Assert(R.reduce_all(L.greater_equal(shape, size)), ["Need value.shape >= size, got ", shape, size],
                       summarize=1000)
        shape = _with_dependencies([check], shape)
        limit = M.add(M.subtract(shape, size), 1)
        offset = M.floormod(_uniform(A.shape(shape), 0, _dt.int32.max, seed, dtype=_dt.int32), limit)
        return _slice(value, offset, size, name="random_crop")


def adjust_jpeg_quality(image, jpeg_quality, name=None):
    """image after a JPEG round trip at jpeg_quality (0-100, may be a tensor), in image's dtype."""
    from lens.ops.image_codecs import decode_jpeg, encode_jpeg_variable_quality
    with name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1] if image.shape.ndims else None
        orig = image.dtype.base_dtype
        u8 = convert_image_dtype(image, _dt.uint8, saturate=True)
        out = decode_jpeg(encode_jpeg_variable_quality(u8, jpeg_quality), channels=channels or 0)
        return convert_image_dtype(out, orig, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """adjust_jpeg_quality at a quality drawn uniformly from [min, max) each run."""
    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise ValueError("jpeg_quality must be in [0,100]")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    with name_scope(None, "random_jpeg_quality", [image]):
        q = _uniform([], min_jpeg_quality, max_jpeg_quality, seed, dtype=_dt.int32)
        return adjust_jpeg_quality(image, q)
