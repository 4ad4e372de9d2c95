"""Steps run as Ray Compiled Graphs (stages.py): same results, TF errors, faults, idle teardown."""
import time

import numpy as np
import pytest

import lens as tf
from lens.distributed import stages
from lens.distributed.stages import cluster_ranks


@pytest.fixture(scope="module")
def cluster(shared_cluster):
    return shared_cluster


def _towers(devices, ps_device, w0):
    """In-graph replication: a tower per device on a split batch, the averaged update on ps."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(ps_device):
            w = tf.Variable(w0, name="compiled_w")
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        grads, losses = [], []
        for dev, xi in zip(devices, tf.split(x, 2)):
            with tf.device(dev):
                loss = tf.reduce_sum(tf.square(tf.matmul(xi, w) - 1.0))
                losses.append(loss)
                grads.append(tf.gradients(loss, w)[0])
        with tf.device(ps_device):
            train = tf.train.GradientDescentOptimizer(0.05).apply_gradients([((grads[0] + grads[1]) / 2.0, w)])
            loss = tf.add_n(losses)
            checked = tf.debugging.check_numerics(loss, "loss is not finite")
    return g, w, x, train, loss, checked


def _steps(sess, m, xs):
    _, w, x, train, loss, _ = m
    return [sess.run([loss, train], {x: xv})[0] for xv in xs], sess.run(w)


def test_compiled_steps_match_one_process_and_keep_tf_errors(cluster):
    workers, _ = cluster
    rng = np.random.RandomState(3)
    w0 = rng.rand(4, 3).astype(np.float32)
    xs = [rng.rand(6, 4).astype(np.float32) for _ in range(stages.HOT_RUNS + 4)]
    local = _towers(["/cpu:0", "/cpu:0"], "/cpu:0", w0)
    with tf.Session(graph=local[0]) as sess:
        sess.run(local[1].initializer)
        want_losses, want_w = _steps(sess, local, xs)
    dist = _towers(["/job:worker/task:0", "/job:worker/task:1"], "/job:ps/task:0", w0)
    with tf.Session(workers[0].target, graph=dist[0]) as sess:
        sess.run(dist[1].initializer)
        losses, w = _steps(sess, dist, xs)
        assert sess._remote._dag_run is not None     # the later steps ran as a compiled graph
        dag = sess._remote._dag_run.dag
        assert dag.outputs == 1     # the ps's update stage carries every task's results
        assert len(dag.fed) == 2    # worker 1 (fed nothing) starts at its first receiving stage
        np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
        np.testing.assert_allclose(w, want_w, rtol=1e-5)
        # A kernel error inside a compiled step keeps TF's class and names the op and its task;
        # the step is dropped everywhere and the compiled graph serves the next steps.
        bad = np.full((6, 4), np.inf, np.float32)
        checked, x = dist[5], dist[2]
        for _ in range(stages.HOT_RUNS):
            sess.run(checked, {x: xs[0]})
        assert sess._remote._dag_run.dag is not None
        with pytest.raises(tf.errors.InvalidArgumentError, match="loss is not finite"):
            sess.run(checked, {x: bad})
        assert np.isfinite(sess.run(checked, {x: xs[0]}))
        assert sess._remote._dag_run.dag is not None


def test_compiled_steps_gather_results_from_every_last_stage_nobody_reads(cluster):
    """Towers' losses only: nothing on the ps after its weights' read, so the client reads both
    workers' last stages; the ps's result travels with them (its read of the variable)."""
    workers, _ = cluster
    rng = np.random.RandomState(5)
    w0 = rng.rand(4, 3).astype(np.float32)
    xs = [rng.rand(6, 4).astype(np.float32) for _ in range(stages.HOT_RUNS + 3)]

    def build(devices, ps_device):
        g = tf.Graph()
        with g.as_default():
            with tf.device(ps_device):
                w = tf.Variable(w0, name="sink_w")
                read = tf.identity(w)
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            losses = []
            for dev, xi in zip(devices, tf.split(x, 2)):
                with tf.device(dev):
                    losses.append(tf.reduce_sum(tf.matmul(xi, read)))
        return g, w, x, losses + [read]

    g, w, x, fetches = build(["/cpu:0", "/cpu:0"], "/cpu:0")
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        want = [sess.run(fetches, {x: xv}) for xv in xs]
    g, w, x, fetches = build(["/job:worker/task:0", "/job:worker/task:1"], "/job:ps/task:0")
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(w.initializer)
        got = [sess.run(fetches, {x: xv}) for xv in xs]
        assert sess._remote._dag_run is not None and sess._remote._dag_run.dag.outputs == 2
    for a, b in zip(got, want):
        for u, v in zip(a, b):
            np.testing.assert_allclose(u, v, rtol=1e-6)


def test_an_idle_compiled_graph_is_torn_down_and_frees_its_tasks(cluster, monkeypatch):
    workers, _ = cluster
    g, w, x, train, loss, _ = _towers(["/job:worker/task:0", "/job:worker/task:1"], "/job:ps/task:0",
                                      np.ones((4, 3), np.float32))
    xv = np.ones((6, 4), np.float32)
    s0, s1 = tf.Session(workers[0].target, graph=g), tf.Session(workers[1].target, graph=g)
    s0.run(w.initializer)
    for _ in range(stages.HOT_RUNS):
        s0.run(loss, {x: xv})
    assert s0._remote._dag_run is not None
    # Ray runs one compiled graph per actor: another session's hot plan takes the plain path.
    for _ in range(stages.HOT_RUNS):
        assert s1.run(loss, {x: xv}) == s0.run(loss, {x: xv})
    assert s1._remote._dag_run is None
    monkeypatch.setattr(stages, "IDLE_S", 0.3)
    deadline = time.monotonic() + 20
    while s0._remote._dag_run is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert s0._remote._dag_run is None      # torn down: its readers no longer poll
    s1._remote.runs.clear()                 # (a fresh plan: compiled after HOT_RUNS runs)
    for _ in range(stages.HOT_RUNS):
        s1.run(loss, {x: xv})
    assert s1._remote._dag_run is not None
    s0.close()
    s1.close()


def test_ranks_count_the_task_boundaries_crossed(cluster):
    workers, _ = cluster
    g, w, x, train, loss, _ = _towers(["/job:worker/task:0", "/job:worker/task:1"], "/job:ps/task:0",
                                      np.ones((4, 3), np.float32))
    with tf.Session(workers[0].target, graph=g) as sess:
        meta = tf.RunMetadata()
        sess.run(w.initializer)
        sess.run(train, {x: np.ones((6, 4), np.float32)}, options=tf.RunOptions(
            trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True), run_metadata=meta)
    ranks = cluster_ranks(meta.partition_graphs)
    ps, w0, w1 = ("/job:%s/replica:0/task:%d/device:CPU:0" % t for t in (("ps", 0), ("worker", 0), ("worker", 1)))
    assert ranks[ps][0]["compiled_w"] == 0                    # read on ps, sent to the workers
    assert ranks[w0][0]["MatMul"] == 1 and ranks[w1][0]["MatMul_1"] == 1
    assert ranks[ps][3] == 2                          # the update waits for both towers' gradients
    assert set(ranks[ps][2]) == {0}                   # ps sends only the weights (rank 0)
    assert set(ranks[w1][2]) == {1}                   # worker 1 sends its gradient at rank 1


def test_a_dead_task_in_a_compiled_step_is_unavailable(cluster, ray_instance):
    workers, _ = cluster    # (it kills worker 1, then starts it again for the tests after it)
    g, w, x, train, loss, _ = _towers(["/job:worker/task:0", "/job:worker/task:1"], "/job:ps/task:0",
                                      np.ones((4, 3), np.float32))
    xv = np.ones((6, 4), np.float32)
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(w.initializer)
        for _ in range(stages.HOT_RUNS + 1):
            sess.run(train, {x: xv})
        assert sess._remote._dag_run is not None
        ray_instance.kill(workers[1]._actor)
        with pytest.raises(tf.errors.UnavailableError, match="/job:worker/replica:0/task:1 is unavailable"):
            sess.run(train, {x: xv})
        with pytest.raises(tf.errors.UnavailableError, match="/job:worker/replica:0/task:1"):
            sess.run(train, {x: xv})
    spec, old = workers[1].cluster_spec, workers[1]
    old._actor = None
    deadline = time.monotonic() + 30
    while True:     # Ray frees a killed actor's name shortly after it died
        try:
            workers[1] = tf.train.Server(spec, job_name="worker", task_index=1)
            break
        except tf.errors.UnknownError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
