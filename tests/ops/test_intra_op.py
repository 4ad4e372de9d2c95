"""Intra-op chunk sharing: the same results whoever runs which chunk, errors surface, no nesting."""
import threading

import numpy as np
import pytest

from lens.ops import conv_np as K
from lens.ops import intra_op, linalg


@pytest.fixture
def helpers(monkeypatch):
    # The helper path whatever the machine's load (it is skipped while every core is taken).
    monkeypatch.setattr(intra_op, "_machine_has_room", lambda: True)
    intra_op.enter()
    try:
        yield
    finally:
        intra_op.leave()


def test_run_chunks_in_order_and_shared(helpers):
    seen = set()

    def fn(i):
        seen.add(threading.current_thread().name)
        return i * i
    out = intra_op.run_chunks(fn, 200)
    assert out == [i * i for i in range(200)]
    assert seen    # at least the caller; the helper joins when the machine lets it


def test_helper_runs_chunks(helpers):
    started = threading.Event()
    names = intra_op.run_chunks(
        lambda i: (started.set() if i else started.wait(5), threading.current_thread().name)[1], 2)
    assert "lens-intra-op" in names     # chunk 0 waits until the other chunk has started elsewhere


def test_busy_machine_runs_inline(monkeypatch):
    monkeypatch.setattr(intra_op, "_machine_has_room", lambda: False)
    intra_op.enter()
    try:
        assert not intra_op.helpers_available()
        assert intra_op.run_chunks(lambda i: threading.current_thread(), 3) == [threading.current_thread()] * 3
    finally:
        intra_op.leave()


def test_run_chunks_raises_the_error_and_frees_the_helper(helpers):
    def bad(i):
        if i == 3:
            raise ValueError("chunk 3")
        return i
    with pytest.raises(ValueError, match="chunk 3"):
        intra_op.run_chunks(bad, 10)
    assert intra_op.run_chunks(lambda i: i, 4) == [0, 1, 2, 3]     # the helper is free again


def test_nested_run_chunks_run_inline(helpers):
    def outer(i):
        return sum(intra_op.run_chunks(lambda j: i * 10 + j, 3))
    assert intra_op.run_chunks(outer, 4) == [sum(i * 10 + j for j in range(3)) for i in range(4)]


def test_disabled_outside_enter():
    assert not intra_op.helpers_available()
    assert intra_op.run_chunks(lambda i: threading.current_thread(), 3) == [threading.current_thread()] * 3


def _conv_case(rng, n, c, o):
    x = rng.standard_normal((n, 14, 14, c)).astype(np.float32)
    f = rng.standard_normal((5, 5, c, o)).astype(np.float32)
    dy = rng.standard_normal((n, 14, 14, o)).astype(np.float32)
    return x, f, dy, K.Geometry((14, 14), (5, 5), (1, 1), (1, 1), "SAME")


