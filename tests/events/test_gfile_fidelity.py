"""tf.io.gfile / tf.gfile against TensorFlow's own answers (fixtures/gfile_tf.json) on the same local files."""
import json
import pathlib
import sys

import pytest

import lens as tf

HERE = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(HERE))
from gfile_cases import gfile_cases  # noqa: E402

RECORD = json.loads((HERE / "gfile_tf.json").read_text())["cases"]


@pytest.fixture(scope="module")
def lens_cases():
    return gfile_cases(tf)


@pytest.mark.parametrize("case", sorted(RECORD))
def test_gfile_matches_tensorflow(lens_cases, case):
    assert lens_cases[case] == RECORD[case]
