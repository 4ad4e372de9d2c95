"""Time Series tab benchmarks in chromium: 200 scalar cards of 20 runs each.

Rows (the Scalars tab on the same logdir is the point of comparison):
- page opened (data already read, plotly.min.js cached as on any later visit) to the first
  row of cards drawn; goal < 1 s;
- a setting toggled (smoothing) to every visible card redrawn and painted; goal < 300 ms;
- scrolling the whole grid at one screen per 4 frames (a fling): frames longer than 50 ms
  (cards the fling passes wait for it to slow down before they load);
- scrolling slowly (half a screen a second, as someone reading the cards), over the first
  screens: frames longer than 50 ms while cards load and draw as they come into view.
Frames are the gaps between requestAnimationFrame callbacks while a script scrolls the
dashboards pane (each frame moves it, so each is a frame the page had to produce).
"""

import logging
import os
import statistics
import threading
import time

from bench import loading_data

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]

# When every card of the first row holds a drawing (preview or plotly), in ms since navigation.
_FIRST_ROW = """(sel) => {
    window.__firstRow = null;
    const observer = new MutationObserver(() => {
        const cards = [...document.querySelectorAll(sel)].slice(0, 12)
            .filter((c) => c.offsetParent !== null);
        if (!cards.length) return;
        const top = cards[0].getBoundingClientRect().top;
        const row = cards.filter((c) => Math.abs(c.getBoundingClientRect().top - top) < 2);
        if (!row.every((c) => c.querySelector(".plot svg"))) return;
        observer.disconnect();
        requestAnimationFrame(() => { window.__firstRow = [performance.now(), row.length]; });
    });
    observer.observe(document, {childList: true, subtree: true});
}"""

# Toggle smoothing and wait for the redraw to be painted; ms.
_TOGGLE = """async ([value, timeseries]) => {
    const done = () => timeseries ? window.lensTimeSeries.redrawn : Promise.resolve();
    await done();
    const t0 = performance.now();
    window.lensSettings.set("smoothing", value);
    await done();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return performance.now() - t0;
}"""

# Scroll the dashboards pane down by `screens` screens (to the bottom at most) at `speed`
# screens a second, or one screen every 4 frames when speed is 0; frame gaps in ms.
_SCROLL = """async ([screens, speed]) => {
    const pane = document.getElementById("dashboards");
    pane.scrollTop = 0;
    await new Promise((r) => setTimeout(r, 500));  // the scroll to the top settles
    // The position is read before it is moved (reading it after would force a layout inside
    // the frame, which a user's scrolling does not cause); a frame that finds it short of
    // where the last one put it is at the bottom.
    const height = pane.clientHeight, end = screens * height;
    const gaps = [];
    let last = null, start = null, frame = 0, wanted = 0;
    await new Promise((resolve) => {
        const tick = (now) => {
            if (start === null) start = last = now;
            if (frame && pane.scrollTop < wanted - 1) { resolve(); return; }
            gaps.push(now - last);
            last = now;
            frame += 1;
            const top = speed ? (now - start) / 1000 * speed * height : frame * height / 4;
            wanted = Math.min(top, end);
            pane.scrollTop = wanted;
            if (top >= end || frame > 5000) resolve();
            else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    });
    return gaps.slice(1);
}"""


def _measure(page, url, card_sel, timeseries, slow_screens=4):
    """(first row seconds, cards in it, median toggle ms, long fling frames, fling frames,
    long slow-scroll frames, slow-scroll frames)."""
    page.goto("about:blank")
    page.evaluate("() => 0")
    page.add_init_script(f"({_FIRST_ROW})({card_sel!r})")
    page.goto(url, wait_until="commit")
    page.wait_for_function("() => window.__firstRow", timeout=60000)
    first_ms, row = page.evaluate("() => window.__firstRow")
    # Interactive charts in the first row before timing redraws.
    page.wait_for_function(f"""() => [...document.querySelectorAll({card_sel!r})].slice(0, {row})
        .every((c) => c.querySelector('.js-plotly-plot .main-svg'))""", timeout=60000)
    toggles = [page.evaluate(_TOGGLE, [value, timeseries]) for value in (0.9, 0.3, 0.8, 0.6, 0.7)]
    gaps = page.evaluate(_SCROLL, [1e9, 0])
    slow = page.evaluate(_SCROLL, [slow_screens, 0.5])
    return (first_ms / 1000, row, statistics.median(toggles), sum(g > 50 for g in gaps), len(gaps),
            sum(g > 50 for g in slow), len(slow))


def _rows(runs, tags, steps):
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    root = loading_data.logdir(runs, tags, steps, progress=True)
    provider = DataProvider(str(root), reload_interval=0)
    provider.reload()
    server = make_server("127.0.0.1", 0, create_app(provider), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            page = context.new_page()
            page.goto(base + "#tab=scalars&autoReload=0")   # warm the browser cache
            page.wait_for_selector(".scalar-card .js-plotly-plot .main-svg", timeout=60000)
            ts = _measure(page, base + "#tab=timeseries&autoReload=0", ".ts-card", True)
            sc = _measure(context.new_page(), base + "#tab=scalars&autoReload=0",
                          ".scalar-card", False)
            browser.close()
    finally:
        server.shutdown()
    # The machine's load matters a lot to browser timings: say what it was.
    note = f"{tags} cards x {runs} runs x {steps} steps, load avg {os.getloadavg()[0]:.1f}"
    other = "Scalars tab, same logdir"
    return [
        {"name": "time series: page open to first row drawn", "lens": ts[0], "other": sc[0],
         "other_name": other, "unit": "s",
         "note": f"{note}; {ts[1]} cards in the row; goal < 1 s"},
        {"name": "time series: setting toggled to visible cards redrawn", "lens": ts[2],
         "other": sc[2], "other_name": other, "unit": "ms",
         "note": "smoothing changed, median of 5, painted; goal < 300 ms"},
        {"name": "time series: frames > 50 ms scrolling the grid", "lens": ts[3],
         "other": sc[3], "other_name": other, "unit": "frames",
         "note": f"of {ts[4]} frames (Scalars: {sc[4]}); the whole grid, one screen per 4 "
                 "frames; goal 0"},
        {"name": "time series: frames > 50 ms scrolling slowly", "lens": ts[5],
         "other": sc[5], "other_name": other, "unit": "frames",
         "note": f"of {ts[6]} frames (Scalars: {sc[6]}); 4 screens at half a screen a second, "
                 "cards load and draw as they come into view; goal 0"},
    ]


def run(quick):
    """Benchmark rows for the bench harness."""
    if quick:
        return _rows(3, 20, 50)
    return _rows(20, 200, 200)
