"""Fourier-domain convolution kernels: against the loop references (float64), the im2col kernels
(float32), finite differences through the ops, and themselves with the work shared between threads."""
import warnings

import numpy as np
import pytest

import conv_refs as R
import lens as tf
from lens.ops import conv_fourier as FT
from lens.ops import conv_memo
from lens.ops import conv_np as K
from lens.ops import intra_op
from lens.platform import test_util

GEOMETRIES = [  # (input HW, kernel HW, padding): stride and dilation are always 1 here
    ((14, 14), (5, 5), "SAME"),     # the MNIST layer
    ((7, 9), (3, 5), "SAME"),
    ((6, 6), (4, 4), "SAME"),       # even kernel: more padding after than before
    ((8, 7), (3, 3), "VALID"),
    ((6, 5), (3, 3), ((2, 1), (0, 3))),   # explicit, lopsided pads
    ((5, 5), (2, 2), ((3, 0), (0, 3))),   # outputs whose taps all fall in the padding
    ((3, 2), (5, 5), "SAME"),       # kernel bigger than the image
    ((1, 1), (1, 1), "VALID"),
]


@pytest.fixture(autouse=True)
def no_kept_transforms():
    """Every test makes its own transforms (conv_memo would hand back an earlier test's)."""
    conv_memo.forget()
    yield
    conv_memo.forget()


@pytest.fixture(params=["one job", "one image per job"])
def jobs(request, monkeypatch):
    """The whole batch and every frequency in one job, or one image and one frequency per job."""
    if request.param == "one image per job":
        monkeypatch.setattr(FT, "BATCH_PER_JOB", 1)
        monkeypatch.setattr(FT, "FREQ_JOBS", 10 ** 6)
        monkeypatch.setattr(FT, "CHANNEL_JOBS", 10 ** 6)
    else:
        monkeypatch.setattr(FT, "BATCH_PER_JOB", 10 ** 6)
        monkeypatch.setattr(FT, "FREQ_JOBS", 1)
        monkeypatch.setattr(FT, "CHANNEL_JOBS", 1)
    return request.param


def _case(hw, k, pad, channels=5, outs=4, n=3, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    geo = K.Geometry(hw, k, (1, 1), (1, 1), pad)
    x = rng.normal(size=(n,) + hw + (channels,)).astype(dtype)
    f = rng.normal(size=k + (channels, outs)).astype(dtype)
    dy = rng.normal(size=(n,) + geo.out_hw + (outs,)).astype(dtype)
    return x, f, dy, geo


def _refs(x, f, dy, pad):
    """(conv, input gradient, filter gradient) from the loop references (explicit pads by padding x)."""
    if isinstance(pad, str):
        return (R.conv2d(x, f, padding=pad), R.conv2d_backprop_input(x.shape, f, dy, padding=pad),
                R.conv2d_backprop_filter(x, f.shape, dy, padding=pad))
    (t, b), (l, r) = pad
    xp = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    dxp = R.conv2d_backprop_input(xp.shape, f, dy, padding="VALID")
    return (R.conv2d(xp, f, padding="VALID"), dxp[:, t:t + x.shape[1], l:l + x.shape[2]],
            R.conv2d_backprop_filter(xp, f.shape, dy, padding="VALID"))


def _fourier(x, f, dy, geo):
    return (FT.conv2d(x, f, geo), FT.conv2d_backprop_input(x.shape, f, dy, geo),
            FT.conv2d_backprop_filter(x, dy, f.shape, geo))


@pytest.mark.parametrize("hw, k, pad", GEOMETRIES)
def test_kernels_match_loop_references(hw, k, pad, jobs):
    x, f, dy, geo = _case(hw, k, pad)
    for got, want in zip(_fourier(x, f, dy, geo), _refs(x, f, dy, pad)):
        assert got.shape == want.shape and got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("hw, k, pad", GEOMETRIES)
def test_float32_is_as_close_to_float64_as_the_im2col_kernels(hw, k, pad, monkeypatch):
    x, f, dy, geo = _case(hw, k, pad, channels=16, outs=12, n=4, dtype=np.float32, seed=1)
    exact = _refs(*(a.astype(np.float64) for a in (x, f, dy)), pad)
    monkeypatch.setattr(FT, "MAX_COST_SHARE", 0.0)      # K's kernels never pick the transform
    im2col = (K.conv2d(x, f, geo), K.conv2d_backprop_input(x.shape, f, dy, geo),
              K.conv2d_backprop_filter(x, dy, f.shape, geo))
    for got, old, want in zip(_fourier(x, f, dy, geo), im2col, exact):
        assert got.dtype == np.float32
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * scale)
        np.testing.assert_allclose(got, old, rtol=0, atol=4e-6 * scale)


