"""lgamma/digamma/polygamma against independent high-precision series and TF's special values;
setdiff1d, qr and svd: names, shapes, errors, and gradients by central finite differences."""
import math

import numpy as np
import pytest

import lens as tf
from lens import errors
from lens.ops.special_ops import digamma, lgamma, polygamma, qr, setdiff1d, svd
from optable_rows_special import digamma_ref, polygamma_ref


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default():
        yield


def stirling_lgamma(x):
    """log Gamma(x) for x > 0: shift past 30 by log Gamma(x) = log Gamma(x+1) - log x, then Stirling."""
    out = []
    for v in np.asarray(x, np.float64).ravel().tolist():
        shift = 0.0
        while v < 30:
            shift += math.log(v)
            v += 1
        z = 1.0 / (v * v)
        series = (1 / 12 - z * (1 / 360 - z * (1 / 1260 - z * (1 / 1680 - z / 1188)))) / v
        out.append((v - 0.5) * math.log(v) - v + 0.5 * math.log(2 * math.pi) + series - shift)
    return np.array(out).reshape(np.shape(x))


def test_lgamma_matches_stirling_and_reflection_over_wide_ranges():
    pos = np.concatenate([np.geomspace(1e-8, 1e6, 60), [0.5, 1.0, 2.0, 1.4616321449683623]])
    neg = -np.linspace(0.05, 40.95, 37)
    got_pos, got_neg = run([lgamma(tf.constant(pos)), lgamma(tf.constant(neg))])
    # the oracle sums up to 30 logs first: ~1e-14 absolute error of its own
    np.testing.assert_allclose(got_pos, stirling_lgamma(pos), rtol=1e-12, atol=5e-14)
    # Gamma(x) Gamma(1-x) = pi / sin(pi x)
    reflected = np.log(np.pi / np.abs(np.sin(np.pi * neg))) - stirling_lgamma(1 - neg)
    np.testing.assert_allclose(got_neg, reflected, rtol=1e-11, atol=1e-12)


def test_digamma_matches_its_defining_series_including_negative_and_large_x():
    x = np.array([1e-3, 0.1, 0.5, 1.0, 1.4616, 2.5, 5.9, 6.1, 17.3, 300.0, -0.3, -0.7, -1.5, -2.25, -7.9,
                  -30.6])
    np.testing.assert_allclose(run(digamma(tf.constant(x))), digamma_ref(x), rtol=1e-11, atol=1e-13)
    big = np.array([1e5, 1e9, 1e15])
    expected = np.log(big) - 0.5 / big - 1 / (12 * big ** 2)
    np.testing.assert_allclose(run(digamma(tf.constant(big))), expected, rtol=1e-15)


@pytest.mark.parametrize("order", [1, 2, 3, 4, 7])
def test_polygamma_matches_the_hurwitz_series(order):
    x = np.array([0.01, 0.3, 1.0, 2.5, 5.5, 6.5, 19.0, 40.0, -0.5, -1.3, -2.7, -3.5, -9.2, -20.3, -0.999])
    got = run(polygamma(tf.constant(float(order), tf.float64), tf.constant(x)))
    np.testing.assert_allclose(got, polygamma_ref(order, x, terms=200000), rtol=1e-13, atol=0)


def test_special_values_are_tfs():
    x = np.array([0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1e-300])
    lg, dg, p1, p2 = run([lgamma(tf.constant(x)), digamma(tf.constant(x)),
                          polygamma(tf.constant(1.0, tf.float64), tf.constant(x)),
                          polygamma(tf.constant(2.0, tf.float64), tf.constant(x))])
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(lg, [inf, inf, inf, inf, inf, inf, nan, lg[-1]])
    np.testing.assert_allclose(lg[-1], 690.7755278982137, rtol=1e-15)
    np.testing.assert_array_equal(dg, [nan, nan, nan, nan, inf, nan, nan, -9.999999999999999e+299])  # TF's value
    np.testing.assert_array_equal(p1, [inf, inf, inf, inf, 0.0, inf, nan, inf])
    np.testing.assert_array_equal(p2, [nan, nan, nan, nan, 0.0, nan, nan, -inf])
    assert np.signbit(p2[4]) and not np.signbit(p1[4])
    # non-integer or negative orders are nan; order 0 is digamma
    orders = tf.constant([1.5, -1.0, 0.0], tf.float64)
    np.testing.assert_array_equal(run(polygamma(orders, tf.constant(2.0, tf.float64)))[:2], [nan, nan])
    np.testing.assert_allclose(run(polygamma(orders, tf.constant(2.0, tf.float64)))[2], 0.42278433509846714,
                               rtol=1e-14)  # psi(2) = 1 - Euler's gamma


