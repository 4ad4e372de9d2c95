"""tf.metrics: streaming sequences against NumPy, TF1 variable names, the seed's auc example."""
import re

import numpy as np
import pytest

import lens as tf

RNG = np.random.default_rng(7)


def _run_stream(value, update, feeds, batches):
    """[(value before, update result)] for each batch, as a TF1 program prints them."""
    out = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for batch in batches:
            out.append(sess.run((value, update), dict(zip(feeds, batch))))
    return out


# ------------------------------------------------------------------ the seed note's example
X1 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.8, 0.9, 1]
Y1 = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
X2 = [1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
# The seed's printed lines. Its fifth line reads "0.489999", a shortened copy of the previous
# update_op (the note's own point 2: each value equals the previous update_op), so the full
# float32 text is used here.
SEED_LINES = ["auc_1: 0.0, update_op: 1.999999e-07", "auc_2: 1.999999e-07, update_op: 0.48999995",
              "auc_1: 0.48999995, update_op: 0.32444444", "auc_2: 0.32444444, update_op: 0.48999995",
              "auc_1: 0.48999995, update_op: 0.3904", "auc_2: 0.3904, update_op: 0.48999998"]


def _seed_program():
    x_placeholder = tf.placeholder(tf.float64, [10])
    y_placeholder = tf.placeholder(tf.bool, [10])
    auc = tf.metrics.auc(labels=y_placeholder, predictions=x_placeholder)
    initializer = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
    lines, raw = [], []
    with tf.Session() as sess:
        sess.run(initializer)
        for _ in range(3):
            for tag, x in (("auc_1", X1), ("auc_2", X2)):
                auc_value, update_op = sess.run(auc, feed_dict={x_placeholder: x, y_placeholder: Y1})
                lines.append("%s: %s, update_op: %s" % (tag, auc_value, update_op))
                raw.append((auc_value, update_op))
    return lines, raw


def test_seed_auc_sequence_values():
    lines, raw = _seed_program()
    assert all(isinstance(v, np.float32) and isinstance(u, np.float32) for v, u in raw)
    # value is always the previous update_op (the note's observation 2)
    assert raw[0][0] == 0.0
    for prev, cur in zip(raw, raw[1:]):
        assert cur[0] == prev[1]
    # every printed number is the seed's, to the last float32 unit
    seed = [[np.float32(x) for x in re.findall(r"[0-9.e-]+(?=,|$)", line)] for line in SEED_LINES]
    assert len(seed) == 6 and all(len(pair) == 2 for pair in seed)
    for got, want in zip(raw, seed):
        for g, w in zip(got, want):
            assert abs(int(np.float32(g).view(np.int32)) - int(w.view(np.int32))) <= 1, (got, want)
    exact = [0, 1, 4, 5]  # lines whose sums do not depend on the float32 summation order
    assert [lines[i] for i in exact] == [SEED_LINES[i] for i in exact]


def test_seed_auc_sequence_printed_exactly():
    lines, _ = _seed_program()
    assert lines == SEED_LINES


def test_auc_variables_named_and_collected_as_tf1():
    labels = tf.placeholder(tf.bool, [None])
    preds = tf.placeholder(tf.float32, [None])
    tf.metrics.auc(labels, preds)
    tf.metrics.auc(labels, preds, name="my_auc")
    names = [v.op.name for v in tf.local_variables()]
    assert names == ["auc/true_positives", "auc/false_negatives", "auc/true_negatives",
                     "auc/false_positives", "my_auc/true_positives", "my_auc/false_negatives",
                     "my_auc/true_negatives", "my_auc/false_positives"]
    assert [v.op.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == names
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    assert tf.local_variables()[0].shape.as_list() == [200]


# ------------------------------------------------------------------ auc against NumPy
def _np_counts(labels, preds, thresholds, weights):
    pos = preds.astype(np.float32)[None, :] > thresholds[:, None]
    lab = labels.astype(bool)[None, :]
    w = np.ones(len(preds), np.float32) if weights is None else weights.astype(np.float32)
    return [np.sum((a * w).astype(np.float32), 1, dtype=np.float32)
            for a in (lab & pos, lab & ~pos, ~lab & ~pos, ~lab & pos)]


def _np_auc(tp, fn, tn, fp, curve, method):
    e = np.float32(1e-6)
    if curve == "PR" and method == "careful_interpolation":
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = np.maximum(p[:-1] - p[1:], 0)
        slope = np.where(dp > 0, dtp / np.where(dp > 0, dp, 1), 0)
        intercept = tp[1:] - slope * p[1:]
        ratio = np.where((p[:-1] > 0) & (p[1:] > 0), p[:-1] / np.where(p[1:] > 0, p[1:], 1), 1)
        denom = np.maximum(tp[1:] + fn[1:], 0)
        num = slope * (dtp + intercept * np.log(ratio))
        return np.sum(np.where(denom > 0, num / np.where(denom > 0, denom, 1), 0))
    rec = (tp + e) / (tp + fn + e)
    x, y = (fp / (fp + tn + e), rec) if curve == "ROC" else (rec, (tp + e) / (tp + fp + e))
    h = {"trapezoidal": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
         "majoring": np.maximum(y[:-1], y[1:])}[method]
    return np.sum((x[:-1] - x[1:]) * h)


@pytest.mark.parametrize("curve,method,weighted", [
    ("ROC", "trapezoidal", False), ("ROC", "minoring", True), ("ROC", "majoring", False),
    ("PR", "careful_interpolation", True), ("PR", "trapezoidal", False)])
def test_auc_streams_like_numpy(curve, method, weighted):
    n_thr = 50
    labels = tf.placeholder(tf.int64, [None])
    preds = tf.placeholder(tf.float32, [None])
    weights = tf.placeholder(tf.float32, [None]) if weighted else None
    value, update = tf.metrics.auc(labels, preds, weights=weights, num_thresholds=n_thr,
                                   curve=curve, summation_method=method)
    k = 1e-7
    thr = np.array([-k] + [(i + 1) / (n_thr - 1) for i in range(n_thr - 2)] + [1 + k], np.float32)
    batches, state = [], [np.zeros(n_thr, np.float32)] * 4
    expected = []
    for _ in range(4):
        lab = RNG.integers(0, 2, 30)
        pr = np.clip(lab * 0.3 + RNG.random(30) * 0.7, 0, 1).astype(np.float32)
        w = RNG.random(30).astype(np.float32) if weighted else None
        batches.append((lab, pr, w) if weighted else (lab, pr))
        before = _np_auc(*state, curve, method)
        state = [a + b for a, b in zip(state, _np_counts(lab, pr, thr, w))]
        expected.append((before, _np_auc(*state, curve, method)))
    feeds = [labels, preds] + ([weights] if weighted else [])
    got = _run_stream(value, update, feeds, batches)
    np.testing.assert_allclose(np.array(got), np.array(expected), rtol=2e-5, atol=1e-6)
    assert 0.5 < got[-1][1] <= 1.0  # the predictions carry signal


def test_auc_rejects_bad_arguments():
    labels = tf.placeholder(tf.bool, [None])
    preds = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="curve must be either ROC or PR, XY unknown"):
        tf.metrics.auc(labels, preds, curve="XY")
    with pytest.raises(ValueError, match="Invalid summation_method: simpson"):
        tf.metrics.auc(labels, preds, summation_method="simpson")
    with pytest.raises(ValueError, match="num_thresholds must be at least 2"):
        tf.metrics.auc(labels, preds, num_thresholds=1)


def test_auc_explicit_thresholds():
    labels = tf.constant([True, False, True, False])
    preds = tf.constant([0.9, 0.8, 0.4, 0.1])
    value, update = tf.metrics.auc(labels, preds, thresholds=[0.5, 0.25, 0.75])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        tp = sess.run(tf.local_variables()[0])
    # thresholds sorted and bracketed: [-eps, .25, .5, .75, 1+eps]
    np.testing.assert_array_equal(tp, [2, 2, 1, 1, 0])


# ------------------------------------------------------------------ the other metrics
def _placeholders(dtype_l=tf.float32, dtype_p=tf.float32, weighted=False):
    labels = tf.placeholder(dtype_l, [None])
    preds = tf.placeholder(dtype_p, [None])
    weights = tf.placeholder(tf.float32, [None]) if weighted else None
    return labels, preds, weights


def _np_stream(batches, per_batch):
    """(value before, update) per batch for a metric that is sum(num) / sum(den) so far."""
    num = den = np.float64(0)
    out = []
    for batch in batches:
        before = num / den if den > 0 else 0.0
        n, d = per_batch(*batch)
        num, den = num + n, den + d
        out.append((before, num / den if den > 0 else 0.0))
    return out


def _batches(weighted, kind="float"):
    out = []
    for _ in range(4):
        if kind == "class":
            lab = RNG.integers(0, 3, 20).astype(np.int64)
            pr = np.where(RNG.random(20) < 0.6, lab, RNG.integers(0, 3, 20)).astype(np.int64)
        elif kind == "bool":
            lab = RNG.integers(0, 2, 20).astype(bool)
            pr = np.where(RNG.random(20) < 0.7, lab, ~lab)
        else:
            lab = RNG.normal(size=20).astype(np.float32)
            pr = (lab + RNG.normal(size=20)).astype(np.float32)
        w = RNG.random(20).astype(np.float32)
        out.append((lab, pr, w) if weighted else (lab, pr))
    return out


def _w(batch):
    return batch[2] if len(batch) == 3 else np.ones(len(batch[0]), np.float32)


CASES = {
    "accuracy": ("class", lambda l, p, w: ((l == p) @ w, w.sum())),
    "mean_absolute_error": ("float", lambda l, p, w: (np.abs(p - l) @ w, w.sum())),
    "mean_squared_error": ("float", lambda l, p, w: (np.square(l - p) @ w, w.sum())),
    "precision": ("bool", lambda l, p, w: ((l & p) @ w, p @ w)),
    "recall": ("bool", lambda l, p, w: ((l & p) @ w, l @ w)),
}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric", sorted(CASES))
def test_ratio_metrics_stream_like_numpy(metric, weighted):
    kind, per_batch = CASES[metric]
    dtype = {"class": tf.int64, "bool": tf.bool, "float": tf.float32}[kind]
    labels, preds, weights = _placeholders(dtype, dtype, weighted)
    value, update = getattr(tf.metrics, metric)(labels, preds, weights=weights)
    batches = _batches(weighted, kind)
    got = _run_stream(value, update, [labels, preds, weights][:2 + weighted], batches)
    want = _np_stream(batches, lambda *b: per_batch(b[0], b[1], _w(b)))
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-5)
    assert all(isinstance(v, np.float32) for pair in got for v in pair)


