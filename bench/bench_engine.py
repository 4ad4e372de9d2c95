"""Engine overhead: Session.run on tiny graphs, and graph construction of an MLP with minimize()."""

import numpy as np

from bench import peers
from bench.timing import best_of


def _tiny(tf, number):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [])
        y = x * 2 + 1
        sess = tf.Session(graph=g)
        sess.run(y, {x: 1.0})
        return best_of(lambda: sess.run(y, {x: 3.0}), 5, number)


def _chain(tf, number):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [10])
        y = x
        for i in range(100):
            y = y * 1.0001 if i % 2 else y + 0.5
        sess = tf.Session(graph=g)
        feed = {x: np.ones(10, np.float32)}
        sess.run(y, feed)
        return best_of(lambda: sess.run(y, feed), 5, number)


def _chain_numpy(number):
    v = np.ones(10, np.float32)
    a, m = np.float32(0.5), np.float32(1.0001)

    def step():
        y = v
        for i in range(100):
            y = y * m if i % 2 else y + a
        return y
    return best_of(step, 5, number)


def _mlp_build(tf):
    def build():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 784])
            y = tf.placeholder(tf.float32, [None, 10])
            h = x
            for i, n in enumerate([256, 256]):
                with tf.name_scope("layer%d" % (i + 1)):
                    w = tf.Variable(tf.zeros([h.shape[1].value, n]) + 0.01, name="w")
                    b = tf.Variable(tf.zeros([n]), name="b")
                    h = tf.nn.relu(tf.matmul(h, w) + b)
            w = tf.Variable(tf.zeros([256, 10]) + 0.01, name="w_out")
            logits = tf.matmul(h, w)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
            tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        return len(g.get_operations())
    n_ops = build()
    return best_of(build, 3, 2), n_ops


def run(quick=False):
    """Rows for the bench table."""
    import lens as tf
    number = 200 if quick else 20000
    tiny = _tiny(tf, number) * 1e6
    chain = _chain(tf, number // 10) * 1e6
    chain_np = _chain_numpy(number // 10) * 1e6
    tf_side = peers.tensorflow(["tiny", "chain", "mlp_build"], quick)
    tf_name = peers.tf_name()
    rows = [
        {"name": "Session.run y=x*2+1 (fed scalar)", "lens": tiny, "other": peers.scaled(tf_side["tiny"], 1e6),
         "other_name": tf_name, "unit": "us/call", "note": "goal <= 4 us"},
        {"name": "Session.run 100-op chain [10]", "lens": chain, "other": peers.scaled(tf_side["chain"], 1e6),
         "other_name": tf_name, "unit": "us/call", "note": "%.2f us/op; goal <= 1x TF" % (chain / 100)},
        {"name": "100-op chain, hand-written NumPy", "lens": chain, "other": chain_np,
         "other_name": "NumPy loop", "unit": "us/call", "note": "engine overhead vs bare NumPy"},
    ]
    try:
        build_s, n_ops = _mlp_build(tf)
        rows.append({"name": "build MLP 784-256-256-10 + minimize", "lens": build_s * 1e3,
                     "other": peers.scaled(tf_side["mlp_build"], 1e3), "other_name": tf_name, "unit": "ms",
                     "note": "%d ops; goal <= TF" % n_ops})
    except AttributeError as e:  # tf.nn ops land with their own module
        rows.append({"name": "build MLP 784-256-256-10 + minimize", "lens": None,
                     "other": peers.scaled(tf_side["mlp_build"], 1e3),
                     "other_name": tf_name, "unit": "ms", "note": "skipped: %s" % e})
    return rows
