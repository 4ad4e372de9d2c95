"""ConditionalAccumulator / SparseConditionalAccumulator against NumPy (means, sums, stale steps, blocking)."""
import threading
import time

import numpy as np
import pytest

import lens as tf


def test_dense_mean_sum_and_stale_gradients():
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    for reduction, ref in (("MEAN", np.mean), ("SUM", np.sum)):
        tf.reset_default_graph()
        acc = tf.ConditionalAccumulator(tf.float32, shape=[2, 3], reduction_type=reduction)
        g = tf.placeholder(tf.float32, [2, 3])
        step = tf.placeholder(tf.int64, [])
        apply = acc.apply_grad(g, local_step=step)
        take = acc.take_grad(3)
        with tf.Session() as s:
            for x in grads:
                s.run(apply, {g: x, step: 0})
            s.run(apply, {g: np.full((2, 3), 1e6, np.float32), step: -1})     # stale: dropped
            assert s.run(acc.num_accumulated()) == 3
            np.testing.assert_allclose(s.run(take), ref(grads, axis=0), rtol=1e-6)
            assert s.run(acc.num_accumulated()) == 0
            s.run(apply, {g: grads[0], step: 0})        # the take moved the global step to 1: now stale
            assert s.run(acc.num_accumulated()) == 0
            s.run(acc.set_global_step(0))
            s.run(apply, {g: grads[0], step: 0})
            assert s.run(acc.num_accumulated()) == 1


def test_take_blocks_until_enough_and_errors():
    acc = tf.ConditionalAccumulator(tf.float64, shape=[])
    x = tf.placeholder(tf.float64, [])
    apply = acc.apply_grad(x)
    take = acc.take_grad(2)
    with tf.Session() as s:
        out = []
        t = threading.Thread(target=lambda: out.append(s.run(take)), daemon=True)
        t.start()
        s.run(apply, {x: 1.0})
        time.sleep(0.1)
        assert t.is_alive()                              # one of two gradients: still waiting
        s.run(apply, {x: 4.0})
        t.join(5)
        assert not t.is_alive() and out == [2.5]
        with pytest.raises(tf.errors.InvalidArgumentError, match="num_required must be positive, but was 0"):
            s.run(acc.take_grad(0))
        with pytest.raises(tf.errors.DeadlineExceededError):
            s.run(take, options=tf.RunOptions(timeout_in_ms=50))
    with pytest.raises(ValueError, match="incompatible"):
        tf.ConditionalAccumulator(tf.float32, shape=[2]).apply_grad([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="reduction_type"):
        tf.ConditionalAccumulator(tf.float32, reduction_type="MAX")


def test_sparse_mean_per_index():
    acc = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
    grads = [([0, 2], [[2., 2.], [1., 1.]]), ([0, 3], [[3., 3.], [5., 5.]]), ([3], [[1., 0.]])]
    ops = [acc.apply_grad(i, v, [5, 2]) for i, v in grads[:2]]
    ops.append(acc.apply_indexed_slices_grad(tf.IndexedSlices(tf.constant(grads[2][1]), tf.constant(grads[2][0],
                                                                                                    tf.int64))))
    taken = acc.take_indexed_slices_grad(3)
    with tf.Session() as s:
        for op in ops:
            s.run(op)
        got = s.run(taken)
    sums, counts = {}, {}
    for idx, vals in grads:
        for i, v in zip(idx, vals):
            sums[i] = sums.get(i, 0) + np.asarray(v)
            counts[i] = counts.get(i, 0) + 1
    assert got.indices.tolist() == sorted(sums)
    np.testing.assert_allclose(got.values, [sums[i] / counts[i] for i in sorted(sums)])
    assert got.dense_shape.tolist() == [5, 2]
