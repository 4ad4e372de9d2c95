"""Op-table rows: WAV codecs (against TF's recorded bytes), Dilation2D and its backprops, MaxPoolWithArgmax,
fractional pools (against NumPy references over the returned pooling sequences)."""
import pathlib

import numpy as np

import lens as tf
from lens.ops import audio_ops as AU
from lens.ops import nn_morph as NM
from optable_lib import F, Row, custom

_REC = np.load(pathlib.Path(__file__).resolve().parent / "fixtures" / "audio_tf.npz")
_RNG = np.random.default_rng(12)


def _run(build):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(build())


def _wav():
    wav = _run(lambda: AU.encode_wav(_REC["audio"], 16000))
    assert wav == _REC["wav"].tobytes()
    wav = _REC["wav"].tobytes()
    (d1, rate), (d2, _), (d3, _) = _run(lambda: [AU.decode_wav(wav), AU.decode_wav(wav, 3, 12), AU.decode_wav(wav, 1, 4)])
    for got, name in ((d1, "d1"), (d2, "d2"), (d3, "d3")):
        np.testing.assert_array_equal(got, _REC[name])
    assert rate == 16000


def _dilation_ref(x, f, strides, rates, padding):
    geo = []
    for n, k, s, r in zip(x.shape[1:3], f.shape[:2], strides, rates):
        eff = (k - 1) * r + 1
        out = (n - eff) // s + 1 if padding == "VALID" else -(-n // s)
        geo.append((out, 0 if padding == "VALID" else max(0, (out - 1) * s + eff - n) // 2))
    out = np.full((x.shape[0], geo[0][0], geo[1][0], x.shape[3]), -np.inf)
    for i in range(geo[0][0]):
        for j in range(geo[1][0]):
            for a in range(f.shape[0]):
                for b in range(f.shape[1]):
                    y, xx = i * strides[0] - geo[0][1] + a * rates[0], j * strides[1] - geo[1][1] + b * rates[1]
                    if 0 <= y < x.shape[1] and 0 <= xx < x.shape[2]:
                        out[:, i, j] = np.maximum(out[:, i, j], x[:, y, xx] + f[a, b])
    return out.astype(x.dtype)


def _dilation_bps():
    x = _RNG.standard_normal((1, 4, 5, 2))
    f = _RNG.standard_normal((2, 2, 2))
    g = _RNG.standard_normal((1, 4, 5, 2))
    attrs = {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "SAME", "T": tf.float64}

    def build():
        return [NM.apply_op("Dilation2DBackpropInput", [(x.copy(), "input"), (f.copy(), "filter"), (g, "out_backprop")],
                            attrs, dtypes=[tf.float64], same_dtype=False),
                NM.apply_op("Dilation2DBackpropFilter", [(x.copy(), "input"), (f.copy(), "filter"), (g, "out_backprop")],
                            attrs,
                            dtypes=[tf.float64], same_dtype=False)]
    gi, gf = _run(build)
    eps = 1e-6
    for arr, got in ((x, gi), (f, gf)):
        num = np.zeros_like(arr)
        for k in np.ndindex(*arr.shape):
            arr[k] += eps
            hi = (_dilation_ref(x, f, [1, 1], [1, 1], "SAME") * g).sum()
            arr[k] -= 2 * eps
            lo = (_dilation_ref(x, f, [1, 1], [1, 1], "SAME") * g).sum()
            arr[k] += eps
            num[k] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)


def _argmax():
    x = _RNG.standard_normal((2, 4, 5, 3))
    g = _RNG.standard_normal((2, 2, 3, 3))

    y, a = _run(lambda: list(NM.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")))
    for b in range(2):
        for i in range(2):
            for j in range(3):
                win = x[b, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
                np.testing.assert_allclose(y[b, i, j], win.reshape(-1, 3).max(0))
                for c in range(3):
                    yy, xx = np.unravel_index(win[..., c].argmax(), win.shape[:2])
                    assert a[b, i, j, c] == ((2 * i + yy) * 5 + 2 * j + xx) * 3 + c

    def grad():
        t = tf.constant(x)
        return tf.gradients(tf.reduce_sum(NM.max_pool_with_argmax(t, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")[0] * g), t)
    got, = _run(grad)
    exp = np.zeros_like(x).reshape(2, -1)
    for b in range(2):
        np.add.at(exp[b], a[b].ravel(), g[b].ravel())
    np.testing.assert_allclose(got, exp.reshape(x.shape))


def _fractional():
    x = _RNG.standard_normal((2, 7, 9, 2))
    for fn, kind in ((NM.fractional_max_pool, "max"), (NM.fractional_avg_pool, "avg")):
        for pseudo, overlap in ((False, False), (True, True)):
            def build():
                t = tf.constant(x)
                y, r, c = fn(t, [1.0, 1.5, 2.0, 1.0], pseudo_random=pseudo, overlapping=overlap, seed=3)
                return [y, r, c, tf.gradients(tf.reduce_sum(y * y), t)[0]]
            y, rows, cols, grad = _run(build)
            assert rows[0] == 0 and rows[-1] == 7 and cols[-1] == 9 and len(rows) == 5 and len(cols) == 5
            exp = np.zeros_like(y)
            egrad = np.zeros_like(x)
            for i in range(4):
                r1 = min(rows[i + 1] + overlap, 7)
                for j in range(4):
                    c1 = min(cols[j + 1] + overlap, 9)
                    win = x[:, rows[i]:r1, cols[j]:c1]
                    if kind == "max":
                        exp[:, i, j] = win.max((1, 2))
                    else:
                        exp[:, i, j] = win.mean((1, 2))
                        egrad[:, rows[i]:r1, cols[j]:c1] += (2 * exp[:, i, j] / win[0, :, :, 0].size)[:, None, None]
            np.testing.assert_allclose(y, exp)
            if kind == "avg":
                np.testing.assert_allclose(grad, egrad, rtol=1e-10)
            elif not overlap:   # disjoint windows: each maximum gets 2 * y
                np.testing.assert_allclose(np.sort(grad[grad != 0]), np.sort(2 * y.ravel()))


ROWS = [
    custom("DecodeWav", _wav), custom("EncodeWav", _wav),
    Row("Dilation2D", lambda x, f: NM.dilation2d(x, f, [1, 2, 1, 1], [1, 1, 2, 1], "SAME"),
        lambda x, f: _dilation_ref(x, f, [2, 1], [1, 2], "SAME"), [[F(2, 5, 6, 2), F(2, 3, 2)]]),
    custom("Dilation2DBackpropInput", _dilation_bps), custom("Dilation2DBackpropFilter", _dilation_bps),
    custom("MaxPoolWithArgmax", _argmax), custom("MaxPoolGradWithArgmax", _argmax),
    custom("FractionalMaxPool", _fractional), custom("FractionalAvgPool", _fractional),
    custom("FractionalMaxPoolGrad", _fractional), custom("FractionalAvgPoolGrad", _fractional),
]
