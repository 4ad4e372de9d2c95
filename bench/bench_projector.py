"""Projector benchmarks: the first answers for a 10k x 128 embedding on a fresh board (goal: its
/tensor and a 3D PCA of it in < 1 s), from a lens checkpoint; and the first /tensor of the same
embedding as a float32 tensor_path file, lens vs TensorBoard 2.21's projector (in-process); and,
in chromium, drawing the 10k points of a 2D view as their sprites (one canvas over the plot)."""

import os
import statistics
import tempfile
import time

import numpy as np

ROWS, DIMS = 10000, 128
SPRITE_PX = 8


def _write_sprite(path, rows):
    """A sprite sheet of `rows` SPRITE_PX tiles, each a flat colour."""
    from PIL import Image

    per_row = int(np.ceil(np.sqrt(rows)))
    tiles = np.random.default_rng(1).integers(0, 255, size=(per_row, per_row, 3), dtype=np.uint8)
    sheet = np.repeat(np.repeat(tiles, SPRITE_PX, axis=0), SPRITE_PX, axis=1)
    Image.fromarray(sheet).save(path)


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
    _write_sprite(os.path.join(run, "sprite.png"), rows)
    config = projector.ProjectorConfig()
    emb = config.embeddings.add(tensor_name="emb")
    emb.sprite.image_path = "sprite.png"
    emb.sprite.single_image_dim.extend([SPRITE_PX, SPRITE_PX])
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
        sprite_ms = _sprite_draw_ms(root, rows, repeats)
    return [{"name": "projector: %d sprites drawn as the points of a 2D view" % rows,
             "lens": sprite_ms, "other": None, "other_name": "", "unit": "ms",
             "note": "chromium (software WebGL), median of %d redraws; keeps zoom/pan fluid" % repeats},
            {"name": "projector first /tensor + 3D PCA, %d x %d checkpoint" % (rows, DIMS), "lens": lens_ckpt,
             "other": None, "other_name": "TensorBoard computes PCA in the browser", "unit": "ms",
             "note": "goal < 1000 ms"},
            {"name": "projector first /tensor, %d x %d tensor_path file" % (rows, DIMS), "lens": lens_file,
             "other": tb_file, "other_name": "TensorBoard 2.21 plugin", "unit": "ms",
             "note": "at least as fast as TensorBoard"}]


# Redraw the sprite layer `repeats` times; the median in ms.
_SPRITE_DRAW = """async (repeats) => {
    const gd = document.querySelector('.proj-plot');
    const pts = gd.data[0].x.map((x, i) => [x, gd.data[0].y[i]]);
    const img = new Image();
    img.src = '/data/plugin/projector/sprite_image?run=run&name=emb';
    await img.decode();
    const times = [];
    for (let k = 0; k < repeats; k++) {
        const t0 = performance.now();
        window.lensProjSprites.draw(gd, pts, img, [8, 8]);
        times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return [times[Math.floor(times.length / 2)], Number(gd.dataset.sprites)];
}"""


def _sprite_draw_ms(root, rows, repeats):
    """Open the run's 2D view in chromium and time the sprite layer's redraw."""
    import logging
    import threading

    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    provider = DataProvider(root, reload_interval=0)
    provider.reload()
    server = make_server("127.0.0.1", 0, create_app(provider), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    args = ["--no-sandbox", "--no-first-run", "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader"]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"http://127.0.0.1:{server.server_port}/#tab=projector&projector.run=run"
                      "&projector.tensor=emb&projector.dims=2&autoReload=0")
            page.wait_for_selector(".proj-plot[data-sprites]:not([data-sprites='0'])",
                                   timeout=120000)
            ms, drawn = page.evaluate(_SPRITE_DRAW, repeats)
            assert drawn == rows, (drawn, rows)
            browser.close()
    finally:
        server.shutdown()
    return ms
