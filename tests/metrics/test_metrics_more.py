"""The *_at_thresholds metrics, sensitivity/specificity, mean_iou, mean_per_class_accuracy, mean_relative_error,
mean_cosine_distance, percentage_below and mean_tensor: value before, update_op after each of two batches and
the final value equal TF 2.21's compat.v1 (fixtures/record_metrics_more_tf.py on fixtures/metrics_more_cases.py)."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import lens as tf

HERE = pathlib.Path(__file__).parent / "fixtures"
_spec = importlib.util.spec_from_file_location("metrics_more_cases", HERE / "metrics_more_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
WANT = json.loads((HERE / "metrics_more_tf.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_tensorflow(name):
    with tf.Graph().as_default():
        ph = {k: tf.placeholder(tf.as_dtype(np.asarray(v[0]).dtype), np.shape(v[0]), name=k)
              for k, v in cases.FEEDS.items()}
        value, update = cases.CASES[name](tf, ph)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            rows = [sess.run(value, {p: cases.FEEDS[k][0] for k, p in ph.items()})]
            for b in range(2):
                rows.append(sess.run(update, {p: cases.FEEDS[k][b] for k, p in ph.items()}))
            rows.append(sess.run(value, {p: cases.FEEDS[k][0] for k, p in ph.items()}))
    for i, (got, want) in enumerate(zip(rows, WANT[name])):
        np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=2e-6, atol=1e-6,
                                   err_msg="%s row %d" % (name, i))


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
