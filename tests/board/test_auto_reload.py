"""Auto-reload in chromium while a real writer appends to the logdir: new points and images
appear, and the user's zoom, smoothing and image slider positions stay where they were."""

import pytest

from conftest import png_bytes, serve, wait_until
from lens.board.app import create_app

CARD = ".scalar-card[data-tag='train/loss']"
IMAGE = ".image-card[data-run='live']"


class LiveRun:
    """lens's own FileWriter kept open, appending steps on demand (like a training job)."""

    def __init__(self, root):
        from lens.events.writer import FileWriter

        self.writer = FileWriter(str(root / "live"))
        self.step = 0

    def write(self, steps, image_every=10):
        """Append `steps` steps of train/loss (and an image every image_every), then flush."""
        from lens.proto import event_pb2, summary_pb2

        for _ in range(steps):
            s = self.step
            values = [summary_pb2.Summary.Value(tag="train/loss", simple_value=1.0 / (1 + s))]
            if s % image_every == 0:
                values.append(summary_pb2.Summary.Value(tag="input/digit", image=(
                    summary_pb2.Summary.Image(height=8, width=12, colorspace=3,
                                              encoded_image_string=png_bytes(s)))))
            self.writer.add_event(event_pb2.Event(wall_time=1000.0 + s, step=s,
                                                  summary=summary_pb2.Summary(value=values)))
            self.step += 1
        self.writer.flush()


@pytest.fixture()
def live(tmp_path):
    run = LiveRun(tmp_path)
    run.write(50)
    # reload_interval=1: the server rereads the logdir every second and the page polls every
    # 2 s (its minimum), as `lens board --reload_interval 1` would.
    app = create_app(str(tmp_path), reload_interval=1)
    try:
        with serve(app) as url:
            yield url, run
    finally:
        app.config["LENS_PROVIDER"].stop()
        run.writer.close()


def last_step(page):
    return page.evaluate("""(sel) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        const t = el && el.data ? el.data.find(t => !(t.meta && t.meta.raw)) : null;
        return t && t.text && t.text.length ? Number(t.text[t.text.length - 1]) : null; }""", CARD)


def x_range(page):
    return page.evaluate(f"""() => document.querySelector("{CARD} .js-plotly-plot")
        ._fullLayout.xaxis.range.slice()""")


def drag_zoom(page, step_from, step_to):
    """A real mouse drag across the plot from one step to another (plotly's box zoom)."""
    pts = page.evaluate("""([sel, a, b]) => {
        const el = document.querySelector(sel + " .js-plotly-plot");
        const box = el.querySelector(".nsewdrag").getBoundingClientRect();
        const xa = el._fullLayout.xaxis;
        return [box.left + xa.l2p(a), box.left + xa.l2p(b), box.top + 20,
                box.top + box.height - 20]; }""", [CARD, step_from, step_to])
    page.mouse.move(pts[0], pts[2])
    page.mouse.down()
    page.mouse.move((pts[0] + pts[1]) / 2, pts[3], steps=4)
    page.mouse.move(pts[1], pts[3], steps=4)
    page.mouse.up()


def test_new_points_appear_without_losing_zoom_or_smoothing(page, live):
    base, run = live
    page.goto(f"{base}/#tab=scalars")
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")
    assert wait_until(lambda: last_step(page) == 49)
    page.fill(".smoothing-value", "0.3")
    page.dispatch_event(".smoothing-value", "change")
    drag_zoom(page, 10, 20)
    assert wait_until(lambda: abs(x_range(page)[0] - 10) < 1 and abs(x_range(page)[1] - 20) < 1)
    zoomed = x_range(page)
    run.write(50)                      # training goes on: steps 50..99
    assert wait_until(lambda: last_step(page) == 99, timeout=20)
    assert x_range(page) == zoomed
    assert page.input_value(".smoothing-value") == "0.3"
    assert page.input_value(".smoothing-slider") == "0.3"
    assert page.errors == []


def test_new_images_appear_and_a_moved_slider_stays(page, live):
    base, run = live
    page.goto(f"{base}/#tab=images")
    page.wait_for_selector(f"{IMAGE} img[src]")
    assert wait_until(lambda: page.get_attribute(IMAGE, "data-step") == "40")
    assert page.get_attribute(f"{IMAGE} .step-slider", "max") == "4"
    page.fill(f"{IMAGE} .step-slider", "1")    # the user looks back at step 10
    assert wait_until(lambda: page.get_attribute(IMAGE, "data-step") == "10")
    run.write(30)                               # images at steps 50, 60, 70
    assert wait_until(lambda: page.get_attribute(f"{IMAGE} .step-slider", "max") == "7",
                      timeout=20)
    assert page.get_attribute(IMAGE, "data-step") == "10"
    assert page.input_value(f"{IMAGE} .step-slider") == "1"
    # Moved back to the newest, the slider follows new data again.
    page.fill(f"{IMAGE} .step-slider", "7")
    assert wait_until(lambda: page.get_attribute(IMAGE, "data-step") == "70")
    run.write(20)                               # images at 80, 90
    assert wait_until(lambda: page.get_attribute(IMAGE, "data-step") == "90", timeout=20)
    assert page.errors == []


def test_time_series_cards_follow_new_data_and_keep_the_step_selection(page, live):
    base, run = live
    card = ".ts-card[data-kind='scalars'][data-tag='train/loss']"
    page.goto(f"{base}/")
    page.wait_for_selector(f"{card} .js-plotly-plot .scatterlayer .trace")
    steps = f"""() => {{ const el = document.querySelector("{card} .js-plotly-plot");
        const t = el.data.find(t => !t.meta.raw); return Number(t.text[t.text.length - 1]); }}"""
    assert wait_until(lambda: page.evaluate(steps) == 49)
    page.evaluate(f"""() => {{ const el = document.querySelector("{card} .js-plotly-plot");
        el.emit("plotly_click", {{points: [{{data: el.data.find(t => !t.meta.raw),
                                             pointIndex: 20}}]}}); }}""")
    row = f"{card} .ts-data-table tbody tr .dt-step"
    assert wait_until(lambda: page.locator(row).count() == 1 and page.text_content(row) == "20")
    run.write(50)
    assert wait_until(lambda: page.evaluate(steps) == 99, timeout=20)
    assert page.text_content(row) == "20"
    assert page.errors == []
