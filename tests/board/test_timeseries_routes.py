"""The Time Series routes answer as the installed TensorBoard's metrics plugin does on the same
logdir (tags, scalar/histogram/image series, image bytes), plus lens's error answers."""

import json

import numpy as np
import pytest

from conftest import RUNS
from tb_parity_harness import tensorboard_wsgi, wsgi_fetchers

REQUESTS = [{"plugin": "scalars", "tag": "train/loss"},
            {"plugin": "scalars", "tag": "eval/loss", "run": "lr_0.01"},
            {"plugin": "histograms", "tag": "layer1/weights", "run": "lr_0.1"},
            {"plugin": "images", "tag": "input/digit", "run": "lr_0.001", "sample": 0},
            {"plugin": "nope", "tag": "x"}, {"plugin": "histograms", "tag": "x"},
            {"plugin": "images", "tag": "x", "run": "lr_0.1"}, {"plugin": "scalars"}]


@pytest.fixture(scope="module")
def tensorboard(tbx_logdir):
    return wsgi_fetchers(tensorboard_wsgi(tbx_logdir))


def tb_json(fetch, *args):
    status, _, body = fetch(*args)
    assert status == 200, body[:300]
    return json.loads(body)


def test_tags_match_tensorboard(client, tensorboard):
    get, _ = tensorboard
    theirs = tb_json(get, "/data/plugin/timeseries/tags")
    ours = client.get("/data/plugin/timeseries/tags").get_json()
    assert ours == theirs
    assert sorted(ours["scalars"]["runTagInfo"]) == sorted(RUNS)


def test_time_series_match_tensorboard(client, tensorboard):
    _, post = tensorboard
    form = {"requests": json.dumps(REQUESTS)}
    theirs = tb_json(post, "/data/plugin/timeseries/timeSeries", form)
    ours = client.post("/data/plugin/timeseries/timeSeries", data=form).get_json()
    assert len(ours) == len(theirs) == len(REQUESTS)
    for mine, tb, req in zip(ours, theirs, REQUESTS):
        assert {k: v for k, v in mine.items() if k != "runToSeries"} == \
            {k: v for k, v in tb.items() if k != "runToSeries"}, req
        if "error" in tb:
            continue
        assert sorted(mine["runToSeries"]) == sorted(tb["runToSeries"]), req
        for run, series in tb["runToSeries"].items():
            got = mine["runToSeries"][run]
            assert [p["step"] for p in got] == [p["step"] for p in series]
            assert [p["wallTime"] for p in got] == [p["wallTime"] for p in series]
            if req["plugin"] == "scalars":
                assert np.allclose([p["value"] for p in got], [p["value"] for p in series])
            elif req["plugin"] == "histograms":
                for a, b in zip(got, series):
                    assert np.allclose([[x["min"], x["max"], x["count"]] for x in a["bins"]],
                                       [[x["min"], x["max"], x["count"]] for x in b["bins"]])


def test_image_data_serves_the_same_bytes(client, tensorboard):
    get, post = tensorboard
    req = {"requests": json.dumps([REQUESTS[3]])}
    theirs = tb_json(post, "/data/plugin/timeseries/timeSeries", req)[0]["runToSeries"]["lr_0.001"]
    ours = client.post("/data/plugin/timeseries/timeSeries", data=req).get_json()[0]
    ours = ours["runToSeries"]["lr_0.001"]
    for mine, tb in zip(ours, theirs):
        status, mime, tb_bytes = get("/data/plugin/timeseries/imageData?imageId=" + tb["imageId"])
        response = client.get("/data/plugin/timeseries/imageData",
                              query_string={"imageId": mine["imageId"]})
        assert response.status_code == status == 200
        assert response.mimetype == mime == "image/png"
        assert response.data == tb_bytes


def test_lens_extras_and_bad_requests(client):
    answer = client.post("/data/plugin/timeseries/timeSeries", data={"requests": json.dumps(
        [{"plugin": "scalars", "tag": "train/loss", "runs": ["lr_0.1", "missing"],
          "downsample": 10}])}).get_json()[0]
    assert list(answer["runToSeries"]) == ["lr_0.1"]
    assert len(answer["runToSeries"]["lr_0.1"]) <= 12  # bucketed, first and last kept
    assert answer["runToSeries"]["lr_0.1"][-1]["step"] == 119
    for body, needle in (({}, "missing 'requests'"), ({"requests": "[{"}, "not valid JSON"),
                         ({"requests": "{}"}, "JSON list"),
                         ({"requests": json.dumps([{"plugin": "scalars", "tag": "train/loss",
                                                    "downsample": -1}])}, "downsample")):
        response = client.post("/data/plugin/timeseries/timeSeries", data=body)
        assert response.status_code == 400 and needle in response.get_json()["error"]
    response = client.get("/data/plugin/timeseries/imageData?imageId=junk")
    assert response.status_code == 400
    response = client.get("/data/plugin/timeseries/imageData",
                          query_string={"imageId": "run=lr_0.1&tag=input/digit&index=99"})
    assert response.status_code == 404 and "gone" in response.get_json()["error"]
    assert client.get("/data/plugins_listing").get_json()["timeseries"]["enabled"] is True


def test_scalar_columns_format_holds_the_same_points(client):
    def ask(**extra):
        req = dict({"plugin": "scalars", "tag": "train/loss"}, **extra)
        response = client.post("/data/plugin/timeseries/timeSeries",
                               data={"requests": json.dumps([req])})
        assert response.status_code == 200, response.data[:300]
        return response.get_json()[0]["runToSeries"]
    points, columns = ask(), ask(format="columns")
    assert sorted(columns) == sorted(points) == sorted(RUNS)
    for run, series in points.items():
        assert columns[run] == {key: [p[key] for p in series] for key in ("wallTime", "step", "value")}
    response = client.post("/data/plugin/timeseries/timeSeries", data={"requests": json.dumps(
        [{"plugin": "scalars", "tag": "train/loss", "format": "rows"}])})
    assert response.status_code == 400 and "'format'" in response.get_json()["error"]


def test_columns_json_writes_non_finite_values_as_tensorboard_strings():
    from lens.board.timeseries import columns_json
    text = columns_json(np.array([1, 2, 3, 4]), np.array([1.5, 2.5, 3.5, 1e-5]),
                        np.array([np.nan, np.inf, -np.inf, 0.25]))
    assert json.loads(text) == {"wallTime": [1.5, 2.5, 3.5, 1e-5], "step": [1, 2, 3, 4],
                                "value": ["NaN", "Infinity", "-Infinity", 0.25]}
