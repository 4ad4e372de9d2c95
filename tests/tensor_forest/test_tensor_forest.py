"""tf.contrib.tensor_forest: random trees checked against Gini impurity computed in NumPy, forest
outputs against the per-tree ones, checkpoints, bad input, and the public TF1 random-forest example."""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lens as tf
from lens.contrib.tensor_forest.python import tensor_forest

EXAMPLES = Path(__file__).resolve().parents[1] / "contrib_examples"   # the public contrib examples share one input_data


def _gini_split_score(x, y, feature, threshold, classes):
    """Weighted Gini impurity n_l (1 - sum p_l^2) + n_r (1 - sum p_r^2) of one split, by hand."""
    score = 0.0
    for side in (x[:, feature] <= threshold, x[:, feature] > threshold):
        n = side.sum()
        if n == 0:
            return np.inf
        p = np.bincount(y[side], minlength=classes) / n
        score += n * (1 - (p ** 2).sum())
    return score


def _forest(num_features=3, classes=2, trees=1, max_nodes=7, split_after=40, seed=11, **kw):
    params = tensor_forest.ForestHParams(num_classes=classes, num_features=num_features, num_trees=trees,
                                         max_nodes=max_nodes, split_after_samples=split_after,
                                         num_splits_to_consider=kw.pop("splits", 6), base_random_seed=seed,
                                         **kw).fill()
    return params, tensor_forest.RandomForestGraphs(params)


def test_fill_derives_parameters_as_tf():
    p = tensor_forest.ForestHParams(num_classes=10, num_features=784, num_trees=10, max_nodes=1000).fill()
    assert (p.num_splits_to_consider, p.num_output_columns, p.num_outputs) == (28, 11, 1)
    assert p.bagged_num_features == 784 and p.bagged_features is None and p.split_after_samples == 250
    assert tensor_forest.ForestHParams(num_classes=2, num_features=4).fill().num_splits_to_consider == 10


def test_root_split_is_the_least_gini_candidate():
    rng = np.random.RandomState(0)
    x = rng.uniform(0, 1, size=(40, 1)).astype(np.float32)
    y = (x[:, 0] > 0.5).astype(np.int32)
    with tf.Graph().as_default():
        params, forest = _forest(num_features=1, split_after=40)
        X, Y = tf.placeholder(tf.float32, [None, 1]), tf.placeholder(tf.int32, [None])
        train = forest.training_graph(X, Y)
        tree = forest.variables[0]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train, {X: x[:39], Y: y[:39]})
            assert s.run(tree.tree["size"]) == 1            # 39 examples: not yet
            s.run(train, {X: x[39:], Y: y[39:]})
            f, t, size, counts = s.run([tree.tree["feature"], tree.tree["threshold"], tree.tree["size"],
                                        tree.tree["counts"]])
    # One feature: the 6 candidates are the values of examples 0..5; the least Gini one wins.
    scores = [_gini_split_score(x, y, 0, x[k, 0], 2) for k in range(6)]
    assert (f[0], t[0]) == (0, x[int(np.argmin(scores)), 0]) and size == 3
    left = x[:, 0] <= t[0]
    np.testing.assert_array_equal(counts[1], np.bincount(y[left], minlength=2))
    np.testing.assert_array_equal(counts[2], np.bincount(y[~left], minlength=2))


def test_forest_outputs_are_tree_averages_and_size_is_capped():
    rng = np.random.RandomState(1)
    x = rng.uniform(0, 1, size=(300, 3)).astype(np.float32)
    y = (x[:, 0] + x[:, 2] > 1).astype(np.int32)
    with tf.Graph().as_default():
        params, forest = _forest(trees=3, max_nodes=7, split_after=20)
        X, Y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.int32, [None])
        train = forest.training_graph(X, Y)
        loss = forest.training_loss(X, Y)
        probs, paths, variance = forest.inference_graph(X)
        per_tree = [t.inference_graph(X)[0] for t in forest.trees]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(loss) == -1.0                  # every tree starts as its root leaf
            for i in range(0, 300, 50):
                s.run(train, {X: x[i:i + 50], Y: y[i:i + 50]})
            sizes = [s.run(t.size()) for t in forest.trees]
            p, leaf, v, each, l = s.run([probs, paths, variance, per_tree, loss], {X: x})
            counts = [s.run(t.tree["counts"]) for t in forest.variables.variables]
    assert all(sz == 7 for sz in sizes) and l == -7.0  # max_nodes 7: three splits per tree, then full
    each = np.stack(each, 1)
    np.testing.assert_allclose(p, each.mean(1), rtol=1e-6)
    np.testing.assert_allclose(v, np.maximum(0, (each ** 2).mean(1) - p ** 2), atol=1e-6)
    for k in range(3):                              # smoothed class counts of the leaf reached
        c = counts[k][leaf[:, k]]
        np.testing.assert_allclose(each[:, k], (c + 1) / (c.sum(1, keepdims=True) + 2), rtol=1e-6)
    assert (p.argmax(1) == y).mean() > 0.8


def test_forest_survives_a_checkpoint(tmp_path):
    rng = np.random.RandomState(2)
    x = rng.uniform(0, 1, size=(200, 3)).astype(np.float32)
    y = (x[:, 0] > 0.4).astype(np.int32)

    def build():
        params, forest = _forest(trees=2, max_nodes=15, split_after=30)
        X, Y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.int32, [None])
        return X, Y, forest.training_graph(X, Y), forest.inference_graph(X)[0]

    with tf.Graph().as_default():
        X, Y, train, probs = build()
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train, {X: x, Y: y})
            want = s.run(probs, {X: x})
            path = saver.save(s, str(tmp_path / "forest"))
    with tf.Graph().as_default():
        X, Y, train, probs = build()
        with tf.Session() as s:
            tf.train.Saver().restore(s, path)
            np.testing.assert_array_equal(s.run(probs, {X: x}), want)


def test_bad_input_names_the_culprit():
    with pytest.raises(AttributeError, match="num_features"):
        tensor_forest.ForestHParams(num_classes=2).fill()
    with pytest.raises(NotImplementedError, match="regression"):
        tensor_forest.RandomForestGraphs(tensor_forest.ForestHParams(num_classes=1, num_features=2,
                                                                     regression=True).fill())
    with tf.Graph().as_default():
        _, forest = _forest()
        X, Y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.int32, [None])
        train = forest.training_graph(X, Y)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError, match="label 5 of example 1 is not a class id"):
                s.run(train, {X: np.zeros((2, 3)), Y: [0, 5]})
            assert s.run(forest.trees[0].size()) == 1 and s.run(forest.variables[0].tree["counts"]).sum() == 0


def test_public_random_forest_example_learns():
    proc = subprocess.run([sys.executable, "random_forest.py"], capture_output=True, text=True, timeout=120,
                          cwd=str(EXAMPLES))
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(v) for v in re.findall(r"Loss: (-?[\d.]+)", proc.stdout)]
    assert len(losses) == 3 and losses[-1] < losses[0] < 0           # the trees grow
    assert float(re.search(r"Test Accuracy: ([\d.]+)", proc.stdout).group(1)) > 0.8   # chance: 0.1
