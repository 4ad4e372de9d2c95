"""Conv-pool blocks (Conv2D+BiasAdd+Relu+MaxPool and its gradient as two fused plan calls sharing
the patch matrix): same values as one call per op and as plain NumPy, and only where safe."""
import numpy as np
import pytest

import lens as tf
from lens.client import plan as plan_mod
from tests.ops import conv_refs as R
from tests.client.plan_switch import plan_rewrites, run_model


def _layer(rng, h=12, c=1, out=4, k=3, stride=1, pool=2, padding="SAME", pool_padding="SAME", x_var=False,
           f_init=None):
    """relu(conv + b) -> max_pool -> dense loss, with the gradients of f and b: (graph, names)."""
    g = tf.Graph()
    with g.as_default():
        if x_var:
            x = tf.Variable(rng.normal(size=(3, h, h, c)).astype(np.float32), name="x")
        else:
            x = tf.placeholder(tf.float32, [None, h, h, c], name="x")
        f0 = (rng.normal(size=(k, k, c, out)) * 0.5).astype(np.float32) if f_init is None else f_init
        f = tf.Variable(f0, name="f")
        b = tf.Variable((rng.normal(size=out) * 0.2).astype(np.float32), name="b")
        conv = tf.nn.conv2d(x, f, [1, stride, stride, 1], padding, name="conv")
        act = tf.nn.relu(tf.nn.bias_add(conv, b, name="biased"), name="act")
        pooled = tf.nn.max_pool(act, [1, pool, pool, 1], [1, pool, pool, 1], pool_padding, name="pool")
        n_flat = int(np.prod(pooled.shape.as_list()[1:]))
        w = tf.constant((rng.normal(size=(n_flat, 1))).astype(np.float32))
        loss = tf.reduce_sum(tf.matmul(tf.reshape(pooled, [-1, n_flat]), w))
        grads = tf.gradients(loss, [f, b])
        init = tf.global_variables_initializer()
    return g, dict(x=x, f=f, b=b, conv=conv, act=act, pooled=pooled, w=w, loss=loss, grads=grads, init=init)


def _blocks_in(plan):
    """How many fused conv-pool calls (forward, backward) a plan makes."""
    kinds = [v.fn.__qualname__.split(".")[0] for v in plan.globals.values() if isinstance(v, plan_mod._Fused)]
    return kinds.count("make_forward"), kinds.count("make_backward")


def _run(g, m, fetches, feed, enabled, steps=1):
    """Fetched values (last of `steps` runs) and the last plan, with plan rewrites on or off."""
    out, plans = run_model(g, m["init"], fetches, feed, enabled, steps)
    return out, plans[-1]


def _numpy_grads(x, f, b, w, stride, pool, padding, pool_padding):
    """d loss/d f and d loss/d b in float64 from the slow loop references."""
    z = R.conv2d(x.astype(np.float64), f.astype(np.float64), (stride, stride), padding=padding) + b
    act = np.maximum(z, 0)
    p = R.pool(act, (pool, pool), (pool, pool), pool_padding, "max")
    dp = np.broadcast_to(w[:, 0].reshape(p.shape[1:]), p.shape)
    dact = R.max_pool_grad(act, dp, (pool, pool), (pool, pool), pool_padding) * (act > 0)
    df = R.conv2d_backprop_filter(x.astype(np.float64), f.shape, dact, (stride, stride), padding=padding)
    return df, dact.sum(axis=(0, 1, 2)), p


@pytest.mark.parametrize("geom", [
    dict(h=12), dict(h=11), dict(h=12, c=3, k=5, pool=3, padding="VALID", pool_padding="VALID"),
    dict(h=13, stride=2, pool=7, pool_padding="VALID"), dict(h=9, k=1, pool=3, pool_padding="VALID"),
    dict(h=12, pool=1)], ids=["tiled", "odd-untiled", "3ch-3x3pool", "strided-conv", "1x1-filter", "1x1-pool"])
