"""Regenerate the bundled sample logs: `python -m lens.examples.sample_logs --logdir lens/sample_logs`.

Three runs of a small classifier (different learning rates) with name scopes, scalars, histograms
of weights, gradients and activations, images, text, the graph and two steps of traced run
metadata. The model runs on two CPU devices (hidden1 and output on CPU:1, hidden2 on CPU:0). Values are seeded and wall times fixed, so the files are the same on every run except
for the measured op timings inside the run metadata.
"""
import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

BASE_WALL_TIME = 1700000000.0
RUNS = {"lr_0.5": 0.5, "lr_0.1": 0.1, "lr_0.02": 0.02}
STEPS = 60
# Full names, so the GraphDef's requested devices equal the devices the run metadata reports.
DEVICES = ["/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:1"]


def _data(rng, n=256):
    # Two interleaved spirals in 2-D, labelled 0/1, plus 2 noise features.
    t = rng.uniform(0.5, 3.5, n)
    label = rng.integers(0, 2, n)
    ang = t * 2.0 + np.pi * label
    x = np.stack([t * np.cos(ang), t * np.sin(ang), rng.normal(0, 0.3, n), rng.normal(0, 0.3, n)], 1)
    return x.astype(np.float32), np.eye(2, dtype=np.float32)[label]


def build_model(tf, lr):
    """The graph: input/, hidden/, output/, loss/, train/, summaries."""
    with tf.name_scope("input"):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 2], name="labels")
    h = x
    for i, units in enumerate([16, 16]):
        # hidden1 (and the output layer) run on CPU:1, hidden2 on CPU:0: the board colours by device.
        with tf.device(DEVICES[1] if i == 0 else DEVICES[0]), tf.variable_scope("hidden%d" % (i + 1)):
            w = tf.get_variable("W", [h.shape[1].value, units],
                                initializer=tf.truncated_normal_initializer(stddev=0.5, seed=i + 1))
            b = tf.get_variable("b", [units], initializer=tf.zeros_initializer())
            pre = tf.matmul(h, w) + b
            h = tf.nn.relu(pre, name="activation")
            tf.summary.histogram("weights", w)
            tf.summary.histogram("activations", h)
    with tf.device(DEVICES[1]), tf.variable_scope("output"):
        w = tf.get_variable("W", [16, 2], initializer=tf.truncated_normal_initializer(stddev=0.5, seed=7))
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        logits = tf.matmul(h, w) + b
    with tf.name_scope("cross_entropy"):
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    with tf.name_scope("evaluation"):
        correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    with tf.name_scope("train"):
        opt = tf.train.GradientDescentOptimizer(lr)
        grads = opt.compute_gradients(loss)
        for g, v in grads:
            tf.summary.histogram(v.op.name + "/gradient", g)
        train = opt.apply_gradients(grads)
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("accuracy", accuracy)
    tf.summary.scalar("learning_rate", tf.constant(lr))
    with tf.name_scope("pictures"):
        grid = tf.reshape(tf.cast(tf.sigmoid(h[:8]) * 255.0, tf.uint8), [1, 8, 16, 1])
        tf.summary.image("hidden_units", grid, max_outputs=1)
    return x, y, loss, accuracy, train, tf.summary.merge_all()


def write_run(tf, logdir, name, lr):
    """Train one run, writing its events under logdir/name."""
    rng = np.random.default_rng(42)
    xs, ys = _data(rng)
    g = tf.Graph()
    with g.as_default():
        x, y, loss, acc, train, merged = build_model(tf, lr)
        text = tf.summary.text("notes", tf.constant(
            "## run %s\n\nA 4-16-16-2 MLP on two spirals, trained with **SGD at lr=%s**." % (name, lr)))
        writer = tf.summary.FileWriter(os.path.join(logdir, name), g)
        with tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(tf.global_variables_initializer())
            writer.add_summary(sess.run(text), 0)
            for step in range(STEPS):
                batch = rng.integers(0, len(xs), 64)
                feed = {x: xs[batch], y: ys[batch]}
                if step in (10, 40):
                    md = tf.RunMetadata()
                    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                    _, s = sess.run([train, merged], feed, options=opts, run_metadata=md)
                    writer.add_run_metadata(md, "step%d" % step, step)
                else:
                    _, s = sess.run([train, merged], feed)
                writer.add_summary(s, step)
        writer.close()


def _fix_wall_times(run_dir, name):
    """Rewrite the run's event file with fixed wall times and a fixed file name."""
    from lens.events.records import encode_record
    from lens.events.summary_builders import summary_iterator
    files = [f for f in os.listdir(run_dir) if "tfevents" in f]
    out_path = os.path.join(run_dir, "events.out.tfevents.%d.lens-sample" % BASE_WALL_TIME)
    chunks = []
    for f in files:
        for i, ev in enumerate(summary_iterator(os.path.join(run_dir, f))):
            ev.wall_time = BASE_WALL_TIME + ev.step + i * 1e-3
            chunks.append(encode_record(ev.SerializeToString()))
        os.remove(os.path.join(run_dir, f))
    with open(out_path, "wb") as fh:
        fh.write(b"".join(chunks))


def generate(logdir):
    """Write all runs into logdir (replacing what was there)."""
    import lens as tf
    from lens.examples import sample_plugins
    tmp = tempfile.mkdtemp(prefix="lens-sample-")
    for name, lr in RUNS.items():
        write_run(tf, tmp, name, lr)
        _fix_wall_times(os.path.join(tmp, name), name)
    for name in sample_plugins.write_runs(tf, tmp):  # PR curves, custom scalars, hparams
        _fix_wall_times(os.path.join(tmp, name), name)
    if os.path.isdir(logdir):
        shutil.rmtree(logdir)
    shutil.copytree(tmp, logdir)
    os.chmod(logdir, 0o755)
    shutil.rmtree(tmp)


def main(argv=None):
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logdir", default=os.path.join(os.path.dirname(os.path.dirname(__file__)), "sample_logs"))
    args = ap.parse_args(argv)
    generate(args.logdir)
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(args.logdir) for f in fs)
    print("wrote %s (%d runs, %.1f KB)" % (args.logdir, len(RUNS), total / 1024), file=sys.stderr)


if __name__ == "__main__":
    main()
