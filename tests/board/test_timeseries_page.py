"""The Time Series dashboard in chromium: the default tab's grid of every tag, filters, pinned
cards (URL and local storage), the step-selection data table and range mode, full screen,
lazy rendering, and images scaled to their cards."""

import json
from urllib.parse import unquote

import numpy as np

from conftest import RUNS, loss_value, wait_until

LOSS = ".ts-card[data-kind='scalars'][data-tag='train/loss']"


def open_ts(page, base, extra=""):
    page.goto(f"{base}/{extra}")
    page.wait_for_selector(".ts-card")


def cards(page):
    return page.eval_on_selector_all(
        "#dashboard-timeseries .cards .ts-card",
        "els => els.map(e => [e.dataset.kind, e.dataset.tag, e.dataset.run || ''])")


def drawn(page, card):
    page.locator(card).scroll_into_view_if_needed()
    page.wait_for_selector(f"{card} .js-plotly-plot .scatterlayer .trace")


def step_point(page, card, step):
    """Page coordinates of a step on a card's chart, halfway up."""
    return page.evaluate("""([sel, step]) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        const box = el.querySelector(".nsewdrag").getBoundingClientRect();
        return [box.left + el._fullLayout.xaxis.l2p(step), box.top + box.height / 2]; }""",
                         [card, step])


def click_step(page, card, step):
    x, y = step_point(page, card, step)
    page.mouse.move(x, y)
    # plotly clicks on the point it last hovered: wait for the hover to reach this step.
    tip = ".scalar-tooltip:not([hidden]) .tt-step"
    assert wait_until(lambda: page.locator(tip).count() and page.text_content(tip) == str(step))
    page.mouse.click(x, y)


def table(page, card):
    """The data table under a card as [{column class: text}] per run."""
    return page.eval_on_selector_all(f"{card} .ts-data-table tbody tr", """rows => rows.map(r => {
        const out = {run: r.dataset.run};
        for (const td of r.cells) out[td.className] = td.textContent;
        return out; })""")


def test_default_tab_shows_every_tag_grouped_and_filters(page, tbx_server):
    open_ts(page, tbx_server)
    assert page.text_content(".tab.active") == "Time Series"
    got = cards(page)
    expected = {("scalars", t, "") for t in ("eval/loss", "train/loss", "train/accuracy")}
    expected |= {(kind, tag, run) for run in RUNS
                 for kind, tag in (("histograms", "layer1/weights"), ("images", "input/digit"))}
    assert {tuple(c) for c in got} == expected and len(got) == len(expected)
    groups = page.eval_on_selector_all("#dashboard-timeseries .cards > .group > summary",
                                       "els => els.map(e => e.textContent)")
    assert groups == ["eval (1)", "input (3)", "layer1 (3)", "train (2)"]
    page.select_option(".ts-type", "histograms")
    assert wait_until(lambda: {c[0] for c in cards(page)} == {"histograms"})
    page.select_option(".ts-type", "all")
    page.fill(".ts-tag-filter", "loss$")
    assert wait_until(lambda: sorted(c[1] for c in cards(page)) == ["eval/loss", "train/loss"])
    assert "timeseries.tags=loss%24" in page.url
    page.fill(".ts-tag-filter", "(")
    assert "Invalid tag regex" in page.text_content("#dashboard-timeseries .status")
    assert page.errors == []


def test_pins_are_kept_in_the_url_and_local_storage(page, browser, tbx_server):
    open_ts(page, tbx_server)
    page.click(f"{LOSS}:not(.ts-pinned-card) .ts-pin")
    pinned = ".ts-pinned-cards .ts-card"
    assert wait_until(lambda: page.locator(pinned).count() == 1)
    assert page.get_attribute(pinned, "data-tag") == "train/loss"
    state = dict(p.split("=", 1) for p in page.url.split("#", 1)[1].split("&"))
    assert json.loads(unquote(state["timeseries.pins"])) == [["scalars", "train/loss"]]
    shared = page.url
    # The same browser without the URL state: local storage brings the pin back.
    page.goto("about:blank")
    open_ts(page, tbx_server)
    assert wait_until(lambda: page.locator(pinned).count() == 1)
    # A colleague opening the shared link (fresh profile) sees it too, drawn.
    other = browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        view = other.new_page()
        view.goto(shared)
        view.wait_for_selector(f"{pinned} .js-plotly-plot .scatterlayer .trace")
        assert view.get_attribute(pinned, "data-tag") == "train/loss"
    finally:
        other.close()
    page.click(f"{pinned} .ts-pin")
    assert wait_until(lambda: page.locator(pinned).count() == 0)
    assert "timeseries.pins" not in page.url
    assert page.errors == []


