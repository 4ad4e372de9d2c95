"""Bad inputs fail under lens as under TensorFlow: the same exception class, naming the same culprit.

The expected outcomes were recorded from TensorFlow by fixtures/record_bad_inputs_tf.py.
"""
import json
import pathlib

import pytest

import lens as tf
from bad_input_cases import CASES, names_culprit, run_case

RECORD = json.loads((pathlib.Path(__file__).parent / "fixtures" / "bad_inputs_tf.json").read_text())
TABLE = RECORD["cases"]


def test_the_record_covers_every_case():
    assert sorted(TABLE) == sorted(CASES)
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_fails_as_tensorflow_does(name):
    want = TABLE[name]
    outcome, message = run_case(tf, name)
    assert outcome == want["outcome"], "lens: %s: %s" % (outcome, message)
    if want["culprit"] is not None:
        assert names_culprit(message, want["culprit"]), "%r not named in: %s" % (want["culprit"], message)
