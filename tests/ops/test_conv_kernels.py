"""The fast conv and pooling kernels: both im2col layouts, max-pool gradient ties and non-finite
gradients, output recycling and per-thread scratch, checked against the loop references."""
import threading

import numpy as np
import pytest

import conv_refs as R
import lens as tf
from lens.ops import conv_np as K
from lens.ops import pool as P
from lens.ops import pool_np as PK


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.fixture(params=["whole batch", "one image per block"])
def blocks(request, monkeypatch):
    """Run the kernels on the whole batch at once, or block by block (as big batches are)."""
    if request.param == "one image per block":
        monkeypatch.setattr(K, "CACHE_BLOCK_BYTES", 1)
        monkeypatch.setattr(PK, "BLOCK_BYTES", 1)
        monkeypatch.setattr(K, "GEMM_BLOCK_BYTES", 1)
    return request.param


GEOMETRIES = [  # (input HW, kernel HW, strides, dilations, padding)
    ((7, 6), (3, 3), (1, 1), (1, 1), "SAME"),
    ((7, 6), (5, 2), (2, 1), (1, 1), "SAME"),
    ((8, 7), (2, 3), (2, 3), (1, 1), "VALID"),
    ((9, 8), (3, 2), (1, 2), (2, 2), "SAME"),
    ((6, 6), (1, 1), (2, 2), (1, 1), "VALID"),
]


