"""Eager execution: an MLP training step written eagerly (GradientTape + apply_gradients) against the
same step as a lens graph run with Session.run, and the cost of one small eager op against NumPy.

Eager mode is process-wide, so the measurement runs in a fresh process (the graph side is built
there under `with tf.Graph().as_default():`).
"""
import json
import os
import subprocess
import sys

import numpy as np

from bench.bench_cnn import interleaved_best


def measure(quick):
    """(eager step s, graph step s, eager add s, NumPy add s, same losses) in this process."""
    import lens as tf
    tf.enable_eager_execution()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128).astype(np.int64)
    w1, w2 = (rng.normal(size=(784, 64)) * 0.05).astype(np.float32), (rng.normal(size=(64, 10)) * 0.1).astype(np.float32)

    def model(tf_, a, b, xv):
        return tf_.matmul(tf_.nn.relu(tf_.matmul(xv, a)), b)

    ea, eb = tf.Variable(w1), tf.Variable(w2)
    eopt = tf.train.GradientDescentOptimizer(0.1)

    def eager_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(tf, ea, eb, x)))
        eopt.apply_gradients(zip(tape.gradient(loss, [ea, eb]), [ea, eb]))
        return float(loss)

    with tf.Graph().as_default():
        xp = tf.placeholder(tf.float32, [None, 784])
        yp = tf.placeholder(tf.int64, [None])
        ga, gb = tf.Variable(w1), tf.Variable(w2)
        gloss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yp, logits=model(tf, ga, gb, xp)))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(gloss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())

    def graph_step():
        return float(sess.run([train, gloss], {xp: x, yp: y})[1])

    same = bool(np.allclose([eager_step() for _ in range(3)], [graph_step() for _ in range(3)], rtol=1e-4))
    t_eager, t_graph = interleaved_best([eager_step, graph_step], 2 if quick else 7, 3 if quick else 20)
    a = tf.constant(np.ones((4, 4), np.float32))
    an = np.ones((4, 4), np.float32)
    t_add, t_np = interleaved_best([lambda: a + a, lambda: an + an], 2 if quick else 7, 50 if quick else 2000)
    return t_eager, t_graph, t_add, t_np, same


def run(quick=False):
    """Rows for the bench table."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "bench.bench_eager", "--measure"] + (["--quick"] if quick else [])
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root, check=True)
    t_eager, t_graph, t_add, t_np, same = json.loads(done.stdout.strip().splitlines()[-1])
    return [{"name": "eager MLP 784-64-10 step (GradientTape + apply_gradients), b=128", "lens": t_eager * 1e3,
             "other": t_graph * 1e3, "other_name": "lens graph mode", "unit": "ms/step",
             "note": "same step as Session.run; %s" % ("same losses" if same else "LOSSES DIFFER")},
            {"name": "eager op (4x4 add)", "lens": t_add * 1e6, "other": t_np * 1e6, "other_name": "NumPy add",
             "unit": "us/op", "note": "per-op dispatch: op object, kernel call, EagerTensor"}]


if __name__ == "__main__":
    if "--measure" in sys.argv:
        print(json.dumps(measure("--quick" in sys.argv)))
    else:
        from bench.run import format_table
        print(format_table(run("--quick" in sys.argv)))
