"""tf.image codecs, colour, box and quality ops: outputs against TensorFlow's (recorded by
fixtures/record_image_tf.py), encoders by round trips, gradients against central differences."""
import io
import pathlib
import sys

import numpy as np
import pytest
from PIL import Image

import lens as tf

FIX = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIX))
from image_cases import CASES, RGB8, RGB16, RGBA8  # noqa: E402

RECORDED = np.load(FIX / "image_tf.npz")
D = {k[3:]: RECORDED[k] for k in RECORDED.files if k.startswith("in_")}
# lens decodes JPEGs with libjpeg's accurate integer IDCT (Pillow's), TensorFlow with the fast one: a few
# levels apart at most.
LOOSE = {n: 6 for n in ("jpeg", "jpeg_gray", "jpeg_ratio2", "jpeg_crop", "image_jpeg")}
LOOSE["jpeg_from_gray"] = 8   # one high-contrast noise pixel


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    out = CASES[name](tf, D)
    with tf.Session() as sess:
        got = sess.run(out)
    exp = RECORDED[name]
    assert got.dtype == exp.dtype and got.shape == exp.shape, (got.dtype, got.shape, exp.dtype, exp.shape)
    if exp.dtype.kind == "f":
        np.testing.assert_allclose(got, exp, rtol=2e-5, atol=2e-5)
    else:
        np.testing.assert_allclose(got.astype(np.int64), exp.astype(np.int64), atol=LOOSE.get(name, 0))


def test_encoders_round_trip():
    with tf.Session() as sess:
        png, png16, png_rgba, jpeg, jpeg_gray = sess.run([
            tf.image.encode_png(RGB8, compression=9), tf.image.encode_png(RGB16), tf.image.encode_png(RGBA8),
            tf.image.encode_jpeg(RGB8, quality=100, chroma_downsampling=False),
            tf.image.encode_jpeg(RGB8[:, :, :1], format="grayscale", progressive=True)])
        back16 = sess.run(tf.image.decode_png(png16, dtype=tf.uint16))
        shape = sess.run(tf.image.extract_jpeg_shape(jpeg_gray))
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(png))), RGB8)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(png_rgba))), RGBA8)
    np.testing.assert_array_equal(back16, RGB16)
    assert np.abs(np.asarray(Image.open(io.BytesIO(jpeg))).astype(int) - RGB8).max() <= 8
    np.testing.assert_array_equal(shape, [6, 7, 1])


def test_adjust_jpeg_quality_and_random_augmentations_keep_shapes_and_ranges():
    img = tf.constant(RGB8)
    flt = tf.image.convert_image_dtype(img, tf.float32)
    outs = [tf.image.adjust_jpeg_quality(flt, 30), tf.image.random_jpeg_quality(img, 20, 80, seed=1),
            tf.image.random_brightness(flt, 0.2, seed=2), tf.image.random_contrast(flt, 0.5, 1.5, seed=3),
            tf.image.random_hue(flt, 0.3, seed=4), tf.image.random_saturation(flt, 0.5, 1.5, seed=5),
            tf.image.random_flip_left_right(flt, seed=6), tf.image.random_flip_up_down(tf.stack([flt] * 4), seed=7),
            tf.random_crop(flt, [3, 4, 3], seed=8)]
    with tf.Session() as sess:
        got = sess.run(outs)
    assert got[0].dtype == np.float32 and got[0].shape == (6, 7, 3) and np.abs(got[0] - RGB8 / 255.0).mean() < 0.3
    assert got[1].dtype == np.uint8
    f = RGB8 / 255.0
    assert any(np.allclose(got[6], v) for v in (f, f[:, ::-1]))
    for k in range(4):
        assert any(np.allclose(got[7][k], v) for v in (f, f[::-1]))
    crop = got[8]
    assert crop.shape == (3, 4, 3) and any(np.allclose(crop, f[i:i + 3, j:j + 4]) for i in range(4) for j in range(4))


def test_sample_distorted_bounding_box_meets_its_constraints():
    begin, size, box = tf.image.sample_distorted_bounding_box(
        [60, 80, 3], [[[0.2, 0.3, 0.6, 0.7]]], min_object_covered=0.6, aspect_ratio_range=[0.5, 2.0],
        area_range=[0.1, 0.9], seed=3)
    with tf.Session() as sess:
        for _ in range(20):
            b, s, bx = sess.run([begin, size, box])
            y, x, h, w = b[0], b[1], s[0], s[1]
            assert b[2] == 0 and s[2] == -1 and 0 <= y and y + h <= 60 and 0 <= x and x + w <= 80
            assert 0.1 * 4800 <= h * w <= 0.9 * 4800 and 0.5 <= w / h <= 2.0 + 1.0 / h
            cover = max(0, min(y + h, 36) - max(y, 12)) * max(0, min(x + w, 56) - max(x, 24)) / (24 * 32)
            assert cover >= 0.6
            np.testing.assert_allclose(bx[0, 0], [y / 60, x / 80, (y + h) / 60, (x + w) / 80], rtol=1e-6)


