"""Plugin routes beyond TensorBoard parity: bad layouts and hparams cost only themselves, the
Profile routes read the step stats lens records, and a 1,000-group experiment lists quickly."""

import json

import numpy as np
import pytest

import lens as tf
from conftest import load_provider
from lens.board.app import create_app
from lens.plugins import custom_scalar, hparams as hp
from lens.proto import summary_pb2


def _client(logdir):
    return create_app(load_provider(logdir)).test_client()


def _bad_value(tag, plugin):
    """A value whose plugin content / tensor is not the proto it should be."""
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name=plugin, content=b"\xff\xfe\x07garbage"))
    value = summary_pb2.Summary.Value(tag=tag, metadata=meta)
    value.tensor.dtype = 7
    value.tensor.string_val.append(b"\xff\xfe\x07not a layout")
    return summary_pb2.Summary(value=[value])


def test_bad_layout_and_bad_hparams_lose_only_themselves(tmp_path):
    L = custom_scalar.layout_pb2
    good = L.Layout(category=[L.Category(title="c", chart=[
        L.Chart(title="t", multiline=L.MultilineChartContent(tag=["x"]))])])
    with tf.summary.FileWriter(str(tmp_path / "good")) as w:
        w.add_summary(custom_scalar.pb(good), 0)
        w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]), 0)
    with tf.summary.FileWriter(str(tmp_path / "bad")) as w:
        w.add_summary(_bad_value("custom_scalars__config__", "custom_scalars"), 0)
    with tf.summary.FileWriter(str(tmp_path / "s0")) as w:
        w.add_summary(hp.hparams_pb({"lr": 0.1}, start_time_secs=1.0), 0)
        w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=0.5)]), 1)
    with tf.summary.FileWriter(str(tmp_path / "s1")) as w:
        w.add_summary(_bad_value("_hparams_/session_start_info", "hparams"), 0)
    client = _client(tmp_path)

    layout = client.get("/data/plugin/custom_scalars/layout").get_json()
    assert layout["category"][0]["chart"][0]["multiline"]["tag"] == ["x"]
    assert len(layout["lensErrors"]) == 1 and "'bad'" in layout["lensErrors"][0]

    body = json.dumps({"allowedStatuses": ["STATUS_UNKNOWN"], "sliceSize": 10,
                       "colParams": [{"hparam": "lr"}, {"metric": {"tag": "loss"}}]})
    groups = client.post("/data/plugin/hparams/session_groups", data=body,
                         content_type="application/json").get_json()
    assert [s["name"] for g in groups["sessionGroups"] for s in g["sessions"]] == ["s0"]
    assert groups["sessionGroups"][0]["metricValues"][0]["value"] == 0.5
    assert len(groups["lensErrors"]) == 1 and "'s1'" in groups["lensErrors"][0]
    exp = client.post("/data/plugin/hparams/experiment", data="{}",
                      content_type="application/json").get_json()
    assert [h["name"] for h in exp["hparamInfos"]] == ["lr"]

    bad = client.post("/data/plugin/hparams/session_groups", data="{not json",
                      content_type="application/json")
    assert bad.status_code == 400 and "ListSessionGroupsRequest" in bad.get_json()["error"]
    listing = client.get("/data/plugins_listing").get_json()
    assert listing["custom_scalars"]["enabled"] and listing["hparams"]["enabled"]
    assert not listing["pr_curves"]["enabled"] and not listing["profile"]["enabled"]