def test_step_selection_table_range_mode_fullscreen_and_settings(page, tbx_server):
    open_ts(page, tbx_server)
    drawn(page, LOSS)
    click_step(page, LOSS, 50)
    assert wait_until(lambda: len(table(page, LOSS)) == 3)
    for row in table(page, LOSS):
        i = RUNS.index(row["run"])
        assert row["dt-step"] == "50"
        assert np.isclose(float(row["dt-value"]), loss_value(i, 50), rtol=1e-4)
        assert row["dt-relative"] == "50s"  # the fixture writes step s at 1000 + s seconds
        assert "1970" in row["dt-wall"]
    # Dragging the line moves the selection (snapped to a logged step).
    x, y = step_point(page, LOSS, 50)
    x2, _ = step_point(page, LOSS, 70)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move((x + x2) / 2, y, steps=4)
    page.mouse.move(x2, y, steps=4)
    page.mouse.up()
    assert wait_until(lambda: {r["dt-step"] for r in table(page, LOSS)} == {"70"})
    click_step(page, LOSS, 50)
    assert wait_until(lambda: {r["dt-step"] for r in table(page, LOSS)} == {"50"})
    # Range mode: from the first step to the picked one; min/max/mean/change over the range.
    page.check(f"{LOSS} .ts-range-mode")
    assert wait_until(lambda: "dt-mean" in (table(page, LOSS) or [{}])[0])
    for row in table(page, LOSS):
        i = RUNS.index(row["run"])
        values = np.float32([loss_value(i, s) for s in range(0, 51)]).astype(float)
        assert (row["dt-start-step"], row["dt-end-step"]) == ("0", "50")
        assert np.isclose(float(row["dt-min"]), values.min(), rtol=1e-4)
        assert np.isclose(float(row["dt-max"]), values.max(), rtol=1e-4)
        assert np.isclose(float(row["dt-mean"]), values.mean(), rtol=1e-4)
        assert np.isclose(float(row["dt-change"]), values[-1] - values[0], rtol=1e-4, atol=1e-6)
    # A click moves the nearer end of the range; the chart shows both lines and the band.
    click_step(page, LOSS, 90)
    assert wait_until(lambda: table(page, LOSS)[0]["dt-end-step"] == "90")
    shapes = page.eval_on_selector(f"{LOSS} .js-plotly-plot", "el => el.layout.shapes.length")
    assert shapes == 3
    page.click(f"{LOSS} .ts-clear-selection")
    assert wait_until(lambda: table(page, LOSS) == [])
    # Per-card log y axis, and Fit undoing a zoom.
    page.check(f"{LOSS} .ts-log-y")
    assert wait_until(lambda: page.eval_on_selector(
        f"{LOSS} .js-plotly-plot", "el => el._fullLayout.yaxis.type") == "log")
    page.uncheck(f"{LOSS} .ts-log-y")
    assert wait_until(lambda: page.eval_on_selector(
        f"{LOSS} .js-plotly-plot", "el => el._fullLayout.yaxis.type") == "linear")
    xrange = f"{LOSS} .js-plotly-plot"
    full = page.eval_on_selector(xrange, "el => el._fullLayout.xaxis.range.slice()")
    page.evaluate(f"""() => Plotly.relayout(document.querySelector("{xrange}"),
                                            {{"xaxis.range": [10, 20]}})""")
    page.click(f"{LOSS} .ts-fit")
    assert wait_until(lambda: page.eval_on_selector(
        xrange, "el => el._fullLayout.xaxis.range.slice()") == full)
    # The same page: full screen, then a setting change redrawing the card.
    check_fullscreen_card(page)
    check_setting_changes_redraw_the_cards(page)
    assert page.errors == []


def check_fullscreen_card(page):
    page.click(f"{LOSS} .ts-fullscreen-btn")
    assert wait_until(lambda: page.eval_on_selector(
        f"{LOSS} .js-plotly-plot", "el => el._fullLayout.height") > 500)
    box = page.eval_on_selector(LOSS, "e => e.getBoundingClientRect().width")
    assert box > 1000
    page.keyboard.press("Escape")
    assert wait_until(lambda: page.eval_on_selector(
        f"{LOSS} .js-plotly-plot", "el => el._fullLayout.height") == 260)


def test_cards_render_only_when_scrolled_into_view(page, tbx_server):
    page.set_viewport_size({"width": 1300, "height": 500})
    open_ts(page, tbx_server)
    page.wait_for_selector(".ts-card[data-tag='eval/loss'] .plot svg")
    # train/* sits below several image and histogram cards: nothing fetched or drawn yet.
    assert page.eval_on_selector(LOSS, "e => e.querySelector('.plot svg') === null")
    drawn(page, LOSS)
    assert page.errors == []


