"""MNIST convnet training step, TF's layers tutorial model (tf.layers conv 5x5x32 SAME + relu,
max_pool 2x2, conv 5x5x64 + relu, max_pool, dense 1024 + relu, dropout 0.4, dense 10; sparse
softmax cross entropy; Adam 1e-4; batch 64, about 5.3 GFLOP): lens vs TensorFlow, measured
(bench/peers.py runs the same graph in TensorFlow).

`python -m bench.bench_mnist --profile` prints lens's slowest kernel calls of the plain plan (the
one the row times: fused chains, one BLAS thread, intra-op helpers), wall and CPU time, then the
slowest ops from FULL_TRACE step stats (one call per op). `--convs` compares the CPU of the
slowest kernels with the padded im2col, the banded convolutions (lens/ops/conv_bands.py) and the
Fourier-domain ones (lens/ops/conv_fourier.py).
"""
import os
import re
import sys
import time

from bench import peers
from bench.peer_tf import mnist_graph
from bench.timing import best_of


def lens_graph(batch):
    """(session, train op, loss, feed) of the model in lens: the graph peer_tf builds for TensorFlow."""
    import lens as tf
    return mnist_graph(tf, batch)


def run(quick=False):
    """Rows for the bench table: rounds of lens steps and of TensorFlow's (kept ready in a
    subprocess) take turns, best round each, so load from other processes hits both alike."""
    batch = 16 if quick else 64
    sess, train, loss, feed = lens_graph(batch)
    losses = [float(sess.run([train, loss], feed)[1]) for _ in range(3)]
    rounds, number = (2, 2) if quick else (6, 5)
    peer = peers.Stepper("mnist_step", quick)
    try:
        lens_s, tf_s = float("inf"), float("inf")
        for _ in range(rounds):
            lens_s = min(lens_s, best_of(lambda: sess.run([train, loss], feed), 1, number))
            if peer.missing is None:
                tf_s = min(tf_s, peer.rounds(number) / number)
    finally:
        peer.close()
    lens_ms = lens_s * 1e3
    tf_ms = peer.missing or tf_s * 1e3
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(number):
        sess.run([train, loss], feed)
    cpu = "lens cpu %.0f ms/step (%.2f cores), load %.1f" % (
        (time.process_time() - c0) / number * 1e3, (time.process_time() - c0) / (time.perf_counter() - t0),
        os.getloadavg()[0])
    return [{"name": "MNIST convnet Adam step, b=%d" % batch, "lens": lens_ms, "other": tf_ms,
             "other_name": peers.tf_name(), "unit": "ms/step",
             "note": "loss falls %.3f -> %.3f; goal <= 1.0x; %s" % (losses[0], losses[-1], cpu)
             if losses[-1] < losses[0] else "LOSS DID NOT FALL %s" % losses}]


def profile_plan(steps=20, top=15):
    """Wall and CPU (all threads) time per kernel call of the plain plan, slowest first; a fused
    call is named after the ops it runs."""
    rows, wall, cpu = plan_times(steps)
    print("%8s %8s  %s" % ("wall ms", "cpu ms", "kernel call of the plain plan (per step)"))
    for label, w, c in rows[:top]:
        print("%8.2f %8.2f  %s" % (w * 1e3, c * 1e3, label))
    print("%8.2f %8.2f  all %d calls; whole step %.2f ms wall, %.2f ms cpu; load %.1f" % (
        sum(r[1] for r in rows) * 1e3, sum(r[2] for r in rows) * 1e3, len(rows), wall * 1e3, cpu * 1e3,
        os.getloadavg()[0]))


