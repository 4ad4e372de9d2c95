"""Sample runs for the plugin dashboards (PR curves, custom scalars, hparams, projector, mesh),
written into the bundled sample logs by sample_logs.py. Seeded, so the files are the same on every run."""

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
    write_projector_run(tf, logdir)
    write_mesh_run(tf, logdir)
    return [PR_RUN, LAYOUT_RUN, PROJECTOR_RUN, MESH_RUN] + write_sweep(tf, logdir)


PROJECTOR_RUN = "embeddings"
MESH_RUN = "mesh"
_SHAPES = ("circle", "square", "triangle")


def write_projector_run(tf, logdir):
    """A 60 x 16 embedding of three clusters in a lens checkpoint, with a two-column metadata file
    (name, shape) and a sprite of 8 x 8 thumbnails, visible in the Projector tab."""
    from lens.plugins import projector

    run = os.path.join(logdir, PROJECTOR_RUN)
    rng = np.random.default_rng(11)
    centres = rng.normal(0, 3, (len(_SHAPES), 16))
    kinds = np.arange(60) % len(_SHAPES)
    points = (centres[kinds] + rng.normal(0, 1, (60, 16))).astype(np.float32)
    os.makedirs(run, exist_ok=True)
    with tf.Graph().as_default():
        tf.Variable(points, name="shape_embedding")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, os.path.join(run, "model.ckpt"), global_step=100, write_meta_graph=False)
    # Relative paths: the sample logs are copied into place and installed with the package.
    with open(os.path.join(run, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "model.ckpt-100"\nall_model_checkpoint_paths: "model.ckpt-100"\n')
    with open(os.path.join(run, "metadata.tsv"), "w") as f:
        f.write("name\tshape\n" + "".join("%s_%d\t%s\n" % (_SHAPES[k], i, _SHAPES[k]) for i, k in enumerate(kinds)))
    _write_sprite(os.path.join(run, "sprite.png"), kinds)
    config = projector.ProjectorConfig()
    info = config.embeddings.add(tensor_name="shape_embedding", metadata_path="metadata.tsv")
    info.sprite.image_path = "sprite.png"
    info.sprite.single_image_dim.extend([8, 8])
    with tf.summary.FileWriter(run) as writer:
        projector.visualize_embeddings(writer, config)
        writer.add_summary(_scalar(tf, "embedding/norm", float(np.linalg.norm(points, axis=1).mean())), 100)


def _write_sprite(path, kinds):
    """8 x 8 thumbnails, 8 a row: a filled circle, square or triangle per point."""
    from PIL import Image

    yy, xx = np.mgrid[0:8, 0:8]
    masks = [(yy - 3.5) ** 2 + (xx - 3.5) ** 2 < 10, (yy > 0) & (yy < 7) & (xx > 0) & (xx < 7),
             (yy >= 1) & (np.abs(xx - 3.5) <= (yy - 1) * 0.6)]
    colours = np.array([[214, 39, 40], [31, 119, 180], [44, 160, 44]], np.uint8)
    side = 8
    rows = int(np.ceil(len(kinds) / side))
    sheet = np.full((rows * 8, side * 8, 3), 255, np.uint8)
    for i, k in enumerate(kinds):
        r, c = divmod(i, side)
        sheet[r * 8:(r + 1) * 8, c * 8:(c + 1) * 8][masks[k]] = colours[k]
    Image.fromarray(sheet).save(path, format="PNG")


def write_mesh_run(tf, logdir):
    """A coloured octahedron that grows over three steps, and a point cloud, for the Mesh tab."""
    from lens.plugins import mesh

    vertices = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.float32)
    faces = np.array([[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]],
                     np.int32)
    colours = ((vertices + 1) * 127.5).astype(np.uint8)
    cloud = np.random.default_rng(2).normal(0, 1, (1, 200, 3)).astype(np.float32)
    with tf.summary.FileWriter(os.path.join(logdir, MESH_RUN)) as writer:
        for step in range(3):
            writer.add_summary(mesh.pb("octahedron", vertices[None] * (1 + 0.5 * step), faces[None], colours[None],
                                       description="an octahedron coloured by position"), step)
        writer.add_summary(mesh.pb("point_cloud", cloud, colors=((cloud.clip(-2, 2) + 2) * 63).astype(np.uint8)), 0)
