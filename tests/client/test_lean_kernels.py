"""The lean paths of the plain plan's hot kernels (fused Sum -> Reshape, Mean's single division,
MatMul's kept output) give the values of the plan without rewrites, bit for bit."""
import numpy as np
import pytest

import lens as tf
from lens.client import plan_opt
from lens.ops.reduce import _mean
from tests.client.plan_switch import run_model


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _bits(values):
    return [np.asarray(v).tobytes() for v in values]


def _broadcast_model(dtype):
    """Adds whose gradients Sum then Reshape: nothing broadcast, a bias row, a column, a scalar."""
    rng = np.random.default_rng(5)
    x = tf.placeholder(dtype, [None, 6], name="x")
    b = tf.Variable(rng.normal(size=6).astype(dtype), name="b")
    c = tf.Variable(rng.normal(size=(1, 1)).astype(dtype), name="c")
    s = tf.Variable(np.asarray(0.5, dtype), name="s")
    col = tf.placeholder(dtype, [None, 1], name="col")
    y = ((x + b) * (x + c) + s) * (col + x)
    loss = tf.reduce_mean(tf.square(y))
    grads = tf.gradients(loss, [x, b, c, s, col])
    feed = {x: rng.normal(size=(5, 6)).astype(dtype), col: rng.normal(size=(5, 1)).astype(dtype)}
    return tf.global_variables_initializer(), [loss] + grads, feed


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_sum_reshape_gradients_match_the_unrewritten_plan(dtype):
    init, fetches, feed = _broadcast_model(dtype)
    g = tf.get_default_graph()
    on, plans = run_model(g, init, fetches, feed, True, steps=2)
    off, _ = run_model(g, init, fetches, feed, False, steps=2)
    assert _bits(on) == _bits(off)
    ops, fed = plans[-1].ops, set(feed)
    chains = plan_opt.fused_chains(ops, fetches, fed, plan_opt.dead_ops(ops, fetches, fed))
    pairs = [[m.type for m in members] for members, _, _, _ in chains.values()]
    assert pairs.count(["Sum", "Reshape"]) >= 8      # both sides of each broadcasting add/mul


def test_fused_sum_reshape_keeps_int_sums_and_bad_shapes_name_the_reshape():
    x = tf.placeholder(tf.int32, [None, 3], name="x")
    axes = tf.placeholder(tf.int32, [None], name="axes")
    shape = tf.placeholder(tf.int32, [None], name="shape")
    out = tf.reshape(tf.reduce_sum(x, axes), shape, name="back")
    with tf.Session() as sess:
        xv = np.arange(12, dtype=np.int32).reshape(4, 3)
        got = sess.run(out, {x: xv, axes: [0], shape: [3, 1]})
        np.testing.assert_array_equal(got, xv.sum(0).reshape(3, 1))
        same = sess.run(out, {x: xv, axes: np.zeros(0, np.int32), shape: [2, 6]})
        np.testing.assert_array_equal(same, xv.reshape(2, 6))
        with pytest.raises(tf.errors.InvalidArgumentError, match="back"):
            sess.run(out, {x: xv, axes: [0], shape: [2, 2]})


def test_mean_single_division_equals_the_float64_quotient_rounded():
    rng = np.random.default_rng(1)
    for trial in range(400):
        shape = tuple(int(d) for d in rng.integers(1, 9, rng.integers(1, 4)))
        dtype = np.float32 if trial % 3 else np.float64
        x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-40, 38)).astype(dtype)
        if trial % 7 == 0:
            x.flat[0] = np.inf
        if trial % 11 == 0:
            x.flat[-1] = np.nan
        axes = tuple(sorted({int(a) for a in rng.integers(0, len(shape), rng.integers(1, len(shape) + 1))}))
        keep = bool(trial % 2)
        total = np.add.reduce(x, axis=axes, keepdims=keep)
        want = np.asarray(np.true_divide(total, np.float64(x.size // total.size))).astype(dtype)
        got = _mean(x, axes, keep)
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (shape, axes, keep, dtype)


def test_matmul_reuses_its_output_only_when_nobody_holds_it():
    rng = np.random.default_rng(2)
    a = tf.placeholder(tf.float32, [None, 64], name="a")
    w = tf.constant(rng.normal(size=(64, 300)).astype(np.float32))
    prod = tf.matmul(a, w)
    total = tf.reduce_sum(prod)
    av = rng.normal(size=(80, 64)).astype(np.float32)
    with tf.Session() as sess:
        first = sess.run(prod, {a: av})
        kept = first.copy()
        for _ in range(3):      # runs that do not fetch the product may rewrite a free buffer
            sess.run(total, {a: av * 2})
        second = sess.run(prod, {a: av * 3})
        np.testing.assert_array_equal(first, kept)      # a fetched product is never overwritten
        assert second is not first
        np.testing.assert_array_equal(second, np.matmul(av * 3, sess.run(w)))
        view = sess.run(prod, {a: av})[:2]
        sess.run(prod, {a: av * 5})
        np.testing.assert_array_equal(view, np.matmul(av, sess.run(w))[:2])   # a view keeps it too


@pytest.mark.parametrize("dtype,ints", [(np.float32, np.uint32), (np.float64, np.uint64)])
def test_in_place_relu_matches_relu_into_on_every_bit_pattern(dtype, ints):
    from lens.ops import nn
    from lens.ops.work_np import relu_into
    run = nn._relu_inplace(None, None, frozenset({0}))
    rng = np.random.default_rng(4)
    for n in (9, 1023, 1024, 4099, 300000):
        x = rng.integers(0, np.iinfo(ints).max, n, dtype=ints, endpoint=True).view(dtype)
        x[:8] = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45], dtype)
        want = relu_into(x.copy(), np.empty_like(x)) if n >= 1024 else np.maximum(x, 0)
        got = x.copy()
        assert run(got) is got
        assert got.tobytes() == want.tobytes()
