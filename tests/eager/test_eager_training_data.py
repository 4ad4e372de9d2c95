"""Optimizers and tf.data while executing eagerly."""
import numpy as np
import pytest

import lens as tf

RNG = np.random.RandomState(3)
X = RNG.randn(32, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)


@pytest.mark.parametrize("make_opt", [lambda: tf.train.GradientDescentOptimizer(0.1),
                                      lambda: tf.train.MomentumOptimizer(0.05, 0.9),
                                      lambda: tf.train.AdamOptimizer(0.1)])
def test_minimize_a_loss_function_decreases_it(eager_mode, make_opt):
    w, b = tf.Variable(tf.zeros([3, 1])), tf.Variable(0.0)

    def loss():
        return tf.reduce_mean(tf.square(tf.matmul(X, w) + b - Y))
    opt = make_opt()
    first = float(loss())
    step = tf.train.get_or_create_global_step()
    for _ in range(30):
        opt.minimize(loss, global_step=step)
    assert float(loss()) < first * 0.2
    assert int(step) == 30
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == []


def test_compute_gradients_matches_the_tape_and_wants_a_function(eager_mode):
    w = tf.Variable(np.ones((3, 1), np.float32))
    opt = tf.train.GradientDescentOptimizer(0.1)
    (g, v), = opt.compute_gradients(lambda: tf.reduce_sum(tf.matmul(X, w)))
    assert v is w
    np.testing.assert_allclose(g.numpy(), X.sum(0, keepdims=True).T, rtol=1e-5)
    with pytest.raises(RuntimeError, match="should be a function when eager execution is enabled"):
        opt.compute_gradients(tf.reduce_sum(w))


def test_for_loop_over_a_dataset_and_tfe_iterator(eager_mode):
    ds = tf.data.Dataset.from_tensor_slices((X, np.arange(32))).map(lambda x, i: (x * 2.0, i)).batch(10)
    batches = [(x.numpy(), i.numpy()) for x, i in ds]
    assert [len(i) for _, i in batches] == [10, 10, 10, 2]
    np.testing.assert_allclose(np.concatenate([x for x, _ in batches]), X * 2)
    it = tf.contrib.eager.Iterator(tf.data.Dataset.range(3))
    assert [int(it.next()), int(it.get_next()), int(next(it))] == [0, 1, 2]
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    one_shot = tf.data.Dataset.from_tensors({"a": [1, 2]}).make_one_shot_iterator()
    assert one_shot.get_next()["a"].numpy().tolist() == [1, 2]


def test_iterating_a_dataset_in_graph_mode_is_refused():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3)
        with pytest.raises(RuntimeError, match="eager"):
            iter(ds)
        with pytest.raises(RuntimeError, match="eager execution is enabled"):
            tf.contrib.eager.Iterator(ds)
