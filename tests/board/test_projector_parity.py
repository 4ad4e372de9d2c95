"""lens answers the projector and mesh routes as TensorBoard 2.21 does on the same logdir.

fixtures/projector_logdir is written by lens's writers plus one TensorFlow-written checkpoint
(fixtures/make_projector_logdir.py); fixtures/projector_parity_answers.json holds real
TensorBoard's answers (fixtures/record_projector_parity.py, run with TensorFlow so TensorBoard reads
checkpoints). Bytes answers are compared by sha256; paths by their part under the logdir.
"""

import hashlib
import json
import os

import pytest

from conftest import load_provider
from lens.board.app import create_app

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
LOGDIR = os.path.join(FIXTURES, "projector_logdir")
with open(os.path.join(FIXTURES, "projector_parity_answers.json")) as _f:
    ANSWERS = json.load(_f)["entries"]


@pytest.fixture(scope="module")
def client():
    return create_app(load_provider(LOGDIR)).test_client()


def _id(entry):
    return entry["url"].replace("/data/plugin/", "")[:90]


@pytest.mark.parametrize("entry", ANSWERS, ids=_id)
def test_answer_matches_tensorboard(client, entry):
    response = client.get(entry["url"])
    body = response.get_data()
    assert response.status_code == entry["status"], body[:300]
    if entry["status"] != 200:
        assert json.loads(body)["error"].replace(LOGDIR, "<logdir>") == entry["text"]
        return
    if "sha256" in entry:
        assert len(body) == entry["length"]
        assert hashlib.sha256(body).hexdigest() == entry["sha256"]
        assert response.mimetype == entry["mimetype"]
        return
    if "text" in entry:
        assert response.mimetype == entry["mimetype"]
        assert body.decode("utf-8") == entry["text"]
        return
    ours = json.loads(body.decode("utf-8").replace(LOGDIR, "<logdir>"))
    theirs = entry["json"]
    if entry["url"] == "/data/plugins_listing":
        ours, theirs = ours["mesh"], theirs["mesh"]
    if entry["url"].endswith("/runs"):
        ours, theirs = sorted(ours), sorted(theirs)
    assert ours == theirs


def test_fixture_covers_every_route():
    paths = {e["url"].split("?")[0] for e in ANSWERS}
    for route in ("projector/runs", "projector/info", "projector/tensor", "projector/metadata",
                  "projector/bookmarks", "projector/sprite_image", "mesh/tags", "mesh/meshes", "mesh/data"):
        assert "/data/plugin/" + route in paths, route