def test_profile_routes_read_full_trace_step_stats(tmp_path):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [64, 64], name="x")
    y = tf.matmul(x, x, name="square")
    z = tf.reduce_sum(tf.nn.relu(y, name="relu"), name="total")
    meta = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(z, {x: np.ones((64, 64), np.float32)}, run_metadata=meta,
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
        with tf.summary.FileWriter(str(tmp_path / "run"), sess.graph) as w:
            w.add_run_metadata(meta, "step_1", 1)
    client = _client(tmp_path)
    assert client.get("/data/plugin/profile/runs").get_json() == {"run": ["step_1"]}
    assert client.get("/data/plugins_listing").get_json()["profile"]["enabled"]
    trace = client.get("/data/plugin/profile/trace?run=run&tag=step_1").get_json()
    stats = [ns for dev in meta.step_stats.dev_stats for ns in dev.node_stats]
    ops = [op for dev in trace["devices"] for op in dev["ops"]]
    assert sorted(op["name"] for op in ops) == sorted(ns.node_name for ns in stats)
    assert [d["name"] for d in trace["devices"]] == [d.device for d in meta.step_stats.dev_stats]
    assert min(op["start_us"] for op in ops) == 0.0
    assert trace["end_us"] == pytest.approx(max(op["start_us"] + op["duration_us"] for op in ops))
    top = client.get("/data/plugin/profile/top_ops?run=run&tag=step_1&by=time&limit=3").get_json()
    assert len(top) == min(3, len(set(ns.node_name for ns in stats)))
    assert [t["time_us"] for t in top] == sorted((t["time_us"] for t in top), reverse=True)
    by_memory = client.get("/data/plugin/profile/top_ops?run=run&tag=step_1&by=memory&limit=0")
    rows = by_memory.get_json()
    assert [r["memory_bytes"] for r in rows] == sorted((r["memory_bytes"] for r in rows),
                                                       reverse=True)
    square = next(r for r in rows if r["name"] == "square")
    assert square["type"] == "MatMul" or square["type"] == ""
    assert client.get("/data/plugin/profile/top_ops?run=run&tag=step_1&by=x").status_code == 400
    assert client.get("/data/plugin/profile/trace?run=run&tag=nope").status_code == 404


def test_thousand_session_groups_list_in_under_a_second(tmp_path):

    from lens.events import writer as writer_module

    for i in range(1000):
        with writer_module.FileWriter(str(tmp_path / ("s%04d" % i))) as w:
            w.add_summary(hp.hparams_pb({"lr": 10.0 ** -(i % 5), "units": i % 7,
                                         "opt": ["a", "b"][i % 2]}, trial_id="t%04d" % i,
                                        start_time_secs=float(i)), 0)
            w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="loss",
                                                             simple_value=i / 1000.0)]), 1)
    client = _client(tmp_path)
    body = json.dumps({"allowedStatuses": ["STATUS_UNKNOWN"], "sliceSize": 1000,
                       "colParams": [{"hparam": "lr"}, {"hparam": "units"},
                                     {"metric": {"tag": "loss"}, "order": "ORDER_DESC"}]})
    groups = client.post("/data/plugin/hparams/session_groups", data=body,
                         content_type="application/json").get_json()
    # How fast is measured in bench/bench_hparams.py, never asserted here.
    assert groups["totalSize"] == 1000
    assert groups["sessionGroups"][0]["metricValues"][0]["value"] == pytest.approx(0.999)


def test_bad_hparams_requests_are_400_with_the_culprit():
    import os

    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    client = _client(os.path.join(fixtures, "plugin_logdir"))
    route = "/data/plugin/hparams/session_groups"

    def ask(body):
        return client.post(route, data=json.dumps(body), content_type="application/json")

    bad = ask({"allowedStatuses": ["STATUS_SUCCESS"], "sliceSize": 5,
               "colParams": [{"hparam": "optimizer", "filterRegexp": "("}]})
    assert bad.status_code == 400 and "filter_regexp '(' is not a valid regex" in \
        bad.get_json()["error"]
    bad = ask({"allowedStatuses": ["STATUS_SUCCESS"], "sliceSize": 5,
               "colParams": [{"hparam": "lr", "filterRegexp": "^0"}]})
    assert bad.status_code == 400 and "regexp filter" in bad.get_json()["error"]
    bad = ask({"aggregationType": "AGGREGATION_MIN", "allowedStatuses": ["STATUS_SUCCESS"],
               "aggregationMetric": {"tag": "nope"}, "sliceSize": 5})
    assert bad.status_code == 400 and "aggregation metric /nope" in bad.get_json()["error"]
    csv = client.get("/data/plugin/hparams/download_data?format=xls&request=%7B%7D")
    assert csv.status_code == 400 and "use csv, json or latex" in csv.get_json()["error"]
    evals = client.post("/data/plugin/hparams/metric_evals", content_type="application/json",
                        data=json.dumps({"sessionName": "hp/nope", "metricName": {"tag": "loss"}}))
    assert evals.status_code == 404 and "hp/nope" in evals.get_json()["error"]
