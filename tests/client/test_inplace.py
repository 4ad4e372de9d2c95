"""Buffers written in place (lens/client/plan_inplace.py): no fetched value, feed, variable read or
watched tensor ever sees a later in-place write; values equal the plan without rewrites."""
import numpy as np
import pytest

import lens as tf
from lens.client import plan_inplace
from lens.client.plan import prune
from tests.client.plan_switch import run_model


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _layer_model(n_in=6, n_hidden=5, n_out=3):
    """x -> relu(x @ w1 + b1) -> @ w2 + b2 -> mean softmax cross entropy; SGD."""
    rng = np.random.default_rng(3)
    x = tf.placeholder(tf.float32, [None, n_in], name="x")
    y = tf.placeholder(tf.float32, [None, n_out], name="y")
    w1 = tf.Variable(rng.normal(size=(n_in, n_hidden)).astype(np.float32), name="w1")
    b1 = tf.Variable(np.full(n_hidden, 0.1, np.float32), name="b1")
    w2 = tf.Variable(rng.normal(size=(n_hidden, n_out)).astype(np.float32), name="w2")
    b2 = tf.Variable(np.zeros(n_out, np.float32), name="b2")
    prod = tf.matmul(x, w1, name="prod")
    hidden = tf.nn.relu(prod + b1, name="hidden")
    logits = tf.nn.bias_add(tf.matmul(hidden, w2), b2, name="logits")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
    return dict(x=x, y=y, w1=w1, b1=b1, w2=w2, b2=b2, prod=prod, hidden=hidden, logits=logits,
                loss=loss, train=train)


def _feed(m, batch=7, seed=0):
    rng = np.random.default_rng(seed)
    return {m["x"]: rng.normal(size=(batch, 6)).astype(np.float32),
            m["y"]: np.eye(3, dtype=np.float32)[rng.integers(0, 3, batch)]}


def _donated(fetches, fed=()):
    ops = prune(fetches, set(fed))
    return {op.name: sorted(d) for op, d in plan_inplace.donations(ops, fetches, set(fed), set(), set()).items()}


def test_the_training_step_writes_in_place():
    m = _layer_model()
    got = _donated([m["train"], m["loss"]], [m["x"], m["y"]])
    assert got["add"] == [0]            # the bias add into the product
    assert got["hidden"] == [0]         # relu over the sum
    assert got["logits"] == [0]         # BiasAdd into the second product
    assert any(k.endswith("ReluGrad") and v == [0] for k, v in got.items())
    assert got["GradientDescent/update_w1/ApplyGradientDescent"] == [2]


def test_a_fetched_or_aliased_value_is_never_donated():
    m = _layer_model()
    assert "add" not in _donated([m["prod"], m["hidden"]], [m["x"]])
    alias = tf.identity(m["prod"], name="alias")
    assert "add" not in _donated([alias, m["hidden"]], [m["x"]])
    # A second reader (here a square of the product) keeps the buffer too.
    sq = tf.square(m["prod"])
    assert "add" not in _donated([sq, m["hidden"]], [m["x"]])


def test_a_fed_value_is_never_donated_nor_changed():
    m = _layer_model()
    # The fed product is not written; the sum made from it (a new array) still is.
    assert _donated([m["hidden"]], [m["x"], m["prod"]]) == {"hidden": [0]}
    prod_value = np.ones((4, 5), np.float32)
    keep = prod_value.copy()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run(m["hidden"], {m["prod"]: prod_value})
    np.testing.assert_array_equal(prod_value, keep)


def test_results_kept_from_an_earlier_run_stay_unchanged():
    m = _layer_model()
    feed = _feed(m)
    x = feed[m["x"]].copy()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w1, b1 = sess.run([m["w1"], m["b1"]])
        first = sess.run([m["hidden"], m["logits"], m["loss"], m["train"]], feed)
        kept = [np.array(v, copy=True) for v in first[:3]]
        for _ in range(3):
            later = sess.run([m["hidden"], m["logits"], m["loss"], m["train"]], feed)
        for a, b in zip(first[:3], kept):
            np.testing.assert_array_equal(a, b)
        assert not np.array_equal(later[1], first[1])    # the weights did move
    # The first run's hidden layer is relu(x @ w1 + b1) with the weights before any update.
    np.testing.assert_allclose(first[0], np.maximum(x @ w1 + b1, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(feed[m["x"]], x)


def test_a_fetched_product_is_the_product_not_the_sum():
    m = _layer_model()
    feed = _feed(m)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w1 = sess.run(m["w1"])
        prod, hidden = sess.run([m["prod"], m["hidden"]], feed)
        alias = tf.identity(m["prod"])
        prod2, _ = sess.run([alias, m["hidden"]], feed)
    np.testing.assert_allclose(prod, feed[m["x"]] @ w1, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(prod2, prod)
    assert not np.array_equal(prod, hidden)


def test_the_loss_is_computed_from_the_weights_before_the_update():
    m = _layer_model()
    feed = _feed(m)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(m["loss"], feed)
        loss, _ = sess.run([m["loss"], m["train"]], feed)
        after = sess.run(m["loss"], feed)
    assert loss == before
    assert after < before


def test_training_matches_the_plan_without_rewrites_bit_for_bit():
    g = tf.Graph()
    with g.as_default():
        m = _layer_model()
        init = tf.global_variables_initializer()
    feed = _feed(m, batch=33, seed=5)
    fetches = [m["loss"], m["train"], m["w1"], m["b1"], m["w2"], m["b2"]]
    on, _ = run_model(g, init, fetches, feed, True, steps=4)
    off, _ = run_model(g, init, fetches, feed, False, steps=4)
    for a, b in zip(on, off):
        if a is not None:
            np.testing.assert_array_equal(a, b)


class _KeepingWatch:
    """A debugger-style watch keeping every output by reference (as a dump taken later would)."""

    key = ("test-keep-all",)

    def __init__(self):
        self.values = {}

    def selects(self, op):
        return True

    def on_output(self, op, slot, value, timestamp_us):
        self.values[op.name] = value

    def before_update(self, *arrays):
        for name, v in list(self.values.items()):
            if arrays[0] is None or any(v is a for a in arrays):
                self.values[name] = np.array(v, copy=True)


def test_watched_runs_see_every_value_as_computed():
    m = _layer_model()
    feed = _feed(m)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w1 = sess.run(m["w1"])
        watch = _KeepingWatch()
        sess._run_watched([m["loss"], m["train"]], feed, None, None, watch)
    np.testing.assert_allclose(watch.values["prod"], feed[m["x"]] @ w1, rtol=1e-5, atol=1e-6)
    assert (watch.values["add"] < 0).any()       # the sum before relu, not overwritten by it


def test_traced_runs_report_the_in_place_outputs_shapes_and_values_stay_right():
    m = _layer_model()
    feed = _feed(m, batch=9)
    full = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w1, b1 = sess.run([m["w1"], m["b1"]])
        md = tf.RunMetadata()
        hidden, _ = sess.run([m["hidden"], m["train"]], feed, options=full, run_metadata=md)
    np.testing.assert_allclose(hidden, np.maximum(feed[m["x"]] @ w1 + b1, 0), rtol=1e-5, atol=1e-6)
    stats = {n.node_name: n for d in md.step_stats.dev_stats for n in d.node_stats}
    for name in ("prod", "add", "hidden"):
        dims = [d.size for d in stats[name].output[0].tensor_description.shape.dim]
        assert dims == [9, 5], name
