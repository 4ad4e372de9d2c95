"""lens answers the PR curves, custom scalars and hparams routes as TensorBoard 2.21 does.

fixtures/plugin_logdir* are written by lens.plugins' writers (fixtures/make_plugin_logdir.py);
fixtures/plugin_parity_answers.json holds real TensorBoard's answers on them
(fixtures/record_plugin_parity.py). Each recorded answer is one test case.
"""

import json
import os

import pytest

from conftest import load_provider
from lens.board.app import create_app
from tb_parity_compare import same_value

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
with open(os.path.join(FIXTURES, "plugin_parity_answers.json")) as _f:
    ANSWERS = json.load(_f)["entries"]
MINE = ("pr_curves", "custom_scalars", "hparams")


@pytest.fixture(scope="module")
def clients():
    return {name: create_app(load_provider(os.path.join(FIXTURES, name))).test_client()
            for name in ("plugin_logdir", "plugin_logdir_inferred")}


def _normalize(value):
    """String domains come from a set in TensorBoard (hash order): compare them sorted."""
    if isinstance(value, dict):
        out = {k: _normalize(v) for k, v in value.items()}
        if out.get("type") == "DATA_TYPE_STRING" and "domainDiscrete" in out:
            out["domainDiscrete"] = sorted(out["domainDiscrete"])
        return out
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    return value


def _id(entry):
    return "%s:%s %s" % (entry["logdir"][-8:], entry["method"],
                         entry["url"].replace("/data/plugin/", "")[:80])


@pytest.mark.parametrize("entry", ANSWERS, ids=_id)
def test_answer_matches_tensorboard(clients, entry):
    client = clients[entry["logdir"]]
    if entry["method"] == "POST":
        response = client.post(entry["url"], data=entry["body"], content_type="application/json")
    else:
        response = client.get(entry["url"])
    body = response.get_data(as_text=True)
    assert response.status_code == entry["status"], body[:300]
    if entry["status"] != 200:
        assert json.loads(body)["error"] == entry["text"]
        return
    if "text" in entry:
        assert response.mimetype == entry["mimetype"]
        assert body == entry["text"]
        return
    ours = json.loads(body)
    assert "lensErrors" not in ours
    theirs = entry["json"]
    if entry["url"] == "/data/plugins_listing":
        ours = {k: ours[k] for k in MINE}
        theirs = {k: theirs[k] for k in MINE}
    same_value(_normalize(ours), _normalize(theirs), entry["url"])
    if isinstance(theirs, dict):
        assert set(ours) == set(theirs), entry["url"]


def test_fixture_covers_every_route():
    paths = {e["url"].split("?")[0] for e in ANSWERS}
    for route in ("pr_curves/tags", "pr_curves/pr_curves", "custom_scalars/layout",
                  "custom_scalars/scalars", "custom_scalars/download_data", "hparams/experiment",
                  "hparams/session_groups", "hparams/metric_evals", "hparams/download_data"):
        assert "/data/plugin/" + route in paths, route
