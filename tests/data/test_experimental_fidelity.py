"""tf.data.experimental and FixedLengthRecordDataset against TensorFlow's own record (fixtures/experimental_tf.json):
types and elements of make_csv_dataset, CsvDataset, unbatch, scan, ..., and cardinality."""
import json
import pathlib
import sys

import pytest

import lens as tf

HERE = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(HERE))
from experimental_cases import experimental_cases  # noqa: E402

RECORD = json.loads((HERE / "experimental_tf.json").read_text())["cases"]


@pytest.fixture(scope="module")
def lens_cases():
    return experimental_cases(tf)


@pytest.mark.parametrize("case", sorted(RECORD))
def test_matches_tensorflow(lens_cases, case):
    got, want = lens_cases[case], RECORD[case]
    if case == "fixed_ragged":      # the file lives in a fresh temporary directory each time
        got, want = [json.dumps(x, sort_keys=True).split('input file')[0] for x in (got, want)]
    assert got == want
