"""The parallel executor: same results as sequential on random graphs, errors, variables, seeds."""
import numpy as np
import pytest

import lens as tf
from lens.client import parallel
from lens.client.parallel import ParallelPlan
from lens.client.plan import Plan


def _session(threads, **kw):
    return tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=threads, **kw))


@pytest.fixture
def always_parallel(monkeypatch):
    """Make every multi-op plan 'worth' threads, so small test graphs exercise the executor."""
    monkeypatch.setattr(parallel, "MIN_OVERLAP_FLOPS", 0)
    monkeypatch.setattr(parallel, "MIN_FLOPS_PER_OP", 0)


def _plan_of(sess):
    return [c.plan for c in sess._runs.values()][-1]


def _random_graph(seed, n_ops=40):
    """A random DAG of element-wise, matmul and reduction ops over two fed 6x6 matrices."""
    rng = np.random.default_rng(seed)
    a = tf.placeholder(tf.float32, [6, 6], name="a")
    b = tf.placeholder(tf.float32, [6, 6], name="b")
    pool = [a, b, tf.constant(rng.normal(size=(6, 6)).astype(np.float32))]
    for _ in range(n_ops):
        x, y = (pool[i] for i in rng.integers(0, len(pool), 2))
        kind = rng.integers(0, 6)
        if kind == 0:
            z = x + y
        elif kind == 1:
            z = x * y
        elif kind == 2:
            z = tf.matmul(x, y) * 0.1
        elif kind == 3:
            z = tf.tanh(x - y)
        elif kind == 4:
            z = tf.reduce_sum(x, axis=int(rng.integers(0, 2)), keepdims=True) + y
        else:
            z = tf.maximum(x, y)
        pool.append(z)
    fetches = [pool[i] for i in rng.choice(np.arange(3, len(pool)), 4, replace=False)]
    return a, b, fetches


@pytest.mark.parametrize("seed", range(25))
def test_random_graphs_match_sequential(seed, always_parallel):
    a, b, fetches = _random_graph(seed)
    rng = np.random.default_rng(1000 + seed)
    feed = {a: rng.normal(size=(6, 6)).astype(np.float32), b: rng.normal(size=(6, 6)).astype(np.float32)}
    with _session(1) as seq, _session(3) as par:
        want = seq.run(fetches, feed)
        got = par.run(fetches, feed)
        assert isinstance(_plan_of(seq), Plan) and isinstance(_plan_of(par), ParallelPlan)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(w, g)     # identical, not just close
        again = par.run(fetches, feed)
        for w, g in zip(want, again):
            np.testing.assert_array_equal(w, g)


def test_heuristic_keeps_tiny_graphs_sequential_and_picks_threads_for_big_branches():
    x = tf.placeholder(tf.float32, [])
    tiny = x * 2.0 + 1.0
    a = tf.placeholder(tf.float32, [1024, 1024])
    big = tf.tanh(tf.sin(tf.exp(a)) * a) + tf.cos(tf.abs(tf.sqrt(a)) + a)
    # Branches of matrix products: each product shares its own rows between the cores instead.
    products = tf.matmul(tf.matmul(a, a), a) + tf.matmul(tf.matmul(a, a), a)
    m = np.eye(1024, dtype=np.float32)
    with _session(2) as sess:
        sess.run(tiny, {x: 1.0})
        assert isinstance(_plan_of(sess), Plan)
        sess.run(big, {a: m})
        assert isinstance(_plan_of(sess), ParallelPlan)
        np.testing.assert_array_equal(sess.run(products, {a: m}), 2 * m)
        assert isinstance(_plan_of(sess), Plan)
    with _session(1) as sess:   # one thread: never parallel
        sess.run(big, {a: m})
        assert isinstance(_plan_of(sess), Plan)


def test_error_in_a_branch_names_the_failing_op(always_parallel):
    a = tf.placeholder(tf.float32, [None, None], name="a")
    ok = tf.tanh(a) * 2.0
    bad = tf.matmul(a, tf.placeholder(tf.float32, [None, None], name="q"), name="bad_matmul")
    with _session(2) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run([ok, bad], {a: np.ones((2, 3)), "q:0": np.ones((4, 4))})
        assert isinstance(_plan_of(sess), ParallelPlan)
        assert "[[node bad_matmul" in str(info.value)
        assert "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,4]" in str(info.value)
        # The session stays usable after a failed step.
        np.testing.assert_allclose(sess.run(ok, {a: np.zeros((1, 1))}), [[0.0]])


def test_uninitialized_variable_in_parallel_names_the_variable(always_parallel):
    v = tf.Variable(tf.ones([2]), name="weights")
    w = tf.Variable(tf.ones([2]), name="other")
    out = [v * 2.0, w + 1.0]
    with _session(2) as sess:
        sess.run(w.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights"):
            sess.run(out)


def test_training_steps_with_control_dependencies_match_sequential(always_parallel):
    results = []
    for threads in (1, 2):
        tf.reset_default_graph()
        tf.set_random_seed(3)
        x = tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3))
        w1 = tf.Variable(tf.random_normal([3, 4], seed=1))
        w2 = tf.Variable(tf.random_normal([3, 4], seed=2))
        noise = tf.random_uniform([8, 4], seed=5)
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w1) - tf.matmul(x, w2) + noise))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with _session(threads) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([train, loss])[1] for _ in range(5)]
            results.append((losses, sess.run(w1), sess.run(w2)))
    (l1, a1, b1), (l2, a2, b2) = results
    assert l1 == l2
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)


def test_independent_branches_run_on_executor_threads(always_parallel):
    a = tf.placeholder(tf.float32, [4])
    left, right = tf.tanh(a) * 2.0, tf.sin(a) + 1.0
    with _session(2) as sess:
        meta = tf.RunMetadata()
        sess.run([left, right], {a: np.ones(4)}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    names = set(meta.step_stats.dev_stats[0].thread_names.values())
    assert any(n.startswith("lens-inter-op") for n in names), names
    tids = {ns.thread_id for ns in meta.step_stats.dev_stats[0].node_stats}
    assert tids == set(meta.step_stats.dev_stats[0].thread_names)


def test_closed_session_stops_its_pool(always_parallel):
    a = tf.placeholder(tf.float32, [2])
    sess = _session(2)
    sess.run([tf.tanh(a) * 2.0, tf.sin(a) + 1.0], {a: [1, 2]})
    pool = sess._pool
    assert pool is not None and pool._pool is not None
    sess.close()
    assert pool._pool is None and sess._pool is None


def test_negative_thread_count_is_rejected():
    a = tf.placeholder(tf.float32, [2])
    with pytest.raises(ValueError, match="inter_op_parallelism_threads is -1"):
        _session(-1).run(a + 1.0, {a: [1, 2]})
