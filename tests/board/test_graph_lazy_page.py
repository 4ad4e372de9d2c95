"""The Graphs page holds only the scopes it opened (graph_scopes.js) in chromium: expanding,
searching and tracing fetch what they draw, with the right names and edges."""

import pytest

from conftest import wait_until
from tests.board.graph_fixtures import GraphProvider, generated_graph, mlp_graph
from tests.board.graph_server import harness_app, open_run, page, serve  # noqa: F401 (page is a fixture)


@pytest.fixture(scope="module")
def base_url():
    provider = GraphProvider({"big": generated_graph(2001, layers=10), "train": mlp_graph()})
    with serve(harness_app(provider)) as url:
        yield url


def held(page):
    """Paths of the nodes the page holds."""
    return set(page.evaluate("Object.keys(window.lensGraph.current.nodes)"))


def drawn(page):
    return set(page.eval_on_selector_all(".lg-node", "els => els.map(e => e.dataset.path)"))


def edges(page, selector="path.lg-edge:not(.lg-bridge)"):
    return set(map(tuple, page.eval_on_selector_all(
        selector, "els => els.map(e => [e.dataset.src, e.dataset.dst])")))


def toggle(page, path):
    """Click a scope's +/- after fitting the graph to the canvas (expanding moves things)."""
    page.click(".lg-fit")
    page.click(f".lg-toggle[data-path='{path}']")


def test_expanding_fetches_a_scopes_children_with_their_names_and_edges(page, base_url):
    open_run(page, base_url, "big")
    assert drawn(page) == {"input", "block_[0-9]"}
    assert {"", "input", "block_[0-9]", "block_0"} <= held(page)
    assert len(held(page)) < 60    # of 2,000 ops and 560 scopes
    page.dblclick(".lg-node[data-path='block_[0-9]'] > .lg-shape")
    page.wait_for_selector(".lg-node[data-path='block_9']")
    blocks = {f"block_{k}" for k in range(10)}
    assert drawn(page) == {"input", "block_[0-9]"} | blocks
    # The series' inner chain block_k -> block_k+1, and the input's edge continued as a
    # bridge into the first block.
    assert {(f"block_{k}", f"block_{k + 1}") for k in range(9)} <= edges(page)
    assert edges(page, "path.lg-bridge") == {("input", "block_0")}
    # A block's own children come when it is expanded (or drawn: see the next test): a series
    # of its 50 units.
    toggle(page, 'block_3')
    page.wait_for_selector(".lg-node[data-path='block_3/unit_[0-49]']")
    assert {("block_2", "block_3/unit_[0-49]"), ("block_3/unit_[0-49]", "block_4")} <= \
        edges(page, "path.lg-bridge")
    # Collapsing and expanding again needs no new request: the children are held.
    toggle(page, 'block_3')
    page.wait_for_selector(".lg-node[data-path='block_3/unit_[0-49]']", state="detached")
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "hierarchy" in r.url else None)
    toggle(page, 'block_3')
    page.wait_for_selector(".lg-node[data-path='block_3/unit_[0-49]']")
    assert asked == []

def loaded(page):
    return set(page.evaluate("[...window.lensGraph.current.loaded]"))


def test_the_children_of_drawn_scopes_are_fetched_before_they_are_expanded(page, base_url):
    from urllib.parse import parse_qs, urlsplit

    asked = []
    page.on("request", lambda r: asked.append(r.url) if "hierarchy" in r.url else None)
    open_run(page, base_url, "big")
    # The root's answer brings the blocks' series and as many blocks as fit its budget.
    before = loaded(page)
    assert {"", "block_[0-9]", "block_0"} <= before and "block_9" not in before
    opened = len(asked)
    page.dblclick(".lg-node[data-path='block_[0-9]'] > .lg-shape")
    page.wait_for_selector(".lg-node[data-path='block_9']")
    # Drawn without asking; the blocks now drawn collapsed and not held yet are fetched in
    # one request.
    blocks = {f"block_{k}" for k in range(10)}
    assert wait_until(lambda: blocks <= loaded(page))
    assert len(asked) == opened + 1
    assert set(parse_qs(urlsplit(asked[-1]).query)["scope"]) == blocks - before


def test_search_reveals_a_node_deep_inside_scopes_not_yet_held(page, base_url):
    open_run(page, base_url, "big")
    page.fill(".lg-search", "block_7/unit_3/Relu$")
    page.press(".lg-search", "Enter")
    node = ".lg-node[data-path='block_7/unit_3/Relu']"
    page.wait_for_selector(node)
    assert page.get_attribute(f"{node} > .lg-shape", "stroke") == "#e8710a"
    assert {"block_[0-9]", "block_7", "block_7/unit_[0-49]", "block_7/unit_3"} <= set(
        page.eval_on_selector_all(".lg-expanded", "els => els.map(e => e.dataset.path)"))
    assert ("block_7/unit_3/BiasAdd", "block_7/unit_3/Relu") in edges(page)
    assert page.inner_text(".lg-hits") == "block_7/unit_3/Relu"
    assert wait_until(lambda: page.text_content(".lg-info-name") == "block_7/unit_3/Relu")


def test_trace_inputs_marks_scopes_holding_ops_the_page_has_not_fetched(page, base_url):
    open_run(page, base_url, "big", "&graph.node=block_4")
    page.wait_for_selector(".lg-node[data-path='block_4']")
    page.check(".lg-trace")
    # block_0..block_3 feed block_4 through ops the page never fetched; block_5.. do not.
    page.wait_for_selector(".lg-node[data-path='block_5'][opacity='0.35']")
    for k in range(4):
        assert page.get_attribute(f".lg-node[data-path='block_{k}']", "opacity") is None
    assert page.get_attribute(".lg-node[data-path='input']", "opacity") is None
