"""lens's board answers every core route as TensorBoard 2.21 does, on the logs people have.

The logdir (fixtures/tb_parity_logdir, written by fixtures/make_tb_parity_logdir.py) holds a
Keras-callback layout written the TF2 way, TF2 image/audio/text/histogram tensors, lens's TF1
summaries and tensorboardX runs. fixtures/tb_parity_answers.json holds real TensorBoard's
answers on it (fixtures/record_tb_parity.py). Each recorded answer is one test case here.
"""

import json
import os
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import load_provider
from lens.board.app import create_app
from tb_parity_compare import check_answer
from tb_parity_harness import FIXTURE_NAME

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
LOGDIR = os.path.join(FIXTURES, "tb_parity_logdir")

with open(os.path.join(FIXTURES, FIXTURE_NAME)) as _f:
    ANSWERS = json.load(_f)["entries"]


def _id(entry):
    return entry["url"].replace("/data/plugin/", "")


@pytest.fixture(scope="module")
def lens():
    return create_app(load_provider(LOGDIR)).test_client()


@pytest.mark.parametrize("entry", ANSWERS, ids=_id)
def test_route_answers_as_tensorboard(lens, entry):
    check_answer(lens, entry)


def test_answers_cover_every_core_route_and_writer():
    """The recorded answers exercise each route on each writer's runs (guards the fixture)."""
    seen = {(urlsplit(e["url"]).path.rsplit("/", 1)[-1],
             parse_qs(urlsplit(e["url"]).query).get("run", [""])[0]) for e in ANSWERS}
    for route in ("scalars", "histograms", "distributions", "images", "audio", "text"):
        runs = {run for r, run in seen if r == route}
        expected = {"scalars": {"train", "validation", "tf1", "tbx"},
                    "histograms": {"train", "tf2_media", "tf1", "tbx"},
                    "distributions": {"train", "tf2_media", "tf1", "tbx"}}.get(
                        route, {"tf2_media", "tf1", "tbx"})
        assert expected <= runs, (route, runs)
