"""Training on a cluster: MonitoredTrainingSession chief/worker, SessionManager waits, SyncReplicasOptimizer."""
import threading
import time

import numpy as np
import pytest

import lens as tf

LR = 0.1
W0 = np.array([[0.5, -1.0], [2.0, 0.25], [-0.5, 1.0]], np.float32)
DATA = [np.random.RandomState(i).rand(4, 3).astype(np.float32) for i in range(2)]


@pytest.fixture(scope="module")
def cluster(ray_instance):
    workers, ps = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    yield tf.train.ClusterSpec({"worker": [w.target[7:] for w in workers], "ps": [p.target[7:] for p in ps]}), workers
    for s in workers + ps:
        s._stop()


def _replica(spec, task, sync=None):
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=spec, worker_device="/job:worker/task:%d" % task)):
            step = tf.train.get_or_create_global_step()
            w = tf.Variable(W0, name="w")
            x = tf.constant(DATA[task])
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))
            opt = tf.train.GradientDescentOptimizer(LR)
            if sync:
                opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=2, total_num_replicas=2)
            train = opt.minimize(loss, global_step=step)
    return g, opt, train, w, step


def _grad(x):
    """d/dw sum((x w - 1)^2) at W0, in NumPy."""
    return 2.0 * x.T @ (x @ W0 - 1.0)


def test_sync_replicas_average_two_replicas_into_one_update(cluster):
    spec, workers = cluster
    graphs = [_replica(spec, i, sync=True) for i in range(2)]
    sessions = []
    for i, (g, opt, train, w, step) in enumerate(graphs):
        with g.as_default():
            hook = opt.make_session_run_hook(is_chief=(i == 0))
            sessions.append(tf.train.MonitoredTrainingSession(master=workers[i].target, is_chief=(i == 0),
                                                              hooks=[hook], stop_grace_period_secs=1))
    threads = [threading.Thread(target=sessions[i].run, args=(graphs[i][2],)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    g, _, _, w, step = graphs[0]
    with tf.Session(workers[0].target, graph=g) as probe:
        deadline = time.monotonic() + 30
        while probe.run(step) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert probe.run(step) == 1
        want = W0 - LR * (_grad(DATA[0]) + _grad(DATA[1])) / 2
        np.testing.assert_allclose(probe.run(w), want, rtol=1e-5)
    for s in sessions:
        s.close()


def test_non_chief_waits_for_the_chief_to_initialize(cluster):
    spec, workers = cluster
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=spec, worker_device="/job:worker/task:1")):
            v = tf.Variable(W0, name="waited_for")
        manager = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(), graph=g,
                                          recovery_wait_secs=0.2)
        got = []
        waiter = threading.Thread(target=lambda: got.append(manager.wait_for_session(workers[1].target,
                                                                                     max_wait_secs=60)))
        waiter.start()
        time.sleep(1.0)
        assert not got      # nothing initialized the variable yet: the worker keeps waiting
        with tf.Session(workers[0].target, graph=g) as chief:
            chief.run(v.initializer)
        waiter.join(30)
        assert got and np.allclose(got[0].run(v), W0)
        got[0].close()
        never = tf.Variable(1.0, name="never_ready")
        manager = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables([never]), graph=g,
                                          recovery_wait_secs=0.1)
        with pytest.raises(tf.errors.DeadlineExceededError, match="not ready after waiting"):
            manager.wait_for_session(workers[1].target, max_wait_secs=0.5)
