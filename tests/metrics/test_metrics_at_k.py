"""precision_at_k / recall_at_k / *_at_top_k / sparse_precision_at_k / (sparse_)average_precision_at_k: value
before, update_op after each of two batches and the final value equal TF 2.21's compat.v1
(fixtures/record_metrics_tf.py at_k on fixtures/metrics_at_k_cases.py)."""
import json
import pathlib

import numpy as np
import pytest

import lens as tf
from tests.metrics.fixtures import metrics_at_k_cases as cases
from tests.metrics.fixtures.streaming_run import run_case

HERE = pathlib.Path(__file__).parent / "fixtures"
WANT = json.loads((HERE / "metrics_at_k_tf.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_tensorflow(name):
    rows = run_case(tf, cases.CASES[name], cases.FEEDS)
    for i, (got, want) in enumerate(zip(rows, WANT[name])):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg="%s row %d" % (name, i))


def test_variables_are_float64_and_named_as_tf():
    with tf.Graph().as_default():
        tf.metrics.precision_at_k(tf.constant([[1]], tf.int64), tf.constant([[0.1, 0.9]]), 1)
        tf.metrics.average_precision_at_k(tf.constant([[1]], tf.int64), tf.constant([[0.1, 0.9]]), 2)
        names = sorted((v.op.name, v.dtype.base_dtype.name) for v in tf.local_variables())
        assert names == [("average_precision_at_2/max", "float64"), ("average_precision_at_2/total", "float64"),
                         ("precision_at_1/false_positive_at_1", "float64"),
                         ("precision_at_1/true_positive_at_1", "float64")]
        with pytest.raises(ValueError, match="Invalid k"):
            tf.metrics.average_precision_at_k([[1]], [[0.1, 0.9]], 0)
