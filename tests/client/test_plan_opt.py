"""Plan rewrites: unread pure ops skipped (as Grappler's dependency optimizer), shape-only
subgraphs folded per input shapes; values always equal to the unrewritten plan."""
import numpy as np
import pytest

import lens as tf
from lens.client import plan_opt

FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _mlp():
    """A two-layer training step with broadcasting and reduction gradients."""
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    w1 = tf.Variable(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4), name="w1")
    b1 = tf.Variable(np.full(4, 0.1, np.float32), name="b1")
    w2 = tf.Variable(np.linspace(1, -1, 12, dtype=np.float32).reshape(4, 3), name="w2")
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(h, w2)))
    grads = tf.gradients(loss, [w1, b1, w2, x])
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return x, y, loss, grads, train, [w1, b1, w2]


def _feeds(batch, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(batch, 5)).astype(np.float32), np.eye(3, dtype=np.float32)[rng.integers(0, 3, batch)]


def _plan(sess, kind=None):
    return [c.plan for k, c in sess._runs.items() if kind is None or kind in k][-1]


def _steps(enabled, monkeypatch):
    monkeypatch.setattr(plan_opt, "ENABLED", enabled)
    tf.reset_default_graph()
    x, y, loss, grads, train, vs = _mlp()
    out = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for batch, seed in ((4, 0), (7, 1), (4, 2), (1, 3)):   # shapes change and come back
            xv, yv = _feeds(batch, seed)
            out.append(sess.run([loss] + grads, {x: xv, y: yv}))
            sess.run(train, {x: xv, y: yv})
        out.append(sess.run(vs))
    return out


def test_rewritten_plans_compute_the_same_values_across_changing_batch_sizes(monkeypatch):
    plain = _steps(False, monkeypatch)
    fast = _steps(True, monkeypatch)
    for a, b in zip(plain, fast):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)


def test_gradient_nobody_reads_is_not_computed_but_still_traced():
    x, y, loss, grads, train, _ = _mlp()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xv, yv = _feeds(4, 0)
        sess.run(train, {x: xv, y: yv})
        plan = _plan(sess)
        run_ops = set(plan.line_ops.values())
        names = {op.name for op in plan.ops}
        # d loss / d x of minimize's gradients: only group_deps (a control edge) reads it.
        dx = "gradients_1/MatMul_grad/MatMul"
        assert dx in names and dx not in {op.name for op in run_ops}
        assert "gradients_1/MatMul_grad/MatMul_1" in {op.name for op in run_ops}   # d loss / d w1 is read
        meta = tf.RunMetadata()
        sess.run(train, {x: xv, y: yv}, options=FULL, run_metadata=meta)
    stats = {ns.node_name: ns for ds in meta.step_stats.dev_stats for ns in ds.node_stats}
    assert dx in stats and not stats[dx].output     # reported as executed, like Grappler's NoOp
    assert sorted(stats) == sorted(names)


def test_fetched_or_target_ops_always_run():
    a = tf.placeholder(tf.float32, [None, None])
    bad = tf.matmul(a, tf.ones([3, 1]))          # fails for the (1, 2) value fed below
    with tf.control_dependencies([bad]):
        out = tf.no_op()
    with tf.Session() as sess:
        sess.run(out, {a: np.ones((1, 2))})      # only a control edge reads `bad`: skipped, as in TF
        with pytest.raises(tf.errors.InvalidArgumentError, match="MatMul"):
            sess.run(bad.op, {a: np.ones((1, 2))})
        with pytest.raises(tf.errors.InvalidArgumentError, match="MatMul"):
            sess.run(bad, {a: np.ones((1, 2))})


def test_stateful_ops_nobody_reads_still_run():
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, 1.0)
    noise = tf.random_uniform([3], seed=1)
    with tf.control_dependencies([inc, noise]):
        out = tf.no_op()
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(out)
        sess.run(out)
        assert sess.run(v) == 2.0


def test_folded_value_follows_data_dependent_shapes():
    x = tf.placeholder(tf.float32, [None])
    kept = tf.boolean_mask(x, x > 0)
    n = tf.shape(kept)[0] * 10              # folded: depends on kept's shape, not its values
    with tf.Session() as sess:
        assert sess.run(n, {x: [1, -1, 2]}) == 20
        assert sess.run(n, {x: [1, 1, 2]}) == 30
        assert sess.run(n, {x: [-1, -1, 2]}) == 10
        assert sess.run(n, {x: [1, -1, 2]}) == 20


def test_fetched_folded_values_are_private_copies():
    x = tf.placeholder(tf.float32, [None, 3])
    ones = tf.ones(tf.shape(x))             # Fill(Shape(x), 1): folded and cached
    with tf.Session() as sess:
        first = sess.run(ones, {x: np.zeros((2, 3))})
        first[:] = 7                        # the caller owns what run returns
        again = sess.run(ones, {x: np.zeros((2, 3))})
    np.testing.assert_array_equal(again, np.ones((2, 3)))


def test_error_inside_a_folded_group_names_the_op():
    x = tf.placeholder(tf.float32)
    bad = tf.reshape(tf.shape(x), [3], name="bad_reshape")     # fails for any rank but 3
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad_reshape"):
            sess.run(bad, {x: np.zeros((2, 2))})


def test_shape_of_a_variable_reshaped_mid_session():
    v = tf.Variable(np.zeros((2, 3), np.float32), validate_shape=False)
    grow = tf.assign(v, np.zeros((4, 3), np.float32), validate_shape=False)
    s = tf.shape(v.value()) * 1
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(s).tolist() == [2, 3]
        sess.run(grow)
        assert sess.run(s).tolist() == [4, 3]


def test_sum_over_no_axes_forwards_its_input():
    x = tf.placeholder(tf.float32, [None, 3])
    axes = tf.placeholder(tf.int32, [None])
    s = tf.reduce_sum(x, axes)
    with tf.Session() as sess:
        xv = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(sess.run(s, {x: xv, axes: []}), xv)
        np.testing.assert_array_equal(sess.run(s, {x: xv, axes: [0]}), xv.sum(0))
