"""DNNRegressor training step (hidden [64, 32], 20 features, batch 128, numpy_input_fn, Adagrad):
tf.estimator's train() loop vs the same graph built by hand and run with Session.run.

The Estimator's step is timed inside its loop (between hook calls, after warm-up), so graph
building, session creation and the first and last checkpoints are left out: what remains is
the per-step cost of the Estimator machinery (its hooks, summaries every 100 steps, logging)."""
import time

import numpy as np

N_FEATURES, BATCH, HIDDEN = 20, 128, [64, 32]


def _data(n=4096):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
    y = (x @ rng.normal(size=N_FEATURES).astype(np.float32)).astype(np.float32)
    return x, y


def _input_fn(x, y):
    import lens as tf
    return tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=BATCH, num_epochs=None, shuffle=True)


class _Interleaved:
    """A hook timing windows of the Estimator's steps and, between windows, rounds of the
    hand-built step, so both sides see the same load from other processes."""

    def __init__(self, hand, warmup, window):
        self.hand, self.warmup, self.window = hand, warmup, window
        self.count, self.start = 0, None
        self.est, self.by_hand = [], []

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        now = time.perf_counter()
        k = self.count - self.warmup
        if k > 0 and k % self.window == 0:
            self.est.append((now - self.start) / self.window)
            t0 = time.perf_counter()
            for _ in range(self.window):
                self.hand()
            self.by_hand.append((time.perf_counter() - t0) / self.window)
        if k >= 0 and k % self.window == 0:
            self.start = time.perf_counter()
        self.count += 1

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


def hand_step_fn(x, y):
    """The same DNN regression graph built by hand; returns a function running one step."""
    import lens as tf
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        features, labels = _input_fn(x, y)()
        with tf.variable_scope("dnn"):
            net = tf.feature_column.input_layer(features, [tf.feature_column.numeric_column("x", shape=N_FEATURES)])
            for i, units in enumerate(HIDDEN):
                net = tf.layers.dense(net, units, activation=tf.nn.relu, name="hiddenlayer_%d" % i)
            logits = tf.layers.dense(net, 1, name="logits")
        loss = tf.reduce_sum(tf.squared_difference(tf.expand_dims(labels, -1), logits))
        train = tf.train.AdagradOptimizer(0.05).minimize(loss, global_step=step)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    return lambda: sess.run([train, loss])


def run(quick=False):
    """Rows for the bench table."""
    import tempfile
    import lens as tf
    x, y = _data()
    # Windows of 100 steps hold one summary step each, as the Estimator writes every 100 steps.
    window, rounds, warmup = 100, (2 if quick else 8), 20
    hand = hand_step_fn(x, y)
    for _ in range(warmup):
        hand()
    hook = _Interleaved(hand, warmup, window)
    est = tf.estimator.DNNRegressor(hidden_units=HIDDEN, feature_columns=[
        tf.feature_column.numeric_column("x", shape=N_FEATURES)], model_dir=tempfile.mkdtemp())
    est.train(_input_fn(x, y), steps=warmup + window * rounds + 1, hooks=[hook])
    return [{"name": "DNNRegressor step [64,32], b=128", "lens": min(hook.est) * 1e3,
             "other": min(hook.by_hand) * 1e3, "other_name": "same graph, Session.run", "unit": "ms/step",
             "note": "goal <= 1.2x"}]
