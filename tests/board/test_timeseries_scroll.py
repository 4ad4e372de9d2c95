"""Time Series cards while the grid scrolls, in chromium: a fling loads none of the cards it
passes (they load once it slows down, those on screen then), and cards load and draw as a
slow scroll brings them into view."""

from conftest import RUNS
from test_timeseries_page import LOSS, click_step, open_ts, table

# Scroll the dashboards pane to the bottom (`step` px a frame). Returns the cards loaded
# (data-loaded) that lie wholly in the stretch the fling passed (below the first screen and
# its 200 px loading margin, above the last screen's; 100 px more either way for layout
# shifts), how many cards lie there, and the ids of the cards on screen at the end.
FLING = """async (step) => {
    const pane = document.getElementById("dashboards");
    const height = pane.clientHeight;
    await new Promise((resolve) => {
        const tick = () => {
            const before = pane.scrollTop;
            pane.scrollTop = before + step;
            if (pane.scrollTop === before) resolve(); else requestAnimationFrame(tick);  // bottom
        };
        requestAnimationFrame(tick);
    });
    const box = pane.getBoundingClientRect();
    const cards = [...document.querySelectorAll("#dashboard-timeseries .cards .ts-card")];
    const place = (c) => { const r = c.getBoundingClientRect();
        return [r.top - box.top + pane.scrollTop, r.bottom - box.top + pane.scrollTop]; };
    const passed = cards.filter((c) => { const [top, bottom] = place(c);
        return top > height + 300 && bottom < pane.scrollTop - 300; });
    const onScreen = cards.filter((c) => { const r = c.getBoundingClientRect();
        return r.bottom > box.top && r.top < box.bottom; });
    return [passed.filter((c) => c.dataset.loaded !== undefined).map((c) => c.dataset.id),
            passed.length, onScreen.map((c) => c.dataset.id)];
}"""


def test_a_fling_loads_only_the_cards_where_it_stops(page, tbx_server):
    page.set_viewport_size({"width": 700, "height": 400})
    open_ts(page, tbx_server)
    page.wait_for_selector("#dashboard-timeseries .cards .ts-card[data-loaded]")
    loaded, passed, on_screen = page.evaluate(FLING, 300)
    assert passed > 3 and loaded == []
    # Once it stopped, the cards on screen load and draw.
    for card_id in on_screen:
        page.wait_for_function("""(id) => { const c = [...document.querySelectorAll(
            '#dashboard-timeseries .cards .ts-card')].find((e) => e.dataset.id === id);
            return c && c.dataset.loaded !== undefined &&
                   (c.dataset.kind === 'images' ? c.querySelector('img[src]') :
                    c.querySelector('.plot svg')); }""", arg=card_id)
    assert page.errors == []


def test_a_slow_scroll_loads_cards_as_they_come_into_view(page, tbx_server):
    page.set_viewport_size({"width": 700, "height": 400})
    open_ts(page, tbx_server)
    page.wait_for_selector("#dashboard-timeseries .cards .ts-card[data-loaded]")
    first = page.eval_on_selector_all("#dashboard-timeseries .cards .ts-card[data-loaded]",
                                      "els => els.length")
    # 4 px a frame for 2 s (a screen in 100 frames: slower than a screen a second); the cards
    # it brings into view load while it is still going.
    loaded = page.evaluate("""() => new Promise((resolve) => {
        const pane = document.getElementById("dashboards");
        const start = performance.now();
        const tick = (now) => {
            pane.scrollTop += 4;
            if (now - start < 2000) { requestAnimationFrame(tick); return; }
            resolve(document.querySelectorAll(
                "#dashboard-timeseries .cards .ts-card[data-loaded]").length);
        };
        requestAnimationFrame(tick); })""")
    assert loaded > first
    assert page.errors == []


def test_cards_drawn_mid_scroll_are_canvas_previews_then_plotly(page, tbx_server):
    page.set_viewport_size({"width": 700, "height": 400})
    open_ts(page, tbx_server)
    page.wait_for_selector("#dashboard-timeseries .cards .ts-card[data-loaded]")
    # train/loss 300 px under the screen (beyond the 200 px loading margin), then a slow
    # scroll (3 px a frame) brings it in and goes on gently (3 px down and up in turn) while
    # it is on screen: it loads and draws while the grid still scrolls.
    page.eval_on_selector(LOSS, """(card) => {
        const pane = document.getElementById("dashboards");
        const box = pane.getBoundingClientRect(), r = card.getBoundingClientRect();
        pane.scrollTop += r.top - box.bottom - 300;
        window.__scrolling = true;
        let frame = 0;
        setTimeout(() => {
            const tick = () => {
                const top = card.getBoundingClientRect().top - box.top;
                pane.scrollTop += top > 40 ? 3 : (frame++ % 2 ? 3 : -3);
                if (window.__scrolling) requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
        }, 600);
    }""")
    canvas = page.wait_for_selector(f"{LOSS} .plot canvas.lens-preview-canvas", state="attached",
                                    timeout=30000)
    smoothing = page.evaluate("window.lensSettings.get('smoothing')")
    # One line per run, and a faint raw line behind each when smoothing is on.
    assert int(canvas.get_attribute("data-lines")) == len(RUNS) * (2 if smoothing > 0 else 1)
    assert page.eval_on_selector(LOSS, "c => c.querySelector('.plot .js-plotly-plot .main-svg')") is None
    page.evaluate("window.__scrolling = false")
    # Once the scrolling stops, plotly takes the card over, with its step table.
    page.wait_for_selector(f"{LOSS} .js-plotly-plot .scatterlayer .trace", timeout=30000)
    page.wait_for_function(f"() => !document.querySelector({LOSS!r} + ' .plot canvas')")
    click_step(page, LOSS, 50)  # the step selection works on the upgraded chart
    rows = table(page, LOSS)
    assert sorted(r["run"] for r in rows) == sorted(RUNS)
    assert {r["dt-step"] for r in rows} == {"50"}
    assert page.errors == []


def test_cards_load_without_the_worker(page, tbx_server):
    # The loader script cannot be fetched: the page loads the batches itself.
    blocked = []
    page.route("**/static/js/ts_loader.js", lambda route: (blocked.append(1), route.abort()))
    open_ts(page, tbx_server)
    page.wait_for_selector(".ts-card[data-tag='eval/loss'][data-loaded] .plot svg")
    page.locator(LOSS).scroll_into_view_if_needed()
    page.wait_for_selector(f"{LOSS} .js-plotly-plot .scatterlayer .trace")
    traces = page.eval_on_selector(f"{LOSS} .js-plotly-plot", "el => el.data.length")
    smoothing = page.evaluate("window.lensSettings.get('smoothing')")
    assert traces == len(RUNS) * (2 if smoothing > 0 else 1)
    assert blocked and page.errors == []
