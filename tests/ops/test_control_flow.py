"""Control flow: lazy cond/case, while_loop (structures, invariants, gradients), map/scan/folds, asserts."""
import collections

import numpy as np
import pytest

import lens as tf


def _numeric_grad(sess, loss, x, feed, eps=1e-6):
    base = np.asarray(feed[x], dtype=np.float64)
    out = np.zeros_like(base)
    for k in np.ndindex(base.shape):
        p, m = base.copy(), base.copy()
        p[k] += eps
        m[k] -= eps
        out[k] = (sess.run(loss, {**feed, x: p}) - sess.run(loss, {**feed, x: m})) / (2 * eps)
    return out


def _check_grads(loss, xs, feed):
    grads = tf.gradients(loss, xs)
    with tf.Session() as sess:
        got = sess.run(grads, feed)
        for x, g in zip(xs, got):
            np.testing.assert_allclose(g, _numeric_grad(sess, loss, x, feed), rtol=1e-5, atol=1e-7,
                                       err_msg="d loss / d %s" % x.name)


# ------------------------------------------------------------------ cond
def test_cond_runs_only_the_taken_branch():
    calls = []

    def spy(v):
        calls.append(float(v))
        return v

    x = tf.placeholder(tf.float32, [])
    y = tf.cond(x > 0, lambda: tf.py_func(spy, [x], tf.float32) * 2.0,
                lambda: tf.check_numerics(tf.log(x), "log of a negative") + 1.0)
    with tf.Session() as sess:
        assert sess.run(y, {x: 3.0}) == 6.0
        assert calls == [3.0]
        # The false branch fails whenever it runs: it must run (and fail) only when taken.
        with pytest.raises(tf.errors.InvalidArgumentError, match="log of a negative : Tensor had NaN"):
            sess.run(y, {x: -1.0})
        assert calls == [3.0]