def check_setting_changes_redraw_the_cards(page):
    page.click("#settings-toggle")
    drawn(page, LOSS)
    smoothed = "el => el.data.filter(t => !t.meta.raw).map(t => Array.from(t.y))"
    before = page.eval_on_selector(f"{LOSS} .js-plotly-plot", smoothed)
    page.eval_on_selector("#settings-panel .setting-smoothing input", """el => { el.value = 0;
        el.dispatchEvent(new Event('input', {bubbles: true})); }""")
    page.evaluate("window.lensTimeSeries.redrawn")
    after = page.eval_on_selector(f"{LOSS} .js-plotly-plot", smoothed)
    assert after != before
    assert np.isclose(after[0][50], loss_value(0, 50), rtol=1e-4)  # unsmoothed now
    # Between two non-zero smoothings only the smoothed lines move: their paths are redrawn
    # at once, exactly where plotly itself draws them (checked by letting plotly redraw).
    page.evaluate("window.lensSettings.set('smoothing', 0.9)")
    page.evaluate("window.lensTimeSeries.redrawn")
    page.evaluate("window.lensSettings.set('smoothing', 0.5)")
    page.evaluate("window.lensTimeSeries.redrawn")
    check = """async (sel) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        const pts = (d) => d.split(/[ML]/).filter(Boolean).map((p) => p.split(",").map(Number));
        const lines = () => [...el.querySelectorAll(".scatterlayer > .trace")]
            .filter((g, i) => !el.data[i].meta.raw)
            .map((g) => pts(g.querySelector("path.js-line").getAttribute("d")));
        const ours = lines();
        const idx = el.data.map((t, k) => (t.meta.raw ? -1 : k)).filter((k) => k >= 0);
        await Plotly.restyle(el, {y: idx.map((k) => el.data[k].y)}, idx);
        let worst = 0;
        lines().forEach((theirs, i) => { for (const p of theirs) {
            worst = Math.max(worst, Math.min(...ours[i].map((q) => Math.hypot(p[0] - q[0], p[1] - q[1]))));
        } });
        return [worst, ours.length];
    }"""
    # (the card shows smoothing 0.5 already: the fast path ran, not a deferred redraw)
    lines = page.eval_on_selector(f"{LOSS} .js-plotly-plot", smoothed)
    raw = [loss_value(0, step) for step in range(120)]
    last, expected = 0.0, []
    for n, y in enumerate(np.float32(raw).astype(float), start=1):
        last = last * 0.5 + 0.5 * y
        expected.append(last / (1 - 0.5 ** n))
    assert np.allclose(lines[0], expected, rtol=1e-5)
    worst, count = page.evaluate(check, LOSS)
    assert count == 3 and worst < 0.01


def test_images_scale_to_the_card_with_crisp_pixels(page, tbx_server):
    open_ts(page, tbx_server, "#timeseries.type=images")
    img = ".ts-card[data-kind='images'][data-run='lr_0.1'] img"
    page.wait_for_selector(img)
    assert wait_until(lambda: page.eval_on_selector(img, "e => e.complete && e.naturalWidth") == 12)
    frame = page.eval_on_selector(img, "e => e.parentElement.clientWidth")
    assert page.eval_on_selector(img, "e => e.getBoundingClientRect().width") == frame > 100
    assert page.eval_on_selector(img, "e => getComputedStyle(e).imageRendering") == "pixelated"
    page.click("#settings-toggle")
    page.check("#settings-panel .setting-imageActualSize")
    assert wait_until(lambda: page.eval_on_selector(
        img, "e => e.getBoundingClientRect().width") == 12)
    page.eval_on_selector("#settings-panel .setting-imageBrightness input", """el => {
        el.value = 1.5; el.dispatchEvent(new Event('input', {bubbles: true})); }""")
    assert page.eval_on_selector(img, "e => getComputedStyle(e).filter") == \
        "brightness(1.5) contrast(1)"
    # The Images dashboard follows the same settings.
    page.goto(f"{tbx_server}/#tab=images")
    img = "#dashboard-images .image-card img"
    page.wait_for_selector(img)
    assert wait_until(lambda: page.eval_on_selector(
        img, "e => e.complete && e.getBoundingClientRect().width") == 12)
    page.uncheck("#settings-panel .setting-imageActualSize")
    assert wait_until(lambda: page.eval_on_selector(
        img, "e => e.getBoundingClientRect().width") > 100)
    assert page.errors == []
