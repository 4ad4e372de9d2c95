"""Graphs dashboard additions in chromium: the minimap, the selected node restored from the
URL, "Remove from / Add to main graph", uploading a GraphDef (.pb/.pbtxt) without a logdir,
and dark-theme graph colours."""

import logging

import pytest
from google.protobuf import text_format

from conftest import wait_until
from tests.board.graph_fixtures import GraphProvider, mlp_graph
from tests.board.graph_server import harness_app, serve


@pytest.fixture(scope="module")
def graph_url():
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with serve(harness_app(GraphProvider({"train": mlp_graph()}, {}))) as url:
        yield url


def open_run(page, base, extra=""):
    page.goto("about:blank")  # a new document: only the hash differing would not reload
    page.goto(f"{base}/graph_harness/index.html#graph.run=train{extra}")
    page.wait_for_selector("svg.lg-svg[data-drawn]", timeout=20000)


def transform(page):
    return page.get_attribute(".lg-viewport", "transform")


def frame(page):
    """The minimap's view rectangle as (x, y, w, h) in page pixels."""
    return page.eval_on_selector(".lg-minimap-view", """e => {
        const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }""")


def test_minimap_follows_and_moves_the_view(page, graph_url):
    open_run(page, graph_url)
    assert page.is_visible(".lg-minimap")
    assert page.get_attribute(".lg-minimap use", "href") == "#lg-viewport-main"
    # After "fit" the whole graph is in view: the frame covers the minimap's drawing.
    box = page.eval_on_selector(".lg-minimap-svg", """e => {
        const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }""")
    x, y, w, h = frame(page)
    assert w > 0.5 * box[2] or h > 0.5 * box[3]
    # Zooming in on the canvas shrinks the frame.
    canvas = page.eval_on_selector(".lg-canvas", """e => {
        const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }""")
    page.mouse.move(*canvas)
    page.mouse.wheel(0, -600)
    assert wait_until(lambda: frame(page)[2] < w * 0.6)
    # A click in the minimap centres the view (and the frame) on that point.
    target = (box[0] + box[2] * 0.3, box[1] + box[3] * 0.6)
    before = transform(page)
    page.mouse.click(*target)
    assert transform(page) != before
    fx, fy, fw, fh = frame(page)
    assert abs(fx + fw / 2 - target[0]) < 2 and abs(fy + fh / 2 - target[1]) < 2


def test_selected_node_is_restored_from_the_url(page, graph_url):
    open_run(page, graph_url, "&graph.node=layer1/MatMul")
    node = ".lg-node[data-path='layer1/MatMul']"
    page.wait_for_selector(node)   # its scope was expanded to show it
    assert page.get_attribute(f"{node} > .lg-shape", "stroke") == "#e8710a"
    assert wait_until(lambda: page.text_content(".lg-info-name") == "layer1/MatMul")
    open_run(page, graph_url, "&graph.node=no/such/node")
    assert wait_until(lambda: "no/such/node" in (page.text_content(".lg-status") or ""))


def test_remove_from_and_add_to_main_graph(page, graph_url):
    open_run(page, graph_url, "&graph.node=loss")
    node = ".lg-node[data-path='loss']"
    assert wait_until(lambda: page.locator(".lg-extract-toggle").count() == 1)
    assert page.text_content(".lg-extract-toggle") == "Remove from main graph"
    assert page.locator(f"{node}.lg-extracted").count() == 0
    page.click(".lg-extract-toggle")
    assert wait_until(lambda: page.locator(f"{node}.lg-extracted").count() == 1)
    assert wait_until(lambda: page.text_content(".lg-extract-toggle") == "Add to main graph")
    page.click(".lg-extract-toggle")
    assert wait_until(lambda: page.locator(f"{node}.lg-extracted").count() == 0)


def test_upload_a_graphdef_without_a_logdir_graph(page, tbx_server, tmp_path):
    from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2

    data = mlp_graph().SerializeToString()
    text = text_format.MessageToString(tb_graph_pb2.GraphDef.FromString(data))
    (tmp_path / "model.pb").write_bytes(data)
    (tmp_path / "model.pbtxt").write_text(text)
    (tmp_path / "junk.pb").write_bytes(b"\xff\xfe not a graph")
    page.goto(f"{tbx_server}/#tab=graphs")
    page.wait_for_selector(".lg-upload")
    for name in ("model.pbtxt", "model.pb"):
        page.set_input_files(".lg-upload-file", str(tmp_path / name))
        assert wait_until(lambda: page.locator(".lg-node[data-path='layer1']").count() == 1)
        assert page.eval_on_selector(".lg-run", "e => e.selectedOptions[0].textContent") == \
            "Uploaded: " + name
        # The info card and search work on the uploaded graph too.
        page.click(".lg-node[data-path='loss']")
        assert wait_until(lambda: page.text_content(".lg-info-name") == "loss")
        page.evaluate("document.querySelector('.lg-svg').removeAttribute('data-drawn')")
    page.set_input_files(".lg-upload-file", str(tmp_path / "junk.pb"))
    assert wait_until(lambda: "neither a binary GraphDef" in (page.text_content(".lg-status") or ""))
    assert "Could not show junk.pb" in page.text_content(".lg-status")
    # The dark theme restyles the canvas and the op nodes.
    page.click("#settings-toggle")
    page.select_option("#settings-panel .setting-theme", "dark")
    page.click(".lg-node[data-path='loss'] .lg-toggle")
    op = ".lg-op > .lg-shape[fill='#ffffff']"
    page.wait_for_selector(op)
    assert page.eval_on_selector(op, "e => getComputedStyle(e).fill") == "rgb(60, 64, 67)"
    assert page.eval_on_selector(".lg-canvas", "e => getComputedStyle(e).backgroundColor") == \
        "rgb(32, 33, 36)"
    assert page.errors == []