@pytest.mark.parametrize("channels", [1, 3, 7])     # 1 and 3: tap-major im2col; 7: row-major
@pytest.mark.parametrize("hw, k, s, d, pad", GEOMETRIES)
def test_conv_ops_match_loop_references(channels, hw, k, s, d, pad, blocks):
    rng = np.random.default_rng(channels)
    x = rng.normal(size=(3,) + hw + (channels,))
    f = rng.normal(size=k + (channels, 4))
    st, dl = [1, s[0], s[1], 1], [1, d[0], d[1], 1]
    y = tf.nn.conv2d(x, f, st, pad, dilations=dl)
    dy = rng.normal(size=y.shape.as_list())
    bpi = tf.nn.conv2d_backprop_input(list(x.shape), f, dy, st, pad, dilations=dl)
    bpf = tf.nn.conv2d_backprop_filter(x, list(f.shape), dy, st, pad, dilations=dl)
    with tf.Session() as sess:
        vy, vi, vf = sess.run([y, bpi, bpf])
    np.testing.assert_allclose(vy, R.conv2d(x, f, s, d, pad), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(vi, R.conv2d_backprop_input(x.shape, f, dy, s, d, pad), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(vf, R.conv2d_backprop_filter(x, f.shape, dy, s, d, pad), rtol=1e-10, atol=1e-10)


POOLS = [  # (input shape, window, strides, padding): tiled, padded, gaps + leftover, overlapping
    ((3, 6, 8, 3), (2, 2), (2, 2), "VALID"),
    ((3, 5, 7, 3), (2, 2), (2, 2), "SAME"),
    ((1, 8, 7, 2), (2, 2), (3, 3), "VALID"),
    ((1, 6, 5, 2), (3, 3), (2, 1), "SAME"),
]


@pytest.mark.parametrize("shape, k, s, pad", POOLS)
def test_max_pool_gradient_goes_to_the_first_of_tied_maxima(shape, k, s, pad, blocks):
    # Small integers after a relu: most windows hold ties (zeros and repeats).
    rng = np.random.default_rng(5)
    x = np.maximum(rng.integers(-2, 3, size=shape), 0).astype(np.float32)
    ks, st = [1, k[0], k[1], 1], [1, s[0], s[1], 1]
    y = tf.nn.max_pool(x, ks, st, pad)
    g = rng.normal(size=y.shape.as_list()).astype(np.float32)
    dx = P.max_pool_grad(x, y, g, ks, st, pad)
    with tf.Session() as sess:
        vy, vdx = sess.run([y, dx])
    np.testing.assert_array_equal(vy, R.pool(x, k, s, pad, "max"))
    np.testing.assert_allclose(vdx, R.max_pool_grad(x, g, k, s, pad), rtol=1e-6, atol=1e-6)


def test_non_finite_gradients_stay_in_their_window_and_other_zeros_are_positive():
    x = np.array([[1., 5., 2., 0.], [3., 0., 4., 4.]], np.float32).reshape(1, 2, 4, 1)
    g = np.array([-np.inf, np.nan], np.float32).reshape(1, 1, 2, 1)
    geo = K.Geometry((2, 4), (2, 2), (2, 2), (1, 1), "VALID")
    dx = PK.max_pool_grad(x, g, geo).ravel()
    assert dx[1] == -np.inf and np.isnan(dx[6])        # the two maxima (the 4s tie: first wins)
    rest = np.delete(dx, [1, 6])
    assert (rest == 0).all() and not np.signbit(rest).any()


def test_fetched_outputs_are_never_overwritten_by_later_runs():
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    f = tf.constant(np.random.default_rng(0).normal(size=(3, 3, 1, 64)).astype(np.float32))
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")       # outputs of 256 KiB and more: recycled when free
    p = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    g = tf.gradients(tf.reduce_sum(p * p), y)[0]
    rng = np.random.default_rng(1)
    feeds = [rng.normal(size=(64, 8, 8, 1)).astype(np.float32) for _ in range(3)]
    with tf.Session() as sess:
        first = sess.run([y, p, g], {x: feeds[0]})
        kept = [a.copy() for a in first]
        view = first[0][3]                                  # a view keeps its base alive too
        del first[0]
        for v in feeds[1:]:
            sess.run([y, p, g], {x: v})
        for a, b in zip(first, kept[1:]):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(view, kept[0][3])
        again = sess.run([y, p, g], {x: feeds[0]})
    for a, b in zip(again, kept):
        np.testing.assert_array_equal(a, b)


def test_no_result_is_a_view_of_a_work_buffer():
    # Big enough (256 KiB and more) for the kernels' reusable scratch; VALID with one channel
    # makes the backprop-input result a plain crop of its work buffer if it were not copied.
    x = tf.placeholder(tf.float32, [64, 32, 32, 1])
    f = tf.constant(np.random.default_rng(0).normal(size=(3, 3, 1, 8)).astype(np.float32))
    dy = tf.placeholder(tf.float32, [64, 30, 30, 8])
    ks = [1, 2, 2, 1]
    outs = [tf.nn.conv2d_backprop_input([64, 32, 32, 1], f, dy, [1, 1, 1, 1], "VALID"),
            tf.nn.conv2d_backprop_filter(x, [3, 3, 1, 8], dy, [1, 1, 1, 1], "VALID"),
            tf.nn.max_pool(x, ks, ks, "SAME"), P.max_pool_grad(dy, tf.nn.max_pool(dy, ks, ks, "VALID"),
                                                               dy[:, ::2, ::2], ks, ks, "VALID"),
            tf.nn.avg_pool(x, ks, ks, "SAME"), P.avg_pool_grad([64, 32, 32, 1], x[:, ::2, ::2], ks, ks, "SAME")]
    rng = np.random.default_rng(3)
    feeds = [{x: rng.normal(size=(64, 32, 32, 1)).astype(np.float32),
              dy: rng.normal(size=(64, 30, 30, 8)).astype(np.float32)} for _ in range(2)]
    with tf.Session() as sess:
        first = sess.run(outs, feeds[0])
        kept = [a.copy() for a in first]
        second = sess.run(outs, feeds[1])
    for i, (a, b, c) in enumerate(zip(first, kept, second)):
        np.testing.assert_array_equal(a, b, err_msg="output %d changed by a later run" % i)
        assert not np.array_equal(a, c), "output %d did not depend on the feed" % i


def _address(a):
    return a.__array_interface__["data"][0]


def test_recycler_hands_back_only_unreferenced_memory():
    r = K.Recycler()
    assert r.take((64, 1024), np.float32) is None
    out = r.give(np.ones((64, 1024), np.float32).reshape(64, 32, 32))
    assert r.take((64, 1024), np.float32) is None         # `out` still refers to it
    row = out[5]
    where = _address(out)
    del out
    assert r.take((64, 1024), np.float32) is None         # so does a view of it
    del row
    again = r.take((64, 1024), np.float32)
    assert again is not None and again.shape == (64, 1024) and _address(again) == where
    del again
    assert r.take((64, 1023), np.float32) is None and r.take((64, 1024), np.float64) is None
    r.give(np.ones(3))                                    # too small to keep
    assert r.take((3,), np.float64) is None


def test_scratch_is_reused_within_a_thread_and_private_to_it():
    a = K.scratch("test_tag", (512, 256), np.float32)
    b = K.scratch("test_tag", (256, 256), np.float32)
    assert np.shares_memory(a, b)                         # same buffer, reused
    other = []
    t = threading.Thread(target=lambda: other.append(K.scratch("test_tag", (512, 256), np.float32)))
    t.start()
    t.join()
    assert not np.shares_memory(a, other[0])
    small = K.scratch("test_tag", (4,), np.float32)
    assert not np.shares_memory(small, a)                 # tiny arrays are plain allocations


def test_cnn_training_step_matches_the_hand_written_numpy_step():
    from bench import bench_cnn as B
    rng = np.random.default_rng(2)
    x, y = B._data(4, rng)
    params = B._init(rng)
    ok, by_hand, in_lens = B.losses_agree(x, y, params, steps=3)
    assert ok, (by_hand, in_lens)
    assert in_lens[0] != in_lens[1] != in_lens[2]           # the updates were applied, alike


@pytest.mark.parametrize("hw, k, pad", [((7, 6), (3, 3), "SAME"), ((8, 7), (2, 3), "VALID"),
                                        ((6, 9), (4, 5), "SAME"), ((5, 6), (2, 2), "SAME")])
def test_backprop_input_as_a_forward_convolution_matches_the_reference(hw, k, pad, blocks):
    """Stride 1 with many channels each way: d input is the rotated kernel over the padded gradient."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3,) + hw + (6,))
    f = rng.normal(size=k + (6, 7))
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], pad)
    dy = rng.normal(size=y.shape.as_list())
    bpi = tf.nn.conv2d_backprop_input(list(x.shape), f, dy, [1, 1, 1, 1], pad)
    with tf.Session() as sess:
        got = sess.run(bpi)
    assert K._transposed_geometry(x.shape, K.Geometry(hw, k, (1, 1), (1, 1), pad)) is not None
    np.testing.assert_allclose(got, R.conv2d_backprop_input(x.shape, f, dy, (1, 1), (1, 1), pad),
                               rtol=1e-10, atol=1e-10)
