"""TensorFlow's side of the bench rows, run in a Python that has TensorFlow (never imports lens).

`python bench/peer_tf.py CASE [CASE ...] [--quick]` prints one JSON object on its last line:
{case: {"value": seconds}} (or {"error": "..."} for a case that failed); `--serve CASE` keeps
one training step ready and times rounds of it on request (see serve). The
lens side starts it through bench/peers.py; each case builds the same graph as the lens row it
is compared with, in TF 2.x's compat.v1 graph mode with the legacy Keras layers (tf_keras).
"""
import json
import os
import shutil
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import numpy as np  # noqa: E402


def best_of(fn, repeat, number):
    """Seconds per call: the best mean over `repeat` rounds of `number` calls (after a warm-up)."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def _tf():
    import tensorflow as tf2
    tf = tf2.compat.v1
    tf.disable_eager_execution()
    tf.logging.set_verbosity(tf.logging.ERROR)
    return tf


def tiny(tf, quick):
    """Session.run on y = x*2+1 with a fed scalar."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [])
        y = x * 2 + 1
        sess = tf.Session(graph=g)
    return best_of(lambda: sess.run(y, {x: 3.0}), 5, 200 if quick else 3000)


def chain(tf, quick):
    """Session.run on a 100-op elementwise chain of a [10] vector."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [10])
        y = x
        for i in range(100):
            y = y * 1.0001 if i % 2 else y + 0.5
        sess = tf.Session(graph=g)
    feed = {x: np.ones(10, np.float32)}
    return best_of(lambda: sess.run(y, feed), 5, 50 if quick else 1000)


def mlp_build(tf, quick):
    """Building the MLP 784-256-256-10 with GradientDescentOptimizer.minimize."""
    def build():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 784])
            y = tf.placeholder(tf.float32, [None, 10])
            h = x
            for i, n in enumerate([256, 256]):
                with tf.name_scope("layer%d" % (i + 1)):
                    w = tf.Variable(tf.zeros([int(h.shape[1]), n]) + 0.01, name="w")
                    b = tf.Variable(tf.zeros([n]), name="b")
                    h = tf.nn.relu(tf.matmul(h, w) + b)
            w = tf.Variable(tf.zeros([256, 10]) + 0.01, name="w_out")
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(h, w)))
            tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return best_of(build, 3, 2)


def _mlp_graph(tf, batch):
    rng = np.random.default_rng(0)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.float32, [None, 10])
        sizes = [784, 256, 256, 10]
        h = x
        for i in range(3):
            w = tf.Variable((rng.normal(size=sizes[i:i + 2]) * np.sqrt(2.0 / sizes[i])).astype(np.float32))
            h = tf.matmul(h, w) + tf.Variable(np.zeros(sizes[i + 1], np.float32))
            if i < 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    feed = {x: rng.normal(size=(batch, 784)).astype(np.float32),
            y: np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]}
    return sess, train, loss, feed


def mlp_step_fn(tf, quick):
    """A function running one SGD step of the MLP 784-256-256-10, batch 128, fed."""
    sess, train, loss, feed = _mlp_graph(tf, 128)
    return lambda: sess.run([train, loss], feed)


def mlp_step(tf, quick):
    """One SGD step of the MLP 784-256-256-10, batch 128, fed."""
    return best_of(mlp_step_fn(tf, quick), 3 if quick else 7, 5 if quick else 50)


def mlp_dump(tf, quick):
    """The same step through tfdbg's DumpingDebugWrapperSession, dumps on tmpfs when there is one."""
    from tensorflow.python.debug.wrappers import dumping_wrapper
    sess, train, loss, feed = _mlp_graph(tf, 128)
    root = tempfile.mkdtemp(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    try:
        dumper = dumping_wrapper.DumpingDebugWrapperSession(sess, os.path.join(root, "s"))
        return best_of(lambda: dumper.run([train, loss], feed), 2 if quick else 5, 2 if quick else 10)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def mnist_graph(tf, batch):
    """(session, train op, loss, feed) of the MNIST convnet of TF's layers tutorial with Adam, built
    with the module `tf` given (TensorFlow here; bench_mnist passes lens, so both run one graph)."""
    rng = np.random.default_rng(0)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 28, 28, 1])
        y = tf.placeholder(tf.int64, [None])
        h = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.dense(tf.reshape(h, [-1, 7 * 7 * 64]), 1024, activation=tf.nn.relu)
        h = tf.layers.dropout(h, 0.4, training=True)
        logits = tf.layers.dense(h, 10)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        train = tf.train.AdamOptimizer(1e-4).minimize(loss)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    feed = {x: rng.random((batch, 28, 28, 1), dtype=np.float32), y: rng.integers(0, 10, batch)}
    return sess, train, loss, feed


def mnist_step_fn(tf, quick):
    """A function running one Adam training step of the MNIST convnet, batch 64 (16 when quick)."""
    sess, train, loss, feed = mnist_graph(tf, 16 if quick else 64)
    return lambda: sess.run([train, loss], feed)


def mnist_step(tf, quick):
    """One Adam training step of the MNIST convnet, batch 64."""
    return best_of(mnist_step_fn(tf, quick), 2 if quick else 5, 2 if quick else 10)


CASES = {f.__name__: f for f in (tiny, chain, mlp_build, mlp_step, mlp_dump, mnist_step)}
STEPS = {"mlp_step": mlp_step_fn, "mnist_step": mnist_step_fn}


def serve(name, quick):
    """Build one case's step, say "ready", then for each line N on stdin run N steps and print
    the seconds they took: the lens side times its rounds in turn with these, so a burst of load
    from other processes hits both alike."""
    import tensorflow
    step = STEPS[name](_tf(), quick)
    step()
    print("ready %s" % tensorflow.__version__, flush=True)
    for line in sys.stdin:
        n = int(line)
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        print(time.perf_counter() - t0, flush=True)


def main(argv):
    quick = "--quick" in argv
    names = [a for a in argv if not a.startswith("--")]
    if "--serve" in argv:
        return serve(names[0], quick)
    tf = _tf()
    out = {"tensorflow": tf.__version__ if hasattr(tf, "__version__") else ""}
    import tensorflow
    out["tensorflow"] = tensorflow.__version__
    for name in names:
        try:
            out[name] = {"value": CASES[name](tf, quick)}
        except Exception as e:  # a case that cannot run is reported, the others still run
            out[name] = {"error": "%s: %s" % (type(e).__name__, e)}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
