"""Every board route through Flask's test client, against a logdir written by tensorboardX."""

import csv
import io
import json
from urllib.parse import parse_qs

import numpy as np
import pytest

from conftest import N_STEPS, RUNS, loss_value, png_bytes


def get_json(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code, response.data[:300])
    assert response.mimetype == "application/json"
    return response.get_json()


def test_runs_lists_every_run(client, tbx_app):
    assert sorted(get_json(client, "/data/runs")) == sorted(RUNS)
    # lens's extra header: the events read before the listing (the page's first-load check).
    events = tbx_app.config["LENS_PROVIDER"].progress()["events"]
    assert events > 0 and client.get("/data/runs").headers["X-Lens-Events"] == str(events)


def test_environment_has_tensorboards_keys(client):
    env = get_json(client, "/data/environment")
    assert set(env) == {"version", "data_location", "window_title", "experiment_name",
                        "experiment_description", "creation_time"}


def test_plugins_listing_shape_and_activity(client):
    listing = get_json(client, "/data/plugins_listing")
    for name in ("scalars", "histograms", "distributions", "images", "text"):
        entry = listing[name]
        assert entry["enabled"] is True, name
        assert set(entry) == {"disable_reload", "enabled", "loading_mechanism", "remove_dom",
                              "tab_name"}
        assert entry["loading_mechanism"]["type"] == "CUSTOM_ELEMENT"
    assert listing["audio"]["enabled"] is False


def test_scalar_tags_index(client):
    tags = get_json(client, "/data/plugin/scalars/tags")
    assert set(tags) == set(RUNS)
    assert set(tags["lr_0.1"]) == {"train/loss", "train/accuracy", "eval/loss"}
    assert tags["lr_0.1"]["train/loss"] == {"displayName": "train/loss", "description": ""}


def test_scalars_values_match_what_was_written(client):
    rows = get_json(client, "/data/plugin/scalars/scalars?run=lr_0.01&tag=train/loss")
    assert [r[1] for r in rows] == list(range(N_STEPS))
    expected = [float(np.float32(loss_value(1, s))) for s in range(N_STEPS)]
    assert [r[2] for r in rows] == pytest.approx(expected, rel=1e-6)
    assert [r[0] for r in rows] == pytest.approx([1000.0 + s for s in range(N_STEPS)])