def test_rmse_is_sqrt_of_streaming_mse():
    labels, preds, _ = _placeholders()
    value, update = tf.metrics.root_mean_squared_error(labels, preds)
    batches = _batches(False)
    got = _run_stream(value, update, [labels, preds], batches)
    want = np.sqrt(_np_stream(batches, lambda l, p: (np.square(l - p).sum(), len(l))))
    np.testing.assert_allclose(np.array(got), want, rtol=1e-5)
    assert [v.op.name for v in tf.local_variables()] == ["root_mean_squared_error/total",
                                                         "root_mean_squared_error/count"]


@pytest.mark.parametrize("metric,cond", [
    ("true_positives", lambda l, p: l & p), ("false_positives", lambda l, p: ~l & p),
    ("true_negatives", lambda l, p: ~l & ~p), ("false_negatives", lambda l, p: l & ~p)])
def test_confusion_counts_stream(metric, cond):
    labels, preds, weights = _placeholders(tf.int32, tf.float32, weighted=True)
    value, update = getattr(tf.metrics, metric)(labels, preds, weights=weights)
    batches = [(b[0].astype(np.int32), b[1].astype(np.float32), b[2]) for b in _batches(True, "bool")]
    got = _run_stream(value, update, [labels, preds, weights], batches)
    total, want = 0.0, []
    for lab, pr, w in batches:
        before = total
        total += cond(lab.astype(bool), pr.astype(bool)) @ w
        want.append((before, total))
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-5)
    assert [v.op.name for v in tf.local_variables()] == [metric + "/count"]


