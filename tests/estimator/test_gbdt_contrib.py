"""tf.contrib.boosted_trees: the multi-class (diagonal hessian) split against the rule computed by hand,
quantile buckets, learner_pb2's wire format, unsupported settings, and the public TF1 GBDT example."""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lens as tf
from lens.contrib.boosted_trees.estimator_batch.estimator import GradientBoostedDecisionTreeClassifier
from lens.contrib.boosted_trees.proto import learner_pb2

EXAMPLES = Path(__file__).resolve().parents[1] / "contrib_examples"   # the public contrib examples share one input_data
EDGES = [0.25, 0.5, 0.75]


def _config(depth=1, lr=0.5, l2=0.1):
    c = learner_pb2.LearnerConfig()
    c.learning_rate_tuner.fixed.learning_rate = lr
    c.regularization.l2 = l2
    c.constraints.max_tree_depth = depth
    c.growing_mode = learner_pb2.LearnerConfig.LAYER_BY_LAYER
    c.multi_class_strategy = learner_pb2.LearnerConfig.DIAGONAL_HESSIAN
    return c


def test_learner_config_has_tensorflows_field_numbers():
    c = learner_pb2.LearnerConfig(num_classes=10)
    c.multi_class_strategy = learner_pb2.LearnerConfig.DIAGONAL_HESSIAN
    c.constraints.max_tree_depth = 4
    # num_classes = 1, constraints = 5 (max_tree_depth = 1), multi_class_strategy = 10.
    assert c.SerializeToString() == b"\x08\x0a" + b"\x2a\x02\x08\x04" + b"\x50\x03"


def test_multiclass_root_split_sums_the_per_class_gains(tmp_path):
    rng = np.random.RandomState(0)
    n = 150
    x = {"u": rng.uniform(0, 1, n).astype(np.float32), "v": rng.uniform(0, 1, n).astype(np.float32)}
    y = np.where(x["u"] < 0.5, 0, np.where(x["v"] < 0.25, 1, 2)).astype(np.int64)
    cols = [tf.feature_column.bucketized_column(tf.feature_column.numeric_column(k), EDGES) for k in ("u", "v")]
    lr, l2 = 0.5, 0.1
    est = GradientBoostedDecisionTreeClassifier(_config(1, lr, l2), examples_per_layer=n, n_classes=3, num_trees=1,
                                                feature_columns=cols, center_bias=False, model_dir=str(tmp_path))
    est.fit(input_fn=tf.estimator.inputs.numpy_input_fn(x, y, batch_size=n, num_epochs=None, shuffle=False),
            max_steps=5)
    r = tf.train.load_checkpoint(est.model_dir)
    feature, threshold, value = (r.get_tensor("boosted_trees/tree_" + k)[0] for k in ("feature", "threshold", "value"))
    # Logits start at 0: p = 1/3 per class; mean softmax cross entropy: g = (p - onehot)/n, h = p(1 - p)/n.
    g = (np.full((n, 3), 1 / 3) - np.eye(3)[y]) / n
    h = np.full((n, 3), (1 / 3) * (2 / 3) / n)
    best = None
    for f, key in enumerate(("u", "v")):
        b = np.searchsorted(EDGES, x[key], side="right")
        for thr in range(len(EDGES)):
            left = b <= thr
            gl, hl, gr, hr = g[left].sum(0), h[left].sum(0), g[~left].sum(0), h[~left].sum(0)
            gain = (gl ** 2 / (hl + l2) + gr ** 2 / (hr + l2) - g.sum(0) ** 2 / (h.sum(0) + l2)).sum()
            if best is None or gain > best[0] + 1e-12:
                best = (gain, f, thr, gl, hl, gr, hr)
    _, f, thr, gl, hl, gr, hr = best
    assert (feature[0], threshold[0]) == (f, thr) == (0, 1)
    np.testing.assert_allclose(value[1], -lr * gl / (hl + l2), rtol=1e-5)
    np.testing.assert_allclose(value[2], -lr * gr / (hr + l2), rtol=1e-5)


def test_dense_features_split_at_their_first_batch_quantiles(tmp_path):
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    y = (x[:, 0] > 19).astype(np.int64)                      # the median boundary separates it
    est = GradientBoostedDecisionTreeClassifier(_config(1), examples_per_layer=20, num_trees=1, center_bias=False,
                                                model_dir=str(tmp_path), num_quantiles=3)
    est.fit(input_fn=tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=20, num_epochs=None,
                                                        shuffle=False), max_steps=5)
    bounds = tf.train.load_checkpoint(est.model_dir).get_tensor("boosted_trees/quantile_boundaries")
    np.testing.assert_allclose(bounds, np.quantile(x, [0.25, 0.5, 0.75], axis=0).T.astype(np.float32))
    acc = est.evaluate(input_fn=tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=20, shuffle=False))
    assert acc["accuracy"] == 1.0


def test_unsupported_settings_say_what_to_use():
    c = _config()
    c.growing_mode = learner_pb2.LearnerConfig.WHOLE_TREE
    with pytest.raises(NotImplementedError, match="LAYER_BY_LAYER"):
        GradientBoostedDecisionTreeClassifier(c, 10, n_classes=3, num_trees=1, center_bias=False)
    with pytest.raises(NotImplementedError, match="center_bias=False"):
        GradientBoostedDecisionTreeClassifier(_config(), 10, num_trees=1)
    c = _config()
    c.multi_class_strategy = learner_pb2.LearnerConfig.TREE_PER_CLASS
    with pytest.raises(NotImplementedError, match="DIAGONAL_HESSIAN"):
        GradientBoostedDecisionTreeClassifier(c, 10, n_classes=3, num_trees=1, center_bias=False)


def test_public_gbdt_example_learns():
    proc = subprocess.run([sys.executable, "gradient_boosted_decision_tree.py"], capture_output=True, text=True,
                          timeout=180, cwd=str(EXAMPLES))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert float(re.search(r"Testing Accuracy: ([\d.]+)", proc.stdout).group(1)) > 0.8   # chance: 0.1
