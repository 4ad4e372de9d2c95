"""Scalars dashboard details in chromium: the hover tooltip, log y, wall-time and relative x
axes, and a shared URL restoring the whole view (runs, smoothing, axes, tag filter)."""

import datetime
import json
import math
from urllib.parse import unquote

from conftest import RUNS, loss_value, wait_until

CARD = ".scalar-card[data-tag='train/loss']"


def open_scalars(page, base, extra=""):
    page.goto(f"{base}/#tab=scalars{extra}")
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")
    assert wait_until(lambda: len(traces(page)) == 3)


def traces(page):
    """[{name, x, y}] of the smoothed traces (the raw ones are drawn faintly behind)."""
    return page.evaluate("""(sel) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        if (!el || !el.data) return [];
        return el.data.filter(t => !(t.meta && t.meta.raw)).map(t => ({name: t.meta.run,
            x: Array.from(t.x), y: Array.from(t.y)})); }""", CARD)


def axis(page, name):
    """plotly's resolved axis: {type, range}."""
    return page.evaluate("""([sel, name]) => {
        const a = document.querySelector(sel + " .js-plotly-plot")._fullLayout[name];
        return {type: a.type, range: a.range.slice()}; }""", [CARD, name])


def hover_at_step(page, step):
    """Move the real mouse over the plot at the given step; returns the tooltip table's rows
    as [{run, smoothed, value, step}]."""
    x, y = page.evaluate("""([sel, step]) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        const box = el.querySelector(".nsewdrag").getBoundingClientRect();
        const xa = el._fullLayout.xaxis;
        return [box.left + xa.l2p(step), box.top + box.height / 2]; }""", [CARD, step])
    rows = ".scalar-tooltip:not([hidden]) tbody tr"
    page.mouse.move(1, 1)               # leave the plot first so the old tooltip goes away
    assert wait_until(lambda: page.locator(rows).count() == 0)
    page.mouse.move(x, y)
    assert wait_until(lambda: page.locator(rows).count() == 3)
    return page.eval_on_selector_all(rows, """els => els.map(e => ({run: e.dataset.run,
        smoothed: e.querySelector('.tt-smoothed').textContent,
        value: e.querySelector('.tt-value').textContent,
        step: e.querySelector('.tt-step').textContent}))""")


def test_tooltip_lists_every_runs_value_at_the_hovered_step(page, tbx_server):
    open_scalars(page, tbx_server)
    rows = hover_at_step(page, 37)
    assert sorted(r["run"] for r in rows) == sorted(RUNS)
    for i, run in enumerate(RUNS):
        row = next(r for r in rows if r["run"] == run)
        assert row["step"] == "37"
        assert math.isclose(float(row["value"]), loss_value(i, 37), rel_tol=1e-4)
    # Another step: the tooltip follows the mouse.
    rows = hover_at_step(page, 80)
    assert all(r["step"] == "80" for r in rows)
    assert page.errors == []


def test_log_y_axis(page, tbx_server):
    open_scalars(page, tbx_server, "&scalars.smoothing=0")
    assert axis(page, "yaxis")["type"] == "linear"
    page.select_option(".y-scale", "log")
    assert wait_until(lambda: axis(page, "yaxis")["type"] == "log")
    assert "scalars.log=1" in page.url
    positive = [v for t in traces(page) for v in t["y"] if v > 0]
    lo, hi = axis(page, "yaxis")["range"]
    # A log axis spans the log10 of the data (a linear one would start near 0).
    assert lo <= math.log10(min(positive)) < lo + 0.5
    assert hi - 0.5 < math.log10(max(positive)) <= hi
    page.select_option(".y-scale", "linear")
    assert wait_until(lambda: axis(page, "yaxis")["type"] == "linear")


