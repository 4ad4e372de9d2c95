"""The shared settings panel in chromium: full-width card grid, settings remembered across
reloads (localStorage), dark mode down to plotly's colours, tooltip sorting and outliers."""

import numpy as np

from conftest import wait_until

CARD = ".scalar-card[data-tag='train/loss']"


def open_scalars(page, base):
    page.goto(f"{base}/#tab=scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")


def set_setting(page, name, value):
    """Change a control of the settings panel the way a user does (opening the panel first)."""
    if page.is_hidden("#settings-panel"):
        page.click("#settings-toggle")
    control = f"#settings-panel .setting-{name}"
    kind = page.eval_on_selector(control, "el => el.tagName + ':' + (el.type || '')")
    if kind.startswith("SELECT"):
        page.select_option(control, value)
    elif kind == "INPUT:checkbox":
        page.set_checked(control, bool(value))
    else:
        page.eval_on_selector(f"{control} input", """(el, v) => { el.value = v;
            el.dispatchEvent(new Event('input', {bubbles: true})); }""", str(value))


def plot_layout(page, key):
    """A value of plotly's resolved layout (axes: title, range, type only)."""
    return page.evaluate("""([sel, key]) => {
        const v = document.querySelector(sel + " .js-plotly-plot")._fullLayout[key];
        if (v && v._id) return {title: {text: v.title.text}, range: v.range.slice(), type: v.type};
        return JSON.parse(JSON.stringify(v)); }""", [CARD, key])


def test_cards_use_the_full_page_width(page, tbx_server):
    open_scalars(page, tbx_server)
    boxes = page.eval_on_selector_all(".scalar-card", """els => els.map(e => {
        const r = e.getBoundingClientRect(); return [r.left, r.top, r.right]; })""")
    main = page.eval_on_selector("#dashboards", "e => e.getBoundingClientRect().right")
    # Three cards in two groups (eval, train): at least two share a row, and the row reaches
    # the right side of the page instead of leaving it empty.
    tops = [round(top) for _, top, _ in boxes]
    assert len(set(tops)) < len(tops)
    assert max(right for _, _, right in boxes) > main - 60
    # A wider card width setting means fewer columns: one card per row.
    set_setting(page, "cardWidth", 1200)
    assert wait_until(lambda: len({round(b[0]) for b in page.eval_on_selector_all(
        ".scalar-card", "els => els.map(e => [e.getBoundingClientRect().left])")}) == 1)
    assert page.errors == []


def test_settings_are_remembered_across_reloads(page, tbx_server):
    open_scalars(page, tbx_server)
    set_setting(page, "smoothing", 0.3)
    set_setting(page, "xAxis", "relative")
    set_setting(page, "tooltipSort", "descending")
    set_setting(page, "ignoreOutliers", False)
    set_setting(page, "histogramMode", "overlay")
    set_setting(page, "imageActualSize", True)
    # The scalars toolbar follows the panel at once.
    assert page.input_value(".smoothing-value") == "0.3"
    assert wait_until(lambda: plot_layout(page, "xaxis")["title"]["text"] == "relative (hours)")
    # A fresh page in the same browser profile (no URL state): everything comes back.
    page.goto("about:blank")
    page.goto(f"{tbx_server}/#tab=histograms")
    page.wait_for_selector(".histogram-card .js-plotly-plot .scatterlayer .trace")
    assert page.input_value(".histogram-mode") == "overlay"
    page.click("#settings-toggle")
    values = {name: page.eval_on_selector(f"#settings-panel .setting-{name}",
                                          "el => el.type === 'checkbox' ? el.checked : "
                                          "(el.value ?? el.querySelector('input').value)")
              for name in ("xAxis", "tooltipSort", "ignoreOutliers", "histogramMode",
                           "imageActualSize")}
    assert values == {"xAxis": "relative", "tooltipSort": "descending", "ignoreOutliers": False,
                      "histogramMode": "overlay", "imageActualSize": True}
    assert page.eval_on_selector("#settings-panel .setting-smoothing input", "e => e.value") == "0.3"
    # The overlay mode draws one line per step, no filled ridges.
    fills = page.eval_on_selector(".histogram-card .js-plotly-plot",
                                  "el => el.data.map(t => t.fill || '')")
    assert fills and set(fills) == {""}
    page.click(".settings-reset")
    assert page.input_value(".histogram-mode") == "offset"
    assert page.errors == []


