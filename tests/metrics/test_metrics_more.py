"""The *_at_thresholds metrics, sensitivity/specificity, mean_iou, mean_per_class_accuracy, mean_relative_error,
mean_cosine_distance, percentage_below and mean_tensor: value before, update_op after each of two batches and
the final value equal TF 2.21's compat.v1 (fixtures/record_metrics_tf.py more on fixtures/metrics_more_cases.py)."""
import json
import pathlib

import numpy as np
import pytest

import lens as tf
from tests.metrics.fixtures import metrics_more_cases as cases
from tests.metrics.fixtures.streaming_run import run_case

HERE = pathlib.Path(__file__).parent / "fixtures"
WANT = json.loads((HERE / "metrics_more_tf.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_tensorflow(name):
    rows = run_case(tf, cases.CASES[name], cases.FEEDS)
    for i, (got, want) in enumerate(zip(rows, WANT[name])):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg="%s row %d" % (name, i))


def test_variables_are_local_metric_variables_named_as_tf():
    with tf.Graph().as_default():
        tf.metrics.mean_iou([0, 1], [1, 1], 2)
        tf.metrics.precision_at_thresholds([True], [0.5], [0.3])
        names = sorted(v.op.name for v in tf.local_variables())
        assert names == ["mean_iou/total_confusion_matrix", "precision_at_thresholds/false_positives",
                         "precision_at_thresholds/true_positives"]
        assert len(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)) == 3
        with pytest.raises(ValueError, match="range"):
            tf.metrics.sensitivity_at_specificity([True], [0.5], 1.5)
