"""Projector benchmarks: the first answers for a 10k x 128 embedding on a fresh board (goal: its
/tensor and a 3D PCA of it in < 1 s), from a lens checkpoint; and the first /tensor of the same
embedding as a float32 tensor_path file, lens vs TensorBoard 2.21's projector (in-process)."""

import os
import statistics
import tempfile
import time

import numpy as np

ROWS, DIMS = 10000, 128


def write_logdir(root, rows):
    """run/: a lens checkpoint holding `emb` and a binary tensor file of the same values."""
    import lens as tf
    from lens.plugins import projector

    run = os.path.join(root, "run")
    os.makedirs(run)
    values = np.random.default_rng(0).normal(size=(rows, DIMS)).astype(np.float32)
    with tf.Graph().as_default():
        tf.Variable(values, name="emb")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, os.path.join(run, "model.ckpt"), write_meta_graph=False)
    values.tofile(os.path.join(run, "emb.bin"))
    config = projector.ProjectorConfig()
    config.embeddings.add(tensor_name="emb")
    config.embeddings.add(tensor_name="file", tensor_path="emb.bin", tensor_shape=[rows, DIMS])
    with tf.summary.FileWriter(run) as writer:
        projector.visualize_embeddings(writer, config)
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]), 0)


def _lens_client(root):
    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    provider = DataProvider(root, reload_interval=0)
    provider.reload()
    return create_app(provider).test_client()


def _tb_client(root):
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "board"))
    from tb_parity_harness import tensorboard_wsgi
    from werkzeug.test import Client
    return Client(tensorboard_wsgi(root))


def _first_ms(make_client, urls, repeats, check):
    """Median time of the first answers to urls on a fresh client (config, reads, caches cold)."""
    times = []
    for _ in range(repeats):
        client = make_client()
        t0 = time.perf_counter()
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, response.get_data()[:200]
            check(url, response.get_data())
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run(quick=False):
    rows = 1000 if quick else ROWS
    repeats = 2 if quick else 5
    nbytes = rows * DIMS * 4

    def check(url, body):
        if "/tensor" in url:
            assert len(body) == nbytes

    with tempfile.TemporaryDirectory() as root:
        write_logdir(root, rows)
        ckpt = ["/data/plugin/projector/tensor?run=run&name=emb",
                "/data/plugin/projector/projection?run=run&name=emb&method=pca&dims=3"]
        lens_ckpt = _first_ms(lambda: _lens_client(root), ckpt, repeats, check)
        files = ["/data/plugin/projector/tensor?run=run&name=file"]
        lens_file = _first_ms(lambda: _lens_client(root), files, repeats, check)
        try:
            tb_file = _first_ms(lambda: _tb_client(root), files, repeats, check)
        except ImportError:
            tb_file = None
    return [{"name": "projector first /tensor + 3D PCA, %d x %d checkpoint" % (rows, DIMS), "lens": lens_ckpt,
             "other": None, "other_name": "TensorBoard computes PCA in the browser", "unit": "ms",
             "note": "goal < 1000 ms"},
            {"name": "projector first /tensor, %d x %d tensor_path file" % (rows, DIMS), "lens": lens_file,
             "other": tb_file, "other_name": "TensorBoard 2.21 plugin", "unit": "ms",
             "note": "at least as fast as TensorBoard"}]
