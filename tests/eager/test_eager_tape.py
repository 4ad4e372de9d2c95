"""GradientTape and tf.contrib.eager's gradient helpers: finite differences and graph-mode tf.gradients."""
import numpy as np
import pytest

import lens as tf

RNG = np.random.RandomState(1)
X0 = RNG.randn(5, 4).astype(np.float64)
W0 = RNG.randn(4, 3).astype(np.float64)
LABELS = np.array([0, 2, 1, 1, 0])


def _model(x, w):
    """A small net touching matmul, tanh, softmax cross-entropy, squares and a mean."""
    logits = tf.matmul(tf.tanh(x), w)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=LABELS, logits=logits)
    return tf.reduce_mean(xent) + 0.1 * tf.reduce_sum(tf.square(w))


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def _graph_gradients():
    with tf.Graph().as_default():
        x, w = tf.constant(X0), tf.constant(W0)
        loss = _model(x, w)
        gx, gw = tf.gradients(loss, [x, w])
        with tf.Session() as sess:
            return sess.run([loss, gx, gw])


def test_tape_gradients_match_finite_differences_and_graph_mode(eager_mode):
    x, w = tf.constant(X0), tf.Variable(W0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = _model(x, w)
    gx, gw = tape.gradient(loss, [x, w])
    num_w = _numeric_grad(lambda v: float(_model(tf.constant(X0), tf.constant(v))), W0)
    np.testing.assert_allclose(gw.numpy(), num_w, rtol=1e-5, atol=1e-8)
    with tf.Graph().as_default():
        pass
    g_loss, g_x, g_w = _graph_gradients()
    assert float(loss) == pytest.approx(g_loss)
    np.testing.assert_allclose(gx.numpy(), g_x, rtol=1e-10)
    np.testing.assert_allclose(gw.numpy(), g_w, rtol=1e-10)


def test_persistent_and_one_shot_tapes(eager_mode):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(y, x)) == 6.0 and float(tape.gradient(z, x)) == 108.0
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="only be called once on non-persistent"):
        tape.gradient(y, x)


def test_nested_tapes_give_second_derivatives(eager_mode):
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0 and float(outer.gradient(dy, x)) == 12.0


def test_watching_variables_stop_recording_and_unconnected(eager_mode):
    v, u = tf.Variable(2.0), tf.Variable(5.0, trainable=False)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v * u
    assert tape.gradient(y, v) is None and tape.watched_variables() == ()
    with tf.GradientTape() as tape:
        y = v * v * u
        with tape.stop_recording():
            z = v * 100.0
        total = y + z
    after = total * 2.0       # after the tape's block: not recorded
    assert [x.name for x in tape.watched_variables()] == [v.name]
    gv, gz, gu, ga = tape.gradient(total, [v, z, u, after])
    assert ga is None
    assert float(gv) == 20.0 and gz is None and gu is None
    with tf.GradientTape() as tape:
        y = v * 3.0
    assert float(tape.gradient(y, u, unconnected_gradients="zero")) == 0.0


def test_gather_gives_indexed_slices_that_optimizers_apply(eager_mode):
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [0, 2, 2]))
    g = tape.gradient(loss, table)
    assert isinstance(g, tf.IndexedSlices)
    tf.train.GradientDescentOptimizer(1.0).apply_gradients([(g, table)])
    np.testing.assert_allclose(table.numpy()[:, 0], [-1.0, 3.0, 4.0, 9.0])


def test_tfe_gradient_functions(eager_mode):
    tfe = tf.contrib.eager

    def f(x, y):
        return x * x * y

    assert [float(g) for g in tfe.gradients_function(f)(3.0, 2.0)] == [12.0, 9.0]
    assert [float(g) for g in tfe.gradients_function(f, params=["y"])(3.0, 2.0)] == [9.0]
    value, grads = tfe.value_and_gradients_function(f)(1.0, 4.0)
    assert float(value) == 4.0 and [float(g) for g in grads] == [8.0, 1.0]
    w = tfe.Variable(3.0)
    gv = tfe.implicit_gradients(lambda x: w * w * x)(2.0)
    assert len(gv) == 1 and gv[0][1] is w and float(gv[0][0]) == 12.0
    value, gv = tfe.implicit_value_and_gradients(lambda: w * 2.0)()
    assert float(value) == 6.0 and float(gv[0][0]) == 2.0
    with pytest.raises(ValueError, match="No trainable variables were accessed"):
        tfe.implicit_gradients(lambda: tf.constant(1.0) * 2.0)()
    assert tfe.num_gpus() == 0


def test_tape_outside_eager_mode_is_refused():
    with pytest.raises(RuntimeError, match="enable_eager_execution"):
        with tf.GradientTape():
            pass


def test_layers_keep_their_variables_across_eager_calls(eager_mode):
    layer = tf.layers.Dense(4, activation=tf.nn.relu)
    x = tf.ones([2, 3])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x)) + tf.reduce_sum(layer(x * 2.0))
    assert [v.name for v in tape.watched_variables()] == ["dense/kernel:0", "dense/bias:0"]
    gk, gb = tape.gradient(y, layer.trainable_variables)
    # Bias starts at zero, so both calls switch on the same units: 2 rows x 2 calls each.
    active = (np.ones(3) @ layer.kernel.numpy() > 0).astype(np.float32)
    np.testing.assert_allclose(gb.numpy(), 4 * active)
    assert gk.shape.as_list() == [3, 4]


def test_tapes_and_name_scopes_belong_to_their_thread(eager_mode):
    import threading
    x = tf.constant(2.0)
    seen = {}

    def other():
        with tf.name_scope("worker"):
            seen["scope"] = tf.get_default_graph().get_name_scope()
            seen["y"] = x * x       # not recorded by the main thread's tape
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.name_scope("main"):
            t = threading.Thread(target=other)
            t.start()
            t.join()
            assert tf.get_default_graph().get_name_scope() == "main"
        z = x * 3.0
    assert seen["scope"] == "worker"
    assert tape.gradient([z, seen["y"]], x).numpy() == 3.0