def test_cond_assigns_in_branches_see_the_current_value():
    v = tf.Variable(0.0, name="v")
    p = tf.placeholder(tf.bool, [])
    upd = tf.cond(p, lambda: v.assign(1.0), lambda: v.assign_add(10.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(upd, {p: False}) == 10.0
        assert sess.run(upd, {p: False}) == 20.0
        assert sess.run(upd, {p: True}) == 1.0
        assert sess.run(v) == 1.0


def test_cond_names_and_structures():
    Pair = collections.namedtuple("Pair", "a b")
    x = tf.constant(2.0, name="x")
    out = tf.cond(tf.constant(True), lambda: {"k": Pair(x + 1.0, x)}, lambda: {"k": Pair(x * 3.0, x - 1)})
    assert isinstance(out, dict) and isinstance(out["k"], Pair)
    assert out["k"].a.name == "cond/Merge:0" and out["k"].b.name == "cond/Merge_1:0"
    names = {o.name for o in tf.get_default_graph().get_operations()}
    assert "cond/add" in names and "cond/mul" in names and "cond" in names
    single = tf.cond(tf.constant(False), lambda: [x], lambda: [x * 2.0])
    assert isinstance(single, tf.Tensor)  # strict=False unpacks singletons, as TF1
    strict = tf.cond(tf.constant(False), lambda: [x], lambda: [x * 2.0], strict=True)
    assert isinstance(strict, list)
    with tf.Session() as sess:
        assert sess.run(out) == {"k": Pair(3.0, 2.0)}
        assert sess.run(single) == 4.0


def test_cond_build_errors_are_clear():
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match="same structure"):
        tf.cond(tf.constant(True), lambda: (x, x), lambda: x)
    with pytest.raises(ValueError, match="same type"):
        tf.cond(tf.constant(True), lambda: x, lambda: tf.constant(1))
    with pytest.raises(TypeError, match="Python bool"):
        tf.cond(True, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="bool Tensor"):
        tf.cond(x, lambda: x, lambda: x)
    with pytest.raises(ValueError, match="rank 0"):
        tf.cond(tf.constant([True, False]), lambda: x, lambda: x)
    with pytest.raises(ValueError, match="true_fn must have a return value"):
        tf.cond(tf.constant(True), lambda: None, lambda: x)


def test_cond_gradients_match_finite_differences_including_nested():
    x = tf.placeholder(tf.float64, [3])
    w = tf.placeholder(tf.float64, [3])
    s = tf.reduce_sum(x)

    def inner():
        return tf.cond(s > 1.0, lambda: tf.sin(x) * w, lambda: x * x)
    y = tf.cond(s > 0.0, inner, lambda: tf.exp(w) - x)
    loss = tf.reduce_sum(y * y)
    for xv in ([1.0, 0.5, 0.2], [0.3, 0.2, 0.1], [-1.0, -0.5, 0.2]):
        _check_grads(loss, [x, w], {x: np.array(xv), w: np.array([0.3, -0.7, 1.1])})


def test_cond_second_derivative():
    x = tf.placeholder(tf.float64, [])
    y = tf.cond(x > 0, lambda: x * x * x, lambda: -x * x)
    g, = tf.gradients(y, x)
    h, = tf.gradients(g, x)
    with tf.Session() as sess:
        assert np.allclose(sess.run([y, g, h], {x: 2.0}), [8.0, 12.0, 12.0])
        assert np.allclose(sess.run([y, g, h], {x: -2.0}), [-4.0, 4.0, -2.0])


def test_cond_gradient_reuses_the_forward_random_draw():
    x = tf.placeholder(tf.float32, [50])
    y = tf.cond(tf.constant(True), lambda: x * tf.random_uniform([50]), lambda: x)
    g, = tf.gradients(tf.reduce_sum(y), x)
    with tf.Session() as sess:
        yv, gv = sess.run([y, g], {x: np.ones(50, np.float32)})
    np.testing.assert_array_equal(yv, gv)  # the gradient uses the mask the forward drew


def test_case():
    x = tf.placeholder(tf.int32, [])
    out = tf.case([(tf.equal(x, 1), lambda: tf.constant(10)), (tf.equal(x, 2), lambda: tf.constant(20))],
                  default=lambda: tf.constant(-1))
    excl = tf.case({tf.less(x, 5): lambda: tf.constant(1), tf.less(x, 3): lambda: tf.constant(2)},
                   default=lambda: tf.constant(0), exclusive=True)
    no_default = tf.case([(tf.equal(x, 1), lambda: tf.constant(10)), (tf.equal(x, 2), lambda: tf.constant(20))])
    with tf.Session() as sess:
        assert [sess.run(out, {x: v}) for v in (1, 2, 3)] == [10, 20, -1]
        assert sess.run(excl, {x: 4}) == 1
        with pytest.raises(tf.errors.InvalidArgumentError, match="more than 1 conditions"):
            sess.run(excl, {x: 1})
        assert sess.run(no_default, {x: 2}) == 20
        with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions evaluated as True"):
            sess.run(no_default, {x: 7})


# ------------------------------------------------------------------ while_loop
def test_while_loop_basic_names_and_single_var():
    i = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
    assert isinstance(i, tf.Tensor) and i.name == "while/Exit:0"
    names = {o.name for o in tf.get_default_graph().get_operations()}
    assert {"while", "while/Less", "while/add", "while/Identity"} <= names
    capped = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)], maximum_iterations=4)
    with tf.Session() as sess:
        assert sess.run([i, capped]) == [10, 4]


def test_while_loop_nested_structures():
    State = collections.namedtuple("State", "total count")
    init = (tf.constant(0), State(tf.constant(0.0), {"n": tf.constant(1.0)}))

    def body(i, st):
        return i + 1, State(st.total + tf.cast(i, tf.float32), {"n": st.count["n"] * 2.0})
    i, st = tf.while_loop(lambda i, st: i < 4, body, init)
    assert isinstance(st, State) and isinstance(st.count, dict)
    with tf.Session() as sess:
        assert sess.run([i, st]) == [4, State(6.0, {"n": 16.0})]