def test_bias_relu_and_a_given_output():
    x, f, dy, geo = _case((7, 9), (3, 5), "SAME", outs=6)
    b = np.random.default_rng(2).normal(size=6)
    out = np.full((3, 7, 9, 6), np.nan)
    got = FT.conv2d(x, f, geo, out=out, bias=b, relu=True)
    assert got is out
    np.testing.assert_allclose(got, np.maximum(R.conv2d(x, f) + b, 0), rtol=1e-10, atol=1e-10)
    strided = np.full((3, 7, 9, 12), np.nan)[..., ::2]   # not contiguous: filled through a copy
    assert FT.conv2d(x, f, geo, out=strided) is strided
    np.testing.assert_allclose(strided, R.conv2d(x, f), rtol=1e-10, atol=1e-10)


def test_strided_input_views_give_the_same_values():
    x, f, dy, geo = _case((7, 9), (3, 5), "SAME")
    xn = np.moveaxis(np.ascontiguousarray(np.moveaxis(x, -1, 1)), 1, -1)   # NCHW seen as NHWC
    assert not xn.flags.c_contiguous
    for a, b in zip(_fourier(xn, f, dy, geo), _fourier(x, f, dy, geo)):
        np.testing.assert_array_equal(a, b)


def test_shared_with_the_helper_thread_gives_the_same_bits(monkeypatch):
    x, f, dy, geo = _case((14, 14), (5, 5), "SAME", channels=8, outs=8, n=12, dtype=np.float32, seed=3)
    monkeypatch.setattr(FT, "BATCH_PER_JOB", 1)
    alone = _fourier(x, f, dy, geo)
    monkeypatch.setattr(intra_op, "_machine_has_room", lambda: True)
    intra_op.enter()
    try:
        for _ in range(3):
            conv_memo.forget()      # the transforms are made again, shared
            for a, b in zip(alone, _fourier(x, f, dy, geo)):
                assert a.tobytes() == b.tobytes()
    finally:
        intra_op.leave()


def test_the_kernels_pick_the_transform_only_where_it_saves_arithmetic(monkeypatch):
    def usable(hw, k, c, o, strides=(1, 1), dtype=np.float32, pad="SAME"):
        geo = K.Geometry(hw, k, strides, (1, 1), pad)
        a = np.zeros((2,) + hw + (c,), dtype)
        return FT.usable(a.shape, o, geo, a, a)
    assert usable((14, 14), (5, 5), 32, 64)               # the MNIST layer
    assert usable((14, 14), (5, 5), 32, 64, dtype=np.float64)
    assert not usable((28, 28), (5, 5), 1, 32)            # one input channel: im2col is cheap
    assert not usable((56, 56), (3, 3), 64, 64)           # long transforms for 9 taps
    assert not usable((14, 14), (5, 5), 32, 64, strides=(2, 2))
    assert not usable((14, 14), (5, 5), 32, 64, dtype=np.int32)
    geo = K.Geometry((14, 14), (5, 5), (1, 1), (1, 1), "SAME")
    a, b = np.zeros((2, 14, 14, 32), np.float32), np.zeros((5, 5, 32, 64), np.float64)
    assert not FT.usable(a.shape, 64, geo, a, b)          # mixed float types
    x, f, dy, _ = _case((14, 14), (5, 5), "SAME", channels=32, outs=64, n=2, dtype=np.float32)
    calls = []
    for name in ("conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"):
        real = getattr(FT, name)
        monkeypatch.setattr(FT, name, lambda *args, real=real, name=name, **kw: calls.append(name) or real(*args, **kw))
    K.conv2d(x, f, geo), K.conv2d_backprop_input(x.shape, f, dy, geo), K.conv2d_backprop_filter(x, dy, f.shape, geo)
    assert calls == ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"]


def test_empty_batch():
    x, f, dy, geo = _case((6, 6), (3, 3), "SAME", n=0)
    y, dx, df = _fourier(x, f, dy, geo)
    assert y.shape == (0, 6, 6, 4) and dx.shape == x.shape and df.shape == f.shape and not df.any()


