"""CNN training step (conv 5x5x1x32 SAME, relu, max_pool 2x2, dense 10; batch 64, 28x28x1, SGD):
lens vs the same step written by hand in NumPy (TensorFlow's side: bench_mnist's full convnet).

`python -m bench.bench_cnn --profile` also prints lens's slowest kernel calls in the plain (fused)
plan, and its slowest ops in a traced run (one call per op).
"""
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import as_strided

BATCH = 64


def _data(batch, rng):
    x = rng.normal(size=(batch, 28, 28, 1)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    return x, y


def _init(rng):
    f = (rng.normal(size=(5, 5, 1, 32)) * 0.2).astype(np.float32)
    b = np.zeros(32, np.float32)
    w = (rng.normal(size=(14 * 14 * 32, 10)) * 0.01).astype(np.float32)
    c = np.zeros(10, np.float32)
    return [f, b, w, c]


def numpy_step_fn(params, lr=0.01):
    """A training step as a NumPy programmer would write it for speed.

    Tap-major im2col (25 contiguous shifted planes) and one GEMM each way; bias and relu in
    place; 2x2 max-pool as three maxima of strided views; its gradient routed to each window's
    first maximum with the relu gradient folded into the same masks; every big array allocated
    once and reused (fresh multi-megabyte arrays cost page faults on every step). It skips the
    input gradient, as TF1's session does (Grappler prunes it).
    """
    f, b, w, c = params
    lr = np.float32(lr)
    taps = ((0, 0), (0, 1), (1, 0), (1, 1))
    bufs = {}

    def buffers(n):
        if bufs.get("n") != n:
            bufs.update(n=n, xp=np.zeros((n, 32, 32), np.float32), cols=np.empty((25, n * 784), np.float32),
                        act=np.empty((n * 784, 32), np.float32), pooled=np.empty((n * 14, 14, 32), np.float32),
                        dact=np.empty((n * 14, 2, 14, 2, 32), np.float32),
                        hit=np.empty((n * 14, 14, 32), bool), free=np.empty((n * 14, 14, 32), bool))
        return bufs

    def step(x, y):
        n = x.shape[0]
        B = buffers(n)
        xp, cols, act, pooled, dact, hit, free = (B[k] for k in ("xp", "cols", "act", "pooled", "dact", "hit", "free"))
        xp[:, 2:30, 2:30] = x[..., 0]                      # the zero border never changes
        s = xp.strides
        np.copyto(cols.reshape(5, 5, n, 28, 28), as_strided(xp, (5, 5, n, 28, 28), (s[1], s[2], s[0], s[1], s[2])))
        np.matmul(cols.T, f.reshape(25, 32), out=act)
        act += b
        np.maximum(act, 0, out=act)
        win = act.reshape(n * 14, 2, 14, 2, 32)
        np.maximum(win[:, 0, :, 0], win[:, 0, :, 1], out=pooled)
        np.maximum(pooled, win[:, 1, :, 0], out=pooled)
        np.maximum(pooled, win[:, 1, :, 1], out=pooled)
        flat = pooled.reshape(n, -1)
        logits = flat @ w + c
        z = logits - logits.max(1, keepdims=True)
        e = np.exp(z)
        se = e.sum(1, keepdims=True)
        loss = -(y * (z - np.log(se))).sum(1).mean()
        d = (e / se - y) / np.float32(n)
        dw, dc = flat.T @ d, d.sum(0)
        dpool = (d @ w.T).reshape(pooled.shape)
        np.greater(pooled, 0, out=free)                    # relu gradient: only positive maxima pass
        for i, j in taps:
            np.equal(win[:, i, :, j], pooled, out=hit)
            hit &= free
            np.greater(free, hit, out=free)                # later ties lose (first maximum wins)
            np.multiply(dpool, hit, out=dact[:, i, :, j])
        d2 = dact.reshape(-1, 32)
        df = (cols @ d2).reshape(5, 5, 1, 32)
        db = d2.sum(0)
        for v, g in ((f, df), (b, db), (w, dw), (c, dc)):
            v -= lr * g
        return loss
    return step


def lens_graph(params, lr=0.01):
    """The same model in lens: (session, x, y, train op, loss)."""
    import lens as tf
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 28, 28, 1])
        y = tf.placeholder(tf.float32, [None, 10])
        f, b, w, c = (tf.Variable(v) for v in params)
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        logits = tf.matmul(tf.reshape(h, [-1, 14 * 14 * 32]), w) + c
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    return sess, x, y, train, loss


def lens_step_fn(params, lr=0.01):
    """Returns a function running one lens training step."""
    sess, x, y, train, loss = lens_graph(params, lr)
    return lambda xv, yv: sess.run([train, loss], {x: xv, y: yv})[1]


