"""tf.image composites and resize wrappers: values against NumPy written here, TF1's names, dtypes,
static shapes and errors (facts checked against TF's compat.v1 while writing)."""
import numpy as np
import pytest

import lens as tf
from lens import errors
from lens.ops.image_ops import adjust_contrastv2
from optable_rows_image import bilinear_weights, nearest_index

img = tf.image  # every public name the tests use is TF1's tf.image name

RNG = np.random.default_rng(7)
X3 = RNG.uniform(-2, 2, (5, 7, 3)).astype(np.float32)
X4 = RNG.uniform(-2, 2, (2, 5, 7, 3)).astype(np.float32)
U8 = RNG.integers(0, 256, (5, 7, 3)).astype(np.uint8)


def run(fn, *values, dtypes=None, shapes=None):
    """(output tensor, its value) of fn over placeholders fed with values, in a fresh graph."""
    g = tf.Graph()
    with g.as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), v.shape if shapes is None else shapes[i], name="in%d" % i)
               for i, v in enumerate(values)]
        out = fn(*phs)
        with tf.Session(graph=g) as sess:
            return out, sess.run(out, dict(zip(phs, values)))


def test_flips_and_transpose_match_numpy_with_tf1_names():
    cases = [(img.flip_left_right, X3, X3[:, ::-1], "flip_left_right/ReverseV2:0"),
             (img.flip_left_right, X4, X4[:, :, ::-1], "flip_left_right/ReverseV2:0"),
             (img.flip_up_down, X3, X3[::-1], "flip_up_down/ReverseV2:0"),
             (img.flip_up_down, X4, X4[:, ::-1], "flip_up_down/ReverseV2:0"),
             (img.transpose_image, X3, X3.transpose(1, 0, 2), "transpose/transpose:0"),
             (img.transpose_image, X4, X4.transpose(0, 2, 1, 3), "transpose/transpose:0")]
    for fn, x, want, name in cases:
        out, got = run(fn, x)
        assert out.name == name
        assert out.shape.as_list() == list(want.shape)
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="at least three-dimensional"):
        run(img.flip_left_right, X3[0])


def test_resize_images_squeezes_single_images_and_skips_same_size():
    out, got = run(lambda x: img.resize_images(x, [4, 9]), X3)
    assert out.name == "resize/Squeeze:0" and out.dtype == tf.float32 and out.shape.as_list() == [4, 9, 3]
    want = np.einsum("ip,pqc,jq->ijc", bilinear_weights(5, 4), X3.astype(np.float64), bilinear_weights(7, 9))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    out, got = run(lambda x: img.resize_images(x, [3, 2], method=img.ResizeMethod.NEAREST_NEIGHBOR,
                                               align_corners=True), U8)
    assert out.dtype == tf.uint8
    np.testing.assert_array_equal(got, U8[nearest_index(5, 3, True)][:, nearest_index(7, 2, True)])
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 5, 7, 3])
        assert img.resize_images(x, [5, 7]) is x  # TF1 returns the input untouched


def test_resize_bilinear_takes_dynamic_shapes_and_any_dtype_to_float32():
    out, got = run(lambda x, s: img.resize_bilinear(x, s, align_corners=True), U8[None],
                   np.array([3, 10], np.int32), shapes=[[None, None, None, 3], [2]])
    assert out.dtype == tf.float32 and out.shape.as_list() == [None, None, None, 3]
    want = np.einsum("ip,pqc,jq->ijc", bilinear_weights(5, 3, True), U8.astype(np.float64),
                     bilinear_weights(7, 10, True))[None]
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-4)


def test_resize_errors_are_clear():
    with pytest.raises(ValueError, match="Resize method is not implemented"):
        run(lambda x: img.resize_images(x, [2, 2], method=7), X3)
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        run(lambda x: img.resize_images(x, [2, 2]), X3[0])
    with pytest.raises(ValueError, match="2 elements"):
        run(lambda x: img.resize_images(x, [2, 2, 2]), X3)
    with pytest.raises(ValueError, match="must be rank 4"):
        run(lambda x: img.resize_bilinear(x, [2, 2]), X3)
    with pytest.raises(errors.InvalidArgumentError, match="align_corners must be False"):
        run(lambda x: img.resize_bilinear(x, [2, 2], align_corners=True, half_pixel_centers=True), X4)
    with pytest.raises(errors.InvalidArgumentError, match="output dimensions must be positive"):
        run(lambda x, s: img.resize_nearest_neighbor(x, s), X4, np.array([0, 3], np.int32))


