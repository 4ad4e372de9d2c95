"""The Graphs dashboard in Debian's chromium against a real board server (playwright)."""

import pytest

from tests.board.graph_fixtures import (GraphBuilder, GraphProvider, generated_graph,
                                        mlp_graph, run_metadata_for)
from tests.board.graph_server import harness_app, open_run, page, serve  # noqa: F401 (page is a fixture)

XSS = "<img src=x onerror=alert(1)>"


def _small_graph():
    """Below the extraction threshold: a visible control edge and a hostile node name."""
    b = GraphBuilder()
    b.op("a", "Placeholder", shapes=((2, 3),))
    b.op("c", "Placeholder", shapes=((),))
    b.op("b", "Neg", ["a", "^c"], ((2, 3),))
    b.op(f"scope/{XSS}", "Neg", ["b"], ((2, 3),))
    return b.graph


@pytest.fixture(scope="module")
def base_url():
    graph = mlp_graph()
    provider = GraphProvider(
        {"train": graph, "small": _small_graph(), "big": generated_graph(10000)},
        {"train": {"step_1": run_metadata_for(graph)}})
    with serve(harness_app(provider)) as url:
        yield url


def drawn(page):
    return page.eval_on_selector_all(".lg-node", "els => els.map(e => e.dataset.path)")


def fill_of(page, path):
    return page.get_attribute(f".lg-node[data-path='{path}'] > .lg-shape", "fill")


def test_graph_shows_collapsed_scopes_and_expanding_one_shows_its_children(page, base_url):
    open_run(page, base_url, "train")
    nodes = drawn(page)
    assert {"x", "labels", "layer1", "layer2", "loss", "gradients"} <= set(nodes)
    assert "layer1/MatMul" not in nodes
    assert page.locator(".lg-expanded").count() == 0
    page.click(".lg-toggle[data-path='layer1']")
    page.wait_for_selector(".lg-node[data-path='layer1/MatMul']")
    nodes = drawn(page)
    assert {"layer1/weights", "layer1/biases", "layer1/add", "layer1/Relu"} <= set(nodes)
    assert "layer2/MatMul" not in nodes
    # Collapsing hides the children again.
    page.click(".lg-toggle[data-path='layer1']")
    page.wait_for_selector(".lg-node[data-path='layer1/MatMul']", state="detached")
    # Double-click expands too.
    page.dblclick(".lg-node[data-path='layer2'] > .lg-shape")
    page.wait_for_selector(".lg-node[data-path='layer2/MatMul']")


def test_colour_by_device_changes_fills_and_shows_a_legend(page, base_url):
    open_run(page, base_url, "train")
    assert fill_of(page, "x") == "#ffffff"
    structure_fill = fill_of(page, "layer1")
    page.select_option(".lg-color", "device")
    page.wait_for_selector(".lg-legend[data-mode='device']")
    assert fill_of(page, "x") not in ("#ffffff", structure_fill)
    legend = page.inner_text(".lg-legend")
    assert "/job:localhost/replica:0/task:0/device:CPU:0" in legend
    assert "/job:localhost/replica:0/task:0/device:GPU:0" in legend
    # layer1 is mostly GPU with two CPU ops: its fill is a proportion bar of two colours.
    fill = fill_of(page, "layer1")
    assert fill.startswith("url(#lg-dev-")
    stops = page.eval_on_selector(fill[4:-1], "g => [...g.querySelectorAll('stop')]"
                                  ".map(s => [s.getAttribute('offset'), s.getAttribute('stop-color')])")
    assert len({c for _, c in stops}) == 2
    assert any(abs(float(o) - 2 / 13) < 1e-6 or abs(float(o) - 11 / 13) < 1e-6 for o, _ in stops)


def test_node_info_panel_lists_inputs_with_shapes(page, base_url):
    open_run(page, base_url, "train")
    page.click(".lg-toggle[data-path='layer1']")
    page.click(".lg-node[data-path='layer1/MatMul'] > .lg-shape")
    page.wait_for_selector(".lg-info[data-path='layer1/MatMul'] .lg-inputs li")
    inputs = page.eval_on_selector_all(".lg-info .lg-inputs li", "els => els.map(e => e.textContent)")
    assert inputs[0].startswith("x") and "?×784" in inputs[0]
    assert inputs[1].startswith("layer1/weights/read") and "784×128" in inputs[1]
    assert "Operation: MatMul" in page.inner_text(".lg-info")
    assert "GPU:0" in page.inner_text(".lg-info .lg-info-device")
    # Clicking an input selects that node (expanding its scope).
    page.click(".lg-info .lg-inputs li .lg-link >> nth=1")
    page.wait_for_selector(".lg-info[data-path='layer1/weights/read']")
    assert page.get_attribute(".lg-node[data-path='layer1/weights/read'] > .lg-shape",
                              "stroke") == "#e8710a"


