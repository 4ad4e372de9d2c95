"""MLP 784-256-256-10 training step (softmax cross entropy, plain SGD, batch 128, feed_dict, one
BLAS thread): lens vs the same step written by hand in NumPy, and vs TensorFlow (measured,
bench/peers.py).

Both allocator states are shown: each is timed in a fresh process whose glibc either keeps big
freed blocks (MALLOC_MMAP_THRESHOLD_ large) or hands every one back to the system (a fixed small
threshold, so each fresh big array costs page faults), as happens to a long-lived process.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

from bench import peers

# glibc's M_MMAP_THRESHOLD settings of the two allocator states (bytes).
STATES = {"blocks kept": "1000000000", "blocks returned": "131072"}


def _data(batch, rng):
    x = rng.normal(size=(batch, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    return x, y


def _init(rng):
    sizes = [784, 256, 256, 10]
    ws = [(rng.normal(size=(a, b)) * np.sqrt(2.0 / a)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]
    return ws, bs


def numpy_step_fn(ws, bs, lr=0.01):
    """A training step by hand, as a NumPy expert writes it: every array allocated once and
    written with out=, bias and relu in place, gradients scaled and subtracted in place."""
    lr = np.float32(lr)
    w0, w1, w2 = ws
    b0, b1, b2 = bs
    bufs = {}

    def buffers(n):
        if bufs.get("n") != n:
            f = np.float32
            bufs.update(n=n, h1=np.empty((n, 256), f), h2=np.empty((n, 256), f), lg=np.empty((n, 10), f),
                        d2=np.empty((n, 256), f), d1=np.empty((n, 256), f), m=np.empty((n, 256), bool),
                        dw0=np.empty((784, 256), f), dw1=np.empty((256, 256), f), dw2=np.empty((256, 10), f))
        return bufs

    def step(x, y):
        n = x.shape[0]
        B = buffers(n)
        h1, h2, lg, d2, d1, m = B["h1"], B["h2"], B["lg"], B["d2"], B["d1"], B["m"]
        np.matmul(x, w0, out=h1)
        h1 += b0
        np.maximum(h1, 0, out=h1)
        np.matmul(h1, w1, out=h2)
        h2 += b1
        np.maximum(h2, 0, out=h2)
        np.matmul(h2, w2, out=lg)
        lg += b2
        lg -= lg.max(1, keepdims=True)
        e = np.exp(lg)
        s = e.sum(1, keepdims=True)
        loss = -(np.einsum("ij,ij->", y, lg) - np.log(s).sum()) / n
        e /= s
        e -= y
        e *= np.float32(1.0 / n)                       # d loss / d logits
        np.matmul(h2.T, e, out=B["dw2"])
        db2 = e.sum(0)
        np.matmul(e, w2.T, out=d2)
        np.greater(h2, 0, out=m)
        d2 *= m
        np.matmul(h1.T, d2, out=B["dw1"])
        db1 = d2.sum(0)
        np.matmul(d2, w1.T, out=d1)
        np.greater(h1, 0, out=m)
        d1 *= m
        np.matmul(x.T, d1, out=B["dw0"])
        db0 = d1.sum(0)
        for w, g in ((w0, B["dw0"]), (w1, B["dw1"]), (w2, B["dw2"]), (b0, db0), (b1, db1), (b2, db2)):
            g *= lr
            w -= g
        return loss
    return step


def lens_step_fn(ws, bs, lr=0.01):
    """The same model in lens; returns a function running one training step."""
    import lens as tf
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.float32, [None, 10])
        h = x
        for i, (w0, b0) in enumerate(zip(ws, bs)):
            with tf.name_scope("layer%d" % i):
                w = tf.Variable(w0, name="w")
                b = tf.Variable(b0, name="b")
                h = tf.matmul(h, w) + b
                if i < 2:
                    h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    return lambda xv, yv: sess.run([train, loss], {x: xv, y: yv})[1]


def measure(quick):
    """(seconds per NumPy step, seconds per lens step, losses agree) in this process."""
    rng = np.random.default_rng(0)
    x, y = _data(128, rng)
    ws, bs = _init(rng)
    a = numpy_step_fn([w.copy() for w in ws], [b.copy() for b in bs])
    b = lens_step_fn(ws, bs)
    la, lb = [float(a(x, y)) for _ in range(3)], [float(b(x, y)) for _ in range(3)]
    same = bool(np.allclose(la, lb, rtol=1e-4, atol=1e-5))
    (t_np, t_lens), (cpu_np, cpu_lens) = _interleaved([lambda: a(x, y), lambda: b(x, y)],
                                                      2 if quick else 12, 5 if quick else 50)
    return t_np, t_lens, same, cpu_np, cpu_lens


def _interleaved(fns, repeat, number):
    """(best wall seconds per call, median CPU seconds per call) of each fn over rounds of
    `number` calls that alternate between the fns, so a burst of load hits all of them alike.
    CPU time leaves out the time other processes held the core (a loaded machine)."""
    for fn in fns:
        fn()
    walls, cpus = [[] for _ in fns], [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            c0, t0 = time.process_time(), time.perf_counter()
            for _ in range(number):
                fn()
            walls[k].append((time.perf_counter() - t0) / number)
            cpus[k].append((time.process_time() - c0) / number)
    return [min(w) for w in walls], [float(np.median(c)) for c in cpus]


def _in_state(threshold, quick):
    """measure() in a fresh process with glibc's mmap threshold fixed at this many bytes."""
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_=threshold, MALLOC_TRIM_THRESHOLD_=threshold,
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "bench.bench_mlp", "--measure"] + (["--quick"] if quick else [])
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(quick=False):
    """Rows for the bench table."""
    rows = []
    lens_ms = None
    for label, threshold in STATES.items():
        t_np, t_lens, same, cpu_np, cpu_lens = _in_state(threshold, quick)
        lens_ms = lens_ms or t_lens * 1e3
        rows.append({"name": "MLP 784-256-256-10 SGD step, b=128 (%s)" % label, "lens": t_lens * 1e3,
                     "other": t_np * 1e3, "other_name": "NumPy by hand", "unit": "ms/step",
                     "note": "MALLOC_MMAP_THRESHOLD_=%s; %s; CPU time %.2f/%.2f ms = %.2fx; goal <= 1.05x"
                             % (threshold, "same losses" if same else "LOSSES DIFFER",
                                cpu_lens * 1e3, cpu_np * 1e3, cpu_lens / cpu_np)})
    tf_ms = peers.scaled(peers.tensorflow(["mlp_step"], quick)["mlp_step"], 1e3)
    rows.append({"name": "MLP step vs TensorFlow", "lens": lens_ms, "other": tf_ms,
                 "other_name": peers.tf_name(), "unit": "ms/step", "note": "b=128; fed"})
    return rows


if __name__ == "__main__":
    if "--measure" in sys.argv:
        print(json.dumps(measure("--quick" in sys.argv)))
    else:
        from bench.run import format_table
        print(format_table(run("--quick" in sys.argv)))