def test_mean_weights_and_variable_names():
    values = tf.placeholder(tf.float32, [None, 2])
    weights = tf.placeholder(tf.float32, [None, 1])  # broadcast along the last axis
    value, update = tf.metrics.mean(values, weights)
    got = _run_stream(value, update, [values, weights],
                      [([[1, 3], [5, 7]], [[1], [0]]), ([[2, 2]], [[3]])])
    np.testing.assert_allclose(got, [(0.0, 2.0), (2.0, 2.0)])
    assert [v.op.name for v in tf.local_variables()] == ["mean/total", "mean/count"]
    assert value.op.name == "mean/value" and update.op.name == "mean/update_op"


def test_names_uniquify_and_collections():
    labels, preds, _ = _placeholders(tf.int64, tf.int64)
    tf.metrics.accuracy(labels, preds)
    v, u = tf.metrics.accuracy(labels, preds, metrics_collections=["m"], updates_collections=["u"])
    tf.metrics.precision(labels, preds, name="prec")
    tf.metrics.recall(labels, preds)
    assert [x.op.name for x in tf.local_variables()] == [
        "accuracy/total", "accuracy/count", "accuracy_1/total", "accuracy_1/count",
        "prec/true_positives/count", "prec/false_positives/count",
        "recall/true_positives/count", "recall/false_negatives/count"]
    assert tf.get_collection("m") == [v] and tf.get_collection("u") == [u]