def test_regex_search_expands_to_and_selects_a_node(page, base_url):
    open_run(page, base_url, "train")
    page.fill(".lg-search", "add_7$")
    page.press(".lg-search", "Enter")
    page.wait_for_selector(".lg-node[data-path='gradients/add_7']")
    assert page.get_attribute(".lg-node[data-path='gradients/add_7'] > .lg-shape",
                              "stroke") == "#e8710a"
    assert {"gradients", "gradients/add_[1-12]"} <= set(
        page.eval_on_selector_all(".lg-expanded", "els => els.map(e => e.dataset.path)"))
    assert page.inner_text(".lg-hits") == "gradients/add_7"
    page.fill(".lg-search", "([")
    page.wait_for_selector(".lg-search-error:has-text('Bad regex')")


def test_series_is_drawn_as_one_node(page, base_url):
    open_run(page, base_url, "train")
    page.click(".lg-toggle[data-path='gradients']")
    page.wait_for_selector(".lg-node.lg-series[data-path='gradients/add_[1-12]']")
    assert "gradients/add_3" not in drawn(page)


def test_compute_time_from_session_runs(page, base_url):
    open_run(page, base_url, "train")
    page.select_option(".lg-session-runs", "step_1")
    page.select_option(".lg-color", "compute")
    page.wait_for_selector(".lg-legend[data-mode='compute'] .lg-gradient")
    fills = {p: fill_of(page, p) for p in ("x", "layer1", "layer2", "loss", "gradients")}
    assert len(set(fills.values())) >= 3 and all(f.startswith("rgb(") for f in fills.values())
    page.click(".lg-node[data-path='layer2'] > .lg-shape")
    page.wait_for_selector(".lg-info .lg-compute")
    assert "Compute time:" in page.inner_text(".lg-info .lg-compute")
    assert "Memory:" in page.inner_text(".lg-info .lg-memory")


def test_trace_inputs_highlights_ancestors(page, base_url):
    open_run(page, base_url, "train")
    page.click(".lg-node[data-path='loss'] > .lg-shape")
    page.check(".lg-trace")
    page.wait_for_selector(".lg-node[data-path='gradients'][opacity='0.35']")
    for path in ("x", "labels", "layer1", "layer2", "loss"):
        assert page.get_attribute(f".lg-node[data-path='{path}']", "opacity") is None


def test_control_edges_dotted_data_edges_solid_and_names_escaped(page, base_url):
    open_run(page, base_url, "small")
    ctrl = page.locator("path.lg-edge[data-src='c'][data-dst='b']")
    data = page.locator("path.lg-edge[data-src='a'][data-dst='b']")
    assert ctrl.get_attribute("stroke-dasharray") == "2,3"
    assert data.get_attribute("stroke-dasharray") is None
    assert "2×3" in page.text_content("svg .lg-edges")
    page.click(".lg-toggle[data-path='scope']")
    page.wait_for_selector(f".lg-node[data-path='scope/{XSS}']")
    assert page.locator("img").count() == 0
    assert XSS in page.text_content("svg")


def test_generated_10000_op_graph_opens_collapsed(page, base_url):
    open_run(page, base_url, "big")
    nodes = drawn(page)
    assert len(nodes) < 10 and "block_[0-49]" in nodes
    assert page.locator(".lg-expanded").count() == 0
    assert page.evaluate("window.lensGraph.current.h.num_ops") == 10000


