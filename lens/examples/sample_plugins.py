"""Sample runs for the plugin dashboards (PR curves, custom scalars, hparams), written into the
bundled sample logs by sample_logs.py. Seeded, so the files are the same on every run."""

import os

import numpy as np

PR_RUN = "classifier_pr"
LAYOUT_RUN = "layout"
SWEEP = "sweep"
TRIALS = [{"lr": lr, "optimizer": opt, "units": units}
          for lr, opt, units in ((0.1, "sgd", 16), (0.02, "sgd", 32), (0.1, "adam", 32),
                                 (0.01, "adam", 16), (0.05, "momentum", 64), (0.2, "momentum", 8))]


def _scalar(tf, tag, value):
    return tf.Summary(value=[tf.Summary.Value(tag=tag, simple_value=float(value))])


def write_pr_run(tf, logdir):
    """A binary classifier's PR curves over training (the scores sharpen step by step)."""
    from lens.plugins import pr_curve

    rng = np.random.default_rng(3)
    with tf.summary.FileWriter(os.path.join(logdir, PR_RUN)) as writer:
        for step in range(0, 50, 10):
            labels = rng.random(200) < 0.4
            noise = rng.random(200)
            sharp = 0.1 + step / 200.0  # the classes separate a little more each step
            scores = np.clip(labels * sharp + noise * (1 - sharp), 0, 1)
            writer.add_summary(pr_curve.pb("spiral_class_1", labels, scores, num_thresholds=51,
                                           description="P-R of class 1 on held-out spirals"), step)
            writer.add_summary(pr_curve.pb("spiral_class_0", ~labels, 1 - scores,
                                           num_thresholds=51), step)


def write_layout_run(tf, logdir):
    """A custom scalars layout (losses together, accuracy with its confidence band)."""
    from lens.plugins import custom_scalar

    L = custom_scalar.layout_pb2
    layout = L.Layout(category=[
        L.Category(title="training", chart=[
            L.Chart(title="loss and accuracy", multiline=L.MultilineChartContent(
                tag=["loss", "accuracy"])),
            L.Chart(title="eval accuracy with its band", margin=L.MarginChartContent(series=[
                L.MarginChartContent.Series(value="eval/accuracy", lower="eval/accuracy_lower",
                                            upper="eval/accuracy_upper")]))]),
        L.Category(title="sweep", closed=True, chart=[
            L.Chart(title="sweep losses", multiline=L.MultilineChartContent(tag=["sweep_loss"]))])])
    rng = np.random.default_rng(5)
    with tf.summary.FileWriter(os.path.join(logdir, LAYOUT_RUN)) as writer:
        writer.add_summary(custom_scalar.pb(layout), 0)
        for step in range(0, 60, 5):
            acc = 0.5 + 0.45 * (1 - np.exp(-step / 20.0)) + rng.normal(0, 0.01)
            writer.add_summary(_scalar(tf, "eval/accuracy", acc), step)
            writer.add_summary(_scalar(tf, "eval/accuracy_lower", acc - 0.05), step)
            writer.add_summary(_scalar(tf, "eval/accuracy_upper", min(1.0, acc + 0.05)), step)


def write_sweep(tf, logdir):
    """An hparams sweep: the experiment config and one session per trial with its losses."""
    from lens.plugins import hparams as hp

    config = hp.hparams_config_pb(
        [hp.HParam("lr", hp.RealInterval(0.01, 0.2), display_name="learning rate"),
         hp.HParam("optimizer", hp.Discrete(["sgd", "adam", "momentum"])),
         hp.HParam("units", hp.IntInterval(8, 64))],
        [hp.Metric("sweep_loss", display_name="loss"),
         hp.Metric("sweep_accuracy", display_name="accuracy")], time_created_secs=1700000000.0)
    with tf.summary.FileWriter(os.path.join(logdir, SWEEP)) as writer:
        writer.add_summary(config, 0)
    names = [SWEEP]
    for i, trial in enumerate(TRIALS):
        name = "%s/trial_%d" % (SWEEP, i)
        rate = trial["lr"] * (1.5 if trial["optimizer"] != "sgd" else 1.0) * trial["units"] / 32.0
        with tf.summary.FileWriter(os.path.join(logdir, name)) as writer:
            writer.add_summary(hp.hparams_pb(trial, trial_id="trial_%d" % i,
                                             start_time_secs=1700000000.0 + i), 0)
            for step in range(0, 40, 4):
                loss = 0.1 + np.exp(-rate * step / 2.0)
                writer.add_summary(_scalar(tf, "sweep_loss", loss), step)
                writer.add_summary(_scalar(tf, "sweep_accuracy", 1.0 - loss / 2.0), step)
            writer.add_summary(hp.session_end_pb(1, end_time_secs=1700000100.0 + i), 40)
        names.append(name)
    return names


def write_runs(tf, logdir):
    """Write every plugin run; returns the run names (relative to logdir)."""
    write_pr_run(tf, logdir)
    write_layout_run(tf, logdir)
    return [PR_RUN, LAYOUT_RUN] + write_sweep(tf, logdir)