def test_while_loop_shape_invariants():
    x0 = tf.zeros([0, 2])

    def grow(i, x):
        return i + 1, tf.concat([x, tf.ones([1, 2])], 0)
    with pytest.raises(ValueError, match="shape_invariants"):
        tf.while_loop(lambda i, x: i < 3, grow, [tf.constant(0), x0])
    _, x = tf.while_loop(lambda i, x: i < 3, grow, [tf.constant(0), x0],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])])
    assert x.shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="not compatible with the initial shape"):
        tf.while_loop(lambda i, x: i < 3, grow, [tf.constant(0), x0],
                      shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])
    with pytest.raises(ValueError, match="type int32, but has type float32"):
        tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [tf.constant(0)])
    with tf.Session() as sess:
        assert sess.run(x).shape == (3, 2)


def test_while_loop_error_names_the_inner_op():
    x = tf.placeholder(tf.float32, [])
    y = tf.while_loop(lambda v: v > -5.0, lambda v: tf.check_numerics(tf.sqrt(v), "root") - 2.0, [x])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="root : Tensor had NaN values") as e:
            sess.run(y, {x: 1.0})
    assert "while/CheckNumerics" in str(e.value)


def test_while_gradient_power_by_repeated_multiplication():
    x = tf.placeholder(tf.float64, [])
    for n in (0, 1, 4):
        y = tf.while_loop(lambda i, p: i < n, lambda i, p: (i + 1, p * x), [0, tf.constant(1.0, tf.float64)])[1]
        g, = tf.gradients(y, x)
        with tf.Session() as sess:
            yv, gv = sess.run([y, g], {x: 1.5})
        assert np.isclose(yv, 1.5 ** n) and np.isclose(gv, n * 1.5 ** (n - 1) if n else 0.0)


def test_while_gradient_rnn_recurrence_matches_finite_differences():
    W = tf.placeholder(tf.float64, [3, 3])
    h0 = tf.placeholder(tf.float64, [2, 3])
    xs = tf.placeholder(tf.float64, [4, 2, 3])

    def body(t, h):
        gate = tf.cond(t > 1, lambda: tf.sigmoid(h), lambda: tf.ones_like(h))
        return t + 1, tf.tanh(tf.matmul(h * gate, W) + tf.gather(xs, t))
    _, h = tf.while_loop(lambda t, h: t < 4, body, [tf.constant(0), h0])
    loss = tf.reduce_sum(h * h)
    rng = np.random.default_rng(0)
    feed = {W: rng.normal(size=(3, 3)) * 0.5, h0: rng.normal(size=(2, 3)), xs: rng.normal(size=(4, 2, 3))}
    _check_grads(loss, [W, h0, xs], feed)


def test_while_body_variables_read_and_update_the_session_values():
    v = tf.Variable(1.0, name="acc")

    def body(i):
        with tf.control_dependencies([v.assign_add(1.0)]):
            return i + 1
    n = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(n) == 3 and sess.run(v) == 4.0
        sess.run(n)
        assert sess.run(v) == 7.0


