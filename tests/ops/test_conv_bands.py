"""Banded convolution kernels (the padding's zeros skipped): against the loop references, the
padded im2col kernels, and themselves with the work shared between threads."""
import numpy as np
import pytest

import conv_refs as R
from lens.ops import conv_bands as B
from lens.ops import conv_np as K
from lens.ops import intra_op


@pytest.fixture(params=["whole batch", "one image per job"])
def blocks(request, monkeypatch):
    """Band pairs over the whole batch at once, or one image at a time."""
    if request.param == "one image per job":
        monkeypatch.setattr(B, "BLOCK_BYTES", 1)
    return request.param


@pytest.fixture
def padded_path(monkeypatch):
    """A function running a kernel call through the padded im2col path instead."""
    def run(fn, *args):
        with monkeypatch.context() as m:
            m.setattr(B, "MIN_SKIPPED", 2.0)    # never worth it: the old kernels run
            return fn(*args)
    return run


GEOMETRIES = [  # (input HW, kernel HW, strides, dilations, padding)
    ((14, 14), (5, 5), (1, 1), (1, 1), "SAME"),     # the MNIST layer
    ((7, 6), (3, 3), (1, 1), (1, 1), "SAME"),
    ((7, 6), (5, 5), (2, 2), (1, 1), "SAME"),
    ((9, 8), (3, 3), (2, 1), (1, 1), "SAME"),
    ((3, 2), (5, 5), (1, 1), (1, 1), "SAME"),       # no interior: every band is a border band
    ((4, 4), (5, 3), (1, 1), (1, 1), "SAME"),       # bands from both sides overlap
    ((9, 8), (3, 2), (1, 2), (2, 2), "SAME"),       # dilated
    ((6, 5), (3, 3), (1, 1), (1, 1), ((2, 1), (0, 3))),   # explicit, lopsided pads
    ((5, 5), (2, 2), (1, 1), (1, 1), ((3, 0), (0, 3))),   # rows whose taps all fall in the padding
    ((8, 7), (5, 5), (1, 1), (1, 1), "VALID"),
    ((8, 7), (3, 3), (2, 2), (1, 1), "VALID"),
]


def _geo(hw, k, s, d, pad):
    return K.Geometry(hw, k, s, d, pad)


def _case(hw, k, channels=5, outs=4, n=3, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n,) + hw + (channels,)).astype(dtype)
    f = rng.normal(size=k + (channels, outs)).astype(dtype)
    return x, f, rng


def _ref_pads(pad):
    """conv_refs only knows SAME and VALID; explicit pads are checked through a padded input."""
    return None if isinstance(pad, str) else pad


def _refs(x, f, dy, s, d, pad):
    """(conv, input gradient, filter gradient) from the loop references."""
    pads = _ref_pads(pad)
    if pads is None:
        return (R.conv2d(x, f, s, d, pad), R.conv2d_backprop_input(x.shape, f, dy, s, d, pad),
                R.conv2d_backprop_filter(x, f.shape, dy, s, d, pad))
    (t, b), (l, r) = pads
    xp = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    dxp = R.conv2d_backprop_input(xp.shape, f, dy, s, d, "VALID")
    return (R.conv2d(xp, f, s, d, "VALID"), dxp[:, t:t + x.shape[1], l:l + x.shape[2]],
            R.conv2d_backprop_filter(xp, f.shape, dy, s, d, "VALID"))


@pytest.mark.parametrize("hw, k, s, d, pad", GEOMETRIES)
def test_axis_bands_cover_each_output_with_exactly_its_inside_taps(hw, k, s, d, pad):
    geo = _geo(hw, k, s, d, pad)
    for a in range(2):
        bands = B.axis_bands(hw[a], k[a], s[a], d[a], geo.pads[a][0], geo.out_hw[a])
        covered = [o for o0, o1, _, _ in bands for o in range(o0, o1)]
        assert covered == list(range(geo.out_hw[a]))
        for o0, o1, t0, t1 in bands:
            for o in range(o0, o1):
                inside = [t for t in range(k[a]) if 0 <= o * s[a] - geo.pads[a][0] + t * d[a] < hw[a]]
                assert list(range(t0, t1)) == inside


