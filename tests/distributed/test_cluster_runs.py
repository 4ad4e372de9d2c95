"""Sessions on a real local Ray cluster: partitions per task, ps variables shared, task processes."""
import os

import numpy as np
import pytest

import lens as tf


@pytest.fixture(scope="module")
def cluster(shared_cluster):
    return shared_cluster


def _model(ps="/job:ps/task:0", worker="/job:worker/task:0"):
    g = tf.Graph()
    with g.as_default():
        with tf.device(ps):
            w = tf.Variable(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32), name="w")
            b = tf.Variable(np.zeros(3, np.float32), name="b")
            step = tf.train.get_or_create_global_step()
        with tf.device(worker):
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            y = tf.nn.relu(tf.matmul(x, w) + b)
            loss = tf.reduce_mean(tf.square(y - 1.0))
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    return g, dict(w=w, b=b, x=x, loss=loss, train=train, init=init, step=step)


def _local_steps(xv, n):
    g, m = _model(None, None)
    with tf.Session(graph=g) as sess:
        sess.run(m["init"])
        losses = [sess.run([m["loss"], m["train"]], {m["x"]: xv})[0] for _ in range(n)]
        return losses, sess.run(m["w"])


def test_training_on_the_cluster_matches_one_process(cluster):
    workers, _ = cluster
    xv = np.random.RandomState(0).rand(8, 4).astype(np.float32)
    want_losses, want_w = _local_steps(xv, 3)
    g, m = _model()
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(m["init"])
        losses = [sess.run([m["loss"], m["train"]], {m["x"]: xv})[0] for _ in range(3)]
        np.testing.assert_allclose(losses, want_losses, rtol=1e-6)
        np.testing.assert_allclose(sess.run(m["w"]), want_w, rtol=1e-6)
    # The ps keeps its variables: a second session, from the other worker, sees them and the step.
    with tf.Session(workers[1].target, graph=g) as sess:
        np.testing.assert_allclose(sess.run(m["w"]), want_w, rtol=1e-6)
        assert sess.run(m["step"]) == 3
        sess.run(m["train"], {m["x"]: xv})
        assert sess.run(m["step"]) == 4


def test_two_sessions_update_one_ps_variable(cluster):
    workers, _ = cluster
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(0.0, name="shared_counter")
        add = tf.assign_add(v, 1.0)
    s0, s1 = tf.Session(workers[0].target, graph=g), tf.Session(workers[1].target, graph=g)
    s0.run(v.initializer)
    s0.run(add)
    s1.run(add)
    assert s0.run(v) == 2.0 and s1.run(v) == 2.0
    s0.close()
    s1.close()


def test_ops_run_in_the_process_of_their_task(cluster):
    workers, _ = cluster
    g = tf.Graph()
    with g.as_default():
        pids = []
        for i in range(2):
            with tf.device("/job:worker/task:%d" % i):
                pids.append(tf.py_func(lambda: np.int64(os.getpid()), [], tf.int64))
        with tf.device("/job:worker/task:1"):
            doubled = tf.py_func(lambda a: a * 2, [tf.constant([1.5, 2.0])], tf.float32)
    with tf.Session(workers[0].target, graph=g) as sess:
        p0, p1 = sess.run(pids)
        assert len({p0, p1, os.getpid()}) == 3
        np.testing.assert_allclose(sess.run(doubled), [3.0, 4.0])


def test_partition_graphs_and_step_stats_per_task(cluster):
    workers, _ = cluster
    g, m = _model()
    xv = np.ones((2, 4), np.float32)
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(m["init"])
        meta = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
        sess.run(m["train"], {m["x"]: xv}, options=opts, run_metadata=meta)
    devices = sorted(d.device for d in meta.step_stats.dev_stats)
    assert devices == ["/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"]
    by_device = {d.device: {n.node_name for n in d.node_stats} for d in meta.step_stats.dev_stats}
    assert "w" in by_device[devices[0]] and "MatMul" in by_device[devices[1]]
    assert len(meta.partition_graphs) == 2
    ops = {(gd.node[0].device, nd.op) for gd in meta.partition_graphs for nd in gd.node}
    for dev in devices:
        assert (dev, "_Send") in ops and (dev, "_Recv") in ops
    # Every _Send has its _Recv on the device it names.
    sends = {(nd.attr["tensor_name"].s, nd.attr["recv_device"].s) for gd in meta.partition_graphs
             for nd in gd.node if nd.op == "_Send"}
    recvs = {(nd.attr["tensor_name"].s, nd.device.encode()) for gd in meta.partition_graphs
             for nd in gd.node if nd.op == "_Recv" and not nd.attr["client_terminated"].b}
    assert sends == recvs


