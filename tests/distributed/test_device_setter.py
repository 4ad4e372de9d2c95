"""tf.train.replica_device_setter: TF1's device strings for ps ops and the rest (no Ray needed)."""
import numpy as np
import pytest

import lens as tf

CLUSTER = {"ps": ["ps0:1", "ps1:1"], "worker": ["w0:1", "w1:1"]}


def test_round_robin_over_the_cluster_ps_tasks():
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=CLUSTER)):
            a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
            y = a + b
            with tf.device("/job:worker/task:1"):
                z = y * 2.0
        assert [v.op.device for v in (a, b, c)] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
        assert a.initializer.device == "/job:ps/task:0"    # colocated with its variable
        assert y.op.device == "/job:worker"
        assert z.op.device == "/job:worker/task:1"


def test_greedy_load_balancing_by_bytes():
    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(2, tf.contrib.training.byte_size_load_fn)
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
            big = tf.Variable(np.zeros(1000, np.float32))
            small = [tf.Variable(np.zeros(10, np.float32)) for _ in range(3)]
        assert big.op.device == "/job:ps/task:0"
        assert [v.op.device for v in small] == ["/job:ps/task:1"] * 3
        assert tf.contrib.training.byte_size_load_fn(big.op) == 4000


def test_worker_device_merge_and_no_ps():
    with tf.Graph().as_default():
        setter = tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:3",
                                                ps_device="/job:ps/device:CPU:0")
        with tf.device(setter):
            v = tf.Variable(1.0)
            with tf.device("/device:CPU:0"):
                x = v * 2.0
        assert v.op.device == "/job:ps/task:0/device:CPU:0"
        assert x.op.device == "/job:worker/task:3/device:CPU:0"
    assert tf.train.replica_device_setter(cluster={"worker": ["w:1"]}) is None
    assert tf.train.replica_device_setter(ps_tasks=0) is None
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)