def _fd(build, x0, eps=1e-3, **tol):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.as_dtype(x0.dtype), x0.shape)
        y = build(x)
        w = np.random.default_rng(0).uniform(0.5, 1.5, y.shape.as_list()).astype(x0.dtype)
        loss = tf.reduce_sum(y * w)
        grad = tf.gradients(loss, x)[0]
        with tf.Session(graph=g) as sess:
            got = sess.run(grad, {x: x0})
            num = np.zeros(x0.shape)
            for k in np.ndindex(*x0.shape):
                p, m = x0.copy(), x0.copy()
                p[k] += eps
                m[k] -= eps
                num[k] = (sess.run(loss, {x: p}).astype(np.float64) - sess.run(loss, {x: m})) / (2 * eps)
    np.testing.assert_allclose(got, num, **(tol or {"rtol": 2e-2, "atol": 2e-3}))


def test_crop_and_resize_gradients():
    rng = np.random.default_rng(1)
    img = rng.uniform(0, 1, (2, 5, 6, 2)).astype(np.float32)
    boxes = np.array([[0.13, 0.21, 0.77, 0.86], [-0.1, 0.32, 0.61, 1.2]], np.float32)
    _fd(lambda x: tf.image.crop_and_resize(x, boxes, [1, 0], [3, 4]), img)
    _fd(lambda bx: tf.image.crop_and_resize(img, bx, [1, 0], [3, 4]), boxes, eps=1e-3, rtol=3e-2, atol=5e-3)


def test_extract_patches_and_rgb_to_hsv_gradients():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, (2, 5, 4, 2)).astype(np.float32)
    _fd(lambda t: tf.image.extract_patches(t, [1, 2, 3, 1], [1, 2, 1, 1], [1, 2, 1, 1], "SAME"), x)
    rgb = rng.uniform(0.05, 0.95, (3, 4, 3))
    _fd(tf.image.rgb_to_hsv, rgb, eps=1e-6, rtol=1e-5, atol=1e-6)
    _fd(lambda t: tf.image.ssim(t, tf.constant(x[:, :, :, :1] * 0.8), 1.0, filter_size=3), x[:, :, :, :1])


def test_bad_input_raises_tensorflows_errors():
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid PNG data"):
            sess.run(tf.image.decode_png(b"not a png"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
            sess.run(tf.image.decode_jpeg(b"\xff\xd8\xffgarbage"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
            sess.run(tf.image.decode_image(b"RIFFxxxxWEBP"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="iou_threshold"):
            sess.run(tf.image.non_max_suppression([[0, 0, 1, 1]], [1.0], 1, iou_threshold=1.5))
        with pytest.raises(tf.errors.InvalidArgumentError, match="box_ind"):
            sess.run(tf.image.crop_and_resize(np.zeros((1, 4, 4, 1)), [[0, 0, 1, 1]], [3], [2, 2]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="No bounding boxes"):
            sess.run(tf.image.sample_distorted_bounding_box([10, 10, 3], np.zeros((1, 0, 4)))[0])
    with pytest.raises(ValueError, match="channels"):
        tf.image.decode_png(b"", channels=5)
    with pytest.raises(TypeError, match="uint8, uint16"):
        tf.image.encode_png(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(ValueError, match="Gamma"):
        tf.image.adjust_gamma(np.zeros((2, 2, 3), np.float32), -1.0)
    with pytest.raises(ValueError, match="max_delta"):
        tf.image.random_hue(np.zeros((2, 2, 3), np.float32), 0.7)


def test_jpeg_decoding_that_pillow_cannot_do_is_refused_not_ignored():
    buf = io.BytesIO()
    Image.fromarray(RGB8).save(buf, format="JPEG")
    for fn, args in ((tf.image.decode_jpeg, ()), (tf.image.decode_and_crop_jpeg, ([0, 0, 2, 2],))):
        with pytest.raises(ValueError, match="fancy_upscaling=False"):
            fn(buf.getvalue(), *args, fancy_upscaling=False)
