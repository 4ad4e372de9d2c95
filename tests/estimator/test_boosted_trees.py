"""tf.estimator.BoostedTreesClassifier / Regressor: splits and leaf values against the exact greedy rule
computed by hand in NumPy, learning on synthetic data, the stop after n_trees, and bad arguments."""
import numpy as np
import pytest

import lens as tf

FC = tf.feature_column
EDGES = [0.2, 0.4, 0.6, 0.8]


def _data(n=200, seed=0):
    rng = np.random.RandomState(seed)
    return {"a": rng.uniform(0, 1, n).astype(np.float32), "b": rng.uniform(0, 1, n).astype(np.float32)}


def _columns():
    return [FC.bucketized_column(FC.numeric_column(k), EDGES) for k in ("b", "a")]   # sorted by name inside


def _fn(x, y, epochs=None):
    return tf.estimator.inputs.numpy_input_fn(x, y, batch_size=len(y), num_epochs=epochs, shuffle=False)


def _tree(est, t=0):
    r = tf.train.load_checkpoint(est.model_dir)
    out = {k: r.get_tensor("boosted_trees/tree_" + k)[t] for k in ("feature", "threshold", "left", "value")}
    out["value"] = out["value"][:, 0]                # one logit
    return out


def _best_split_by_hand(x, g, h, l2):
    """Exact greedy: the (feature, bucket threshold) maximizing G_L^2/(H_L+l2) + G_R^2/(H_R+l2) - G^2/(H+l2)."""
    best = None
    for f, key in enumerate(("a", "b")):
        buckets = np.searchsorted(EDGES, x[key], side="right")
        for thr in range(len(EDGES)):
            left = buckets <= thr
            gl, hl, gr, hr = g[left].sum(), h[left].sum(), g[~left].sum(), h[~left].sum()
            gain = gl ** 2 / (hl + l2) + gr ** 2 / (hr + l2) - g.sum() ** 2 / (h.sum() + l2)
            if best is None or gain > best[0] + 1e-12:
                best = (gain, f, thr, (gl, hl), (gr, hr))
    return best


def test_classifier_root_split_is_the_exact_greedy_one(tmp_path):
    x = _data()
    y = ((x["a"] > 0.45) & (x["b"] < 0.7)).astype(np.int64)
    l2, lr = 0.05, 0.3
    est = tf.estimator.BoostedTreesClassifier(_columns(), n_batches_per_layer=1, n_trees=1, max_depth=1,
                                              learning_rate=lr, l2_regularization=l2, model_dir=str(tmp_path))
    est.train(_fn(x, y), max_steps=10)
    tree = _tree(est)
    # Logits start at 0: p = 1/2; mean sigmoid cross entropy gives g = (p - y)/n, h = p(1 - p)/n.
    n = len(y)
    g, h = (0.5 - y) / n, np.full(n, 0.25 / n)
    gain, f, thr, (gl, hl), (gr, hr) = _best_split_by_hand(x, g, h, l2)
    assert (tree["feature"][0], tree["threshold"][0], tree["left"][0]) == (f, thr, 1)
    np.testing.assert_allclose(tree["value"][1:3], [-lr * gl / (hl + l2), -lr * gr / (hr + l2)], rtol=1e-5)
    assert (tree["feature"][1:3] == -1).all()
    assert tf.train.load_checkpoint(est.model_dir).get_tensor("global_step") == 1   # one layer: done


def test_regressor_first_leaves_are_the_side_means_and_it_learns(tmp_path):
    x = _data(seed=1)
    y = np.where(x["b"] > 0.6, 3.0, -1.0).astype(np.float32) + np.where(x["a"] > 0.2, 0.5, 0.0)
    est = tf.estimator.BoostedTreesRegressor(_columns(), n_batches_per_layer=1, n_trees=1, max_depth=1,
                                             learning_rate=1.0, model_dir=str(tmp_path / "one"))
    est.train(_fn(x, y), max_steps=10)
    tree = _tree(est)
    # Squared error, l2 = 0: a leaf's weight -G/H is the mean residual of its examples.
    key = ("a", "b")[tree["feature"][0]]
    left = np.searchsorted(EDGES, x[key], side="right") <= tree["threshold"][0]
    assert key == "b" and tree["threshold"][0] == 2
    np.testing.assert_allclose(tree["value"][1:3], [y[left].mean(), y[~left].mean()], rtol=1e-4)
    deeper = tf.estimator.BoostedTreesRegressor(_columns(), n_batches_per_layer=2, n_trees=3, max_depth=2,
                                                learning_rate=0.5, model_dir=str(tmp_path / "deep"))
    half = {k: v[:100] for k, v in x.items()}
    deeper.train(tf.estimator.inputs.numpy_input_fn(x, y, batch_size=100, num_epochs=None, shuffle=False),
                 max_steps=100)
    assert tf.train.load_checkpoint(deeper.model_dir).get_tensor("global_step") == 3 * 2 * 2   # trees*layers*batches
    preds = np.array([p["predictions"][0] for p in deeper.predict(_fn(half, y[:100], epochs=1))])
    assert np.mean((preds - y[:100]) ** 2) < 0.2 * np.var(y[:100])


def test_classifier_learns_an_interaction(tmp_path):
    x = _data(400, seed=2)
    y = ((x["a"] > 0.6) ^ (x["b"] > 0.4)).astype(np.int64)        # no single split separates it
    est = tf.estimator.BoostedTreesClassifier(_columns(), n_batches_per_layer=1, n_trees=4, max_depth=2,
                                              learning_rate=0.5, model_dir=str(tmp_path))
    est.train(_fn(x, y), max_steps=50)
    metrics = est.evaluate(_fn(x, y, epochs=1))
    assert metrics["accuracy"] > 0.95 and metrics["global_step"] == 8
    probs = [p["probabilities"] for p in est.predict(_fn(x, y, epochs=1))]
    assert np.allclose(np.sum(probs, 1), 1)


def test_bad_arguments_name_the_culprit():
    with pytest.raises(ValueError, match="only binary classification"):
        tf.estimator.BoostedTreesClassifier(_columns(), 1, n_classes=3)
    est = tf.estimator.BoostedTreesRegressor([FC.numeric_column("a")], 1)
    with pytest.raises(ValueError, match="bucketized_column and indicator_column.*'a'"):
        est.train(_fn(_data(), np.zeros(200, np.float32)), max_steps=1)
    with pytest.raises(ValueError, match="tree_complexity must be positive"):
        tf.estimator.BoostedTreesRegressor(_columns(), 1, pruning_mode="pre")
