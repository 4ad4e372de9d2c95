"""The board's page in Debian's chromium: every dashboard except Graphs, XSS, URL state."""

import json

from conftest import RUNS, XSS, XSS_TAG, wait_until

CARD = ".scalar-card[data-tag='train/loss']"


def open_tab(page, base, tab, extra=""):
    page.goto(f"{base}/#tab={tab}{extra}")
    page.wait_for_selector(f"#dashboard-{tab}:not([hidden])")


def plot_data(page, selector):
    """The traces plotly holds for the first plot inside selector."""
    return page.evaluate(f"""() => {{
        const el = document.querySelector("{selector} .js-plotly-plot");
        return el && el.data ? el.data.map(t => ({{name: t.name, x: Array.from(t.x || []),
            y: Array.from(t.y || []), meta: t.meta || null}})) : null; }}""")


def smoothed_traces(page, selector):
    traces = plot_data(page, selector) or []
    return [t for t in traces if not (t["meta"] or {}).get("raw")]


def test_scalars_card_draws_every_run(page, tbx_server):
    open_tab(page, tbx_server, "scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot")
    assert wait_until(lambda: len(smoothed_traces(page, CARD)) == 3)
    names = sorted(t["name"] for t in smoothed_traces(page, CARD))
    assert names == sorted(RUNS)
    groups = page.eval_on_selector_all(".group > summary", "els => els.map(e => e.textContent)")
    assert "train (2)" in groups and "eval (1)" in groups
    assert page.errors == []


def test_smoothing_changes_the_line(page, tbx_server):
    open_tab(page, tbx_server, "scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot")
    assert wait_until(lambda: len(smoothed_traces(page, CARD)) == 3)
    before = smoothed_traces(page, CARD)[0]["y"]
    page.fill(".smoothing-value", "0")
    page.dispatch_event(".smoothing-value", "change")
    assert wait_until(lambda: smoothed_traces(page, CARD)[0]["y"] != before)
    raw = smoothed_traces(page, CARD)[0]["y"]
    # With smoothing 0 the line is the raw data; with 0.6 it is TensorBoard's debiased EMA.
    last, expected = 0.0, []
    for n, y in enumerate(raw, start=1):
        last = last * 0.6 + 0.4 * y
        expected.append(last / (1 - 0.6 ** n))
    assert max(abs(a - b) for a, b in zip(before, expected)) < 1e-9
    assert "scalars.smoothing=0" in page.url


def test_tag_filter_and_run_selection_update_cards_and_url(page, tbx_server):
    open_tab(page, tbx_server, "scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot")
    page.fill(".tag-filter", "^eval")
    assert wait_until(lambda: page.locator(".scalar-card").count() == 1)
    page.fill("#run-filter", "0\\.01$")
    page.click("#runs-none")
    page.fill("#run-filter", "")
    card = ".scalar-card[data-tag='eval/loss']"
    assert wait_until(lambda: sorted(t["name"] for t in smoothed_traces(page, card))
                      == ["lr_0.001", "lr_0.1"])
    runs = json.loads(page.evaluate(
        "() => new URLSearchParams(location.hash.slice(1)).get('runs')"))
    assert runs == ["lr_0.1", "lr_0.001"] or sorted(runs) == ["lr_0.001", "lr_0.1"]
    # The shared URL restores the same view in a new page.
    shared = page.url
    page.goto("about:blank")
    page.goto(shared)
    page.wait_for_selector(f"{card} .js-plotly-plot")
    assert wait_until(lambda: len(smoothed_traces(page, card)) == 2)


def test_zoom_fetches_finer_data(page, tbx_server):
    # points=20 makes every 120-step series arrive bucketed, so zooming must refetch.
    open_tab(page, tbx_server, "scalars", "&scalars.points=20&scalars.smoothing=0")
    page.wait_for_selector(f"{CARD} .js-plotly-plot")
    assert wait_until(lambda: len(smoothed_traces(page, CARD)) == 3)
    coarse = smoothed_traces(page, CARD)[0]["x"]
    assert len(coarse) <= 20
    with page.expect_request(lambda r: "min_step=" in r.url and "train%2Floss" in r.url):
        page.evaluate(f"""() => Plotly.relayout(
            document.querySelector("{CARD} .js-plotly-plot"), {{"xaxis.range": [40, 50]}})""")
    assert wait_until(lambda: smoothed_traces(page, CARD)[0]["x"] == list(range(40, 51)))


def test_histograms_and_distributions_draw(page, tbx_server):
    open_tab(page, tbx_server, "histograms")
    page.wait_for_selector(".histogram-card .js-plotly-plot")
    assert wait_until(lambda: page.locator(".histogram-card").count() == 3)
    sel = ".histogram-card[data-run='lr_0.1']"
    assert wait_until(lambda: len(plot_data(page, sel) or []) == 6)  # one ridge per step
    open_tab(page, tbx_server, "distributions")
    sel = ".distribution-card[data-run='lr_0.1']"
    page.wait_for_selector(f"{sel} .js-plotly-plot")
    assert wait_until(lambda: len(plot_data(page, sel) or []) == 9)  # 4 bands x 2 + median
    assert page.errors == []


def test_image_shows_and_slider_moves(page, tbx_server):
    open_tab(page, tbx_server, "images")
    card = ".image-card[data-run='lr_0.1']"
    page.wait_for_selector(f"{card} img[src]")
    assert wait_until(lambda: page.evaluate(
        f"() => document.querySelector(\"{card} img\").naturalWidth") == 12)
    assert page.get_attribute(card, "data-step") == "100"
    page.fill(f"{card} .step-slider", "1")
    assert wait_until(lambda: page.get_attribute(card, "data-step") == "20")


def test_text_renders_markdown(page, tbx_server):
    open_tab(page, tbx_server, "text")
    card = ".text-card[data-run='lr_0.01']"
    page.wait_for_selector(f"{card} strong")
    assert page.text_content(f"{card} strong") == "bold lr_0.01"
    assert "<b>raw</b>" in page.text_content(card)  # shown as text, not markup
    assert page.locator(f"{card} b").count() == 0


def test_hostile_names_are_text_not_markup(page, hostile_server):
    open_tab(page, hostile_server, "scalars")
    page.wait_for_selector(".scalar-card .js-plotly-plot")
    run_names = page.eval_on_selector_all(".run-name", "els => els.map(e => e.textContent)")
    assert XSS in run_names
    titles = page.eval_on_selector_all(".card-title", "els => els.map(e => e.textContent)")
    assert XSS_TAG in titles
    page.wait_for_timeout(500)
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#run-list img, .cards script").count() == 0
    assert page.errors == []


def test_a_loaded_logdir_is_listed_once_on_the_first_load(page, tbx_server):
    # The first reload runs alongside the progress poll; once the poll finds loading done it
    # does not list the runs again, since that listing already counted every event.
    listed = []
    page.on("request", lambda r: listed.append(r.url) if r.url.endswith("/data/runs") else None)
    open_tab(page, tbx_server, "scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot")
    page.wait_for_timeout(300)
    assert len(listed) == 1
    assert page.is_hidden("#progress")


def test_progress_route_and_reload_button(page, tbx_server):
    open_tab(page, tbx_server, "scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot")
    with page.expect_request(lambda r: r.url.endswith("/data/runs")):
        page.click("#reload")
    assert page.is_hidden("#progress")  # the fixture logdir is fully loaded
