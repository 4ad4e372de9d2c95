"""The scalars preview in chromium: lens's own SVG chart of the real data, drawn before plotly
has started and replaced in place by the interactive plotly chart.

To look at the preview deterministically, tests hold back the real plotly.min.js with
page.route until they have checked it, then let it through."""

import datetime
import math
import re

from conftest import RUNS, XSS, XSS_TAG, loss_value, wait_until

CARD = ".scalar-card[data-tag='train/loss']"
PLOTLY = "**/static/vendor/plotly.min.js"
STEPS = 120


class HeldPlotly:
    """Holds every request for plotly.min.js until release() lets them (and later ones) through."""

    def __init__(self, page):
        self.held = []
        self.released = False
        page.route(PLOTLY, self._handle)

    def _handle(self, route):
        if self.released:
            route.continue_()
        else:
            self.held.append(route)

    def release(self):
        self.released = True
        for route in self.held:
            route.continue_()
        self.held.clear()


def preview_lines(page, card=CARD):
    """[{run, raw, points, vertices: [(x, y)], stroke, opacity}] of the card's preview paths."""
    lines = page.evaluate("""(sel) => Array.from(document.querySelectorAll(
            sel + " svg.lens-preview path.preview-line")).map(p => ({
        run: p.dataset.run, raw: p.classList.contains("preview-raw"),
        points: Number(p.dataset.points), d: p.getAttribute("d"),
        stroke: getComputedStyle(p).stroke, opacity: Number(p.getAttribute("stroke-opacity"))}))""",
                          card)
    for line in lines:
        line["vertices"] = [tuple(map(float, xy.split(",")))
                            for xy in re.findall(r"[ML]([-\d.]+,[-\d.]+)", line.pop("d"))]
    return lines


def tick(page, name, card=CARD):
    return page.text_content(f"{card} svg.lens-preview text.{name}")


def swatch_colours(page):
    """run -> the colour the run list shows for it (as computed rgb)."""
    return dict(page.evaluate("""() => Array.from(document.querySelectorAll("#run-list label"))
        .map(l => [l.querySelector(".run-name").textContent,
                   getComputedStyle(l.querySelector(".swatch")).backgroundColor])"""))


def open_held(page, base, extra=""):
    held = HeldPlotly(page)
    # "commit": a held script must not hold up the test's own navigation wait.
    page.goto(f"{base}/#tab=scalars{extra}", wait_until="commit")
    page.wait_for_selector(f"{CARD} svg.lens-preview path.preview-line")
    return held


def assert_affine(values, pixels, decreasing):
    """The pixels are one affine image of the values (up to the path's 0.1 px rounding)."""
    (v0, p0), (v1, p1) = min(zip(values, pixels)), max(zip(values, pixels))
    scale = (p1 - p0) / (v1 - v0)
    assert (scale < 0) == decreasing
    assert max(abs(p0 + (v - v0) * scale - p) for v, p in zip(values, pixels)) < 0.2


def test_preview_draws_each_run_smoothed_and_raw_in_its_colour(page, tbx_server):
    held = open_held(page, tbx_server)
    assert wait_until(lambda: len(preview_lines(page)) == 6)
    lines = preview_lines(page)
    colours = swatch_colours(page)
    assert sorted(line["run"] for line in lines if not line["raw"]) == sorted(RUNS)
    assert sorted(line["run"] for line in lines if line["raw"]) == sorted(RUNS)
    for line in lines:
        assert line["points"] == len(line["vertices"]) == STEPS
        assert line["stroke"] == colours[line["run"]]
        assert line["opacity"] == (0.25 if line["raw"] else 1)
    # The raw line is the data itself: its heights are the loss values, scaled (y grows down).
    for i, run in enumerate(RUNS):
        raw = next(line for line in lines if line["raw"] and line["run"] == run)
        assert_affine([loss_value(i, s) for s in range(STEPS)], [y for _, y in raw["vertices"]],
                      decreasing=True)
        assert_affine(list(range(STEPS)), [x for x, _ in raw["vertices"]], decreasing=False)
    values = [loss_value(i, s) for i in range(len(RUNS)) for s in range(STEPS)]
    assert (tick(page, "x-min"), tick(page, "x-max")) == ("0", "119")
    assert math.isclose(float(tick(page, "y-max")), max(values), rel_tol=1e-3)
    assert math.isclose(float(tick(page, "y-min")), min(values), rel_tol=1e-3)
    assert page.text_content(f"{CARD} svg.lens-preview .axis-title") == "step"
    # The preview is sized like the plotly chart that will replace it.
    assert page.get_attribute(f"{CARD} svg.lens-preview", "height") == "260"
    assert page.locator(".js-plotly-plot").count() == 0
    assert page.evaluate("() => typeof window.Plotly") == "undefined"
    held.release()
    assert page.errors == []