def test_half_integers_far_out_keep_full_precision():
    # psi''(x) = psi''(1 - x) at half-integers: the cot term vanishes exactly there
    x = np.array([-100.5, -1e10 - 0.5])
    got = run(polygamma(tf.constant(2.0, tf.float64), tf.constant(x)))
    np.testing.assert_allclose(got, polygamma_ref(2, 1 - x, terms=200000), rtol=1e-12)


def test_names_types_and_dtypes_follow_tf1():
    for dt in (tf.float16, tf.float32, tf.float64):
        t = lgamma(tf.constant([0.5, 3.0], dt))
        assert (t.op.type, t.op.name, t.dtype) == ("Lgamma", "Lgamma", dt) or t.op.name.startswith("Lgamma_")
        assert run(t).dtype == dt.as_numpy_dtype
    assert digamma(tf.constant(2.0)).op.name == "Digamma"
    p = polygamma(tf.constant([[1.0], [2.0]]), tf.constant([2.0, 3.0, 4.0]))
    assert (p.op.type, p.op.name, p.shape.as_list()) == ("Polygamma", "Polygamma", [2, 3])
    with pytest.raises(TypeError, match="DataType int32 not in list"):
        lgamma(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="float32, float64"):
        polygamma(1.0, tf.constant([1.0], tf.float16))


def test_gradients_chain_lgamma_digamma_polygamma():
    x = tf.constant([0.7, 2.5, -1.5], tf.float64)
    a = tf.constant(2.0, tf.float64)
    d1 = tf.gradients(lgamma(x), x)[0]
    d2 = tf.gradients(d1, x)[0]
    ga, gx = tf.gradients(polygamma(a, x), [a, x])
    assert ga is None
    v1, v2, vx = run([d1, d2, gx])
    np.testing.assert_allclose(v1, digamma_ref([0.7, 2.5, -1.5]), rtol=1e-11)
    np.testing.assert_allclose(v2, polygamma_ref(1, [0.7, 2.5, -1.5]), rtol=1e-11)
    np.testing.assert_allclose(vx, polygamma_ref(3, [0.7, 2.5, -1.5]), rtol=1e-11)


def test_setdiff1d_returns_tf1s_named_pair_and_checks_ranks():
    d = setdiff1d([1, 2, 3, 4, 2, 5], [2, 5, 9])
    assert type(d).__name__ == "ListDiff" and d._fields == ("out", "idx")
    assert (d.out.op.type, d.out.op.name, d.idx.dtype, d.out.shape.as_list()) == ("ListDiff", "ListDiff", tf.int32, [None])
    out, idx = run(d)
    np.testing.assert_array_equal(out, [1, 3, 4])
    np.testing.assert_array_equal(idx, [0, 2, 3])
    assert setdiff1d([1.0], [2.0], index_dtype=tf.int64).idx.dtype == tf.int64
    with pytest.raises(ValueError, match="must be rank 1 but is rank 2"):
        setdiff1d([[1]], [1])
    with pytest.raises(TypeError, match="index_dtype"):
        setdiff1d([1], [1], index_dtype=tf.float32)
    p = tf.placeholder(tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="x should be a 1D vector"):
        run(setdiff1d(p, [1]), {p: [[1, 2]]})
    s = run(setdiff1d(tf.constant(["a", "b", "c"]), tf.constant(["b"])))
    assert s.out.tolist() == [b"a", b"c"] and s.idx.tolist() == [0, 2]


