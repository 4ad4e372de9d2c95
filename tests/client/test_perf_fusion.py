"""Fused plan chains (Conv2D+BiasAdd+Relu, MaxPoolGrad+ReluGrad) and the fast BiasAddGrad give the
same values as one call per op, and never apply where a value is fetched, fed, watched or traced."""
import numpy as np
import pytest

import lens as tf
from lens import dbg as tf_debug
from lens.client import plan_opt
from lens.ops import nn as nn_ops
from tests.client.plan_switch import plan_rewrites, run_model


@pytest.fixture(autouse=True)
def _chains_only(monkeypatch):
    """These tests pin the op-pair chains; conv-pool blocks (which would take the same ops and
    sum gradients in another order) have their own tests in test_conv_pool_block.py."""
    monkeypatch.setattr(plan_opt, "BLOCKS", False)


def _cnn(rng, h=28, pool_k=2, pool_s=2, padding="SAME"):
    """A conv/bias/relu/max-pool/dense training graph: (graph, names)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, h, h, 1], name="x")
        y = tf.placeholder(tf.float32, [None, 10], name="y")
        f = tf.Variable((rng.normal(size=(5, 5, 1, 8)) * 0.3).astype(np.float32), name="f")
        b = tf.Variable((rng.normal(size=8) * 0.1).astype(np.float32), name="b")
        conv = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", name="conv")
        biased = tf.nn.bias_add(conv, b, name="biased")
        act = tf.nn.relu(biased, name="act")
        pooled = tf.nn.max_pool(act, [1, pool_k, pool_k, 1], [1, pool_s, pool_s, 1], padding, name="pool")
        flat_n = int(np.prod(pooled.shape.as_list()[1:]))
        w = tf.Variable((rng.normal(size=(flat_n, 10)) * 0.05).astype(np.float32), name="w")
        logits = tf.matmul(tf.reshape(pooled, [-1, flat_n]), w)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        grads = tf.gradients(loss, [f, b, w])
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
    return g, dict(x=x, y=y, f=f, b=b, conv=conv, biased=biased, act=act, pooled=pooled, loss=loss,
                   grads=grads, train=train, init=init)


def _data(rng, n=6, h=28):
    x = rng.normal(size=(n, h, h, 1)).astype(np.float32)
    x[0] = 0.0      # an all-zero image: relu ties at 0 in every pooling window
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, n)]
    return x, y


def _run(g, m, fetches, feed, enabled, steps=1):
    """Values of fetches after `steps` runs, with plan rewrites on or off, and the plans run."""
    return run_model(g, m["init"], fetches, feed, enabled, steps)


def _fused_tails(plan):
    """Types of the BiasAdd/Relu/ReluGrad ops of a plan that have no kernel line of their own."""
    own = set(plan.line_ops.values())
    return sorted(op.type for op in plan.ops if op.type in ("Relu", "ReluGrad", "BiasAdd") and op not in own)


def _bitwise_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("geom", [(28, 2, 2, "SAME"), (27, 2, 2, "SAME"), (28, 3, 2, "VALID"), (28, 3, 1, "SAME")],
                         ids=["tiled", "padded", "overlap-valid", "overlap-same"])
def test_fused_training_gradients_match_unfused_bit_for_bit(geom):
    h, k, s, padding = geom
    rng = np.random.default_rng(1)
    g, m = _cnn(rng, h, k, s, padding)
    x, y = _data(rng, h=h)
    feed = {m["x"]: x, m["y"]: y}
    fused, plans = _run(g, m, m["grads"] + [m["loss"]], feed, True)
    plain, plain_plans = _run(g, m, m["grads"] + [m["loss"]], feed, False)
    # Both chains ran fused: BiasAdd, Relu and ReluGrad have no line of their own.
    assert _fused_tails(plans[-1]) == ["BiasAdd", "Relu", "ReluGrad"]
    assert _fused_tails(plain_plans[-1]) == []
    for a, b in zip(fused, plain):
        assert _bitwise_equal(a, b)


def test_training_steps_match_unfused():
    rng = np.random.default_rng(2)
    g, m = _cnn(rng)
    x, y = _data(rng)
    feed = {m["x"]: x, m["y"]: y}
    fetch = [m["train"], m["loss"], m["f"], m["b"]]
    fused, _ = _run(g, m, fetch, feed, True, steps=4)
    plain, _ = _run(g, m, fetch, feed, False, steps=4)
    for a, b in zip(fused[1:], plain[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_nan_inf_and_signed_zero_gradients_route_like_the_unfused_ops():
    rng = np.random.default_rng(3)
    g, m = _cnn(rng)
    with g.as_default():
        gp = tf.placeholder(tf.float32, m["pooled"].shape, name="gp")
        (gx,) = tf.gradients(m["pooled"], [m["biased"]], grad_ys=gp)
    x, _ = _data(rng, n=3)
    gv = rng.normal(size=(3, 14, 14, 8)).astype(np.float32)
    gv[0, :3] = np.nan        # image 0 is all zeros: windows with a 0 maximum
    gv[0, 3:5] = np.inf
    gv[0, 5:] = -0.0
    gv[1, 0, 0] = np.nan
    gv[2, :, 0] = -np.inf
    feed = {m["x"]: x, gp: gv}
    fused, plans = _run(g, m, gx, feed, True)
    assert _fused_tails(plans[-1]) == ["BiasAdd", "Relu", "ReluGrad"]
    plain, _ = _run(g, m, gx, feed, False)
    assert _bitwise_equal(fused, plain)
    assert np.isnan(fused).any() and np.signbit(fused[fused == 0]).any()


def test_a_fed_pool_output_is_not_taken_as_the_maxima():
    rng = np.random.default_rng(4)
    g, m = _cnn(rng)
    with g.as_default():
        gp = tf.placeholder(tf.float32, m["pooled"].shape, name="gp")
        (gx,) = tf.gradients(m["pooled"], [m["biased"]], grad_ys=gp)
    x, _ = _data(rng, n=2)
    gv = rng.normal(size=(2, 14, 14, 8)).astype(np.float32)
    wrong = np.full((2, 14, 14, 8), 1e9, np.float32)     # no input equals these "maxima"
    feed = {m["x"]: x, gp: gv, m["pooled"]: wrong}
    fused, _ = _run(g, m, gx, feed, True)
    plain, _ = _run(g, m, gx, feed, False)
    assert _bitwise_equal(fused, plain) and np.count_nonzero(fused) > 0


def test_fetched_intermediates_are_not_fused_nor_overwritten_by_later_runs():
    rng = np.random.default_rng(5)
    g, m = _cnn(rng)
    x, y = _data(rng)
    x2 = rng.normal(size=x.shape).astype(np.float32)
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        conv1, act1 = sess.run([m["conv"], m["act"]], {m["x"]: x})
        keep_conv, keep_act = conv1.copy(), act1.copy()
        for xv in (x2, x, x2):
            sess.run([m["act"], m["train"]], {m["x"]: xv, m["y"]: y})
        assert _bitwise_equal(conv1, keep_conv) and _bitwise_equal(act1, keep_act)
        # The relu output fetched from a fused plan is not reused by the next run either.
        a = sess.run(m["act"], {m["x"]: x})
        kept = a.copy()
        sess.run(m["act"], {m["x"]: x2})
        assert _bitwise_equal(a, kept)
        # Fetching the BiasAdd output keeps it a separate call with its own value.
        b_out, act = sess.run([m["biased"], m["act"]], {m["x"]: x})
        np.testing.assert_array_equal(np.maximum(b_out, 0), act)


def test_fused_plan_never_writes_into_a_feed_or_a_variable():
    rng = np.random.default_rng(6)
    g, m = _cnn(rng)
    x, y = _data(rng)
    x_keep = x.copy()
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        b_before = sess.run(m["b"])
        b_ref = sess._ctx.variables["b"]
        b_copy = b_ref.copy()
        sess.run(m["grads"], {m["x"]: x, m["y"]: y})
        assert _bitwise_equal(x, x_keep) and _bitwise_equal(b_ref, b_copy)
        assert _bitwise_equal(sess.run(m["b"]), b_before)


def test_an_update_between_head_and_tail_stops_the_fusion():
    rng = np.random.default_rng(7)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1])
        f = tf.Variable(np.ones((3, 3, 1, 2), np.float32))
        b = tf.Variable(np.zeros(2, np.float32))
        biased = tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b)
        bump = tf.assign_add(b, np.full(2, 100.0, np.float32))
        with tf.control_dependencies([bump]):
            out = tf.nn.relu(biased)
        init = tf.global_variables_initializer()
    xv = rng.normal(size=(2, 8, 8, 1)).astype(np.float32)
    results = []
    for enabled in (True, False):
        with plan_rewrites(enabled), tf.Session(graph=g) as sess:
            sess.run(init)
            results.append(sess.run(out, {x: xv}))
    assert _bitwise_equal(results[0], results[1])


def test_debugger_watch_sees_every_op_of_a_fusable_chain(tmp_path):
    rng = np.random.default_rng(8)
    g, m = _cnn(rng)
    x, y = _data(rng, n=2)
    feed = {m["x"]: x, m["y"]: y}
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        ref_conv, ref_biased, ref_act = sess.run([m["conv"], m["biased"], m["act"]], feed)
        grads_plain = sess.run(m["grads"], feed)
        opts = tf.RunOptions()
        tf_debug.watch_graph(opts, g, debug_urls="file://" + str(tmp_path / "dump"))
        grads_watched = sess.run(m["grads"], feed, options=opts)
    dump = tf_debug.DebugDumpDir(str(tmp_path / "dump"))
    for name, ref in (("conv", ref_conv), ("biased", ref_biased), ("act", ref_act)):
        got = dump.get_tensors(name, 0, "DebugIdentity")[0]
        assert _bitwise_equal(got, ref)
    names = {d.node_name for d in dump.dumped_tensor_data}
    assert {"gradients/pool_grad/MaxPoolGrad", "gradients/act_grad/ReluGrad"} <= names
    for a, b in zip(grads_plain, grads_watched):
        assert _bitwise_equal(a, b)


def test_traced_runs_report_each_op_of_the_chains():
    rng = np.random.default_rng(9)
    g, m = _cnn(rng)
    x, y = _data(rng, n=2)
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        md = tf.RunMetadata()
        sess.run(m["grads"], {m["x"]: x, m["y"]: y},
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    names = {ns.node_name for dev in md.step_stats.dev_stats for ns in dev.node_stats}
    assert {"conv", "biased", "act", "gradients/pool_grad/MaxPoolGrad", "gradients/act_grad/ReluGrad"} <= names


@pytest.mark.parametrize("shape", [(7, 5, 3, 32), (1, 1, 1, 32), (50, 3), (33, 700), (4, 9, 16)])
def test_bias_add_grad_long_row_sums_match_a_float64_sum(shape):
    rng = np.random.default_rng(10)
    g = (rng.normal(size=shape) * 10).astype(np.float32)
    got = nn_ops.channel_sums(g.reshape(-1, shape[-1]))
    want = g.reshape(-1, shape[-1]).astype(np.float64).sum(0)
    assert got.dtype == np.float32 and got.shape == (shape[-1],)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    with tf.Graph().as_default():
        out = nn_ops.bias_add_grad(tf.constant(g))
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out), want, rtol=1e-5, atol=1e-4)


def test_a_failing_fused_chain_names_the_op_that_fails_as_unfused_runs_do():
    messages = []
    for enabled in (True, False):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 8, 8, 1])
            b = tf.placeholder(tf.float32, [None])
            f = tf.constant(np.ones((3, 3, 1, 4), np.float32))
            out = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b, name="badd"))
        with plan_rewrites(enabled), tf.Session(graph=g) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(out, {x: np.ones((2, 8, 8, 1), np.float32), b: np.ones(3, np.float32)})
            assert sess.run(out, {x: np.ones((2, 8, 8, 1), np.float32), b: np.ones(4, np.float32)}).shape \
                == (2, 8, 8, 4)
        messages.append(str(info.value).split("\n")[0])
    assert messages[0] == messages[1] and "BiasAdd op 'badd' failed" in messages[0]
    assert "input shapes: [2, 8, 8, 4], [3]" in messages[0]


def test_a_shape_read_of_an_intermediate_keeps_it_unfused():
    # tf.shape(conv) becomes a folded shape group keyed on conv's value: conv must stay a value.
    rng = np.random.default_rng(15)
    g, m = _cnn(rng)
    with g.as_default():
        scaled = m["act"] * tf.cast(tf.shape(m["conv"])[1], tf.float32)
    x, _ = _data(rng, n=2)
    for enabled in (True, False):
        got, plans = _run(g, m, scaled, {m["x"]: x}, enabled)
        want = np.maximum(_run(g, m, m["biased"], {m["x"]: x}, False)[0], 0) * 28
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert _fused_tails(plans[-1]) == []