def test_scalars_csv(client):
    response = client.get("/data/plugin/scalars/scalars?run=lr_0.1&tag=eval/loss&format=csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    table = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert table[0] == ["Wall time", "Step", "Value"]
    assert [int(r[1]) for r in table[1:]] == list(range(0, N_STEPS, 20))


def test_scalars_viewport_downsampling_keeps_extremes(client):
    url = "/data/plugin/scalars/scalars?run=lr_0.1&tag=train/loss"
    full = get_json(client, url)
    response = client.get(url + "&downsample=8&min_step=10&max_step=90")
    rows = response.get_json()
    assert response.headers["X-Lens-Total-Points"] == "81"
    assert 2 <= len(rows) < 81
    steps = [r[1] for r in rows]
    assert min(steps) >= 10 and max(steps) <= 90 and steps == sorted(steps)
    window = [r[2] for r in full if 10 <= r[1] <= 90]
    values = [r[2] for r in rows]
    assert max(values) == max(window) and min(values) == min(window)


def test_scalars_multirun_post(client):
    response = client.post("/data/plugin/scalars/scalars_multirun",
                           data={"tag": "eval/loss", "runs": ["lr_0.1", "lr_0.001", "nope"]})
    body = response.get_json()
    assert response.status_code == 200
    assert set(body) == {"lr_0.1", "lr_0.001"}
    assert [r[1] for r in body["lr_0.001"]] == list(range(0, N_STEPS, 20))


def test_scalars_multirun_requires_post_and_one_tag(client):
    assert client.get("/data/plugin/scalars/scalars_multirun").status_code == 405
    response = client.post("/data/plugin/scalars/scalars_multirun", data={"runs": ["lr_0.1"]})
    assert response.status_code == 400 and "tag" in response.get_json()["error"]


def test_histograms_shape(client):
    rows = get_json(client, "/data/plugin/histograms/histograms?run=lr_0.1&tag=layer1/weights")
    assert [r[1] for r in rows] == list(range(0, N_STEPS, 20))
    for wall, step, buckets in rows:
        assert isinstance(wall, float) and isinstance(step, int)
        assert buckets and all(len(b) == 3 for b in buckets)
        assert sum(b[2] for b in buckets) == 300
        assert all(left <= right for left, right, _ in buckets)


def test_histograms_downsample_param(client):
    rows = get_json(client, "/data/plugin/histograms/histograms?run=lr_0.1&tag=layer1/weights"
                            "&downsample=2")
    assert [r[1] for r in rows] == [0, 100]


def test_distributions_shape(client):
    rows = get_json(client, "/data/plugin/distributions/distributions?run=lr_0.1"
                            "&tag=layer1/weights")
    assert len(rows) == 6
    for _, _, points in rows:
        assert [bp for bp, _ in points] == [0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000]
        values = [v for _, v in points]
        assert values == sorted(values)


def test_images_index_list_and_bytes(client):
    tags = get_json(client, "/data/plugin/images/tags")
    assert tags["lr_0.1"]["input/digit"]["samples"] == 1
    rows = get_json(client, "/data/plugin/images/images?run=lr_0.1&tag=input/digit&sample=0")
    assert [r["step"] for r in rows] == list(range(0, N_STEPS, 20))
    query = parse_qs(rows[2]["query"])
    assert query == {"run": ["lr_0.1"], "tag": ["input/digit"], "index": ["2"], "sample": ["0"]}
    image = client.get("/data/plugin/images/individualImage?" + rows[2]["query"])
    assert image.status_code == 200 and image.mimetype == "image/png"
    from PIL import Image

    decoded = np.asarray(Image.open(io.BytesIO(image.data)))
    expected = np.asarray(Image.open(io.BytesIO(png_bytes(40))))
    assert np.array_equal(decoded, expected)
    assert image.headers["X-Content-Type-Options"] == "nosniff"


def test_individual_image_index_out_of_range_is_404(client):
    response = client.get("/data/plugin/images/individualImage?run=lr_0.1&tag=input/digit"
                          "&index=99&sample=0")
    assert response.status_code == 404 and "index 99" in response.get_json()["error"]


def test_text_is_rendered_markdown_and_escaped(client):
    assert get_json(client, "/data/plugin/text/tags")["lr_0.1"] == ["notes/text_summary"]
    rows = get_json(client, "/data/plugin/text/text?run=lr_0.1&tag=notes/text_summary")
    assert [r["step"] for r in rows] == list(range(0, N_STEPS, 20))
    html = rows[0]["text"]
    assert "<strong>bold lr_0.1</strong>" in html
    assert "&lt;b&gt;raw&lt;/b&gt;" in html and "<b>" not in html


@pytest.mark.parametrize("url", [
    "/data/plugin/scalars/scalars?tag=train/loss",
    "/data/plugin/scalars/scalars?run=lr_0.1",
    "/data/plugin/scalars/scalars?run=lr_0.1&tag=train/loss&format=xml",
    "/data/plugin/scalars/scalars?run=lr_0.1&tag=train/loss&downsample=abc",
    "/data/plugin/scalars/scalars?run=lr_0.1&tag=train/loss&min_step=9&max_step=2",
    "/data/plugin/histograms/histograms?run=lr_0.1",
    "/data/plugin/distributions/distributions?tag=x",
    "/data/plugin/images/images?run=lr_0.1&tag=input/digit&sample=-1",
    "/data/plugin/images/individualImage?run=lr_0.1&tag=input/digit&index=x",
    "/data/plugin/text/text?run=lr_0.1",
])
def test_bad_parameters_give_400_with_a_message(client, url):
    body = get_json(client, url, status=400)
    assert isinstance(body["error"], str) and len(body["error"]) > 10


@pytest.mark.parametrize("url", [
    "/data/plugin/scalars/scalars?run=nope&tag=train/loss",
    "/data/plugin/scalars/scalars?run=lr_0.1&tag=nope",
    "/data/plugin/histograms/histograms?run=lr_0.1&tag=nope",
    "/data/plugin/distributions/distributions?run=nope&tag=layer1/weights",
    "/data/plugin/images/images?run=lr_0.1&tag=nope",
    "/data/plugin/text/text?run=nope&tag=notes/text_summary",
])
def test_unknown_run_or_tag_gives_404(client, url):
    body = get_json(client, url, status=404)
    assert body["error"]


@pytest.mark.parametrize("run", ["../../../../etc/passwd", "/etc/passwd", "lr_0.1/../..",
                                 "..", "lr_0.1/events.out.tfevents"])
def test_path_like_runs_never_reach_files(client, run):
    for route in ("scalars/scalars", "images/individualImage", "text/text"):
        response = client.get(f"/data/plugin/{route}", query_string={"run": run, "tag": "x"})
        assert response.status_code == 404
        assert b"root:" not in response.data


def test_static_files_cannot_escape(client):
    for url in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py",
                "/static//etc/passwd"):
        response = client.get(url, follow_redirects=True)
        assert response.status_code in (400, 404), url
        assert b"create_app" not in response.data and b"root:" not in response.data


def test_page_assets_are_served_locally(client):
    page = client.get("/")
    assert page.status_code == 200 and b"/static/js/app.js" in page.data
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    plotly = client.get("/static/vendor/plotly.min.js")
    assert plotly.status_code == 200 and b"plotly" in plotly.data[:2000]
    for name in ("app.js", "charts.js", "dash_scalars.js", "dash_media.js", "dash_text.js",
                 "dash_histograms.js", "dash_distributions.js"):
        assert client.get(f"/static/js/{name}").status_code == 200, name


def test_json_errors_for_unknown_urls(client):
    body = get_json(client, "/data/nothing/here", status=404)
    assert json.dumps(body).startswith('{"error"')