def test_preview_on_a_log_axis_skips_non_positive_values(page, tbx_server):
    held = open_held(page, tbx_server, "&scalars.smoothing=0&scalars.log=1")
    assert wait_until(lambda: len(preview_lines(page)) == 3)
    positive = {run: [loss_value(i, s) for s in range(STEPS) if loss_value(i, s) > 0]
                for i, run in enumerate(RUNS)}
    assert any(len(v) < STEPS for v in positive.values())  # the fixture has some values <= 0
    for line in preview_lines(page):
        assert not line["raw"]  # smoothing 0: only the data line
        assert line["points"] == len(line["vertices"]) == len(positive[line["run"]])
        assert_affine([math.log10(v) for v in positive[line["run"]]],
                      [y for _, y in line["vertices"]], decreasing=True)
    smallest = min(min(v) for v in positive.values())
    assert math.isclose(float(tick(page, "y-min")), smallest, rel_tol=1e-3)
    held.release()


def test_preview_wall_time_axis_labels_dates(page, tbx_server):
    held = open_held(page, tbx_server, "&scalars.x=wall")
    assert wait_until(lambda: len(preview_lines(page)) == 6)
    first, last = (datetime.datetime.strptime(tick(page, name), "%Y-%m-%d %H:%M:%S")
                   for name in ("x-min", "x-max"))
    assert (last - first).total_seconds() == STEPS - 1  # step s is written at 1000 + s seconds
    assert page.text_content(f"{CARD} svg.lens-preview .axis-title") == "wall time"
    held.release()


def test_preview_is_replaced_by_the_plotly_chart(page, tbx_server):
    held = open_held(page, tbx_server)
    assert wait_until(lambda: len(preview_lines(page)) == 6)
    held.release()
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")
    assert page.locator(f"{CARD} svg.lens-preview").count() == 0
    assert wait_until(lambda: page.evaluate("""(sel) => document.querySelector(
        sel + " .js-plotly-plot").data.length""", CARD) == 6)
    # Later draws (here a smoothing change) stay with plotly: no preview comes back.
    page.fill(".smoothing-value", "0")
    page.dispatch_event(".smoothing-value", "change")
    assert wait_until(lambda: page.evaluate("""(sel) => document.querySelector(
        sel + " .js-plotly-plot").data.length""", CARD) == 3)
    assert page.locator("svg.lens-preview").count() == 0
    assert page.errors == []


# Records, when the plotly script element is added, how many preview lines the page shows
# and the time (ms since navigation start).
RECORD_PLOTLY_START = """new MutationObserver((records, observer) => {
    for (const r of records) for (const n of r.addedNodes) {
        if (n.tagName === "SCRIPT" && /plotly\\.min\\.js$/.test(n.src)) {
            window.__plotlyStart = {at: performance.now(), previews:
                document.querySelectorAll("svg.lens-preview path.preview-line").length};
            observer.disconnect();
        }
    }
}).observe(document, {childList: true, subtree: true});"""
FALLBACK_MS = 2000  # charts.js starts plotly by itself this long after the page starts


def test_plotly_starts_only_after_the_first_previews_show(page, tbx_server):
    page.add_init_script(RECORD_PLOTLY_START)
    page.goto(f"{tbx_server}/#tab=scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")
    start = page.evaluate("() => window.__plotlyStart")
    # Each of the three cards in view (train/loss, train/accuracy, eval/loss) previewed 6
    # lines first, unless the page was so slow that the fallback delay ran out before.
    assert start["previews"] == 18 or start["at"] >= FALLBACK_MS, start
    assert page.errors == []


def test_a_tab_without_charts_warms_plotly_up_later(page, tbx_server):
    page.add_init_script(RECORD_PLOTLY_START)
    page.goto(f"{tbx_server}/#tab=text")
    page.wait_for_selector(".text-card strong")
    assert wait_until(lambda: page.evaluate("() => typeof window.Plotly") == "object", timeout=15)
    # Not at once (the page's own work comes first), but without any chart asking for it.
    assert page.evaluate("() => window.__plotlyStart.at") >= FALLBACK_MS


def test_hostile_names_in_the_preview_stay_text(page, hostile_server):
    held = HeldPlotly(page)
    page.goto(f"{hostile_server}/#tab=scalars", wait_until="commit")
    card = ".scalar-card[data-tag='%s']" % XSS_TAG.replace("'", "\\'")
    page.wait_for_selector(f"{card} svg.lens-preview path.preview-line")
    lines = preview_lines(page, card)
    assert [line["run"] for line in lines if not line["raw"]] == [XSS]
    assert all(line["points"] == 5 for line in lines)
    titles = page.eval_on_selector_all(f"{card} svg.lens-preview title",
                                       "els => els.map(e => e.textContent)")
    assert set(titles) == {XSS}
    assert XSS_TAG in page.get_attribute(f"{card} svg.lens-preview", "aria-label")
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__xss") is None
    assert page.locator(".cards script, .cards img, .cards foreignObject").count() == 0
    held.release()
    assert page.errors == []


def preview_counts(page, card):
    return page.evaluate("""(sel) => ({
        lines: document.querySelectorAll(sel + " svg.lens-preview path.preview-line").length,
        areas: document.querySelectorAll(sel + " svg.lens-preview path.preview-area").length})""",
                         card)