@pytest.mark.parametrize("c", [1, 8])
def test_conv_kernels_identical_with_and_without_helpers(c, monkeypatch):
    monkeypatch.setattr(intra_op, "_machine_has_room", lambda: True)
    rng = np.random.default_rng(0)
    x, f, dy, geo = _conv_case(rng, 12, c, 16)
    alone = (K.conv2d(x, f, geo), K.conv2d_backprop_filter(x, dy, f.shape, geo),
             K.conv2d_backprop_input(x.shape, f, dy, geo))
    intra_op.enter()
    try:
        shared = (K.conv2d(x, f, geo), K.conv2d_backprop_filter(x, dy, f.shape, geo),
                  K.conv2d_backprop_input(x.shape, f, dy, geo))
    finally:
        intra_op.leave()
    for a, b in zip(alone, shared):
        np.testing.assert_array_equal(a, b)
    # and against a direct NumPy convolution
    xp = np.pad(x.astype(np.float64), ((0, 0), (2, 2), (2, 2), (0, 0)))
    ref = sum(np.einsum("nhwc,co->nhwo", xp[:, i:i + 14, j:j + 14], f[i, j].astype(np.float64))
              for i in range(5) for j in range(5))
    np.testing.assert_allclose(shared[0], ref, rtol=1e-4, atol=1e-3)
    ref_df = np.stack([np.stack([np.einsum("nhwc,nhwo->co", xp[:, i:i + 14, j:j + 14], dy)
                                 for j in range(5)]) for i in range(5)])
    np.testing.assert_allclose(shared[1], ref_df, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_slices_same_with_and_without_helper_and_close_to_one_product(dtype, monkeypatch):
    rng = np.random.default_rng(1)
    for m, k, n, tb in [(64, 3136, 1024, False), (3136, 64, 1024, False), (37, 1000, 300, False),
                        (64, 1024, 1000, False), (300, 700, 5, False), (64, 1024, 3136, True), (7, 900, 1000, True)]:
        a = rng.random((m, k)).astype(dtype)
        b = rng.random((n, k)).astype(dtype).T if tb else rng.random((k, n)).astype(dtype)
        alone = linalg._shared(a, b, None)
        monkeypatch.setattr(intra_op, "_machine_has_room", lambda: True)
        intra_op.enter()
        try:
            shared = linalg._shared(a, b, np.full((m, n), np.nan, dtype))
        finally:
            intra_op.leave()
        np.testing.assert_array_equal(shared, alone)
        np.testing.assert_allclose(shared, a.astype(np.float64) @ b, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_no_helper_while_another_op_runs(helpers):
    intra_op.op_started()
    try:
        assert intra_op.helpers_available()     # this op alone
        intra_op.op_started()                   # a second op on another executor thread
        try:
            assert not intra_op.helpers_available()
        finally:
            intra_op.op_finished()
    finally:
        intra_op.op_finished()


def _with_and_without_helpers(fn, monkeypatch):
    alone = fn()
    monkeypatch.setattr(intra_op, "_machine_has_room", lambda: True)
    intra_op.enter()
    try:
        shared = fn()
    finally:
        intra_op.leave()
    return alone, shared


def test_pool_kernels_identical_with_and_without_helpers(monkeypatch):
    from lens.ops import pool_np as PK
    rng = np.random.default_rng(3)
    x = np.maximum(rng.standard_normal((20, 14, 14, 64)).astype(np.float32), 0)   # relu output: ties
    geo = K.Geometry((14, 14), (2, 2), (2, 2), (1, 1), "SAME")
    y = PK.max_pool(x[:1], geo)
    g = rng.standard_normal((20, 7, 7, 64)).astype(np.float32)

    def run():
        y = PK.max_pool(x, geo)
        return y, PK.max_pool_grad(x, g, geo), PK.max_pool_grad(x, g, geo, relu=True, y=y)
    alone, shared = _with_and_without_helpers(run, monkeypatch)
    for a, b in zip(alone, shared):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(alone[0][:1], y)
    np.testing.assert_array_equal(alone[0], x.reshape(20, 7, 2, 7, 2, 64).max(axis=(2, 4)))
    # each window's gradient lands once, on a maximum of the window
    dx = alone[1].reshape(20, 7, 2, 7, 2, 64)
    np.testing.assert_array_equal(dx.sum(axis=(2, 4)), g)


def test_conv_pool_block_identical_with_and_without_helpers(monkeypatch):
    from lens.ops import conv_pool
    rng = np.random.default_rng(4)
    x = rng.standard_normal((24, 28, 28, 1)).astype(np.float32)
    f = rng.standard_normal((5, 5, 1, 32)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    g = rng.standard_normal((24, 14, 14, 32)).astype(np.float32)
    cgeo = K.Geometry((28, 28), (5, 5), (1, 1), (1, 1), "SAME")
    pgeo = K.Geometry((28, 28), (2, 2), (2, 2), (1, 1), "VALID")

    def run():
        keep = (K.Recycler(), K.Recycler(), K.Recycler())
        pooled, saved = conv_pool.forward(x, f, b, cgeo, pgeo, keep)
        db, df = conv_pool.backward(saved, g, f.shape)
        return pooled.copy(), db, df
    alone, shared = _with_and_without_helpers(run, monkeypatch)
    for a, c in zip(alone, shared):
        np.testing.assert_array_equal(a, c)
    act = np.maximum(K.conv2d(x, f, cgeo) + b, 0).reshape(24, 14, 2, 14, 2, 32).max(axis=(2, 4))
    # float32 sums in another order: equal to rounding, relative to the largest value (rtol alone
    # fails on values near zero, which the relu keeps).
    np.testing.assert_allclose(alone[0], act, rtol=1e-6, atol=1e-6 * float(np.abs(act).max()))


@pytest.mark.parametrize("others, room", [([0, 0, 0], True), ([1, 1, 1], True), ([5, 6, 5], False),
                                          ([6, 0, 0, 0], True)])
def test_room_follows_the_run_queue_within_a_few_samples(others, room, monkeypatch):
    samples = iter(others)
    monkeypatch.setattr(intra_op, "_runnable_now", lambda: next(samples))
    monkeypatch.setattr(intra_op, "_SAMPLE_EVERY", 0.0)
    monkeypatch.setattr(intra_op, "_CPUS", 2)
    monkeypatch.setattr(intra_op, "_load", [-1.0, 0.0, True])
    for _ in others:
        got = intra_op._machine_has_room()
    assert got is room      # a busy spell that ended counts for a few samples, not for minutes


def test_run_queue_reading_counts_others_only():
    n = intra_op._runnable_now()
    assert n is None or n >= 0


def test_unshared_chunks_stay_on_the_calling_thread(helpers):
    me = threading.current_thread().name
    assert intra_op.run_chunks(lambda i: threading.current_thread().name, 8, share=False) == [me] * 8
