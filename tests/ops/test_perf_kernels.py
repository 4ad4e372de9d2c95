"""Kernels behind the fused chains (max-pool gradient with the relu mask, tiled bias add, conv with
its bias/relu epilogue) give the loop references' values and the unfused ops' bits."""
import numpy as np
import pytest

import conv_refs as R
from lens.ops import conv_np as K
from lens.ops import pool_np as PK

POOLS = [  # (input shape, window = strides, padding): disjoint windows, tiled, padded, ragged
    ((3, 6, 8, 4), (2, 2), "VALID"),
    ((2, 5, 7, 3), (2, 2), "SAME"),
    ((2, 9, 6, 2), (3, 2), "VALID"),
    ((2, 4, 10, 5), (1, 2), "VALID"),
    ((4, 28, 28, 32), (2, 2), "SAME"),
    ((2, 7, 8, 3), (3, 3), "VALID"),
]


@pytest.fixture(params=["whole batch", "one image per block"])
def blocks(request, monkeypatch):
    if request.param == "one image per block":
        monkeypatch.setattr(PK, "BLOCK_BYTES", 1)
        monkeypatch.setattr(K, "CACHE_BLOCK_BYTES", 1)
        monkeypatch.setattr(K, "GEMM_BLOCK_BYTES", 1)
    return request.param


def _tied_relu_input(rng, shape):
    """Small integers after a relu: windows of zeros and repeated maxima everywhere."""
    return np.maximum(rng.integers(-2, 3, size=shape), 0).astype(np.float32)


def _geo(shape, k, padding):
    return K.Geometry(shape[1:3], k, k, (1, 1), padding)


@pytest.mark.parametrize("shape, k, padding", POOLS)
@pytest.mark.parametrize("relu", [False, True])
def test_pool_gradient_with_relu_matches_the_loop_reference(shape, k, padding, relu, blocks):
    rng = np.random.default_rng(11)
    x = _tied_relu_input(rng, shape)
    geo = _geo(shape, k, padding)
    g = rng.normal(size=(shape[0],) + geo.out_hw + (shape[3],)).astype(np.float32)
    want = R.max_pool_grad(x, g, k, k, padding)
    if relu:
        want = want * (x > 0)
    got = PK.max_pool_grad(x, g, geo, relu=relu)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # Given the forward maxima instead of recomputing them: the same bits.
    y = PK.max_pool(x, geo)
    assert PK.max_pool_grad(x, g, geo, relu=relu, y=y).tobytes() == got.tobytes()


@pytest.mark.parametrize("shape, k, padding", POOLS)
def test_relu_masked_pool_gradient_keeps_relu_grads_bits_for_non_finite_values(shape, k, padding, blocks):
    rng = np.random.default_rng(12)
    x = _tied_relu_input(rng, shape)
    x.flat[::7] = np.nan
    x.flat[3::11] = -0.0
    geo = _geo(shape, k, padding)
    g = rng.normal(size=(shape[0],) + geo.out_hw + (shape[3],)).astype(np.float32)
    g.flat[::5] = np.nan
    g.flat[1::5] = -np.inf
    g.flat[2::5] = -0.0
    with np.errstate(invalid="ignore"):     # NaN * 0 in the relu mask, as ReluGrad gives
        fused = PK.max_pool_grad(x, g, geo, relu=True)
        # MaxPoolGrad then ReluGrad's own formula (a multiply by the mask, NaN * 0 staying NaN).
        want = np.multiply(PK.max_pool_grad(x, g, geo), np.greater(x, 0), dtype=np.float32)
    assert fused.tobytes() == want.tobytes()


@pytest.mark.parametrize("rows, c", [(100, 32), (17, 32), (5, 3), (64, 600), (1, 1)])
def test_tiled_bias_add_equals_a_broadcast_add(rows, c):
    rng = np.random.default_rng(13)
    a = rng.normal(size=(rows, c)).astype(np.float32)
    b = rng.normal(size=c).astype(np.float32)
    want = a + b
    got = K.add_bias_inplace(a, b)
    assert got is a and a.tobytes() == want.tobytes()


def test_conv_epilogue_equals_conv_then_bias_then_relu(blocks):
    rng = np.random.default_rng(14)
    x = rng.normal(size=(5, 9, 9, 3)).astype(np.float32)
    f = rng.normal(size=(3, 3, 3, 16)).astype(np.float32)
    b = rng.normal(size=16).astype(np.float32)
    geo = K.Geometry((9, 9), (3, 3), (1, 1), (1, 1), "SAME")
    plain = K.conv2d(x, f, geo)
    want = np.maximum(plain + b, 0)
    assert K.conv2d(x, f, geo, bias=b, relu=True).tobytes() == want.tobytes()
    assert K.conv2d(x, f, geo, bias=b).tobytes() == (plain + b).tobytes()
    np.testing.assert_allclose(plain, R.conv2d(x, f), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [13, 4099])
def test_relu_on_the_bits_equals_numpy_maximum_bit_for_bit(dtype, size):
    rng = np.random.default_rng(15)
    x = rng.normal(size=size).astype(dtype)
    with np.errstate(invalid="ignore"):
        special = [-0.0, 0.0, np.nan, -np.nan, -np.inf, np.inf, np.finfo(dtype).max, -np.finfo(dtype).max,
                   np.finfo(dtype).tiny / 4, -np.finfo(dtype).tiny / 4, np.array(np.inf, dtype) * 0]
    x[:len(special)] = special
    want = np.maximum(x, 0)
    assert K.relu_into(x, np.empty_like(x)).tobytes() == want.tobytes()
    strided = np.repeat(x, 2)[::2]      # not contiguous: NumPy's maximum does it
    assert K.relu_into(strided, np.empty_like(x)).tobytes() == want.tobytes()
    y = x.copy()
    assert K.relu_into(y, y) is y and y.tobytes() == want.tobytes()
    assert np.isnan(want).sum() == 3 and not np.signbit(want[want == 0]).any()


def _first_equal_to_max_reference(x, g, k, s):
    """VALID max-pool gradient by loops: the first tap (row-major) equal to the window's
    NaN-propagating maximum gets the gradient; a window whose maximum is NaN routes nothing."""
    n, h, w, c = x.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    dx = np.zeros(x.shape)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    win = x[b, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1], ch].ravel()
                    top = np.max(win)
                    hits = np.flatnonzero(win == top)
                    if hits.size:
                        r, q = divmod(int(hits[0]), k[1])
                        dx[b, i * s[0] + r, j * s[1] + q, ch] += g[b, i, j, ch]
    return dx


@pytest.mark.parametrize("k, s", [((2, 2), (2, 2)), ((3, 3), (3, 3)), ((3, 2), (1, 1)), ((1, 1), (1, 1))])
def test_pool_gradient_with_nan_inputs_and_ties_matches_loops(k, s, blocks):
    rng = np.random.default_rng(16)
    x = _tied_relu_input(rng, (3, 6, 6, 2))
    x[0, 0, :, 0] = np.nan
    x[1, 2:4, 2:4, 1] = -np.inf
    x.flat[::13] = np.nan
    geo = K.Geometry((6, 6), k, s, (1, 1), "VALID")
    g = rng.normal(size=(3,) + geo.out_hw + (2,)).astype(np.float32)
    got, want = PK.max_pool_grad(x, g, geo), _first_equal_to_max_reference(x, g, k, s)
    assert np.array_equal(got != 0, want != 0)      # the same inputs receive gradient
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