@pytest.mark.parametrize("hw, k, s, d, pad", GEOMETRIES)
def test_banded_kernels_match_loop_references(hw, k, s, d, pad, blocks):
    x, f, rng = _case(hw, k)
    geo = _geo(hw, k, s, d, pad)
    y = B.conv2d(x, f, geo)
    dy = rng.normal(size=y.shape)
    want_y, want_dx, want_df = _refs(x, f, dy, s, d, pad)
    np.testing.assert_allclose(y, want_y, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(B.conv2d_backprop_filter(x, dy, f.shape, geo), want_df, rtol=1e-10, atol=1e-10)
    # The input gradient is a banded forward convolution of dy when the geometry allows it.
    np.testing.assert_allclose(K.conv2d_backprop_input(x.shape, f, dy, geo), want_dx, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("hw, k, s, d, pad", GEOMETRIES)
def test_banded_kernels_equal_the_padded_im2col_in_float32(hw, k, s, d, pad, padded_path):
    x, f, rng = _case(hw, k, channels=9, outs=6, n=5, dtype=np.float32, seed=1)
    geo = _geo(hw, k, s, d, pad)
    b = rng.normal(size=6).astype(np.float32)
    dy = rng.normal(size=(5,) + geo.out_hw + (6,)).astype(np.float32)
    got = [B.conv2d(x, f, geo), B.conv2d(x, f, geo, bias=b, relu=True),
           B.conv2d_backprop_filter(x, dy, f.shape, geo), K.conv2d_backprop_input(x.shape, f, dy, geo)]
    old = [padded_path(K.conv2d, x, f, geo), padded_path(lambda: K.conv2d(x, f, geo, bias=b, relu=True)),
           padded_path(K.conv2d_backprop_filter, x, dy, f.shape, geo),
           padded_path(K.conv2d_backprop_input, x.shape, f, dy, geo)]
    for g, o in zip(got, old):
        assert g.dtype == np.float32 and g.shape == o.shape
        np.testing.assert_allclose(g, o, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(o).max())))


def test_bias_and_relu_follow_the_convolution():
    x, f, rng = _case((7, 6), (3, 3), channels=6)
    geo = _geo((7, 6), (3, 3), (1, 1), (1, 1), "SAME")
    b = rng.normal(size=4)
    out = np.full((3, 7, 6, 4), np.nan)
    got = B.conv2d(x, f, geo, out=out, bias=b, relu=True)
    assert got is out
    np.testing.assert_allclose(got, np.maximum(R.conv2d(x, f) + b, 0), rtol=1e-10, atol=1e-10)


def test_the_kernels_pick_banding_when_it_skips_enough_zeros():
    mnist = _geo((14, 14), (5, 5), (1, 1), (1, 1), "SAME")
    assert abs(B.skipped_share((14, 14), mnist) - (1 - (64 / 70) ** 2)) < 1e-12
    assert B.worth_banding((14, 14), mnist)
    assert not B.worth_banding((8, 7), _geo((8, 7), (5, 5), (1, 1), (1, 1), "VALID"))
    big = _geo((224, 224), (3, 3), (1, 1), (1, 1), "SAME")    # under 1% of zeros: not worth the calls
    assert not B.worth_banding((224, 224), big)


def test_empty_batch():
    geo = _geo((7, 6), (3, 3), (1, 1), (1, 1), "SAME")
    x, f = np.zeros((0, 7, 6, 5)), np.ones((3, 3, 5, 4))
    assert B.conv2d(x, f, geo).shape == (0, 7, 6, 4)
    df = B.conv2d_backprop_filter(x, np.zeros((0, 7, 6, 4)), f.shape, geo)
    assert df.shape == f.shape and not df.any()


def test_shared_with_the_helper_thread_gives_the_same_bits(monkeypatch):
    x, f, rng = _case((14, 14), (5, 5), channels=8, outs=8, n=12, dtype=np.float32, seed=3)
    geo = _geo((14, 14), (5, 5), (1, 1), (1, 1), "SAME")
    dy = rng.normal(size=(12, 14, 14, 8)).astype(np.float32)
    monkeypatch.setattr(B, "BLOCK_BYTES", 1)    # many jobs to share
    alone = [B.conv2d(x, f, geo), B.conv2d_backprop_filter(x, dy, f.shape, geo)]
    monkeypatch.setattr(intra_op, "_machine_has_room", lambda: True)
    intra_op.enter()
    try:
        for _ in range(3):
            shared = [B.conv2d(x, f, geo), B.conv2d_backprop_filter(x, dy, f.shape, geo)]
            for a, b in zip(alone, shared):
                assert a.tobytes() == b.tobytes()
    finally:
        intra_op.leave()


def test_strided_views_and_integers_give_the_padded_paths_values(padded_path):
    rng = np.random.default_rng(4)
    geo = _geo((7, 6), (3, 3), (1, 1), (1, 1), "SAME")
    xn = np.moveaxis(rng.normal(size=(2, 6, 7, 6)), 1, -1)     # NCHW seen as NHWC: not contiguous
    f = rng.normal(size=(3, 3, 6, 4))
    np.testing.assert_allclose(B.conv2d(xn, f, geo), padded_path(K.conv2d, xn, f, geo), rtol=1e-12, atol=1e-12)
    xi, fi = rng.integers(-9, 9, size=(2, 7, 6, 6)).astype(np.int32), rng.integers(-9, 9, size=(3, 3, 6, 4)).astype(np.int32)
    dyi = rng.integers(-9, 9, size=(2, 7, 6, 4)).astype(np.int32)
    assert np.array_equal(B.conv2d(xi, fi, geo), padded_path(K.conv2d, xi, fi, geo))
    assert np.array_equal(B.conv2d_backprop_filter(xi, dyi, fi.shape, geo),
                          padded_path(K.conv2d_backprop_filter, xi, dyi, fi.shape, geo))
