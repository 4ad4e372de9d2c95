"""tf.signal / tf.spectral: outputs against TensorFlow's (recorded by fixtures/record_cases_tf.py signal),
N-D FFTs against NumPy, gradients against central differences, TF's errors for bad input."""
import pathlib
import sys

import numpy as np
import pytest

import lens as tf

FIX = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIX))
from signal_cases import CASES, CPLX, ODD, SPEC  # noqa: E402

RECORDED = np.load(FIX / "signal_tf.npz")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    out = CASES[name](tf)
    with tf.Session() as sess:
        got = sess.run(out)
    exp = RECORDED[name]
    assert got.dtype == exp.dtype and got.shape == exp.shape, (got.dtype, got.shape, exp.dtype, exp.shape)
    assert out.shape.is_compatible_with(got.shape)
    tol = 1e-10 if exp.dtype in (np.float64, np.complex128) else 2e-4
    np.testing.assert_allclose(got, exp, rtol=tol, atol=tol * max(1.0, np.abs(exp).max()))


def test_nd_ffts_match_numpy():
    with tf.Session() as sess:
        got = sess.run([tf.signal.fftnd(CPLX, axes=[0, 2]),
                        tf.signal.fftnd(CPLX, fft_length=[5, 4], axes=[-2, -1], norm="ortho"),
                        tf.signal.ifftnd(CPLX, norm="forward"),
                        tf.signal.rfftnd(ODD, axes=[1, 2]),
                        tf.signal.irfftnd(SPEC, fft_length=[3, 16], axes=[1, 2], norm="ortho"),
                        tf.ifftnd(CPLX)])
    exp = [np.fft.fftn(CPLX, axes=[0, 2]), np.fft.fftn(CPLX, s=[5, 4], axes=[1, 2], norm="ortho"),
           np.fft.ifftn(CPLX, norm="forward"), np.fft.rfftn(ODD, axes=[1, 2]),
           np.fft.irfftn(SPEC, s=[3, 16], axes=[1, 2], norm="ortho"), np.fft.ifftn(CPLX)]
    for g, e in zip(got, exp):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)
    assert got[0].dtype == np.complex64 and got[3].dtype == np.complex128 and got[4].dtype == np.float32


def _fd_check(build, shape, seed=0, eps=1e-6):
    """d loss / dx of a real scalar loss(x) (float64) against central differences."""
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal(shape)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, shape)
        loss = build(x, rng)
        grad = tf.gradients(loss, x)[0]
        with tf.Session(graph=g) as sess:
            analytic = sess.run(grad, {x: x0})
            numeric = np.zeros(shape)
            for k in np.ndindex(*shape):
                p, m = x0.copy(), x0.copy()
                p[k] += eps
                m[k] -= eps
                numeric[k] = (sess.run(loss, {x: p}) - sess.run(loss, {x: m})) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def _weighted(y, rng):
    """A real loss touching the real and imaginary parts of y: sum(w1 * real(y) + w2 * imag(y))."""
    shape = y.shape.as_list()
    w1, w2 = rng.uniform(0.5, 1.5, shape), rng.uniform(-1.0, 1.0, shape)
    if not y.dtype.is_complex:
        return tf.reduce_sum(y * w1)
    return tf.reduce_sum(tf.real(y) * w1 + tf.imag(y) * w2)


