"""Op-table rows: ResizeBicubic / ResizeArea against TensorFlow's recorded outputs, ResizeBicubicGrad as
the exact transpose of the (linear) resize, checked with unit steps."""
import pathlib

import numpy as np

import lens as tf
from lens.ops import image_resize_more as R
from optable_lib import custom

_REC = np.load(pathlib.Path(__file__).resolve().parent / "fixtures" / "resize_tf.npz")


def _run(build):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(build())


def _bicubic():
    got = _run(lambda: [R.resize_bicubic(_REC["x"], [8, 11]), R.resize_bicubic(_REC["x"], [3, 4], True),
                        R.resize_bicubic(_REC["x"], [9, 3], half_pixel_centers=True)])
    for g, k in zip(got, ["bicubic_8_11_00", "bicubic_3_4_10", "bicubic_9_3_01"]):
        np.testing.assert_allclose(g, _REC[k], rtol=1e-5, atol=1e-5)


def _area():
    got = _run(lambda: [R.resize_area(_REC["x"], [3, 4]), R.resize_area(_REC["x"], [8, 11], align_corners=True)])
    for g, k in zip(got, ["area_3_4_0", "area_8_11_1"]):
        np.testing.assert_allclose(g, _REC[k], rtol=1e-5, atol=1e-5)


def _bicubic_grad():
    rng = np.random.default_rng(2)
    x0 = rng.uniform(-1, 1, (1, 4, 5, 2)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, (1, 6, 3, 2)).astype(np.float32)
    for hp in (False, True):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, x0.shape)
            loss = tf.reduce_sum(tf.cast(R.resize_bicubic(x, [6, 3], half_pixel_centers=hp) * w, tf.float64))
            grad = tf.gradients(loss, x)[0]
            with tf.Session(graph=g) as s:
                got = s.run(grad, {x: x0})
                base = s.run(loss, {x: np.zeros_like(x0)})
                num = np.zeros(x0.shape)
                for k in np.ndindex(*x0.shape):   # linear in x: one unit step is exact
                    e = np.zeros_like(x0)
                    e[k] = 1.0
                    num[k] = s.run(loss, {x: e}) - base
        np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-5)


ROWS = [custom("ResizeBicubic", _bicubic), custom("ResizeArea", _area), custom("ResizeBicubicGrad", _bicubic_grad)]