def compare_modes(modes, rounds=4, steps=10, top=4):
    """CPU per kernel call and per step under each mode (name -> function setting it up, returning
    a function that undoes it), in alternating rounds (medians: the machine may be loaded)."""
    cpu = {m: {} for m in modes}
    for _ in range(rounds):
        for mode, setup in modes.items():
            undo = setup()
            try:
                rows, _, step_cpu = plan_times(steps)
            finally:
                undo()
            for label, _, c in rows:
                cpu[mode].setdefault(label, []).append(c)
            cpu[mode].setdefault("whole step", []).append(step_cpu)
    med = {m: {k: sorted(v)[len(v) // 2] * 1e3 for k, v in cpu[m].items()} for m in modes}
    first, *others = modes
    labels = sorted(med[first], key=lambda k: -med[first][k])[:top + 1]
    print(" ".join("%9s" % m for m in modes) + "  median CPU ms per step (%d rounds)" % rounds)
    for k in labels:
        print(" ".join("%9.2f" % med[m].get(k, float("nan")) for m in modes) + "  " + k)
    print("load %.1f" % os.getloadavg()[0])


def _setting(module, name, value):
    """A compare_modes setup: module.name = value until undone."""
    def setup():
        old = getattr(module, name)
        setattr(module, name, value)
        return lambda: setattr(module, name, old)
    return setup


def compare_convs(rounds=4, steps=10):
    """The padded im2col, the banded convolutions (padding's zeros skipped, lens/ops/conv_bands.py)
    and the Fourier-domain ones (lens/ops/conv_fourier.py, the default where they save enough)."""
    from lens.ops import conv_bands, conv_fourier
    no_fourier = _setting(conv_fourier, "MAX_COST_SHARE", 0.0)

    def padded():
        undo = [no_fourier(), _setting(conv_bands, "MIN_SKIPPED", 2.0)()]
        return lambda: [u() for u in undo]
    compare_modes({"padded": padded, "banded": no_fourier, "fourier": lambda: (lambda: None)},
                  rounds, steps, top=6)


def plan_times(steps):
    """([(label, wall s, cpu s) per step, slowest CPU first], step wall s, step cpu s) of the
    plain plan's kernel calls over steps steps."""
    from lens.client import plan as plan_mod
    sess, train, loss, feed = lens_graph(64)
    sess.run([train, loss], feed)
    plan = next(c.plan for c in sess._plain_runs.values() if train in c.plan.ops)
    env, totals, labels = plan.globals, {}, {}
    lines = plan.source.splitlines()
    for no, op in plan.line_ops.items():
        m = re.search(r"= (k\d+)\(", lines[no - 1])
        if m:
            k = env[m.group(1)]
            labels[m.group(1)] = ("+".join(o.type for o in k.members) + " " + op.name
                                  if isinstance(k, plan_mod._Fused) else "%s (%s)" % (op.name, op.type))

    def timed(name, fn):
        def call(*args):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                return fn(*args)
            finally:
                w, c = totals.get(name, (0.0, 0.0))
                totals[name] = (w + time.perf_counter() - t0, c + time.process_time() - c0)
        return call
    originals = {k: env[k] for k in labels}
    for k in labels:
        env[k] = timed(k, originals[k])
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            sess.run([train, loss], feed)
        wall, cpu = (time.perf_counter() - t0) / steps, (time.process_time() - c0) / steps
    finally:
        env.update(originals)
    rows = sorted(totals.items(), key=lambda kv: -kv[1][1])
    return [(labels[k], w / steps, c / steps) for k, (w, c) in rows], wall, cpu


def profile(steps=10, top=15):
    """Mean time per op over traced steps, slowest first (from RunMetadata.step_stats)."""
    import lens as tf
    sess, train, loss, feed = lens_graph(64)
    sess.run([train, loss], feed)
    totals = {}
    for _ in range(steps):
        md = tf.RunMetadata()
        sess.run([train, loss], feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=md)
        for dev in md.step_stats.dev_stats:
            for ns in dev.node_stats:
                key = "%s (%s)" % (ns.node_name, ns.timeline_label.split(" = ")[-1].split("(")[0])
                totals[key] = totals.get(key, 0) + ns.all_end_rel_micros
    rows = sorted(totals.items(), key=lambda kv: -kv[1])
    print("%9s  %s" % ("ms/step", "op"))
    for name, us in rows[:top]:
        print("%9.3f  %s" % (us / steps / 1e3, name))
    print("%9.3f  all %d ops" % (sum(totals.values()) / steps / 1e3, len(rows)))


if __name__ == "__main__":
    if "--convs" in sys.argv:
        compare_convs()
    elif "--profile" in sys.argv:
        profile_plan()
        print()
        profile()
    else:
        from bench.run import format_table
        print(format_table(run("--quick" in sys.argv)))
