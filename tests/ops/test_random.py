"""Random ops: TF1 op names, seed rules, reproducibility across sessions, sample statistics."""
import numpy as np
import pytest

import lens as tf
from lens.ops import random as R
from lens.framework.registry import get_gradient_function, has_gradient_entry

N = 200_000


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def _close(value, expected, spread, n, sigmas=6):
    """A sample statistic is within `sigmas` standard errors of its expected value."""
    assert abs(value - expected) <= sigmas * spread / np.sqrt(n), (value, expected)


# ------------------------------------------------------------------ names and attrs
def test_random_normal_op_names_and_attrs():
    t = tf.random_normal([2, 3], mean=1.0, stddev=2.0)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["random_normal/shape", "random_normal/mean", "random_normal/stddev",
                     "random_normal/RandomStandardNormal", "random_normal/mul", "random_normal"]
    assert t.name == "random_normal:0" and t.op.type == "Add"
    rnd = tf.get_default_graph().get_operation_by_name("random_normal/RandomStandardNormal")
    assert rnd.get_attr("dtype") == tf.float32 and rnd.get_attr("seed") == 0 and rnd.get_attr("seed2") == 0
    assert t.shape.as_list() == [2, 3] and t.dtype == tf.float32


def test_uniform_truncated_multinomial_shuffle_names():
    tf.random_uniform([4])
    tf.random_uniform([4], 0, 10, dtype=tf.int64)
    tf.truncated_normal([4], name="tn")
    tf.multinomial([[0.0, 1.0]], 3)
    tf.random_shuffle([1, 2, 3])
    types = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    for name, typ in [("random_uniform/min", "Const"), ("random_uniform/max", "Const"),
                      ("random_uniform/RandomUniform", "RandomUniform"), ("random_uniform/sub", "Sub"),
                      ("random_uniform/mul", "Mul"), ("random_uniform", "Add"),
                      ("random_uniform_1", "RandomUniformInt"), ("tn/TruncatedNormal", "TruncatedNormal"),
                      ("tn", "Add"), ("multinomial/Multinomial", "Multinomial"),
                      ("RandomShuffle", "RandomShuffle")]:
        assert types.get(name) == typ, name


def test_seed_rules():
    g = tf.get_default_graph()
    assert R.get_seed(None) == (None, None)
    assert R.get_seed(5) == (R.DEFAULT_GRAPH_SEED, 5) == (87654321, 5)
    tf.set_random_seed(7)
    assert g.seed == 7
    tf.constant(1.0)
    tf.constant(2.0)
    assert R.get_seed(None) == (7, 2)          # derived from the ops built so far
    assert R.get_seed(3) == (7, 3)
    tf.set_random_seed(0)
    assert R.get_seed(0) == (0, 2**31 - 1)     # (0, 0) would mean "nondeterministic"
    tf.set_random_seed(2**31 + 4)
    assert R.get_seed(2**31) == (5, 1)         # truncated to 31 bits


def test_graph_seed_gives_ops_distinct_seeds_in_attrs():
    tf.set_random_seed(1)
    tf.random_normal([1])
    tf.random_normal([1])
    op = tf.get_default_graph().get_operation_by_name
    sa, sb = op("random_normal/RandomStandardNormal"), op("random_normal_1/RandomStandardNormal")
    assert sa.get_attr("seed") == sb.get_attr("seed") == 1
    # random_normal/RandomStandardNormal is created after shape, mean, stddev: 3 ops before it.
    assert sa.get_attr("seed2") == 3 and sb.get_attr("seed2") == 9
    tf.random_uniform([1], seed=42)
    assert op("random_uniform/RandomUniform").get_attr("seed2") == 42


def test_seed_attrs_reach_the_graph_def():
    tf.random_uniform([3], seed=11)
    node = next(n for n in tf.get_default_graph().as_graph_def().node if n.op == "RandomUniform")
    assert node.attr["seed"].i == R.DEFAULT_GRAPH_SEED and node.attr["seed2"].i == 11


# ------------------------------------------------------------------ reproducibility
@pytest.mark.parametrize("make", [
    lambda: tf.random_normal([5]), lambda: tf.truncated_normal([5]), lambda: tf.random_uniform([5]),
    lambda: tf.random_uniform([5], 0, 1000, dtype=tf.int32), lambda: tf.random_shuffle(np.arange(20)),
    lambda: tf.multinomial(tf.zeros([2, 50]), 5), lambda: tf.random_gamma([5], 2.0),
    lambda: tf.random_poisson(3.0, [5]),
])
def test_graph_seed_repeats_across_sessions_and_changes_across_runs(make):
    tf.set_random_seed(1234)
    t = make()
    with tf.Session() as s1:
        first, second = s1.run(t), s1.run(t)
    with tf.Session() as s2:
        again_first, again_second = s2.run(t), s2.run(t)
    np.testing.assert_array_equal(first, again_first)
    np.testing.assert_array_equal(second, again_second)
    assert not np.array_equal(first, second)


