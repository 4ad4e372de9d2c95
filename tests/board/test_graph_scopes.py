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


def _expected(whole, scopes):
    """Paths an answer for these scopes holds: each scope, its children, what they need drawn."""
    nodes = whole["nodes"]
    expected = {""}
    for scope in scopes:
        expected.add(scope)
        for child in nodes[scope]["children"]:
            expected.add(child)
            expected.update(nodes[child].get("embed_in", []) + nodes[child].get("embed_out", []))
            if nodes[child]["kind"] == "series":
                expected.add(nodes[child]["children"][0])   # its colour is its first member's
    return expected


def _inside(whole, path, scope):
    """True when path is scope or lies somewhere inside it."""
    while path != scope and "parent" in whole["nodes"][path]:
        path = whole["nodes"][path]["parent"]
    return path == scope


@pytest.mark.parametrize("run", ["train", "big"])
def test_every_scope_answers_its_part_of_the_whole_hierarchy(client, run):
    whole = json.loads(client.get(f"{GRAPHS}/hierarchy?run={run}").data)
    scopes = [p for p, n in whole["nodes"].items()
              if n["kind"] != "op" and not n.get("empty")]
    for scope in scopes:
        part = _get(client, f"run={run}&scope={scope}")
        assert part["scopes"][0] == scope
        assert {k: part[k] for k in ("num_ops", "devices", "templates")} == \
            {k: whole[k] for k in ("num_ops", "devices", "templates")}
        # Small scopes inside come along; everything else is the whole route's records, but
        # scopes drawn collapsed leave out their edges (they come with their own scope).
        assert all(_inside(whole, inner, scope) for inner in part["scopes"])
        assert set(part["nodes"]) == _expected(whole, part["scopes"])
        for path, node in part["nodes"].items():
            full = whole["nodes"][path]
            if path in part["scopes"] or path == "" or full["kind"] == "op":
                assert node == full, path
            else:
                assert node == {k: v for k, v in full.items() if k != "edges"}, path


def test_root_scope_of_a_big_graph_is_small(client):
    whole = client.get(f"{GRAPHS}/hierarchy?run=big").data
    root = _get(client, "run=big&scope=")
    # The blocks' series comes along (expanding it needs no request), the 50-unit series of
    # only as many blocks as fit the budget.
    assert root["scopes"][:2] == ["", "block_[0-9]"]
    assert {"input", "block_9", "block_0/unit_[0-49]"} <= set(root["nodes"])
    assert len(root["scopes"]) < 12
    assert len(root["nodes"]) < 300 and len(json.dumps(root)) * 20 < len(whole)


def test_reveal_sends_every_enclosing_scope_and_resolves_op_names(client):
    h = _get(client, "run=train&reveal=gradients/add_7")
    assert h["path"] == "gradients/add_7"
    assert {"", "gradients", "gradients/add_[1-12]"} <= set(h["scopes"])
    assert "gradients/add_7" in h["nodes"] and "gradients/add_12" in h["nodes"]
    # A name that is both a scope and an op resolves to the scope (as the node route does);
    # the op's own scope/(leaf) path reveals the scopes around it.
    assert _get(client, "run=train&reveal=layer1/weights")["path"] == "layer1/weights"
    h = _get(client, "run=train&reveal=layer1/weights/(weights)")
    assert {"", "layer1", "layer1/weights"} <= set(h["scopes"])
    # An embedded op reveals the scopes of the op it is drawn on.
    h = _get(client, "run=train&reveal=loss/Const")
    assert h["nodes"]["loss/Const"]["embedded_in"] == "loss/Mean"
    assert {"", "loss"} <= set(h["scopes"])


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