def test_qr_and_svd_shapes_names_and_reconstructions():
    a = np.random.default_rng(0).normal(size=(2, 4, 3))
    q, r = qr(tf.constant(a))
    assert (q.op.type, q.op.name, q.shape.as_list(), r.shape.as_list()) == ("Qr", "Qr", [2, 4, 3], [2, 3, 3])
    assert [t.shape.as_list() for t in qr(tf.constant(a), full_matrices=True)] == [[2, 4, 4], [2, 4, 3]]
    s, u, v = svd(tf.constant(a))
    assert (s.op.type, s.op.name) == ("Svd", "Svd")
    assert [t.shape.as_list() for t in (s, u, v)] == [[2, 3], [2, 4, 3], [2, 3, 3]]
    assert [t.shape.as_list() for t in svd(tf.constant(a), full_matrices=True)] == [[2, 3], [2, 4, 4], [2, 3, 3]]
    only = svd(tf.constant(a), compute_uv=False)
    assert only.shape.as_list() == [2, 3] and [o.shape.as_list() for o in only.op.outputs[1:]] == [[0], [0]]
    qv, rv, sv, uv, vv, ov = run([q, r, s, u, v, only])
    np.testing.assert_allclose(qv @ rv, a, atol=1e-12)
    np.testing.assert_allclose(np.abs(rv), np.abs(np.linalg.qr(a)[1]), atol=1e-12)
    np.testing.assert_array_equal(np.tril(rv, -1), 0)
    np.testing.assert_allclose(uv * sv[:, None, :] @ np.swapaxes(vv, 1, 2), a, atol=1e-12)
    sorted_s = np.sort(np.sqrt(np.linalg.eigvalsh(np.swapaxes(a, 1, 2) @ a)), axis=-1)[:, ::-1]
    np.testing.assert_allclose(sv, sorted_s, rtol=1e-12)
    np.testing.assert_allclose(ov, sv, rtol=1e-13)


def test_decompositions_reject_bad_input_and_turn_non_finite_into_nan():
    with pytest.raises(ValueError, match="at least rank 2"):
        svd(tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="at least rank 2"):
        qr(tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="DataType int32"):
        svd(tf.constant([[1, 2]]))
    bad = tf.constant([[np.nan, 1.0], [2.0, 3.0]], tf.float64)
    s, u, v = run(svd(bad))
    assert np.isnan(s).all() and np.isnan(u).all() and np.isnan(v).all()
    q, r = run(qr(bad))
    assert np.isnan(q).all() and np.isnan(r[0]).all() and r[1, 0] == 0 and np.isnan(r[1, 1])
    s16 = run(svd(tf.constant(np.diag([3.0, 2.0]).astype(np.float16)), compute_uv=False))
    assert s16.dtype == np.float16 and s16.tolist() == [3.0, 2.0]


def finite_difference_check(build, x0, eps=1e-6):
    """Analytic gradient of a weighted sum of build(x)'s outputs vs central differences."""
    rng = np.random.default_rng(3)
    p = tf.placeholder(tf.float64, x0.shape)
    outs = build(p)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    loss = tf.add_n([tf.reduce_sum(o * rng.uniform(0.5, 1.5, o.shape.as_list())) for o in outs])
    grad = tf.gradients(loss, p)[0]
    with tf.Session() as sess:
        analytic = sess.run(grad, {p: x0})
        numeric = np.zeros_like(x0)
        for k in np.ndindex(x0.shape):
            hi, lo = x0.copy(), x0.copy()
            hi[k] += eps
            lo[k] -= eps
            numeric[k] = (sess.run(loss, {p: hi}) - sess.run(loss, {p: lo})) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2)])
def test_qr_gradient_matches_finite_differences(shape):
    finite_difference_check(lambda p: list(qr(p)), np.random.default_rng(1).normal(size=shape))


@pytest.mark.parametrize("shape,full", [((4, 3), False), ((3, 5), False), ((2, 4, 4), False),
                                        ((3, 4), True), ((4, 3), True), ((3, 3), True)])
def test_svd_gradient_matches_finite_differences(shape, full):
    finite_difference_check(lambda p: list(svd(p, full_matrices=full)), np.random.default_rng(2).normal(size=shape))


def test_svd_values_only_gradient_is_u_v_transpose():
    finite_difference_check(lambda p: svd(p, compute_uv=False), np.random.default_rng(4).normal(size=(2, 3, 4)))


def test_unsupported_gradients_raise_like_tf1():
    wide = tf.constant(np.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="ncols > nrows"):
        tf.gradients(qr(wide)[0], wide)
    tall = tf.constant(np.arange(15.0).reshape(5, 3))
    with pytest.raises(NotImplementedError, match=r"abs\(m - n\) > 1"):
        tf.gradients(svd(tall, full_matrices=True)[1], tall)
    p = tf.placeholder(tf.float64, [None, None])
    with pytest.raises(NotImplementedError, match="static inner matrix shape"):
        tf.gradients(qr(p)[0], p)
