"""TF1 readers against TensorFlow's own record (fixtures/readers_tf.json): keys, values and counters."""
import json
import pathlib
import sys

import pytest

import lens as tf

HERE = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(HERE))
from reader_cases import reader_cases  # noqa: E402

RECORD = json.loads((HERE / "readers_tf.json").read_text())["cases"]


@pytest.fixture(scope="module")
def lens_cases():
    return reader_cases(tf)


@pytest.mark.parametrize("case", sorted(RECORD))
def test_reader_matches_tensorflow(lens_cases, case):
    assert lens_cases[case] == RECORD[case]