def test_precision_is_zero_before_any_positive_and_resets():
    labels, preds, _ = _placeholders(tf.bool, tf.bool)
    value, update = tf.metrics.precision(labels, preds)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(update, {labels: [True], preds: [False]}) == 0.0  # no predicted positive
        assert sess.run(update, {labels: [True, False], preds: [True, True]}) == 0.5
        sess.run(tf.local_variables_initializer())  # TF1's way to restart a metric
        assert sess.run(value) == 0.0


def test_bad_shapes_are_clear_errors():
    with pytest.raises(ValueError, match="incompatible"):
        tf.metrics.accuracy(tf.zeros([3], tf.int64), tf.zeros([4], tf.int64))
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.metrics.mean(tf.zeros([3, 2]), weights=tf.ones([3, 3]))


def test_squeezable_last_dimension_is_dropped():
    labels = tf.constant([[1], [2], [0]], tf.int64)
    preds = tf.constant([1, 2, 2], tf.int64)
    value, update = tf.metrics.accuracy(labels, preds)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert abs(sess.run(update) - 2 / 3) < 1e-6


def test_uninitialized_metric_names_the_variable():
    value, update = tf.metrics.mean(tf.constant([1.0, 2.0]))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="mean/(total|count)"):
            sess.run(update)


def test_auc_predictions_outside_unit_interval_fail_and_lose_nothing():
    pytest.importorskip("lens.ops.control_flow")
    labels = tf.placeholder(tf.bool, [None])
    preds = tf.placeholder(tf.float32, [None])
    value, update = tf.metrics.auc(labels, preds)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        good = sess.run(update, {labels: [False, True], preds: [0.2, 0.9]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
            sess.run(update, {labels: [False, True], preds: [1.5, 0.9]})
        assert sess.run(value) == good  # the failed batch was not counted
