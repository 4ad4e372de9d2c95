"""Every dashboard on the bundled sample logs, through the real index.html and app.js.

The sample logs are the ones `lens board` serves with no arguments (three runs written by lens
itself: scalars, histograms, an image, Markdown text, the graph and two tagged run metadata).
"""

import pytest

from conftest import load_provider, serve, wait_until
from lens.board.app import create_app
from lens.board.cli import sample_logdir

RUNS = ["lr_0.02", "lr_0.1", "lr_0.5"]


@pytest.fixture(scope="module")
def sample_server():
    root = sample_logdir()
    assert root is not None, "the bundled sample logs are missing: run " \
                             "`python -m lens.examples.sample_logs` to regenerate them"
    app = create_app(load_provider(root))
    with serve(app) as url:
        yield url, app.test_client()


def open_tab(page, base, tab, extra=""):
    page.goto(f"{base}/#tab={tab}{extra}")
    page.wait_for_selector(f"#dashboard-{tab}:not([hidden])")


def plot_traces(page, selector):
    """[(name, x, y)] of the plotly traces inside selector (None before drawing)."""
    return page.evaluate("""(sel) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        return el && el.data ? el.data.filter(t => !(t.meta && t.meta.raw))
            .map(t => [t.name, Array.from(t.x || []), Array.from(t.y || [])]) : null; }""",
                         selector)


def test_scalars_card_has_every_run(page, sample_server):
    base, client = sample_server
    open_tab(page, base, "scalars")
    card = ".scalar-card[data-tag='loss']"
    page.wait_for_selector(card)
    page.locator(card).scroll_into_view_if_needed()  # cards load when scrolled into view
    page.wait_for_selector(f"{card} .js-plotly-plot")
    assert wait_until(lambda: len(plot_traces(page, card) or []) == 3)
    traces = plot_traces(page, card)
    assert sorted(name for name, _, _ in traces) == RUNS
    for name, x, _ in traces:
        rows = client.get(f"/data/plugin/scalars/scalars?run={name}&tag=loss").get_json()
        assert len(rows) > 10 and x == [row[1] for row in rows]
    titles = page.eval_on_selector_all(".scalar-card", "els => els.map(e => e.dataset.tag)")
    # the plugin sample runs (custom scalars, hparams sweep) add their own scalar tags
    assert {"loss", "accuracy", "learning_rate"} <= set(titles)
    assert page.errors == []


def test_histograms_and_distributions_draw(page, sample_server):
    base, client = sample_server
    steps = len(client.get("/data/plugin/histograms/histograms?run=lr_0.1"
                           "&tag=hidden1/weights").get_json())
    assert steps > 1
    open_tab(page, base, "histograms")
    card = ".histogram-card[data-run='lr_0.1'][data-tag='hidden1/weights']"
    page.wait_for_selector(f"{card} .js-plotly-plot")
    assert wait_until(lambda: len(plot_traces(page, card) or []) == steps)
    open_tab(page, base, "distributions")
    card = ".distribution-card[data-run='lr_0.1'][data-tag='hidden1/weights']"
    page.wait_for_selector(f"{card} .js-plotly-plot")
    assert wait_until(lambda: len(plot_traces(page, card) or []) == 9)
    assert page.errors == []


def test_image_shows(page, sample_server):
    base, _ = sample_server
    open_tab(page, base, "images")
    card = ".image-card[data-run='lr_0.5']"
    page.wait_for_selector(f"{card} img[src]")
    assert wait_until(lambda: page.evaluate(
        f"() => document.querySelector(\"{card} img\").naturalWidth") == 16)
    assert page.get_attribute(card, "data-step") == "59"   # the newest image is shown


def test_text_renders_markdown(page, sample_server):
    base, _ = sample_server
    open_tab(page, base, "text")
    card = ".text-card[data-run='lr_0.1']"
    page.wait_for_selector(f"{card} h2")
    assert page.text_content(f"{card} h2") == "run lr_0.1"
    assert page.text_content(f"{card} strong") == "SGD at lr=0.1"
    assert page.locator(f"{card} script").count() == 0


def open_graph(page, base, run="lr_0.1"):
    open_tab(page, base, "graphs", f"&graphs.graph.run={run}")
    page.wait_for_selector("svg.lg-svg[data-drawn]", timeout=20000)


def drawn(page):
    return page.eval_on_selector_all(".lg-node", "els => els.map(e => e.dataset.path)")


def fill_of(page, path):
    return page.get_attribute(f".lg-node[data-path='{path}'] > .lg-shape", "fill")


def css_colour(page, colour):
    """A colour as the browser normalizes it (so '#aabbcc' and 'rgb(...)' compare equal)."""
    return page.evaluate("(c) => { const d = document.createElement('div'); "
                         "d.style.background = c; return d.style.background; }", colour)


def gradient_colours(page, path):
    """The distinct colours of a metanode's device proportion bar."""
    fill = fill_of(page, path)
    assert fill.startswith("url(#lg-dev-"), fill
    stops = page.eval_on_selector(fill[4:-1], "g => [...g.querySelectorAll('stop')]"
                                  ".map(s => s.getAttribute('stop-color'))")
    return {css_colour(page, c) for c in stops}


def legend(page):
    """{device label: swatch colour} of the device legend."""
    rows = page.eval_on_selector_all(".lg-legend .lg-device", "els => els.map(e => "
                                     "[e.innerText, e.firstChild.style.background])")
    return {label: css_colour(page, colour) for label, colour in rows}


