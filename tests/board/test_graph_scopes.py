"""The hierarchy route one scope at a time (graph_scopes.py), checked against the whole one."""

import json

import pytest

from lens.board.app import create_app
from tests.board.graph_fixtures import GraphProvider, generated_graph, mlp_graph

GRAPHS = "/data/plugin/graphs"


@pytest.fixture(scope="module")
def client():
    provider = GraphProvider({"train": mlp_graph(), "big": generated_graph(2001, layers=10)})
    return create_app(provider).test_client()


def _get(client, query):
    resp = client.get(f"{GRAPHS}/hierarchy?{query}")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


@pytest.mark.parametrize("run", ["train", "big"])
def test_every_scope_answers_its_part_of_the_whole_hierarchy(client, run):
    whole = json.loads(client.get(f"{GRAPHS}/hierarchy?run={run}").data)
    scopes = [p for p, n in whole["nodes"].items()
              if n["kind"] != "op" and not n.get("empty")]
    for scope in scopes:
        part = _get(client, f"run={run}&scope={scope}")
        assert part["scopes"] == [scope]
        assert {k: part[k] for k in ("num_ops", "devices", "templates")} == \
            {k: whole[k] for k in ("num_ops", "devices", "templates")}
        # The same node records as the whole route, for the scope, its children and root.
        for path, node in part["nodes"].items():
            assert node == whole["nodes"][path], path
        expected = {"", scope, *whole["nodes"][scope]["children"]}
        for child in whole["nodes"][scope]["children"]:
            node = whole["nodes"][child]
            expected.update(node.get("embed_in", []) + node.get("embed_out", []))
            if node["kind"] == "series":
                expected.add(node["children"][0])   # its colour is its first member's
        assert set(part["nodes"]) == expected


def test_root_scope_of_a_big_graph_is_small(client):
    whole = client.get(f"{GRAPHS}/hierarchy?run=big").data
    root = _get(client, "run=big&scope=")
    assert set(root["nodes"]) == {"", "input", "block_[0-9]", "block_0"}
    assert len(json.dumps(root)) * 20 < len(whole)


def test_reveal_sends_every_enclosing_scope_and_resolves_op_names(client):
    h = _get(client, "run=train&reveal=gradients/add_7")
    assert h["path"] == "gradients/add_7"
    assert h["scopes"] == ["", "gradients", "gradients/add_[1-12]"]
    assert "gradients/add_7" in h["nodes"] and "gradients/add_12" in h["nodes"]
    # A name that is both a scope and an op resolves to the scope (as the node route does);
    # the op's own scope/(leaf) path reveals the scopes around it.
    assert _get(client, "run=train&reveal=layer1/weights")["path"] == "layer1/weights"
    h = _get(client, "run=train&reveal=layer1/weights/(weights)")
    assert h["scopes"] == ["", "layer1", "layer1/weights"]
    # An embedded op reveals the scopes of the op it is drawn on.
    h = _get(client, "run=train&reveal=loss/Const")
    assert h["nodes"]["loss/Const"]["embedded_in"] == "loss/Mean"
    assert h["scopes"] == ["", "loss"]


def test_unknown_scopes_and_ops_are_errors_that_say_why(client):
    resp = client.get(f"{GRAPHS}/hierarchy?run=train&scope=nope")
    assert resp.status_code == 404 and "no scope named 'nope'" in resp.get_json()["error"]
    resp = client.get(f"{GRAPHS}/hierarchy?run=train&scope=x")
    assert resp.status_code == 400 and "'x' is an op, not a scope" in resp.get_json()["error"]
    resp = client.get(f"{GRAPHS}/hierarchy?run=train&reveal=no/such")
    assert resp.status_code == 404 and "no/such" in resp.get_json()["error"]


def test_trace_names_the_hosts_of_embedded_inputs(client):
    trace = client.get(f"{GRAPHS}/trace?run=train&name=loss/Mean").get_json()
    assert "loss/Const" in trace["inputs"]
    assert trace["hosts"] == {"loss/Const": "loss/Mean"}


def test_answers_are_encoded_once_per_graph_and_the_root_at_load_time():
    from tests.board.conftest import wait_until

    app = create_app(GraphProvider({"big": generated_graph(501, layers=5)}))
    # The load-time warm-up builds the first run's graph and encodes the root scope the page
    # asks for first.
    assert wait_until(lambda: any(m.scope_cache for m in
                                  app.extensions.get("lens_graph_models", {}).values()), timeout=30)
    model = next(iter(app.extensions["lens_graph_models"].values()))
    assert set(model.scope_cache) == {(("",), None)}
    first = app.test_client().get(f"{GRAPHS}/hierarchy?run=big&scope=block_[0-4]").data
    assert model.scope_cache[(("block_[0-4]",), None)] == first
    assert app.test_client().get(f"{GRAPHS}/hierarchy?run=big&scope=block_[0-4]").data == first