def test_block_gradients_match_one_call_per_op_and_numpy(geom):
    rng = np.random.default_rng(1)
    g, m = _layer(rng, **geom)
    x = rng.normal(size=(3, geom["h"], geom["h"], geom.get("c", 1))).astype(np.float32)
    x[0] = 0.0      # an all-zero image: every window's maxima tie at relu(b)
    fetch = m["grads"] + [m["loss"], m["pooled"]]
    fused, plan = _run(g, m, fetch, {m["x"]: x}, True)
    plain, plain_plan = _run(g, m, fetch, {m["x"]: x}, False)
    assert _blocks_in(plan) == (1, 1) and _blocks_in(plain_plan) == (0, 0)
    # The same arithmetic, but the GEMMs see other shapes (BLAS may round those differently)
    # and the gradients are sums taken in another order.
    for a, b in zip(fused, plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        fv, bv, wv = sess.run([m["f"], m["b"], m["w"]])
    df, db, p = _numpy_grads(x, fv, bv, wv, geom.get("stride", 1), geom.get("pool", 2),
                             geom.get("padding", "SAME"), geom.get("pool_padding", "SAME"))
    np.testing.assert_allclose(fused[3], p, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fused[0], df, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(fused[1], db, rtol=1e-4, atol=1e-4)


def test_exact_ties_between_positive_values_route_to_the_first_maximum():
    # The filter reads only its centre tap and each 2x2 block of the image is constant: every
    # window holds four equal conv values, while the neighbours the other taps see differ, so a
    # gradient routed to any but the first maximum changes the filter gradient.
    rng = np.random.default_rng(2)
    f0 = np.zeros((3, 3, 1, 3), np.float32)
    f0[1, 1, 0] = [1.0, -1.0, 0.5]
    g, m = _layer(rng, h=12, out=3, f_init=f0)
    x = np.kron(rng.normal(size=(3, 6, 6)), np.ones((2, 2)))[..., None].astype(np.float32)
    fused, plan = _run(g, m, m["grads"], {m["x"]: x}, True)
    plain, _ = _run(g, m, m["grads"], {m["x"]: x}, False)
    assert _blocks_in(plan) == (1, 1)
    for a, b in zip(fused, plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    wv = _run(g, m, m["w"], {}, False)[0]
    df, db, _ = _numpy_grads(x, f0, _run(g, m, m["b"], {}, False)[0], wv, 1, 2, "SAME", "SAME")
    np.testing.assert_allclose(fused[0], df, rtol=1e-4, atol=1e-4)


def test_changing_batch_sizes_and_kept_fetches_stay_right():
    rng = np.random.default_rng(3)
    g, m = _layer(rng)
    xs = [rng.normal(size=(n, 12, 12, 1)).astype(np.float32) for n in (3, 5, 0, 3)]
    fetch = m["grads"] + [m["pooled"]]
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        got = [sess.run(fetch, {m["x"]: x}) for x in xs]
        plan = list(sess._runs.values())[-1].plan
        kept = [p.copy() for _, _, p in got]
        sess.run(fetch, {m["x"]: xs[1]})
        with plan_rewrites(False):
            want = [sess.run(fetch, {m["x"]: x}) for x in xs]
    assert _blocks_in(plan) == (1, 1)
    for (df, db, p), k, (wdf, wdb, wp) in zip(got, kept, want):
        assert p.tobytes() == k.tobytes() == wp.tobytes()     # a later run never wrote into it
        np.testing.assert_allclose(df, wdf, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(db, wdb, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("extra", ["act", "conv", "pool_grad"])
def test_fetching_an_inner_value_keeps_the_ops_separate(extra):
    rng = np.random.default_rng(4)
    g, m = _layer(rng)
    with g.as_default():
        inner = g.get_tensor_by_name("gradients/pool_grad/MaxPoolGrad:0") if extra == "pool_grad" else m[extra]
    x = rng.normal(size=(2, 12, 12, 1)).astype(np.float32)
    fused, plan = _run(g, m, m["grads"] + [inner], {m["x"]: x}, True)
    plain, _ = _run(g, m, m["grads"] + [inner], {m["x"]: x}, False)
    assert _blocks_in(plan) == (0, 0)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


def test_an_update_of_the_conv_input_between_forward_and_gradient_stops_the_block():
    rng = np.random.default_rng(5)
    g, m = _layer(rng, x_var=True)
    with g.as_default():
        with tf.control_dependencies([m["pooled"]]):
            bump = tf.assign_add(m["x"], tf.ones_like(m["x"]))
        with tf.control_dependencies([bump]):
            loss2 = tf.identity(m["loss"])
        # The seed reads loss2, so the gradient runs after the update (TF1.15's default seed is a
        # Const-shaped Fill that reads nothing).
        grads2 = tf.gradients(loss2, [m["f"], m["b"]], grad_ys=tf.ones_like(loss2))
    fused, plan = _run(g, m, grads2, {}, True)
    plain, _ = _run(g, m, grads2, {}, False)
    assert _blocks_in(plan) == (0, 0)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    # Without the update the same layer (its input a variable) does run as a block.
    assert _blocks_in(_run(g, m, m["grads"], {}, True)[1]) == (1, 1)


def test_nan_and_inf_gradients_reach_the_same_channels():
    rng = np.random.default_rng(6)
    g, m = _layer(rng)
    with g.as_default():
        gp = tf.placeholder(tf.float32, [None, 6, 6, 4], name="gp")
        grads = tf.gradients(m["pooled"], [m["f"], m["b"]], grad_ys=gp)
    x = rng.normal(size=(3, 12, 12, 1)).astype(np.float32)
    x[0] = 0.0
    gv = rng.normal(size=(3, 6, 6, 4)).astype(np.float32)
    gv[1, 2, 3, 0] = np.nan
    gv[2, :, :, 1] = np.inf
    gv[0, :, :, 2] = -np.inf   # image 0's windows are relu(b): positive or not, per channel
    feed = {m["x"]: x, gp: gv}
    fused, plan = _run(g, m, grads, feed, True)
    plain, _ = _run(g, m, grads, feed, False)
    assert _blocks_in(plan) == (1, 1)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isinf(a), np.isinf(b))
        ok = np.isfinite(b)
        np.testing.assert_allclose(a[ok], b[ok], rtol=1e-5, atol=1e-5)
    assert np.isnan(fused[0]).any() and np.isfinite(fused[0]).any()


def test_traced_runs_keep_every_op():
    rng = np.random.default_rng(7)
    g, m = _layer(rng)
    x = rng.normal(size=(2, 12, 12, 1)).astype(np.float32)
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        md = tf.RunMetadata()
        sess.run(m["grads"], {m["x"]: x}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=md)
        plan = list(sess._runs.values())[-1].plan
    names = {ns.node_name for dev in md.step_stats.dev_stats for ns in dev.node_stats}
    assert {"conv", "biased", "act", "pool", "gradients/pool_grad/MaxPoolGrad", "gradients/act_grad/ReluGrad",
            "gradients/biased_grad/BiasAddGrad", "gradients/conv_grad/Conv2DBackpropFilter"} <= names
    assert _blocks_in(plan) == (0, 0)


def test_a_failing_block_names_the_op_that_fails_as_unfused_runs_do():
    messages = []
    for enabled in (True, False):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 8, 8, 1])
            b = tf.placeholder(tf.float32, [None])
            f = tf.Variable(np.ones((3, 3, 1, 4), np.float32))
            act = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b, name="badd"))
            loss = tf.reduce_sum(tf.nn.max_pool(act, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"))
            grads = tf.gradients(loss, [f, b])
            init = tf.global_variables_initializer()
        with plan_rewrites(enabled), tf.Session(graph=g) as sess:
            sess.run(init)
            xv = np.ones((2, 8, 8, 1), np.float32)
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(grads, {x: xv, b: np.ones(3, np.float32)})
            assert sess.run(grads, {x: xv, b: np.ones(4, np.float32)})[1].shape == (4,)
            plan = list(sess._runs.values())[-1].plan
        assert _blocks_in(plan) == ((1, 1) if enabled else (0, 0))
        messages.append(str(info.value).split("\n")[0])
    assert messages[0] == messages[1] and "BiasAdd op 'badd' failed" in messages[0]


def test_two_layer_training_matches_one_call_per_op():
    # The second layer's input gradient is live, so only the first layer becomes a block.
    rng = np.random.default_rng(8)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 16, 16, 1])
        h = x
        for i, (c_in, c_out) in enumerate(((1, 4), (4, 6))):
            f = tf.Variable((rng.normal(size=(3, 3, c_in, c_out)) * 0.4).astype(np.float32), name="f%d" % i)
            b = tf.Variable((rng.normal(size=c_out) * 0.1).astype(np.float32), name="b%d" % i)
            h = tf.nn.max_pool(tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, f, [1, 1, 1, 1], "SAME"), b)),
                               [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        loss = tf.reduce_mean(tf.square(tf.reshape(h, [-1, 96]) - 0.5))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        variables = tf.trainable_variables()
        init = tf.global_variables_initializer()
    m = dict(init=init)
    xv = rng.normal(size=(4, 16, 16, 1)).astype(np.float32)
    fetch = [train, loss] + variables
    fused, plan = _run(g, m, fetch, {x: xv}, True, steps=3)
    plain, _ = _run(g, m, fetch, {x: xv}, False, steps=3)
    assert _blocks_in(plan) == (1, 1)
    for a, b in zip(fused[1:], plain[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
