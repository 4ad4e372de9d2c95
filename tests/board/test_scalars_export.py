"""The scalars card's "all runs" download: /data/plugin/scalars/export, the route and the page."""

import csv
import io
import json

from conftest import N_STEPS, RUNS, loss_value

CARD = ".scalar-card[data-tag='train/loss']"


def test_export_route_long_csv_has_every_run(client):
    response = client.get("/data/plugin/scalars/export?tag=train/loss&format=csv")
    assert response.status_code == 200
    assert 'filename="train_loss.csv"' in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == N_STEPS * len(RUNS)
    for i, run in enumerate(RUNS):
        mine = [r for r in rows if r["run"] == run]
        assert [int(r["step"]) for r in mine] == list(range(N_STEPS))
        assert all(r["tag"] == "train/loss" for r in mine)
        for r in mine[::17]:
            assert abs(float(r["value"]) - loss_value(i, int(r["step"]))) < 1e-6
            assert float(r["wall_time"]) == 1000.0 + int(r["step"])


def test_export_route_json_wide_and_run_filter(client):
    response = client.get("/data/plugin/scalars/export?tag=eval/loss&format=json&layout=wide"
                          f"&run={RUNS[0]}&run={RUNS[2]}")
    assert response.status_code == 200
    data = json.loads(response.get_data(as_text=True))
    assert [row["step"] for row in data] == list(range(0, N_STEPS, 20))
    assert set(data[0]) == {"step", f"{RUNS[0]}/eval/loss", f"{RUNS[2]}/eval/loss"}


def test_export_route_bad_input(client):
    assert client.get("/data/plugin/scalars/export?format=csv").status_code == 400
    bad = client.get("/data/plugin/scalars/export?tag=train/loss&format=xlsx")
    assert bad.status_code == 400 and "xlsx" in bad.get_json()["error"]
    missing = client.get("/data/plugin/scalars/export?tag=nope&format=csv")
    assert missing.status_code == 404 and "nope" in missing.get_json()["error"]


def test_card_downloads_the_tag_for_all_runs(page, tbx_server):
    page.goto(f"{tbx_server}/#tab=scalars")
    link = f"{CARD} a.download-all-csv"
    page.wait_for_selector(f"{CARD} .js-plotly-plot .scatterlayer .trace")
    page.wait_for_function("(sel) => document.querySelector(sel).href.includes('run=')", arg=link)
    with page.expect_download() as download:
        page.click(link)
    text = open(download.value.path(), encoding="utf-8").read()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["run"] for r in rows} == set(RUNS)
    assert download.value.suggested_filename == "train_loss.csv"


def test_time_series_card_downloads_the_tag_for_its_runs(page, tbx_server):
    from test_timeseries_page import LOSS, drawn, open_ts

    open_ts(page, tbx_server)
    drawn(page, LOSS)
    with page.expect_download() as download:
        page.click(f"{LOSS} a.ts-download-json")
    rows = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert {r["run"] for r in rows} == set(RUNS) and {r["tag"] for r in rows} == {"train/loss"}
    assert len(rows) == N_STEPS * len(RUNS)
    assert page.errors == []