def test_placement_errors_and_kernel_errors_keep_tf_classes(cluster, capsys):
    workers, _ = cluster
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:chief/task:0"):
            bad = tf.constant(1.0, name="on_chief") * 2.0
    with tf.Session(workers[0].target, graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Cannot assign a device for operation 'on_chief'.*no job 'chief'"):
            sess.run(bad)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="never_initialized")
        with tf.device("/job:worker/task:1"):
            r = v * 3.0
    config = tf.ConfigProto(log_device_placement=True)
    with tf.Session(workers[0].target, graph=g, config=config) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="never_initialized.*ps/replica:0/task:0"):
            sess.run(r)
    out = capsys.readouterr().out
    assert "mul: (Mul): /job:worker/replica:0/task:1/device:CPU:0" in out


def test_targets_that_serve_nothing(cluster):
    with pytest.raises(tf.errors.UnavailableError, match="No task serves grpc://localhost:1"):
        tf.Session("grpc://localhost:1")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid target"):
        tf.Session("grpc://")


def test_in_graph_replication_averages_the_towers(cluster):
    workers, _ = cluster
    rng = np.random.RandomState(1)
    xv, w0 = rng.rand(6, 4).astype(np.float32), rng.rand(4, 2).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(w0, name="tower_w")
        x = tf.placeholder(tf.float32, [6, 4])
        grads = []
        for i, xi in enumerate(tf.split(x, 2)):
            with tf.device("/job:worker/task:%d" % i):
                grads.append(tf.gradients(tf.reduce_sum(tf.square(tf.matmul(xi, w))), w)[0])
        with tf.device("/job:ps/task:0"):
            train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([((grads[0] + grads[1]) / 2.0, w)])
        trace = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(w.initializer)
        meta = tf.RunMetadata()
        sess.run(train, {x: xv}, options=trace, run_metadata=meta)
        halves = np.split(xv, 2)
        want = w0 - 0.1 * sum(2 * h.T @ (h @ w0) for h in halves) / 2
        np.testing.assert_allclose(sess.run(w), want, rtol=1e-5)
    # Each task computed its own tower: the timeline has a row per task device.
    devices = {d.device for d in meta.step_stats.dev_stats}
    assert devices == {"/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0",
                       "/job:worker/replica:0/task:1/device:CPU:0"}
    chrome = tf.client.timeline.Timeline(meta.step_stats).generate_chrome_trace_format()
    for dev in devices:
        assert dev in chrome


def test_partitions_ship_once_per_signature_and_deadlines_hold(cluster):
    workers, _ = cluster
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(10, tf.float32, shapes=[[]], name="deadline_q")
            v = tf.Variable(1.0, name="shipped_once")
        with tf.device("/job:worker/task:1"):
            y = v * 2.0
        take = q.dequeue()
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(v.initializer)
        for _ in range(3):
            assert sess.run(y) == 2.0
        shipped = sess._remote.shipped
        assert sess.run(y, {v: 5.0}) == 10.0    # a new signature ships its own partitions
        assert sess._remote.shipped > shipped
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(take, options=tf.RunOptions(timeout_in_ms=500))


def test_a_sent_read_is_the_value_before_a_later_in_place_update(cluster):
    # The ps sends its read of v to the worker, then updates v in place in the same step, before
    # the send batch leaves: the worker still gets the read's value (large and small tensors).
    workers, _ = cluster
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            big = tf.Variable(np.ones(40000, np.float32), name="big")
            small = tf.Variable(np.ones(3, np.float32), name="small")
            reads = [tf.identity(big), tf.identity(small)]
            with tf.control_dependencies(reads):
                update = tf.group(tf.assign_add(big, np.ones(40000, np.float32)),
                                  tf.assign_add(small, np.ones(3, np.float32)))
        with tf.device("/job:worker/task:0"):
            got = [tf.reduce_sum(r) for r in reads]
        init = tf.global_variables_initializer()
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(init)
        for step in range(2):
            values, _ = sess.run([got, update])
            assert values == [40000.0 * (step + 1), 3.0 * (step + 1)]