def test_graph_collapsed_expands_and_colours_by_device(page, sample_server):
    base, client = sample_server
    hierarchy = client.get("/data/plugin/graphs/hierarchy?run=lr_0.1").get_json()
    stats = client.get("/data/plugin/graphs/stats?run=lr_0.1&tag=step40").get_json()
    open_graph(page, base)
    nodes = set(drawn(page))
    assert {"input", "hidden1", "hidden2", "train", "cross_entropy"} <= nodes
    assert "hidden1/MatMul" not in nodes
    assert page.locator(".lg-expanded").count() == 0
    page.click(".lg-toggle[data-path='hidden1']")
    page.wait_for_selector(".lg-node[data-path='hidden1/MatMul']")
    assert {"hidden1/W", "hidden1/b", "hidden1/add"} <= set(drawn(page))
    before = fill_of(page, "hidden2")
    page.select_option(".lg-color", "device")
    page.wait_for_selector(".lg-legend[data-mode='device'] .lg-device")
    # The GraphDef's requested devices: one legend row each, ops without one included.
    shown = legend(page)
    assert sorted(shown) == sorted(d or "(no device)" for d in hierarchy["devices"])
    assert fill_of(page, "hidden2") != before
    requested = hierarchy["nodes"]["hidden2"]["devices"]
    assert gradient_colours(page, "hidden2") == {shown[d or "(no device)"] for d in requested}
    # A session run's measured placement replaces the requested one.
    page.select_option(".lg-session-runs", "step40")
    page.wait_for_selector(".lg-legend .lg-measured")
    shown = legend(page)
    assert set(stats["devices"]) <= set(shown)
    measured = stats["nodes"]["hidden2"]["devices"]
    assert measured and measured != requested
    assert gradient_colours(page, "hidden2") == {shown[d] for d in measured}
    assert page.errors == []


def test_graph_node_info_lists_inputs(page, sample_server):
    base, _ = sample_server
    open_graph(page, base)
    page.click(".lg-toggle[data-path='hidden1']")
    page.click(".lg-node[data-path='hidden1/MatMul'] > .lg-shape")
    page.wait_for_selector(".lg-info[data-path='hidden1/MatMul'] .lg-inputs li")
    inputs = page.eval_on_selector_all(".lg-info .lg-inputs li", "els => els.map(e => e.textContent)")
    assert len(inputs) == 2 and inputs[1].startswith("hidden1/W/read")
    assert "4×16" in inputs[1]
    assert "Operation: MatMul" in page.inner_text(".lg-info")


def test_graph_session_runs_colour_by_compute_time(page, sample_server):
    base, _ = sample_server
    open_graph(page, base)
    options = page.eval_on_selector_all(".lg-session-runs option", "els => els.map(e => e.value)")
    assert options == ["", "step10", "step40"]
    paths = ["hidden1", "hidden2", "output", "cross_entropy", "train"]   # ops that ran
    structure = [fill_of(page, p) for p in paths]
    page.select_option(".lg-session-runs", "step10")
    page.select_option(".lg-color", "compute")
    page.wait_for_selector(".lg-legend[data-mode='compute'] .lg-gradient")
    compute = [fill_of(page, p) for p in paths]
    assert compute != structure and all(f.startswith("rgb(") for f in compute)
    assert len(set(compute)) >= 3      # measured times differ, so the shades differ
    page.click(".lg-node[data-path='train'] > .lg-shape")
    page.wait_for_selector(".lg-info .lg-compute")
    assert "Compute time:" in page.inner_text(".lg-info .lg-compute")
    assert page.errors == []


def test_tab_bar_arrows_page_through_tabs_that_do_not_fit(page, sample_server):
    base, _ = sample_server
    page.set_viewport_size({"width": 900, "height": 700})
    open_tab(page, base, "scalars")
    arrows = "() => [document.getElementById('tabs-left').hidden, document.getElementById('tabs-right').hidden]"
    scroll = "() => document.getElementById('tabs').scrollLeft"
    assert wait_until(lambda: page.evaluate(arrows) == [True, False])  # more tabs to the right only
    page.click("#tabs-right")
    assert wait_until(lambda: page.evaluate(scroll) > 0 and page.evaluate(arrows)[0] is False)
    settled = []  # the smooth scroll has stopped when two reads 100 ms apart agree
    assert wait_until(lambda: settled.append(page.evaluate(scroll)) or settled[-2:-1] == settled[-1:],
                      interval=0.1)
    # the last tab, opened from the URL, is scrolled into view
    last = page.eval_on_selector_all("#tabs .tab", "els => els[els.length - 1].dataset.dashboard")
    for _ in range(10):  # back to the start, a page at a time (the bar narrows while both arrows show)
        if page.evaluate(arrows)[0]:
            break
        before = page.evaluate(scroll)
        page.click("#tabs-left")
        assert wait_until(lambda: page.evaluate(scroll) < before)
        page.wait_for_timeout(400)
    assert page.evaluate(scroll) == 0 and page.evaluate(arrows) == [True, False]
    open_tab(page, base, last)
    assert wait_until(lambda: page.evaluate("""(id) => {
        const nav = document.getElementById('tabs').getBoundingClientRect();
        const tab = document.querySelector(`#tabs .tab[data-dashboard='${id}']`).getBoundingClientRect();
        return tab.left >= nav.left - 1 && tab.right <= nav.right + 1; }""", last))
    page.set_viewport_size({"width": 2600, "height": 700})
    assert wait_until(lambda: page.evaluate(arrows) == [True, True])  # everything fits: no arrows
    assert page.errors == []
