"""Exported HTML (nbconvert) of an executed notebook, opened in chromium: the inline graph is
drawn by the board's graph view and the plotly charts render, all offline."""

import io
import json
import math
import re
import threading
import urllib.error
import urllib.request

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from PIL import Image

from lens.board.app import STATIC_DIR
from lens.board.graph_model import GraphModel
from lens.notebook import charts, graph_view
from tests.notebook.conftest import errors_of, live_kernel

GRAPH_CELL = """\
import numpy as np
import lens as tf
import lens.notebook
g = tf.Graph()
with g.as_default():
    x = tf.placeholder(tf.float32, [None, 8], name="x")
    with tf.name_scope("encoder"):
        w = tf.constant(np.ones((8, 8), np.float32), name="kernel")
        h = tf.nn.relu(tf.matmul(x, w), name="act")
    out = tf.reduce_mean(h, name="score")
lens.notebook.show_graph(g)
"""
CHART_CELL = """\
import os
sw = tf.summary.FileWriter(os.path.join(LOGDIR, "run"))
with tf.Graph().as_default():
    v = tf.placeholder(tf.float32, [])
    s = tf.summary.scalar("value", v)
    hs = tf.summary.histogram("spread", tf.random_normal([100]) * v)
    with tf.Session() as sess:
        for step in range(8):
            a, b = sess.run([s, hs], {v: float(step)})
            sw.add_summary(a, step)
            sw.add_summary(b, step)
sw.close()
lens.notebook.show_scalars(LOGDIR)
lens.notebook.show_histograms(LOGDIR)
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The notebook executed on a kernel, then exported by nbconvert to one HTML file."""
    from nbconvert import HTMLExporter

    root = tmp_path_factory.mktemp("export")
    nb = new_notebook(cells=[new_code_cell(GRAPH_CELL),
                             new_code_cell(f"LOGDIR = {str(root / 'logs')!r}\n" + CHART_CELL),
                             new_code_cell("%load_ext lens\n%lens --logdir $LOGDIR")])
    with live_kernel(nb, root):
        url = re.search(r'src="(http[^"]+)"', nb.cells[2].outputs[-1].data["text/html"]).group(1)
        with urllib.request.urlopen(url + "data/runs", timeout=5) as response:
            assert json.loads(response.read()) == ["run"]
    assert errors_of(nb) == []
    body, _ = HTMLExporter().from_notebook_node(nb)
    path = root / "exported.html"
    path.write_text(body, encoding="utf-8")
    return path, url  # url: the board the kernel served, shut down with it


@pytest.fixture(scope="module")
def page(exported, chromium):
    path, _ = exported
    context = chromium.new_context(viewport={"width": 1200, "height": 1400})
    # No network at all: everything the page draws with must be inside the file.
    context.route("http*://**", lambda route: route.abort())
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda err: pg.errors.append(str(err)))
    pg.goto(path.as_uri())
    yield pg
    context.close()


def graph_frame(page):
    handle = page.wait_for_selector("iframe.lens-graph-frame")
    frame = handle.content_frame()
    frame.wait_for_selector(".lg-node", timeout=15000)
    return handle, frame


def expand(frame, scope, inner):
    """Open a scope (if it is closed) and wait for one of its ops to be drawn."""
    if frame.locator(f'.lg-node[data-path="{inner}"]').count() == 0:
        frame.dispatch_event(f'.lg-node[data-path="{scope}"] .lg-toggle', "click")
    frame.wait_for_selector(f'.lg-node[data-path="{inner}"]')


def test_exported_html_draws_the_graph(page):
    handle, frame = graph_frame(page)
    drawn = frame.eval_on_selector_all(".lg-node", "els => els.map(e => e.dataset.path)")
    assert set(drawn) >= {"x", "encoder", "score"}
    expand(frame, "encoder", "encoder/act")
    texts = frame.eval_on_selector_all(".lg-node text", "els => els.map(e => e.textContent)")
    assert {"MatMul", "act"} <= set(texts)  # the small constant is drawn inside MatMul
    assert frame.locator(".lg-edge").count() >= 3
    # The picture is a drawing, not a blank frame: many non-background pixels.
    image = Image.open(io.BytesIO(handle.screenshot())).convert("L")
    pixels = np.asarray(image)
    assert (pixels < 200).mean() > 0.01, "the inline graph looks empty"
    assert page.errors == []


def test_info_card_and_trace_answer_like_the_board(page, tmp_path):
    _, frame = graph_frame(page)
    expand(frame, "encoder", "encoder/act")
    frame.dispatch_event('.lg-node[data-path="encoder/act"]', "click")
    frame.wait_for_selector('.lg-info[data-path="encoder/act"]')
    card = frame.inner_text(".lg-info")
    assert "Operation: Relu" in card and "encoder/MatMul" in card
    # Trace inputs computed in the page equal the board's model for every node.
    import lens as tf

    g = tf.Graph()
    exec(compile(GRAPH_CELL.replace("lens.notebook.show_graph(g)", ""), "cell", "exec"),
         {"tf": tf, "np": np, "__name__": "cell"} | {"g": g})
    model = GraphModel(graph_view.strip_consts(graph_view.as_graph_def(g)))
    for path in [p for p in model.nodes if p]:
        got = frame.evaluate("p => window.lensGraph.current.ctx.fetchJSON("
                             "'/data/plugin/graphs/trace', {name: p})", path)
        assert got["inputs"] == model.trace_inputs(path), path


def test_exported_html_draws_the_charts(page):
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=15000)
    assert page.locator(".js-plotly-plot").count() == 2
    titles = page.eval_on_selector_all(".js-plotly-plot .gtitle",
                                       "els => els.map(e => e.textContent)")
    assert titles == ["value", "spread (run)"]
    assert page.errors == []


def test_the_board_stopped_with_the_kernel(exported):
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(exported[1] + "data/runs", timeout=2)


def test_python_smoothing_equals_the_boards_javascript(chromium):
    values = [0.3, 1.2, math.nan, -0.7, 2.5, math.inf, 1.1, 0.0, 4.2]
    context = chromium.new_context()
    pg = context.new_page()
    for script in ("settings.js", "charts.js"):  # charts.js reads the shared settings
        pg.add_script_tag(path=str(STATIC_DIR / "js" / script))
    for weight in (0.0, 0.6, 0.95, 1.0):
        js = pg.evaluate("([v, w]) => window.lensCharts.smooth(v, w)", [values, weight])
        py = charts.smooth(values, weight)
        assert len(js) == len(py)
        for a, b in zip(js, py):
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)
    context.close()


def test_a_notebook_page_on_localhost_frames_the_board(chromium, tmp_path):
    """The iframe %lens outputs really shows the board inside a page of another origin."""
    from werkzeug.serving import make_server

    from lens.notebook import boards

    board = boards.start(tmp_path, reload_interval=0)
    host_page = boards.frame_html(board.port, 500).encode()

    def host(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/html")])
        return [host_page]

    server = make_server("127.0.0.1", 0, host, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = chromium.new_context()
    try:
        pg = context.new_page()
        pg.goto(f"http://localhost:{server.port}/", wait_until="domcontentloaded")  # another origin
        frame = pg.wait_for_selector("iframe.lens-board-frame").content_frame()
        frame.wait_for_selector("#topbar .brand", timeout=10000)
        assert frame.url.startswith(board.url)
    finally:
        context.close()
        server.shutdown()
        board.stop()


def test_upload_needs_a_server_so_it_is_hidden_inline(page):
    _, frame = graph_frame(page)
    upload = frame.locator(".lg-upload")
    assert upload.count() == 0 or not upload.first.is_visible()