def test_variable_created_in_loop_body_is_lifted_and_trained():
    x = tf.placeholder(tf.float32, [2])

    def body(i, h):
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer(0.5))
        return i + 1, h * w
    _, h = tf.while_loop(lambda i, h: i < 2, body, [tf.constant(0), x])
    w = tf.global_variables()[0]
    assert w.op.name == "w"
    g, = tf.gradients(tf.reduce_sum(h), w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        hv, gv = sess.run([h, g], {x: [1.0, 2.0]})
    np.testing.assert_allclose(hv, [0.25, 0.5])
    np.testing.assert_allclose(gv, [2 * 0.5 * 1.0, 2 * 0.5 * 2.0])


# ------------------------------------------------------------------ map_fn / scan / folds
def test_map_scan_fold_values_and_gradients():
    x = tf.placeholder(tf.float64, [4, 3])
    m = tf.map_fn(lambda r: tf.sin(r) * r, x)
    pair = tf.map_fn(lambda t: (t[0] * 2.0, t[1] + 1.0), (x, x), dtype=(tf.float64, tf.float64))
    s = tf.scan(lambda a, r: a * 0.5 + r, x)
    sr = tf.scan(lambda a, r: a * 0.5 + r, x, initializer=tf.zeros([3], tf.float64), reverse=True)
    fl = tf.foldl(lambda a, r: a * r, x)
    fr = tf.foldr(lambda a, r: a - r, x, initializer=tf.zeros([3], tf.float64))
    assert m.shape.as_list() == [4, 3] and s.shape.as_list() == [4, 3]
    v = np.random.default_rng(1).uniform(0.5, 1.5, size=(4, 3))
    acc, scan_ref = v[0], [v[0]]
    for r in v[1:]:
        acc = acc * 0.5 + r
        scan_ref.append(acc)
    acc, rev_ref = np.zeros(3), []
    for r in v[::-1]:
        acc = acc * 0.5 + r
        rev_ref.insert(0, acc)
    with tf.Session() as sess:
        got = sess.run([m, pair, s, sr, fl, fr], {x: v})
    np.testing.assert_allclose(got[0], np.sin(v) * v)
    np.testing.assert_allclose(got[1][0], v * 2)
    np.testing.assert_allclose(got[1][1], v + 1)
    np.testing.assert_allclose(got[2], scan_ref)
    np.testing.assert_allclose(got[3], rev_ref)
    np.testing.assert_allclose(got[4], np.prod(v, axis=0))
    np.testing.assert_allclose(got[5], -v.sum(axis=0))
    loss = tf.reduce_sum(m) + tf.reduce_sum(sr * sr) + tf.reduce_sum(fl)
    _check_grads(loss, [x], {x: v})


# ------------------------------------------------------------------ asserts and check_numerics
def test_asserts_fail_at_run_time_with_tf_messages():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.placeholder(tf.float32, [2], name="y")
    eq = tf.assert_equal(x, y)
    pos = tf.assert_positive(x, message="need positive")
    less = tf.assert_less(x, y)
    with tf.Session() as sess:
        assert sess.run([eq, pos], {x: [1.0, 2.0], y: [1.0, 2.0]}) == [None, None]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[Condition x == y did not hold element-wise:\] "
                                 r"\[x \(x:0\) = \] \[1 2\] \[y \(y:0\) = \] \[1 3\]"):
            sess.run(eq, {x: [1.0, 2.0], y: [1.0, 3.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[need positive\] \[Condition x > 0"):
            sess.run(pos, {x: [1.0, -2.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="x < y"):
            sess.run(less, {x: [1.0, 2.0], y: [3.0, 2.0]})


def test_static_asserts_fail_at_graph_build_time():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x == y"):
        tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
    with pytest.raises(ValueError, match="must have rank 2.  Received rank 1"):
        tf.assert_rank(tf.constant([1.0, 2.0]), 2)
    ok = tf.assert_rank(tf.constant([1.0, 2.0]), 1)
    assert ok.type == "NoOp"
    dyn = tf.assert_rank(tf.placeholder(tf.float32), 2)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank"):
            sess.run(dyn, {"Placeholder:0": [1.0]})


def test_check_numerics_messages_and_gradient():
    x = tf.placeholder(tf.float32, [3])
    y = tf.check_numerics(x * 2.0, "bad")
    g, = tf.gradients(tf.reduce_sum(y), x)
    with tf.Session() as sess:
        assert np.array_equal(sess.run(g, {x: [1.0, 2.0, 3.0]}), [2.0, 2.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad : Tensor had Inf values") as e:
            sess.run(y, {x: [1.0, np.inf, 3.0]})
        assert "CheckNumerics" in str(e.value)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had Inf and NaN values"):
            sess.run(y, {x: [np.nan, np.inf, 3.0]})
    with pytest.raises(TypeError, match="DataType int32"):
        tf.check_numerics(tf.constant([1]), "ints")
