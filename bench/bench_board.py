"""Board benchmarks: the scalars route with viewport downsampling, and time to first chart.

Rows:
- scalars route on one long series with `&downsample=1000` vs the same route returning every
  point (what a client without viewport downsampling would fetch);
- the same with a zoomed step range (what a zoom refetch costs);
- time from building the app over the sample logs to the first scalars chart drawn in
  chromium, and from the data being read to that chart, for both lens's SVG preview and the
  interactive plotly chart that replaces it (full mode only; chromium launch is not counted).
"""

import logging
import os
import statistics
import threading
import time
from pathlib import Path

from bench import loading_data


def _median_ms(fn, repeats):
    """Median wall time of fn() in milliseconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _loaded_app(root):
    """The board app over root with the data fully read."""
    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    provider = DataProvider(str(root), reload_interval=0)
    provider.reload()
    return create_app(provider)


def _route_rows(steps, repeats):
    root = loading_data.logdir(1, 1, steps, progress=True)
    app = _loaded_app(root)
    client = app.test_client()
    run = app.config["LENS_PROVIDER"].runs()[0]
    base = f"/data/plugin/scalars/scalars?run={run}&tag=train/metric_00"

    def fetch(url):
        response = client.get(url)
        assert response.status_code == 200, response.data[:200]

    full = _median_ms(lambda: fetch(base), max(1, repeats // 3))
    sampled = _median_ms(lambda: fetch(base + "&downsample=1000"), repeats)
    zoomed = _median_ms(lambda: fetch(base + f"&downsample=1000&min_step={steps // 3}"
                                             f"&max_step={steps // 2}"), repeats)
    note = f"{steps:,} points; goal < 100 ms"
    return [
        {"name": "board scalars route, downsample=1000", "lens": sampled, "other": full,
         "other_name": "same route, every point", "unit": "ms", "note": note},
        {"name": "board scalars route, zoomed range", "lens": zoomed, "other": full,
         "other_name": "same route, every point", "unit": "ms", "note": note},
    ]


def _sample_logdir():
    """The bundled sample logs, else a small tensorboardX logdir from the bench cache."""
    from lens.board.cli import sample_logdir

    found = sample_logdir()
    return found if found is not None else Path(loading_data.logdir(3, 3, 200, progress=False))


def _bare_plotly_seconds(browser):
    """Load time of a page holding only plotly.min.js, in a fresh context (cold cache)."""
    from flask import Flask, send_file
    from werkzeug.serving import make_server

    from lens.board.app import plotly_js_path

    bare = Flask("bare_plotly")
    bare.add_url_rule("/", "page", lambda: "<!DOCTYPE html><script src='/plotly.js'></script>")
    bare.add_url_rule("/plotly.js", "plotly",
                      lambda: send_file(plotly_js_path(), mimetype="text/javascript"))
    server = make_server("127.0.0.1", 0, bare, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = browser.new_context()
    page = context.new_page()
    page.goto("about:blank")
    started = time.perf_counter()
    page.goto(f"http://127.0.0.1:{server.server_port}/")   # returns after the load event
    elapsed = time.perf_counter() - started
    context.close()
    server.shutdown()
    return elapsed


# Recorded in the page: the time (ms since navigation start) of the first animation frame
# after the first preview line, and after the first plotly trace, entered the DOM. Polling
# from Python could miss the preview: plotly's start-up blocks the page right after it paints.
_FRAME_TIMES = """(() => {
    const marks = {preview: "svg.lens-preview path.preview-line",
                   plotly: ".scalar-card .js-plotly-plot .scatterlayer .trace"};
    window.__lensDrawn = {};
    const observer = new MutationObserver(() => {
        for (const [name, selector] of Object.entries(marks)) {
            if (name in window.__lensDrawn || !document.querySelector(selector)) continue;
            window.__lensDrawn[name] = null;
            requestAnimationFrame(() => { window.__lensDrawn[name] = performance.now(); });
        }
        if (Object.keys(window.__lensDrawn).length === 2) observer.disconnect();
    });
    observer.observe(document, {childList: true, subtree: true});
})();"""


def _drawn_seconds(page, url):
    """Seconds from asking the browser to open url to the preview and the plotly chart drawn."""
    asked = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_function("() => window.__lensDrawn && Number.isFinite(window.__lensDrawn.plotly)"
                           " && Number.isFinite(window.__lensDrawn.preview)", timeout=60000)
    drawn = page.evaluate("() => window.__lensDrawn")
    # The page's clock starts at navigation start, a few ms after `asked` (not counted).
    return asked, drawn["preview"] / 1000, drawn["plotly"] / 1000


def _first_chart_rows():
    """Board start to the first scalars chart drawn in chromium, split at 'data read'.

    The browser is already running with a page open (as a user's is), so chromium's own
    start-up is not counted; the board's is: app creation, reading the logdir, page load.
    Two charts are timed: lens's SVG preview and the interactive plotly chart replacing it."""
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from lens.board.app import create_app

    chromium_args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync"]
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    root = _sample_logdir()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=chromium_args)
        page = browser.new_page()
        page.add_init_script(_FRAME_TIMES)
        page.goto("about:blank")
        started = time.perf_counter()
        app = create_app(str(root), reload_interval=0)
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        provider = app.config["LENS_PROVIDER"]
        while not provider.progress()["done"]:
            time.sleep(0.002)
        data_read = time.perf_counter()
        url = f"http://127.0.0.1:{server.server_port}/#tab=scalars"
        asked, preview, plotly = _drawn_seconds(page, url)
        waited = asked - data_read
        # A second visit: plotly.min.js comes from the browser's cache, already compiled.
        page.goto("about:blank")
        _, preview_again, plotly_again = _drawn_seconds(page, url)
        bare = _bare_plotly_seconds(browser)
        browser.close()
        server.shutdown()
        provider.stop()
    note = f"{root.name}: {sum(1 for _ in Path(root).rglob('*tfevents*'))} event files"
    bare_name = "a page with only plotly.min.js"
    return [
        {"name": "board first chart drawn after data read (lens preview)",
         "lens": waited + preview, "other": bare, "other_name": bare_name, "unit": "s",
         "note": "first visit (cold browser cache): page load to the first SVG preview; "
                 "goal < 1 s"},
        {"name": "board interactive (plotly) chart after data read", "lens": waited + plotly,
         "other": bare, "other_name": bare_name, "unit": "s",
         "note": "first visit: page load to the first plotly chart (replacing the preview)"},
        {"name": "board first chart drawn, page revisited (lens preview)", "lens": preview_again,
         "other": plotly_again, "other_name": "interactive (plotly) chart", "unit": "s",
         "note": "plotly.min.js from the browser cache"},
        {"name": "board start to first chart drawn (lens preview)", "lens": waited + preview
         + (data_read - started), "other": waited + plotly + (data_read - started),
         "other_name": "interactive (plotly) chart", "unit": "s",
         "note": note + " (reading the logdir included)"},
    ]


def run(quick):
    """Benchmark rows for the bench harness."""
    if quick:
        return _route_rows(5_000, repeats=3)
    rows = _route_rows(1_000_000, repeats=9)
    if os.path.exists("/usr/bin/chromium"):
        rows.extend(_first_chart_rows())
    return rows