def test_download_svg_and_png(page, base_url):
    open_run(page, base_url, "train")
    with page.expect_download() as svg_dl:
        page.click(".lg-dl-svg")
    text = open(svg_dl.value.path(), encoding="utf-8").read()
    assert text.startswith("<svg") and 'data-path="layer1"' in text
    assert svg_dl.value.suggested_filename == "train.svg"
    with page.expect_download() as png_dl:
        page.click(".lg-dl-png")
    with open(png_dl.value.path(), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_zoom_and_fit_change_the_view(page, base_url):
    open_run(page, base_url, "train")
    before = page.get_attribute(".lg-viewport", "transform")
    page.mouse.move(500, 400)
    page.mouse.wheel(0, -400)
    zoomed = page.get_attribute(".lg-viewport", "transform")
    assert zoomed != before
    page.click(".lg-fit")
    assert page.get_attribute(".lg-viewport", "transform") == before


def _path_end(page, selector, which):
    """First or last point of an SVG path, in the viewport's coordinates."""
    return page.eval_on_selector(selector, f"""p => {{
        const pt = p.getPointAtLength({'0' if which == 'first' else 'p.getTotalLength()'});
        return [pt.x, pt.y]; }}""")


def _box(page, path):
    return page.evaluate(f"window.lensGraph.current.pos[{path!r}]")


def test_edges_into_an_expanded_scope_reach_the_inner_node(page, base_url):
    open_run(page, base_url, "train")
    # Collapsed: the x -> layer1 edge ends on layer1 itself; no bridge exists.
    assert page.locator("path.lg-bridge").count() == 0
    page.click(".lg-toggle[data-path='layer1']")
    page.wait_for_selector(".lg-node[data-path='layer1/MatMul']")
    bridge = "path.lg-bridge[data-src='x'][data-dst='layer1/MatMul']"
    assert page.locator(bridge).count() == 1
    x, y = _path_end(page, bridge, "last")
    box = _box(page, "layer1/MatMul")
    assert abs(x - (box["x"] + box["w"] / 2)) < 0.5 and abs(y - box["y"]) < 0.5
    # The scope-level edge hands its arrow to the bridge; it stops on layer1's border.
    outer = "path.lg-edge:not(.lg-bridge)[data-src='x'][data-dst='layer1']"
    assert page.get_attribute(outer, "marker-end") is None
    assert page.get_attribute(bridge, "marker-end") == "url(#lg-arrow)"
    assert _path_end(page, outer, "last") == _path_end(page, bridge, "first")
    # Edges leaving the scope start at the inner op they come from.
    out = "path.lg-bridge[data-src='layer1/Relu'][data-dst='layer2']"
    assert page.locator(out).count() == 1
    relu = _box(page, "layer1/Relu")
    x, y = _path_end(page, out, "first")
    assert abs(x - (relu["x"] + relu["w"] / 2)) < 0.5 and abs(y - relu["y"] - relu["h"]) < 0.5
    # A series end inside an expanded scope resolves to the collapsed series node.
    page.click(".lg-fit")
    page.click(".lg-toggle[data-path='gradients']")
    page.wait_for_selector("path.lg-bridge[data-src='loss'][data-dst='gradients/add_[1-12]']",
                           state="attached")
    assert page.locator("path.lg-bridge[data-src='loss'][data-dst='gradients/Fill']").count() == 1


def test_expanding_keeps_the_clicked_scope_in_place(page, base_url):
    open_run(page, base_url, "train")
    # Expanded, layer1 is wider than the root's other nodes: the layout moves its left edge.
    before = page.eval_on_selector(".lg-node[data-path='layer1'] > .lg-shape",
                                   "e => { const r = e.getBoundingClientRect(); return [r.x, r.y]; }")
    page.click(".lg-toggle[data-path='layer1']")
    page.wait_for_selector(".lg-node[data-path='layer1/MatMul']")
    after = page.eval_on_selector(".lg-node[data-path='layer1'] > .lg-shape",
                                  "e => { const r = e.getBoundingClientRect(); return [r.x, r.y]; }")
    assert abs(before[0] - after[0]) < 1 and abs(before[1] - after[1]) < 1
    # Collapsing again puts it back at the same place too.
    page.click(".lg-toggle[data-path='layer1']")
    page.wait_for_selector(".lg-node[data-path='layer1/MatMul']", state="detached")
    again = page.eval_on_selector(".lg-node[data-path='layer1'] > .lg-shape",
                                  "e => { const r = e.getBoundingClientRect(); return [r.x, r.y]; }")
    assert abs(before[0] - again[0]) < 1 and abs(before[1] - again[1]) < 1