def test_op_seed_alone_is_reproducible_and_unseeded_is_not():
    seeded = tf.random_normal([8], seed=3)
    unseeded = tf.random_normal([8])
    a, b = _run([seeded, unseeded]), _run([seeded, unseeded])
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[1], b[1])


def test_same_graph_seed_in_two_graphs_gives_same_values():
    values = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(99)
            t = tf.random_uniform([4])
            values.append(_run(t))
    np.testing.assert_array_equal(values[0], values[1])


def test_different_ops_in_seeded_graph_draw_different_numbers():
    tf.set_random_seed(5)
    a, b = tf.random_normal([6]), tf.random_normal([6])
    va, vb = _run([a, b])
    assert not np.array_equal(va, vb)


# ------------------------------------------------------------------ statistics
def test_random_normal_statistics_and_dtypes():
    x = _run(tf.random_normal([N], mean=3.0, stddev=2.0, seed=1))
    assert x.dtype == np.float32 and x.shape == (N,)
    _close(x.mean(), 3.0, 2.0, N)
    _close(x.std(), 2.0, 2.0 / np.sqrt(2), N)
    y = _run(tf.random_normal([100, 10], dtype=tf.float64, seed=2))
    assert y.dtype == np.float64 and y.shape == (100, 10)
    h = _run(tf.random_normal([10], dtype=tf.float16, seed=2))
    assert h.dtype == np.float16


def test_truncated_normal_never_beyond_two_stddev():
    x = _run(tf.truncated_normal([N], mean=-1.0, stddev=0.5, seed=4))
    assert x.dtype == np.float32
    assert x.min() >= -2.0 and x.max() <= 0.0
    _close(x.mean(), -1.0, 0.5, N)
    # A unit normal truncated at +-2 has stddev 0.8796...
    _close(x.std(), 0.5 * 0.87962566103423978, 0.5, N)
    assert (np.abs(x + 1.0) > 0.95).any()   # the tails up to the bound (1.0 = 2 stddev) are reached


def test_random_uniform_float_bounds_and_moments():
    x = _run(tf.random_uniform([N], -2.0, 6.0, seed=5))
    assert x.dtype == np.float32 and x.min() >= -2.0 and x.max() < 6.0
    _close(x.mean(), 2.0, 8 / np.sqrt(12), N)
    _close(x.var(), 64 / 12, 64 / 12, N)
    d = _run(tf.random_uniform([1000], dtype=tf.float64, seed=1))
    assert d.dtype == np.float64 and 0 <= d.min() and d.max() < 1
    h = _run(tf.random_uniform([5000], dtype=tf.float16, seed=1))
    assert h.dtype == np.float16 and h.max() < 1


def test_random_uniform_int_range_and_counts():
    x = _run(tf.random_uniform([N], minval=-3, maxval=7, dtype=tf.int32, seed=6))
    assert x.dtype == np.int32 and x.min() == -3 and x.max() == 6
    counts = np.bincount(x + 3, minlength=10)
    p = 0.1
    assert np.all(np.abs(counts - N * p) <= 6 * np.sqrt(N * p * (1 - p)))
    assert _run(tf.random_uniform([3], 0, 5, dtype=tf.int64)).dtype == np.int64


