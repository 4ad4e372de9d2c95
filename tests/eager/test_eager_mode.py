"""Eager execution: the switch, values against NumPy, tensor conversions and printing, TF's errors."""
import gc
import subprocess
import sys

import numpy as np
import pytest

import lens as tf
from lens.client.eager_runtime import executor
from lens.framework import eager


def test_graph_mode_is_the_default_and_graph_tensors_have_no_numpy():
    assert not tf.executing_eagerly()
    with tf.Graph().as_default():
        t = tf.constant([1.0, 2.0])
        with pytest.raises(AttributeError):
            t.numpy()
        with pytest.raises(TypeError):
            bool(t)


def test_enable_after_building_ops_raises_tf_value_error():
    tf.reset_default_graph()
    tf.constant(1.0)
    try:
        with pytest.raises(ValueError, match="must be called at program startup"):
            tf.enable_eager_execution()
        assert not tf.executing_eagerly()
    finally:
        tf.reset_default_graph()


def test_program_start_switch_in_a_fresh_process():
    code = ("import lens as tf\ntf.compat.v1.enable_eager_execution()\nprint(tf.executing_eagerly(), "
            "(tf.constant([1, 2]) * 3).numpy().tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True [3, 6]"


def test_ops_run_at_once_and_match_numpy(eager_mode):
    rng = np.random.RandomState(0)
    a = rng.randn(3, 4).astype(np.float32)
    b = rng.randn(4, 2).astype(np.float32)
    ta, tb = tf.constant(a), tf.constant(b)
    np.testing.assert_allclose(tf.matmul(ta, tb).numpy(), a @ b, rtol=1e-5)
    e = np.exp(a - a.max(1, keepdims=True))
    np.testing.assert_allclose(tf.nn.softmax(ta).numpy(), e / e.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(tf.reduce_mean(ta, axis=0).numpy(), a.mean(0), rtol=1e-5)
    np.testing.assert_allclose((ta * 2 - 1 / (ta ** 2 + 1)).numpy(), a * 2 - 1 / (a ** 2 + 1), rtol=1e-5)
    np.testing.assert_allclose((-ta)[1:, ::2].numpy(), (-a)[1:, ::2])
    np.testing.assert_array_equal(tf.argmax(ta, 1).numpy(), a.argmax(1))
    np.testing.assert_allclose(tf.concat([ta, ta], 0).numpy(), np.concatenate([a, a]))
    assert tf.random_normal([5, 2]).numpy().shape == (5, 2)
    assert (ta + np.ones((3, 4), np.float32)).numpy().sum() == pytest.approx(a.sum() + 12, rel=1e-5)


def test_conversions_and_printing_as_tf(eager_mode):
    s = tf.constant(2.5)
    assert float(s) == 2.5 and int(tf.constant(7)) == 7 and bool(tf.constant(True))
    assert "%i" % tf.constant(5) == "5" and "{:.2f}".format(s) == "2.50"
    assert isinstance(s.numpy(), np.float32)
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert len(m) == 2 and [r.numpy().tolist() for r in m] == [[1.0, 2.0], [3.0, 4.0]]
    np.testing.assert_array_equal(np.asarray(m), [[1, 2], [3, 4]])
    assert str(s) == "tf.Tensor(2.5, shape=(), dtype=float32)"
    assert str(m) == "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    assert repr(tf.constant([1, 2])).startswith("<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2]")
    assert m.shape.as_list() == [2, 2] and m.dtype == tf.float32
    if tf.constant(3) > 2:
        pass
    with pytest.raises(NotImplementedError, match="numpy"):
        m.eval()


def test_kernel_errors_are_tf_errors_naming_the_op(eager_mode):
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Matrix size-incompatible.*\[Op:MatMul\]"):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))


def test_session_in_eager_mode_raises_runtime_error(eager_mode):
    with pytest.raises(RuntimeError, match="Session graph is empty"):
        tf.Session()
    with pytest.raises(RuntimeError, match=r"tf.placeholder\(\) is not compatible with eager execution"):
        tf.placeholder(tf.float32, [None, 3])


def test_explicit_graph_inside_eager_builds_and_runs_a_graph(eager_mode):
    with tf.Graph().as_default():
        assert not tf.executing_eagerly()
        x = tf.placeholder(tf.float32, [2])
        with tf.Session() as sess:
            assert sess.run(x * 2, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
    assert tf.executing_eagerly()


def test_variables_assign_read_and_snapshot(eager_mode):
    v = tf.Variable([1.0, 2.0], name="v")
    assert v.name == "v:0" and v.dtype == tf.float32 and v.shape.as_list() == [2]
    before = v.read_value()
    v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [2.0, 3.0]
    assert before.numpy().tolist() == [1.0, 2.0]       # a read is a value, not the live buffer
    assert v.assign([5.0, 6.0]).numpy().tolist() == [5.0, 6.0]
    v.assign_sub([1.0, 1.0])
    assert (v * 2).numpy().tolist() == [8.0, 10.0]
    assert "numpy=array([4., 5.]" in repr(v)
    w = tf.get_variable("w", shape=[2, 3], initializer=tf.ones_initializer())
    assert w.numpy().sum() == 6.0


def test_nothing_grows_while_running_eagerly(eager_mode):
    g = tf.get_default_graph()
    store = executor.ctx.variables
    x = tf.constant(np.ones((4, 4), np.float32))
    for _ in range(200):
        with tf.name_scope("layer"):
            x = tf.tanh(tf.matmul(x, x) * 0.1) + tf.random_uniform([4, 4])
        tmp = tf.Variable(1.0)
    n_vars = len(store)
    del tmp
    gc.collect()
    assert len(store) == n_vars - 1
    assert g.get_operations() == [] and g._names_in_use == {}
    assert len(executor.ctx._rngs) <= 2 and len(executor._keys) >= len(store)
    _ = eager


def test_cond_and_while_loop_on_eager_values(eager_mode):
    x = tf.constant(3.0)
    assert float(tf.cond(x > 2, lambda: x * 2, lambda: x)) == 6.0
    assert int(tf.while_loop(lambda i: i < 5, lambda i: i + 1, [tf.constant(0)])) == 5
    i, s = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, tf.constant(0)))
    assert (int(i), int(s)) == (4, 6)
    assert int(tf.while_loop(lambda i: True, lambda i: i + 2, [0], maximum_iterations=3)) == 6


def test_set_random_seed_replays_random_values(eager_mode):
    tf.set_random_seed(7)
    a = [tf.random_normal([3], seed=1).numpy(), tf.random_uniform([2]).numpy()]
    tf.set_random_seed(7)
    b = [tf.random_normal([3], seed=1).numpy(), tf.random_uniform([2]).numpy()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(tf.random_normal([3], seed=1).numpy(), a[0])   # the stream goes on