def test_per_image_standardization():
    for x in (X3, X4, U8, X3.astype(np.float64)):
        out, got = run(img.per_image_standardization, x)
        assert out.name == "per_image_standardization:0" and out.dtype == tf.float32
        f = x.astype(np.float64)
        axes = (-3, -2, -1)
        n = np.prod(x.shape[-3:])
        mean = f.sum(axis=axes, keepdims=True) / n
        std = np.sqrt(((f - mean) ** 2).sum(axis=axes, keepdims=True) / n)
        np.testing.assert_allclose(got, (f - mean) / np.maximum(std, 1 / np.sqrt(n)), rtol=1e-4, atol=1e-4)
    _, flat = run(img.per_image_standardization, np.full((3, 4, 2), 5.0, np.float32))
    np.testing.assert_array_equal(flat, np.zeros((3, 4, 2)))  # 1/sqrt(n) floor: no division by zero


def test_central_crop_static_and_dynamic():
    for frac in (0.5, 0.3, 0.77):
        h0, w0 = int((5 - 5 * frac) / 2), int((7 - 7 * frac) / 2)
        out, got = run(lambda x: img.central_crop(x, frac), X3)
        assert out.name == "central_crop/Slice:0" and out.shape.as_list() == [5 - 2 * h0, 7 - 2 * w0, 3]
        np.testing.assert_array_equal(got, X3[h0:5 - h0, w0:7 - w0])
        out, got = run(lambda x: img.central_crop(x, frac), X4, shapes=[[None, None, None, 3]])
        assert out.shape.as_list() == [None, None, None, 3]
        np.testing.assert_array_equal(got, X4[:, h0:5 - h0, w0:7 - w0])
    out, _ = run(lambda x: img.central_crop(x, 1.0), X3)
    assert out.op.type == "Placeholder"
    with pytest.raises(ValueError, match=r"within \(0, 1\]"):
        run(lambda x: img.central_crop(x, 0.0), X3)


def test_crop_and_pad_to_bounding_box():
    out, got = run(lambda x: img.crop_to_bounding_box(x, 1, 2, 3, 4), X3)
    assert out.name == "crop_to_bounding_box/Squeeze:0" and out.shape.as_list() == [3, 4, 3]
    np.testing.assert_array_equal(got, X3[1:4, 2:6])
    out, got = run(lambda x: img.pad_to_bounding_box(x, 1, 2, 8, 10), X4)
    assert out.name == "pad_to_bounding_box/Pad:0" and out.shape.as_list() == [2, 8, 10, 3]
    want = np.zeros((2, 8, 10, 3), np.float32)
    want[:, 1:6, 2:9] = X4
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="width must be >= target \\+ offset"):
        run(lambda x: img.crop_to_bounding_box(x, 0, 4, 2, 4), X3)
    with pytest.raises(ValueError, match="height must be <= target - offset"):
        run(lambda x: img.pad_to_bounding_box(x, 2, 0, 6, 7), X3)
    # offsets only known at run time become Assert ops
    with pytest.raises(errors.InvalidArgumentError, match="width must be >= target"):
        run(lambda x, o: img.crop_to_bounding_box(x, 0, o, 2, 4), X3, np.array(5, np.int32))