def test_random_uniform_argument_errors():
    with pytest.raises(ValueError, match="maxval"):
        tf.random_uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Invalid dtype"):
        tf.random_uniform([2], dtype=tf.bool)
    bad = tf.random_uniform([2], 5, 5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        _run(bad)
    with pytest.raises(ValueError, match="rank 0"):
        tf.random_uniform([2], [0, 1], 5, dtype=tf.int32)


def test_bad_dtype_and_negative_shape():
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        tf.random_normal([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="-3"):
        tf.random_normal([2, -3])
    s = tf.placeholder(tf.int32, [2])
    t = tf.random_normal(s)
    assert t.shape.as_list() == [None, None]
    assert _run(t, {s: [3, 4]}).shape == (3, 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative dimension"):
        _run(t, {s: [3, -4]})


def test_shape_forms():
    assert tf.random_normal(tf.TensorShape([2, 5])).shape.as_list() == [2, 5]
    assert tf.random_normal((tf.Dimension(3),)).shape.as_list() == [3]
    assert _run(tf.random_normal([])).shape == ()
    n = tf.placeholder(tf.int32, [])
    t = tf.random_uniform([n, 2])
    assert t.shape.as_list() == [None, 2]
    assert _run(t, {n: 4}).shape == (4, 2)


def test_random_shuffle_permutes_first_dimension_only():
    rows = np.arange(60).reshape(20, 3)
    t = tf.random_shuffle(rows, seed=3)
    with tf.Session() as sess:
        out = [sess.run(t) for _ in range(3)]
    for o in out:
        assert o.shape == (20, 3) and o.dtype == rows.dtype
        assert sorted(map(tuple, o.tolist())) == sorted(map(tuple, rows.tolist()))
    assert any(not np.array_equal(o, rows) for o in out)
    assert not np.array_equal(out[0], out[1])
    assert _run(tf.random_shuffle(5)) == 5


def test_multinomial_frequencies_follow_softmax():
    logits = np.array([[0.0, 1.0, 2.0, -np.inf], [3.0, 0.0, 0.0, 0.0]], dtype=np.float32)
    t = tf.multinomial(logits, 50_000, seed=8)
    x = _run(t)
    assert x.dtype == np.int64 and x.shape == (2, 50_000) and t.shape.as_list() == [2, 50_000]
    for row, lg in zip(x, logits.astype(np.float64)):
        p = np.exp(lg - lg.max())
        p /= p.sum()
        freq = np.bincount(row, minlength=4) / row.size
        assert np.all(np.abs(freq - p) <= 6 * np.sqrt(p * (1 - p) / row.size) + 1e-12), (freq, p)
    assert x[0].max() < 3      # probability 0 never drawn
    small = tf.multinomial([[0.0, 0.0]], 4, output_dtype=tf.int32)
    assert _run(small).dtype == np.int32
    with pytest.raises(ValueError, match="rank 2"):
        tf.multinomial([0.0, 1.0], 2)


def test_gamma_and_poisson_moments():
    g = _run(tf.random_gamma([N], alpha=[2.0, 5.0], beta=[1.0, 0.5], seed=9))
    assert g.shape == (N, 2) and g.dtype == np.float32 and g.min() > 0
    for col, (a, b) in enumerate([(2.0, 1.0), (5.0, 0.5)]):
        _close(g[:, col].mean(), a / b, np.sqrt(a) / b, N)
    p = _run(tf.random_poisson([1.5, 7.0], [N], seed=10))
    assert p.shape == (N, 2) and p.dtype == np.float32
    for col, lam in enumerate([1.5, 7.0]):
        _close(p[:, col].mean(), lam, np.sqrt(lam), N)
        _close(p[:, col].var(), lam, lam * 1.5, N, sigmas=8)


def test_random_ops_are_not_differentiable():
    for op_type in ["RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt",
                    "RandomShuffle", "Multinomial", "RandomGamma", "RandomPoissonV2"]:
        assert has_gradient_entry(op_type) and get_gradient_function(op_type) is None
    m = tf.placeholder(tf.float32, [])
    s = tf.placeholder(tf.float32, [])
    y = tf.reduce_sum(tf.random_normal([4], mean=m, stddev=s, seed=1))
    gm, gs = tf.gradients(y, [m, s])
    x = tf.random_normal([4], seed=1)
    with tf.Session() as sess:
        got = sess.run([gm, gs, x], {m: 0.0, s: 1.0})
    assert got[0] == pytest.approx(4.0)                # d(mean + s*z)/dmean = 1 per element
    assert got[1] == pytest.approx(float(np.sum(got[2])), rel=1e-5)  # d/ds = z, same seeded draw
    assert tf.gradients(tf.random_shuffle(m * tf.ones([3])), [m]) == [None]


def test_tf_random_namespace_aliases():
    assert R.normal is R.random_normal and R.uniform is R.random_uniform and R.shuffle is R.random_shuffle
    assert set(R.__all__) >= {"set_random_seed", "random_normal", "truncated_normal", "random_uniform",
                              "random_shuffle", "multinomial", "categorical"}
    t = R.categorical([[0.0, 0.0]], 3, dtype=tf.int32)
    assert t.op.name == "categorical/Multinomial" and t.dtype == tf.int32


def test_multinomial_non_finite_logits_follow_tf1_kernel():
    # TF1's kernel gives non-finite logits probability 0 and an all-non-finite row num_classes.
    logits = [[0.0, np.nan, np.log(3.0)], [-np.inf, -np.inf, -np.inf], [np.inf, 0.0, 0.0]]
    x = _run(tf.multinomial(logits, 4000, seed=2))
    assert 1 not in x[0] and abs((x[0] == 2).mean() - 0.75) < 6 * np.sqrt(0.75 * 0.25 / 4000)
    assert (x[1] == 3).all()
    assert set(x[2].tolist()) == {1, 2}


def test_truncated_normal_scalar_draws_are_redrawn_too():
    t = tf.truncated_normal([], seed=3)
    with tf.Session() as sess:
        draws = np.array([sess.run(t) for _ in range(3000)])
    assert draws.dtype == np.float32 and np.abs(draws).max() <= 2.0 and np.abs(draws).max() > 1.8