def test_wall_time_and_relative_x_axes(page, tbx_server):
    open_scalars(page, tbx_server)
    assert traces(page)[0]["x"][:3] == [0, 1, 2]
    page.select_option(".x-axis", "wall")
    assert wait_until(lambda: axis(page, "xaxis")["type"] == "date")
    first = traces(page)[0]["x"]
    # The fixture writes step s at wall time 1000 + s seconds.
    expected = datetime.datetime.fromtimestamp(1000.0, datetime.timezone.utc)
    assert first[0].replace(tzinfo=datetime.timezone.utc) == expected
    assert (first[5] - first[0]).total_seconds() == 5
    assert "scalars.x=wall" in page.url
    page.select_option(".x-axis", "relative")
    assert wait_until(lambda: axis(page, "xaxis")["type"] == "linear"
                      and traces(page)[0]["x"][1] != 1)
    xs = traces(page)[0]["x"]
    assert all(math.isclose(x, s / 3600, abs_tol=1e-9) for s, x in enumerate(xs[:10]))
    assert page.text_content(f"{CARD} .xtitle") == "relative (hours)"
    rows = hover_at_step(page, 30 / 3600)  # the tooltip still names each run's step
    assert all(r["step"] == "30" for r in rows)


def test_shared_url_restores_the_view(page, browser, tbx_server):
    open_scalars(page, tbx_server)
    page.uncheck("#run-list input[data-run='lr_0.01']")
    page.fill(".smoothing-value", "0.25")
    page.dispatch_event(".smoothing-value", "change")
    page.select_option(".x-axis", "relative")
    page.select_option(".y-scale", "log")
    page.fill(".tag-filter", "loss$")
    assert wait_until(lambda: page.locator(".scalar-card").count() == 2)
    state = dict(p.split("=", 1) for p in page.url.split("#", 1)[1].split("&"))
    assert json.loads(unquote(state["runs"])) == ["lr_0.1", "lr_0.001"]
    shared = page.url
    # A colleague opens the link in a fresh browser context (no shared storage).
    other = browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        view = other.new_page()
        view.goto(shared)
        view.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")
        assert wait_until(lambda: sorted(t["name"] for t in traces(view)) == ["lr_0.001", "lr_0.1"])
        assert view.is_checked("#run-list input[data-run='lr_0.1']")
        assert not view.is_checked("#run-list input[data-run='lr_0.01']")
        assert view.input_value(".smoothing-value") == "0.25"
        assert view.input_value(".x-axis") == "relative"
        assert view.input_value(".y-scale") == "log"
        assert view.input_value(".tag-filter") == "loss$"
        cards = view.eval_on_selector_all(".scalar-card", "els => els.map(e => e.dataset.tag)")
        assert sorted(cards) == ["eval/loss", "train/loss"]
        assert axis(view, "yaxis")["type"] == "log"
        # Smoothing 0.25 is applied to the restored view's lines.
        t = next(t for t in traces(view) if t["name"] == "lr_0.1")
        raw = [loss_value(0, s) for s in range(len(t["y"]))]
        last, smoothed = 0.0, []
        for n, y in enumerate(raw, start=1):
            last = last * 0.25 + 0.75 * y
            smoothed.append(last / (1 - 0.25 ** n))
        assert max(abs(a - b) for a, b in zip(t["y"], smoothed)) < 1e-6
    finally:
        other.close()


def test_plotly_failing_to_load_is_reported_on_each_card(page, tbx_server):
    # The browser cannot fetch plotly.min.js (as with a broken plotly install).
    page.route("**/static/vendor/plotly.min.js", lambda route: route.abort())
    page.goto(f"{tbx_server}/#tab=scalars")
    note = f"{CARD} .card-note"
    assert wait_until(lambda: "plotly.min.js" in (page.text_content(note) or ""))
    assert "reinstall the plotly package" in page.text_content(note)
    page.goto(f"{tbx_server}/#tab=histograms")
    card = ".histogram-card[data-run='lr_0.1'] .plot"
    page.wait_for_selector(card)
    assert wait_until(lambda: "reinstall the plotly package" in (page.text_content(card) or ""))
    assert page.errors == []