def test_resize_image_with_crop_or_pad():
    def want(x, th, tw):
        h, w = x.shape[:2]
        out = np.zeros((th, tw, 3), x.dtype)
        ch, cw = min(th, h), min(tw, w)
        src = x[max(h - th, 0) // 2:][:ch, max(w - tw, 0) // 2:][:, :cw]
        top, left = max(th - h, 0) // 2, max(tw - w, 0) // 2
        out[top:top + ch, left:left + cw] = src
        return out
    for th, tw in ((3, 4), (8, 10), (2, 11), (6, 6), (5, 7)):
        out, got = run(lambda x: img.resize_image_with_crop_or_pad(x, th, tw), X3)
        assert out.name == "resize_image_with_crop_or_pad/Squeeze:0" and out.shape.as_list() == [th, tw, 3]
        np.testing.assert_array_equal(got, want(X3, th, tw), err_msg="target %s" % ([th, tw],))
    with pytest.raises(ValueError, match="target_width must be > 0"):
        run(lambda x: img.resize_image_with_crop_or_pad(x, 3, 0), X3)


def test_convert_image_dtype_scaling_and_saturation():
    f01 = np.array([[[-0.2, 0.0, 0.5], [0.999, 1.0, 1.3]]], np.float32)
    i32 = np.array([[[0, 1 << 23, 2**31 - 1]]], np.int32)
    cases = [(U8, tf.float32, False, U8 / np.float32(255)),
             (U8, tf.int32, False, U8.astype(np.int64) * (1 << 23)),
             (U8, tf.int8, False, (U8 // 2).astype(np.int8)),
             (i32, tf.uint8, False, np.array([[[0, 1, 255]]], np.uint8)),
             (f01, tf.uint8, True, np.array([[[0, 0, 127], [255, 255, 255]]], np.uint8)),
             # 2**31 - 1 is 2**31 in float32: saturation stops at the float32 just below it
             (f01, tf.int32, True, np.trunc(np.clip(f01 * np.float32(2**31), -2**31, 2147483520.0))),
             (f01, tf.float64, False, f01.astype(np.float64))]
    for x, dtype, sat, expect in cases:
        out, got = run(lambda t: img.convert_image_dtype(t, dtype, saturate=sat), x)
        assert out.dtype == dtype and got.dtype == dtype.as_numpy_dtype
        what = "%s -> %s saturate=%s" % (x.dtype, dtype.name, sat)
        if dtype.is_integer:
            np.testing.assert_array_equal(got.astype(np.int64), np.asarray(expect).astype(np.int64), err_msg=what)
        else:
            np.testing.assert_allclose(got, expect, rtol=1e-6, err_msg=what)
    out, _ = run(lambda t: img.convert_image_dtype(t, tf.float32), X3)
    assert out.op.type == "Identity"
    out, _ = run(lambda t: img.convert_image_dtype(t, tf.float32), U8)
    assert out.name == "convert_image:0"
    with pytest.raises(AttributeError, match="floating point or integer"):
        run(lambda t: img.convert_image_dtype(t, tf.bool), U8)


def test_rgb_to_grayscale():
    out, got = run(img.rgb_to_grayscale, X4)
    assert out.name == "rgb_to_grayscale:0" and out.shape.as_list() == [2, 5, 7, 1]
    luma = 0.2989 * X4[..., 0:1] + 0.5870 * X4[..., 1:2] + 0.1140 * X4[..., 2:3]
    np.testing.assert_allclose(got, luma, rtol=1e-5, atol=1e-5)
    out, got = run(img.rgb_to_grayscale, U8)
    assert out.dtype == tf.uint8
    luma = (0.2989 * U8[..., 0:1] + 0.5870 * U8[..., 1:2] + 0.1140 * U8[..., 2:3]) / 255
    assert np.max(np.abs(got.astype(np.int64) - np.floor(luma * 255.5))) <= 1


def test_adjust_brightness_and_contrast():
    out, got = run(lambda x: img.adjust_brightness(x, 0.3), X3)
    assert out.name == "adjust_brightness/Identity:0"
    np.testing.assert_allclose(got, X3 + np.float32(0.3), rtol=1e-6)
    _, got = run(lambda x: img.adjust_brightness(x, 0.3), U8)
    want = np.floor(np.minimum(U8 / 255.0 + 0.3, 1.0) * 255.5)
    assert got.dtype == np.uint8 and np.max(np.abs(got - want)) <= 1
    out, got = run(lambda x: img.adjust_contrast(x, 1.7), X4)
    assert out.name == "adjust_contrast/Identity:0" and out.op.inputs[0].op.type == "AdjustContrastv2"
    m = X4.mean(axis=(1, 2), keepdims=True, dtype=np.float64)
    np.testing.assert_allclose(got, (X4 - m) * np.float32(1.7) + m, rtol=1e-5, atol=1e-5)
    _, got = run(lambda x: img.adjust_contrast(x, 3.0), U8)
    f = U8 / 255.0
    m = f.mean(axis=(0, 1), keepdims=True)
    want = np.floor(np.clip((f - m) * 3.0 + m, 0, 1) * 255.5)
    assert got.dtype == np.uint8 and np.max(np.abs(got.astype(np.float64) - want)) <= 1


def test_adjust_contrast_gradient_for_the_factor():
    x = RNG.uniform(0, 1, (2, 3, 4, 2))
    w = RNG.uniform(0.5, 1.5, x.shape)
    g = tf.Graph()
    with g.as_default():
        f = tf.placeholder(tf.float32, [])
        y = adjust_contrastv2(tf.constant(x), f)
        grad = tf.gradients(tf.reduce_sum(y * tf.constant(w)), f)[0]
        with tf.Session(graph=g) as sess:
            got = sess.run(grad, {f: 1.3})
    # d/df of sum(w * ((x - m) f + m)) = sum(w * (x - m))
    np.testing.assert_allclose(got, np.sum(w * (x - x.mean(axis=(1, 2), keepdims=True))), rtol=1e-5)


def test_resize_gradients_flow_through_resize_images():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [5, 7, 3])
        y = img.resize_images(x, [10, 14], method=img.ResizeMethod.NEAREST_NEIGHBOR)
        grad = tf.gradients(tf.reduce_sum(y), x)[0]
        with tf.Session(graph=g) as sess:
            got = sess.run(grad, {x: X3})
    np.testing.assert_array_equal(got, np.full((5, 7, 3), 4.0))  # every pixel copied to a 2x2 block