def test_dark_mode_reaches_page_and_plotly(page, tbx_server):
    open_scalars(page, tbx_server)
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    # "System" (the default) follows the browser's colour scheme, live.
    page.emulate_media(color_scheme="dark")
    assert wait_until(lambda: page.evaluate("document.documentElement.dataset.theme") == "dark")
    assert wait_until(lambda: plot_layout(page, "paper_bgcolor") == "#2b2c30")
    page.emulate_media(color_scheme="light")
    assert wait_until(lambda: plot_layout(page, "paper_bgcolor") == "#ffffff")
    assert plot_layout(page, "paper_bgcolor") == "#ffffff"
    set_setting(page, "theme", "dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert wait_until(lambda: plot_layout(page, "paper_bgcolor") == "#2b2c30")
    assert plot_layout(page, "font")["color"] == "#e8eaed"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(32, 33, 36)"
    # Remembered: a reload comes back dark, with charts drawn dark from the start.
    page.reload()
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert plot_layout(page, "paper_bgcolor") == "#2b2c30"
    set_setting(page, "theme", "light")
    assert wait_until(lambda: plot_layout(page, "paper_bgcolor") == "#ffffff")
    assert page.errors == []


def hover_smoothed(page, step):
    """Hover the card at a step; the tooltip's smoothed column in table order."""
    x, y = page.evaluate("""([sel, step]) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        const box = el.querySelector(".nsewdrag").getBoundingClientRect();
        return [box.left + el._fullLayout.xaxis.l2p(step), box.top + 5]; }""", [CARD, step])
    rows = ".scalar-tooltip:not([hidden]) tbody tr"
    page.mouse.move(1, 1)
    assert wait_until(lambda: page.locator(rows).count() == 0)
    page.mouse.move(x, y)
    assert wait_until(lambda: page.locator(rows).count() == 3)
    return [float(v) for v in page.eval_on_selector_all(
        f"{rows} .tt-smoothed", "els => els.map(e => e.textContent)")]


def test_tooltip_sorting_and_ignoring_outliers(page, tbx_server):
    open_scalars(page, tbx_server)
    check_ignore_outliers(page)
    set_setting(page, "tooltipSort", "descending")
    values = hover_smoothed(page, 40)
    assert values == sorted(values, reverse=True)
    set_setting(page, "tooltipSort", "ascending")
    values = hover_smoothed(page, 40)
    assert values == sorted(values)
    # Nearest: the mouse is at the top of the plot, so the largest value comes first.
    set_setting(page, "tooltipSort", "nearest")
    values = hover_smoothed(page, 40)
    assert values[0] == max(values)
    assert page.errors == []


def check_ignore_outliers(page):
    """The y axis spans the 5th to 95th percentile, padded; off, every value."""
    # Taken over the raw values (the smoothing then never rescales the chart).
    ys = page.eval_on_selector(f"{CARD} .js-plotly-plot",
                               "el => el.data.filter(t => t.meta.raw).flatMap(t => Array.from(t.y))")
    values = np.sort(np.asarray(ys, dtype=float))
    lo, hi = (values[int(round(q * (len(values) - 1)))] for q in (0.05, 0.95))
    pad = (hi - lo) * 0.2
    lo, hi = lo - pad, hi + pad
    if lo > 0 and hi < 2 * (hi - lo):  # 0 joins the range when that less than doubles it
        lo = 0
    got = plot_layout(page, "yaxis")["range"]
    assert np.allclose(got, [lo, hi])
    set_setting(page, "ignoreOutliers", False)
    # Off: plotly's own autorange over every value (a 5% margin around the extremes).
    assert wait_until(lambda: not np.allclose(plot_layout(page, "yaxis")["range"], got))
    lo_all, hi_all = plot_layout(page, "yaxis")["range"]
    assert lo_all < values.min() and hi_all > values.max()