def test_op_gradients_match_finite_differences(monkeypatch):
    monkeypatch.setattr(FT, "MAX_COST_SHARE", 10.0)      # the transform for every stride-1 conv
    rng = np.random.default_rng(6)
    with tf.Graph().as_default():
        x = tf.constant(rng.normal(size=(2, 6, 5, 3)))
        f = tf.constant(rng.normal(size=(3, 3, 3, 4)))
        y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
        with tf.Session():
            for t, shape in ((x, (2, 6, 5, 3)), (f, (3, 3, 3, 4))):
                err = test_util.compute_gradient_error(t, shape, y, (2, 6, 5, 4))
                assert err < 1e-6


def test_kept_transforms_serve_only_arrays_with_the_same_bytes():
    x, f, dy, geo = _case((7, 9), (3, 5), "SAME", n=4)
    first = _fourier(x, f, dy, geo)
    spectra = FT._spectra(FT.plan_for((7, 9), geo, x.dtype), x, "in")
    assert FT._spectra(FT.plan_for((7, 9), geo, x.dtype), x.copy(), "in") is spectra   # same bytes: kept
    for a, b in zip(_fourier(x.copy(), f.copy(), dy.copy(), geo), first):
        assert a.tobytes() == b.tobytes()
    x[1, 2, 3, 4] += 1.0        # the same arrays changed in place: made again
    f[0, 0, 0, 0] = -0.0 if f[0, 0, 0, 0] == 0 else 0.0
    dy[3, 6, 8, 3] *= 2
    for got, want in zip(_fourier(x, f, dy, geo), _refs(x, f, dy, "SAME")):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_kept_memory_is_reused_once_no_kernel_holds_it():
    key, shape, made = ("test",), (50, 40), []

    def make(out):
        made.append(out.__array_interface__["data"][0])     # the address only: no reference kept
        out.fill(len(made))
    a = np.arange(600.0).reshape(30, 20)
    first = conv_memo.transform(key, a, shape, np.float64, make)
    assert conv_memo.transform(key, a.copy(), shape, np.float64, make) is first and len(made) == 1
    second = conv_memo.transform(key, a + 1, shape, np.float64, make)   # first still held: new memory
    assert made[1] != made[0] and (first == 1).all() and (second == 2).all()
    del first, second
    third = conv_memo.transform(key, a + 2, shape, np.float64, make)    # nobody holds second's memory
    assert made[2] == made[1] and (third == 3).all()
    # Equal values with other bytes (-0.0 and 0.0) are other arrays; so are strided views.
    zeros = np.zeros((30, 20))
    conv_memo.transform(key, zeros, shape, np.float64, make)
    conv_memo.transform(key, -zeros, shape, np.float64, make)
    conv_memo.transform(key, np.zeros((30, 40))[:, ::2], shape, np.float64, make)
    assert len(made) == 6


def test_kept_transforms_stay_under_the_byte_cap(monkeypatch):
    monkeypatch.setattr(conv_memo, "MAX_BYTES", 3 * 2 * 800)     # three entries of 800 + 800 bytes
    kept = [conv_memo.transform(("cap", i), np.full(100, float(i)), (100,), np.float64, lambda out: out.fill(i))
            for i in range(5)]
    assert [k[1] for k in conv_memo._entries] == [2, 3, 4]      # the oldest went first
    assert conv_memo.transform(("cap", 4), np.full(100, 4.0), (100,), np.float64, None) is kept[4]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 3e38])
def test_non_finite_values_land_where_the_direct_kernels_put_them(bad, monkeypatch):
    x, f, dy, geo = _case((14, 14), (5, 5), "SAME", channels=32, outs=64, n=2, dtype=np.float32, seed=8)
    x[1, 3, 4, 5] = bad
    dy[0, 9, 2, 7] = bad
    assert FT.usable(x.shape, 64, geo, x, f)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = (K.conv2d(x, f, geo, relu=True), K.conv2d_backprop_input(x.shape, f, dy, geo),
               K.conv2d_backprop_filter(x, dy, f.shape, geo))
    assert not [w for w in seen if w.filename == FT.__file__]     # only the direct kernels' own
    monkeypatch.setattr(FT, "MAX_COST_SHARE", 0.0)
    want = (K.conv2d(x, f, geo, relu=True), K.conv2d_backprop_input(x.shape, f, dy, geo),
            K.conv2d_backprop_filter(x, dy, f.shape, geo))
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()
    assert np.isfinite(got[0][0]).all() and not np.isfinite(got[0][1]).all()   # image 0 untouched