def plotly_trace_count(page, card):
    return page.evaluate("""(sel) => { const el = document.querySelector(sel + " .js-plotly-plot");
        return el && el.data ? el.data.length : 0; }""", card)


def test_histogram_and_distribution_previews_become_plotly_charts(page, tbx_server):
    held = HeldPlotly(page)
    page.goto(f"{tbx_server}/#tab=histograms", wait_until="commit")
    card = ".histogram-card[data-run='lr_0.1']"
    page.wait_for_selector(f"{card} svg.lens-preview path.preview-line")
    # Offset mode: one filled ridge per written step (0, 20, ..., 100), 30 bins plus two ends.
    assert preview_counts(page, card) == {"lines": 6, "areas": 6}
    lines = preview_lines(page, card)
    assert all(line["points"] == len(line["vertices"]) == 32 for line in lines)
    assert lines[-1]["stroke"] == swatch_colours(page)["lr_0.1"]  # the newest step, untinted
    assert page.text_content(f"{card} svg.lens-preview .axis-title") == "value"
    assert page.evaluate("() => typeof window.Plotly") == "undefined"
    held.release()
    page.wait_for_selector(f"{card} .js-plotly-plot .scatterlayer .trace")
    assert wait_until(lambda: plotly_trace_count(page, card) == 6)
    assert page.locator("svg.lens-preview").count() == 0

    held = HeldPlotly(page)  # a fresh page load below fetches plotly again
    page.goto("about:blank")
    page.goto(f"{tbx_server}/#tab=distributions", wait_until="commit")
    card = ".distribution-card[data-run='lr_0.01']"
    page.wait_for_selector(f"{card} svg.lens-preview path.preview-line")
    # Four percentile bands as areas and the median as the one line, over the six steps.
    assert preview_counts(page, card) == {"lines": 1, "areas": 4}
    (median,) = preview_lines(page, card)
    assert median["points"] == len(median["vertices"]) == 6
    assert median["stroke"] == swatch_colours(page)["lr_0.01"]
    assert (tick(page, "x-min", card), tick(page, "x-max", card)) == ("0", "100")
    assert page.evaluate("() => typeof window.Plotly") == "undefined"
    held.release()
    page.wait_for_selector(f"{card} .js-plotly-plot .scatterlayer .trace")
    assert wait_until(lambda: plotly_trace_count(page, card) == 9)
    assert page.locator("svg.lens-preview").count() == 0
    assert page.errors == []


def test_previews_stay_when_plotly_cannot_load(page, tbx_server):
    # The data stays on screen next to the error (as with a broken plotly install).
    page.route(PLOTLY, lambda route: route.abort())
    page.goto(f"{tbx_server}/#tab=scalars", wait_until="commit")
    assert wait_until(lambda: "reinstall the plotly package" in (
        page.text_content(f"{CARD} .card-note") or ""))
    assert len(preview_lines(page)) == 6
    page.goto(f"{tbx_server}/#tab=histograms", wait_until="commit")
    card = ".histogram-card[data-run='lr_0.1']"
    page.wait_for_selector(f"{card} .plot-error")
    assert "reinstall the plotly package" in page.text_content(f"{card} .plot-error")
    assert preview_counts(page, card) == {"lines": 6, "areas": 6}
    assert page.errors == []


def test_a_long_series_is_thinned_per_pixel_keeping_extremes_and_gaps(page, tbx_server):
    page.goto(f"{tbx_server}/#tab=text")
    page.wait_for_selector(".text-card strong")
    # 10,000 points in a 500 px card: a sine band, one spike at step 7777, a gap at step 3000.
    path = page.evaluate("""() => {
        const box = document.createElement("div");
        box.style.width = "500px";
        document.body.append(box);
        const x = Array.from({length: 10000}, (_, i) => i);
        const y = x.map((i) => i === 7777 ? 5 : i === 3000 ? NaN : Math.sin(i / 50));
        const svg = window.lensPreview.draw(box, [{x, y, line: {color: "#123456", width: 1}}],
            window.lensCharts.baseLayout({xaxis: {type: "linear"}, yaxis: {type: "linear"}}), "t");
        const p = svg.querySelector("path.preview-line");
        return {d: p.getAttribute("d"), points: Number(p.dataset.points)}; }""")
    assert path["points"] == 9999  # the NaN is not a point
    vertices = [tuple(map(float, xy.split(","))) for xy in re.findall(r"[ML]([-\d.]+,[-\d.]+)",
                                                                      path["d"])]
    assert len(vertices) <= 4 * 500  # at most first, min, max and last per pixel column
    assert path["d"].count("M") == 2  # the line breaks at the gap
    # y pixels: 220 (bottom) - (v - lo) / (hi - lo) * 210 with 5% padding around [-1, 5].
    lo, hi = -1 - 0.3, 5 + 0.3
    spike = 220 - (5 - lo) / (hi - lo) * 210
    band_top = 220 - (1 - lo) / (hi - lo) * 210
    assert abs(min(y for _, y in vertices) - spike) < 0.15
    assert sorted(y for _, y in vertices)[1] > band_top - 0.2  # only the spike is above the band
