"""Debugger V2 routes against real TensorBoard's answers (fixtures/debugger_v2/answers.json,
recorded by make_fixtures.py on dumps written by TensorFlow 2.21 and by lens), plus what
TensorBoard does not do: dumps anywhere under a logdir, damaged files, FULL_TENSOR dumps
(TensorFlow's own reader deadlocks on them), health pills and live tailing."""

import json
import os
import shutil

import numpy as np
import pytest

from lens.board import debugger_v2
from lens.board.app import create_app

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "debugger_v2")
PREFIX = "/data/plugin/debugger-v2"
RUN = "__default_debugger_run__"

with open(os.path.join(FIXTURES, "answers.json")) as _f:
    ANSWERS = json.load(_f)["dumps"]


def _client(logdir):
    return create_app(logdir, reload_interval=0).test_client()


@pytest.mark.parametrize("dump", sorted(ANSWERS))
def test_every_route_answers_as_tensorboard(dump):
    client = _client(os.path.join(FIXTURES, dump))
    for entry in ANSWERS[dump]:
        resp = client.get(PREFIX + entry["route"], query_string=entry["params"])
        if entry["status"] == 500:
            # TensorBoard crashes here (unknown run, missing graph_id); lens says why.
            assert resp.status_code == 400, entry
            assert resp.get_json()["error"]
            continue
        assert (resp.status_code, resp.get_json()) == (entry["status"], entry["body"]), entry


def _copy(dump, dest):
    shutil.copytree(os.path.join(FIXTURES, dump), dest)
    return dest


def test_dumps_anywhere_under_the_logdir_are_runs(tmp_path):
    _copy("tf_graph_FULL_HEALTH", tmp_path / "tf" / "dump")
    _copy("lens_graph_FULL_HEALTH", tmp_path / "lens_dump")
    client = _client(str(tmp_path))
    assert sorted(client.get(PREFIX + "/runs").get_json()) == ["lens_dump", "tf/dump"]
    alerts = client.get(PREFIX + "/alerts", query_string={"run": "tf/dump"}).get_json()
    assert alerts["alerts_breakdown"] == {"InfNanAlert": 4}
    expected = [e["body"] for e in ANSWERS["tf_graph_FULL_HEALTH"]
                if e["route"] == "/alerts" and e["params"] == {"run": RUN}][0]
    assert alerts == expected
    resp = client.get(PREFIX + "/alerts", query_string={"run": "nope"})
    assert resp.status_code == 400 and "nope" in resp.get_json()["error"]
    listing = client.get("/data/plugins_listing").get_json()
    assert listing["debugger_v2"]["enabled"]


def test_full_tensor_dump_alerts_from_the_values():
    client = _client(os.path.join(FIXTURES, "tf_graph_FULL_TENSOR"))
    alerts = client.get(PREFIX + "/alerts", query_string={"run": RUN}).get_json()
    # loss/Log gives one -inf per run (both Session.runs), and so does the mean.
    assert [(a["op_type"], a["num_neg_inf"], a["size"]) for a in alerts["alerts"]] == \
        [("Log", 1, 4), ("Mean", 1, 1)] * 2
    data = client.get(PREFIX + "/graph_execution/data", query_string={"run": RUN}).get_json()
    assert all(g["debug_tensor_value"] is None for g in data["graph_executions"])


def _damage(path, suffix, how):
    (name,) = [n for n in os.listdir(path) if n.endswith(suffix)]
    full = os.path.join(path, name)
    with open(full, "rb") as f:
        raw = f.read()
    if how == "truncate":
        raw = raw[:len(raw) - 7]
    else:  # flip bytes in the middle of the file
        mid = len(raw) // 2
        raw = raw[:mid] + bytes(b ^ 0xFF for b in raw[mid:mid + 5]) + raw[mid + 5:]
    with open(full, "wb") as f:
        f.write(raw)
    return name


def test_truncated_traces_serve_what_is_readable_and_name_the_file(tmp_path):
    path = _copy("tf_graph_FULL_HEALTH", tmp_path / "d")
    name = _damage(str(path), ".graph_execution_traces", "truncate")
    client = _client(str(path))
    digests = client.get(PREFIX + "/graph_execution/digests",
                         query_string={"run": RUN}).get_json()
    full = [e["body"] for e in ANSWERS["tf_graph_FULL_HEALTH"]
            if e["route"] == "/graph_execution/digests" and e["params"] == {"run": RUN}][0]
    assert digests["num_digests"] == full["num_digests"] - 1
    assert digests["graph_execution_digests"] == full["graph_execution_digests"][:-1]
    damage = client.get(PREFIX + "/damage", query_string={"run": RUN}).get_json()
    assert list(damage) == [name] and "incomplete record" in damage[name]