@pytest.mark.parametrize("fn", ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d"])
def test_complex_fft_gradients(fn):
    _fd_check(lambda x, rng: _weighted(getattr(tf.signal, fn)(tf.complex(x, tf.zeros_like(x))), rng), (2, 3, 4))


@pytest.mark.parametrize("fn,length", [("rfft", None), ("rfft", [5]), ("rfft", [9]), ("rfft2d", [2, 6]),
                                       ("rfft3d", None)])
def test_rfft_gradients(fn, length):
    _fd_check(lambda x, rng: _weighted(getattr(tf.signal, fn)(x, length), rng), (2, 3, 6))


@pytest.mark.parametrize("fn,length", [("irfft", None), ("irfft", [7]), ("irfft", [4]), ("irfft2d", [3, 8]),
                                       ("irfft3d", None)])
def test_irfft_gradients(fn, length):
    # a complex input built from two real halves, so both parts get checked
    def build(x, rng):
        z = tf.complex(x[0], x[1])
        return _weighted(getattr(tf.signal, fn)(z, length), rng)
    _fd_check(build, (2, 2, 3, 5))


@pytest.mark.parametrize("broadcast", [False, True])
def test_complex_mul_gradient_conjugates(broadcast):
    # Mul's gradient is grad * conj(other), so real parametrisations of both factors check it
    def build(x, rng):
        z1, z2 = tf.complex(x[0], x[1]), tf.complex(x[2], x[3])
        return _weighted(z1 * (z2[:1] if broadcast else z2), rng)
    _fd_check(build, (4, 2, 3))


@pytest.mark.parametrize("build", [
    lambda x, rng: _weighted(tf.signal.stft(x, 8, 3, pad_end=True), rng),
    lambda x, rng: _weighted(tf.signal.mdct(x, 8), rng),
    lambda x, rng: _weighted(tf.signal.dct(x, type=2, norm="ortho"), rng),
    lambda x, rng: _weighted(tf.signal.idct(x, type=4, n=12), rng),
    lambda x, rng: _weighted(tf.signal.overlap_and_add(tf.reshape(x, [2, 2, 5]), 2), rng),
    lambda x, rng: _weighted(tf.signal.frame(x, 5, 2, pad_end=True, axis=1), rng),
], ids=["stft", "mdct", "dct", "idct", "overlap_and_add", "frame"])
def test_composite_gradients(build):
    _fd_check(build, (2, 10))


def test_dynamic_frame_and_window_length():
    x = tf.placeholder(tf.float32, [None])
    n = tf.placeholder(tf.int32, [])
    framed = tf.signal.frame(x, 4, 3, pad_end=True)
    window = tf.signal.hann_window(n)
    with tf.Session() as sess:
        got_f, got_w = sess.run([framed, window], {x: np.arange(10, dtype=np.float32), n: 6})
        one = sess.run(window, {n: 1})
    np.testing.assert_array_equal(got_f, [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9], [9, 0, 0, 0]])
    np.testing.assert_allclose(got_w, 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(6) / 6), atol=1e-6)
    np.testing.assert_array_equal(one, [1.0])


def test_bad_input_raises_tensorflows_errors():
    with pytest.raises(TypeError, match="complex64, complex128"):
        tf.signal.fft(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="float32, float64"):
        tf.signal.rfft(np.zeros(4, np.int32))
    with pytest.raises(ValueError, match="Types I, II, III and IV"):
        tf.signal.dct(np.zeros(4, np.float32), type=5)
    with pytest.raises(ValueError, match="Type-I DCT"):
        tf.signal.dct(np.zeros(4, np.float32), type=1, norm="ortho")
    with pytest.raises(ValueError, match="multiple of 4"):
        tf.signal.mdct(np.zeros(20, np.float32), 6)
    with pytest.raises(ValueError, match="floating point"):
        tf.signal.hann_window(4, dtype=tf.int32)
    with pytest.raises(ValueError, match="Nyquist"):
        tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
    with pytest.raises(ValueError, match="norm"):
        tf.signal.fftnd(CPLX, norm="bogus")
    x = tf.placeholder(tf.complex64)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 2"):
        sess.run(tf.signal.fft2d(x), {x: np.zeros(3, np.complex64)})


def test_spectral_and_top_level_names_are_tf_signals():
    assert tf.spectral.rfft is tf.signal.rfft and tf.fft is tf.signal.fft and tf.spectral.dct is tf.signal.dct
