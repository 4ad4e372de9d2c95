"""Histogram charts in chromium: offset ridges filled and scaled to each step's own maximum,
hover naming the step and the bucket, and the overlay mode."""

import re

import numpy as np

from conftest import wait_until

CARD = "#dashboard-histograms .histogram-card[data-run='lr_0.1']"


def open_histograms(page, base, extra=""):
    page.goto(f"{base}/#tab=histograms{extra}")
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")


def plot_data(page):
    return page.eval_on_selector(f"{CARD} .js-plotly-plot", """el => el.data.map(t => ({
        x: Array.from(t.x), y: Array.from(t.y), fill: t.fill || "", name: t.name,
        custom: t.customdata ? t.customdata.map(c => Array.from(c)) : null}))""")


def test_offset_ridges_are_filled_and_scaled_per_step(page, tbx_server):
    open_histograms(page, tbx_server)
    traces = plot_data(page)
    steps = [int(t["name"].split()[1]) for t in traces]
    assert steps == [0, 20, 40, 60, 80, 100]   # oldest at the back, drawn first
    heights = []
    for step, t in zip(steps, traces):
        assert t["fill"] == "toself"
        assert t["y"][0] == t["y"][-1] == step     # each ridge rises from its own step
        counts = np.array([c[2] for c in t["custom"]])
        rise = step - np.array(t["y"])
        # Heights are proportional to the counts, the tallest bin of every step equally tall.
        assert np.allclose(rise / rise.max(), counts / counts.max())
        heights.append(rise.max())
    assert np.allclose(heights, heights[0])
    # Every step's bins cover the same 30 equal-width bins, and together count all samples.
    edges = [(c[0], c[1]) for c in traces[0]["custom"][1:-1]]
    assert len(edges) == 30 and np.allclose(np.diff([a for a, _ in edges]), edges[0][1] - edges[0][0])
    assert all(np.isclose(sum(c[2] for c in t["custom"]), 300) for t in traces)
    check_hover_names_the_step_and_bucket(page, traces)


def check_hover_names_the_step_and_bucket(page, traces):
    last = traces[-1]
    k = int(np.argmax([c[2] for c in last["custom"]]))
    x, y = page.evaluate("""([sel, x, y]) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        const box = el.querySelector(".nsewdrag").getBoundingClientRect();
        const L = el._fullLayout;
        return [box.left + L.xaxis.l2p(x), box.top + L.yaxis.l2p(y)]; }""",
                         [CARD, last["x"][k], last["y"][k]])
    page.mouse.move(x, y)
    label = f"{CARD} .hoverlayer .hovertext"
    assert wait_until(lambda: page.locator(label).count() == 1)
    text = page.text_content(label)
    left, right, count = last["custom"][k]
    assert text.startswith("step 100")
    numbers = [float(v) for v in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", text.split("step 100")[1])]
    assert np.allclose(numbers, [left, right, count], rtol=1e-3, atol=1e-3)
    # Step-linked hover: the other runs' histograms outline step 100 too.
    other = "#dashboard-histograms .histogram-card[data-run='lr_0.01'] .js-plotly-plot"
    widths = f"""el => Object.fromEntries(el.data.map(t => [t.name, t.line.width]))"""
    assert wait_until(lambda: page.eval_on_selector(other, widths)["step 100"] == 3)
    assert page.eval_on_selector(other, widths)["step 80"] == 1
    page.mouse.move(1, 1)
    assert wait_until(lambda: page.eval_on_selector(other, widths)["step 100"] == 1)
    assert page.errors == []


def test_overlay_mode_draws_a_line_per_step(page, tbx_server):
    open_histograms(page, tbx_server, "&histograms.mode=overlay")
    traces = plot_data(page)
    assert [t["fill"] for t in traces] == [""] * 6
    for t in traces:
        assert np.allclose(t["y"], [c[2] for c in t["custom"]])  # y is the count itself
    assert page.input_value(".histogram-mode") == "overlay"
    page.select_option(".histogram-mode", "offset")
    assert wait_until(lambda: {t["fill"] for t in plot_data(page)} == {"toself"})
    assert "histograms.mode" not in page.url
    # The offset time axis: ridges sit at hours since the first step (the fixture writes step
    # s at 1000 + s seconds), or at their wall time on a date axis.
    page.evaluate("window.lensSettings.set('histogramAxis', 'relative')")
    assert wait_until(lambda: np.allclose([t["y"][0] for t in plot_data(page)],
                                          [s / 3600 for s in (0, 20, 40, 60, 80, 100)]))
    page.evaluate("window.lensSettings.set('histogramAxis', 'wall')")
    assert wait_until(lambda: page.eval_on_selector(
        f"{CARD} .js-plotly-plot", "el => el._fullLayout.yaxis.type") == "date")
    assert [t["y"][0] for t in plot_data(page)] == [(1000 + s) * 1000 for s in range(0, 101, 20)]
    assert page.errors == []