def interleaved_best(fns, repeat, number):
    """Seconds per call of each fn, best round of `number` calls; rounds alternate between the
    fns so a burst of load from other processes hits all of them alike."""
    for fn in fns:
        fn()
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / number)
    return best


def losses_agree(x, y, params, steps=3):
    """Both steps train the same model: the losses of a few steps from the same start match."""
    a = numpy_step_fn([p.copy() for p in params])
    b = lens_step_fn(params)
    la = [float(a(x, y)) for _ in range(steps)]
    lb = [float(b(x, y)) for _ in range(steps)]
    return np.allclose(la, lb, rtol=1e-4, atol=1e-5), la, lb


def run(quick=False):
    """Rows for the bench table."""
    rng = np.random.default_rng(0)
    x, y = _data(BATCH, rng)
    params = _init(rng)
    same, la, lb = losses_agree(x, y, params)
    np_step = numpy_step_fn([p.copy() for p in params])
    lens_step = lens_step_fn(params)
    t_np, t_lens = interleaved_best([lambda: np_step(x, y), lambda: lens_step(x, y)],
                                    2 if quick else 7, 3 if quick else 20)
    agree = "same losses" if same else "LOSSES DIFFER: numpy %s lens %s" % (la, lb)
    return [
        {"name": "CNN conv5x5x32+pool+dense10 SGD step, b=64", "lens": t_lens * 1e3, "other": t_np * 1e3,
         "other_name": "NumPy by hand", "unit": "ms/step", "note": agree},
    ]


def profile(steps=20, top=15):
    """Mean time per op over traced steps, slowest first (from RunMetadata.step_stats).

    Traced runs keep one kernel call per op (no fused chains), so this shows the unfused costs.
    """
    import lens as tf
    rng = np.random.default_rng(0)
    x, y = _data(BATCH, rng)
    sess, xp, yp, train, loss = lens_graph(_init(rng))
    fd = {xp: x, yp: y}
    sess.run([train, loss], fd)
    totals = {}
    for _ in range(steps):
        md = tf.RunMetadata()
        sess.run([train, loss], fd, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=md)
        for dev in md.step_stats.dev_stats:
            for ns in dev.node_stats:
                totals[ns.node_name] = totals.get(ns.node_name, 0) + ns.all_end_rel_micros
    rows = sorted(totals.items(), key=lambda kv: -kv[1])
    print("%9s  %s" % ("ms/step", "op"))
    for name, us in rows[:top]:
        print("%9.3f  %s" % (us / steps / 1e3, name))
    print("%9.3f  all %d ops" % (sum(totals.values()) / steps / 1e3, len(rows)))


def profile_plan(steps=30, top=12):
    """Mean time per kernel call of the plain (untraced, fused) plan, slowest first.

    Each call of the compiled plan's kernels is timed by a wrapper; a fused call is named after
    the ops it runs.
    """
    import re
    from lens.client import plan as plan_mod
    rng = np.random.default_rng(0)
    x, y = _data(BATCH, rng)
    sess, xp, yp, train, loss = lens_graph(_init(rng))
    fd = {xp: x, yp: y}
    sess.run([train, loss], fd)
    plan = list(sess._runs.values())[-1].plan
    env, totals, labels = plan.globals, {}, {}
    for line in plan.source.splitlines():
        m = re.search(r"= (k\d+)\(", line)
        if m:
            k = env[m.group(1)]
            labels[m.group(1)] = ("+".join(op.type for op in k.members) if isinstance(k, plan_mod._Fused)
                                  else None)
    for no, op in plan.line_ops.items():
        m = re.search(r"= (k\d+)\(", plan.source.splitlines()[no - 1])
        if m and labels.get(m.group(1)) is None:
            labels[m.group(1)] = op.name

    def timed(name, fn):
        def call(*args):
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                totals[name] = totals.get(name, 0.0) + time.perf_counter() - t0
        return call
    originals = {k: env[k] for k in labels}
    for k in labels:
        env[k] = timed(k, originals[k])
    try:
        t0 = time.perf_counter()
        for _ in range(steps):
            sess.run([train, loss], fd)
        wall = (time.perf_counter() - t0) / steps
    finally:
        env.update(originals)
    rows = sorted(totals.items(), key=lambda kv: -kv[1])
    print("%9s  %s" % ("ms/step", "kernel call of the plain plan"))
    for k, sec in rows[:top]:
        print("%9.3f  %s" % (sec / steps * 1e3, labels[k]))
    print("%9.3f  all %d calls; %.3f ms per whole step" % (sum(totals.values()) / steps * 1e3, len(rows), wall * 1e3))


if __name__ == "__main__":
    for row in run():
        print("%-45s lens %.2f ms  %s %.2f ms  ratio %.2f  %s" % (
            row["name"], row["lens"], row["other_name"], row["other"], row["lens"] / row["other"], row["note"]))
    if "--profile" in sys.argv:
        profile_plan()
        print()
        profile()
