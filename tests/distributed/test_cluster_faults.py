"""Faults and processes: a dead task, joins, and a second client process on the same cluster."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import lens as tf


def test_killed_task_gives_unavailable_naming_it(ray_instance):
    workers, ps = tf.test.create_local_cluster(num_workers=1, num_ps=1)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(3.0, name="v")
        with tf.device("/job:worker/task:0"):
            doubled = v * 2.0
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(v.initializer)
        assert sess.run(doubled) == 6.0
        ray_instance.kill(ps[0]._actor)
        with pytest.raises(tf.errors.UnavailableError, match="/job:ps/replica:0/task:0 is unavailable"):
            sess.run(doubled, options=tf.RunOptions(timeout_in_ms=60000))
        with pytest.raises(tf.errors.UnavailableError, match="/job:ps/replica:0/task:0"):
            sess.run(v + 1.0)   # a new plan cannot be shipped to it either
    workers[0]._stop()


def test_join_returns_when_the_task_stops(ray_instance):
    server = tf.train.Server.create_local_server()
    assert server.target.startswith("grpc://localhost:")
    done = threading.Event()
    t = threading.Thread(target=lambda: (server.join(), done.set()), daemon=True)
    t.start()
    assert not done.wait(1.5)
    server._stop()
    assert done.wait(15)
    other = tf.train.Server.create_local_server()
    with pytest.raises(tf.errors.UnknownError, match="already served"):
        tf.train.Server({"local": [other.target[len("grpc://"):]]})
    other._stop()


_CHILD = textwrap.dedent("""
    import sys
    import lens as tf
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(0.0, name="between_graph_counter")
        with tf.device("/job:worker/task:1"):
            add = tf.assign_add(v, 1.0)
    with tf.Session(sys.argv[1], graph=g) as sess:
        for _ in range(5):
            sess.run(add)
        print("child saw", sess.run(v))
""")


def test_between_graph_replication_from_another_process(ray_instance):
    workers, ps = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(0.0, name="between_graph_counter")
        with tf.device("/job:worker/task:0"):
            add = tf.assign_add(v, 10.0)
    with tf.Session(workers[0].target, graph=g) as sess:
        sess.run(v.initializer)
        sess.run(add)
        env = dict(os.environ, LENS_RAY_ADDRESS=ray_instance.get_runtime_context().gcs_address)
        out = subprocess.run([sys.executable, "-c", _CHILD, workers[1].target], env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        assert "child saw 15.0" in out.stdout
        assert sess.run(v) == 15.0
    for s in workers + ps:
        s._stop()


_SERVER = textwrap.dedent("""
    import sys
    import lens as tf
    server = tf.train.Server({"ps": [sys.argv[1]]}, job_name="ps", task_index=0)
    print("serving", flush=True)
    server.join()
""")


def test_ctrl_c_in_a_task_process_leaves_no_actor(ray_instance):
    from lens.distributed import ray_env
    from lens.distributed.server import free_port
    address = "localhost:%d" % free_port()
    env = dict(os.environ, LENS_RAY_ADDRESS=ray_instance.get_runtime_context().gcs_address)
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, address], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout.readline().strip() == "serving"
        assert ray_env.find_actor(ray_instance, address) is not None
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 30
    while ray_env.find_actor(ray_instance, address) is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray_env.find_actor(ray_instance, address) is None