def test_corrupt_graphs_file_names_the_damage(tmp_path):
    path = _copy("lens_graph_FULL_HEALTH", tmp_path / "d")
    name = _damage(str(path), ".graphs", "corrupt")
    client = _client(str(path))
    damage = client.get(PREFIX + "/damage", query_string={"run": RUN}).get_json()
    assert name in damage and "corrupt" in damage[name]
    resp = client.get(PREFIX + "/graph_execution/digests", query_string={"run": RUN})
    assert resp.status_code == 200 and resp.get_json()["num_digests"] == 13


def test_health_pills_per_op_and_per_session_run():
    client = _client(os.path.join(FIXTURES, "lens_graph_FULL_HEALTH"))
    pills = client.get(PREFIX + "/health_pills", query_string={"run": RUN}).get_json()
    log = pills["pills"]["loss/Log:0"]
    # Run 2 feeds [[1, 2, 3], [-1, 0, 1]]: relu gives [6.5, 0, 0, 0]... log has one -inf.
    assert log["counts"][0] == 1 and log["any_inf_nan"] and log["op_type"] == "Log"
    assert pills["executions"] == 3
    first = client.get(PREFIX + "/health_pills",
                       query_string={"run": RUN, "execution": "0"}).get_json()
    assert list(first["pills"]) == ["w/initial_value:0"]


def test_new_records_appear_without_a_restart(tmp_path, monkeypatch):
    import lens as tf
    from lens.dbg import dumping_callback
    monkeypatch.setattr(debugger_v2, "RELOAD_SECONDS", 0.0)
    root = str(tmp_path / "live")
    tf.debugging.experimental.enable_dump_debug_info(root, "CURT_HEALTH",
                                                     circular_buffer_size=-1)
    try:
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [2], name="x")
            y = tf.log(x, name="y")
            sess = tf.Session()
            sess.run(y, {x: np.ones(2, np.float32)})
            client = _client(root)
            first = client.get(PREFIX + "/execution/digests", query_string={"run": RUN})
            assert first.get_json()["num_digests"] == 1
            sess.run(y, {x: np.zeros(2, np.float32)})
            second = client.get(PREFIX + "/execution/digests", query_string={"run": RUN})
            assert second.get_json()["num_digests"] == 2
            alerts = client.get(PREFIX + "/alerts", query_string={"run": RUN}).get_json()
            assert [a["op_type"] for a in alerts["alerts"]] == ["Log", "Session.run"]
    finally:
        dumping_callback.disable_dump_debug_info()


def test_tensorflow_v1_dumps_show_as_one_execution_per_session_run(tmp_path):
    _copy("tf_v1_session", tmp_path / "tfdbg_v1")
    client = _client(str(tmp_path))
    run = {"run": "tfdbg_v1"}
    digests = client.get(PREFIX + "/execution/digests", query_string=run).get_json()
    assert [d["op_type"] for d in digests["execution_digests"]] == ["Session.run"] * 3
    alerts = client.get(PREFIX + "/alerts", query_string=run).get_json()["alerts"]
    # Grappler fused TF's Log into _UnaryOpsComposition; its -inf and the mean's, per run.
    assert [(a["op_type"], a["num_neg_inf"], a["size"]) for a in alerts] == \
        [("_UnaryOpsComposition", 1, 4), ("Mean", 1, 1)] * 2
    trace = client.get(PREFIX + "/graph_execution/data", query_string=dict(
        run, begin=str(alerts[0]["graph_execution_trace_index"]),
        end=str(alerts[0]["graph_execution_trace_index"] + 1))).get_json()["graph_executions"][0]
    info = client.get(PREFIX + "/graphs/op_info", query_string=dict(
        run, graph_id=trace["graph_id"], op_name="dense/MatMul")).get_json()
    assert [i["op_name"] for i in info["inputs"]] == ["_arg_x_0_0", "dense/MatMul/ReadVariableOp"]


def test_lens_v1_dumps_beside_v2_dumps(tmp_path):
    import lens as tf
    from lens import dbg as tf_debug
    _copy("lens_graph_FULL_HEALTH", tmp_path / "v2")
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.sqrt(x, name="root")
        sess = tf_debug.DumpingDebugWrapperSession(tf.Session(), str(tmp_path / "v1"))
        sess.run(y, {x: np.array([4., -1., np.inf], np.float32)})
    client = _client(str(tmp_path))
    assert sorted(client.get(PREFIX + "/runs").get_json()) == ["v1", "v2"]
    (alert,) = client.get(PREFIX + "/alerts", query_string={"run": "v1"}).get_json()["alerts"]
    assert (alert["op_type"], alert["num_nan"], alert["num_pos_inf"]) == ("Sqrt", 1, 1)
    pills = client.get(PREFIX + "/health_pills", query_string={"run": "v1"}).get_json()
    assert pills["pills"]["root:0"]["counts"] == [0, 1, 1, 0, 0, 1]


def test_inactive_without_dumps(tmp_path):
    client = _client(str(tmp_path))
    assert not client.get("/data/plugins_listing").get_json()["debugger_v2"]["enabled"]
    assert client.get(PREFIX + "/runs").get_json() == {}
