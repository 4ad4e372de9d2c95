"""resize_bicubic / resize_area / resize_images (all methods, preserve_aspect_ratio) against TensorFlow's
outputs (recorded by fixtures/record_resize_tf.py), and the bicubic gradient."""
import pathlib

import numpy as np
import pytest

import lens as tf

REC = np.load(pathlib.Path(__file__).resolve().parent / "fixtures" / "resize_tf.npz")
X = REC["x"]


@pytest.mark.parametrize("name", sorted(k for k in REC.files if k.startswith(("bicubic_", "area_"))
                                        and "grad" not in k))
def test_resize_matches_tensorflow(name):
    kind, h, w, flags = name.split("_")
    if kind == "bicubic":
        out = tf.image.resize_bicubic(X, [int(h), int(w)], align_corners=flags[0] == "1",
                                      half_pixel_centers=flags[1] == "1")
    else:
        out = tf.image.resize_area(X, [int(h), int(w)], align_corners=flags == "1")
    with tf.Session() as sess:
        got = sess.run(out)
    assert got.dtype == np.float32 and out.shape.as_list() == list(got.shape)
    np.testing.assert_allclose(got, REC[name], rtol=1e-5, atol=1e-5)


def test_bicubic_gradient_and_resize_images_methods():
    x = tf.constant(X)
    y = tf.image.resize_bicubic(x, [8, 11])
    yh = tf.image.resize_bicubic(x, [3, 9], half_pixel_centers=True)
    outs = [tf.gradients(tf.reduce_sum(y * y), x)[0], tf.gradients(tf.reduce_sum(yh * yh), x)[0],
            tf.image.resize_images(X, [6, 9], method=tf.image.ResizeMethod.BICUBIC),
            tf.image.resize_images(X[0], [3, 3], method=tf.image.ResizeMethod.AREA),
            tf.image.resize_images(X, [10, 10], preserve_aspect_ratio=True)]
    with tf.Session() as sess:
        got = sess.run(outs)
    for g, name in zip(got, ["bicubic_grad", "bicubic_grad_hp", "resize_images_bicubic", "resize_images_area",
                             "resize_images_aspect"]):
        np.testing.assert_allclose(g, REC[name], rtol=1e-4, atol=1e-5)
    assert tf.image.resize is tf.image.resize_images
