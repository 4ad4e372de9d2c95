"""Op-table rows for the contrib learners' kernels (k-means, random trees, boosted trees): each builds
a small graph and checks its result with NumPy (the learners' own tests go further)."""
import numpy as np

import lens as tf
from lens.estimator.canned import boosted_trees as btc
from lens.estimator.canned import boosted_trees_ops as bt
from lens.factorization import clustering_ops
from lens.tensor_forest import forest_ops
from lens.tensor_forest.python import tensor_forest
from optable_lib import custom

_X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 4.9]], np.float32)


def _check_nearest():
    with tf.Graph().as_default(), tf.Session() as s:
        idx, dist = s.run(clustering_ops.nearest_neighbors(_X, _X[[0, 2]], 1))
    assert idx.ravel().tolist() == [0, 0, 1, 1]
    np.testing.assert_allclose(dist.ravel(), [0, 0.01, 0, 0.02], atol=1e-5)


def _check_kmeans_pp():
    with tf.Graph().as_default(), tf.Session() as s:
        got = s.run(clustering_ops.kmeans_plus_plus_initialization(_X, 2, 3, -1))
    # Two far-apart pairs: the second center always comes from the other pair.
    assert sorted(int(r[0] > 2) for r in got) == [0, 1]


def _forest():
    params = tensor_forest.ForestHParams(num_classes=2, num_features=2, num_trees=1, max_nodes=3,
                                         split_after_samples=4, num_splits_to_consider=2, base_random_seed=3).fill()
    return tensor_forest.RandomForestGraphs(params)


def _check_forest():
    with tf.Graph().as_default():
        forest = _forest()
        train = forest.training_graph(_X, [0, 0, 1, 1])
        probs, leaves, _ = forest.inference_graph(_X)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train)
            p, leaf = s.run([probs, leaves])
    assert (p.argmax(1) == [0, 0, 1, 1]).all() and set(leaf.ravel()) == {1, 2}


def _check_bucketize():
    with tf.Graph().as_default(), tf.Session() as s:
        got = s.run(bt.bucketize(_X, [[0.05, 5.0], [4.95]]))
    np.testing.assert_array_equal(got, np.stack([np.searchsorted([0.05, 5.0], _X[:, 0], side="right"),
                                                 np.searchsorted([4.95], _X[:, 1], side="right")], 1))


def _check_quantile_bucketize():
    with tf.Graph().as_default():
        bounds = tf.Variable(np.full((2, 1), np.nan, np.float32))
        buckets, counts = bt.quantile_bucketize(_X, bounds, learn=True)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            b, c, learned = s.run([buckets, counts, bounds])
    np.testing.assert_allclose(learned[:, 0], np.median(_X, 0))
    assert c.tolist() == [2, 2] and b.tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]


def _check_grow_and_predict():
    with tf.Graph().as_default():
        ens = btc.ensemble_variables(1, 1)
        buckets = tf.constant([[0], [0], [1], [1]], tf.int32)
        grads = np.array([[1.0], [1.0], [-1.0], [-1.0]], np.float32)
        grow = bt.grow_layer(buckets, grads, np.ones((4, 1), np.float32), ens, 1.0, 0.0, 0.0, 0.0, 0.0, 1, 1, [2])
        logits = bt.ensemble_logits(buckets, ens)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(grow)
            got = s.run(logits)
    np.testing.assert_allclose(got.ravel(), [-1, -1, 1, 1])      # leaf weights -G/H = -2/2, 2/2


ROWS = [
    custom("NearestNeighbors", _check_nearest),
    custom("KmeansPlusPlusInitialization", _check_kmeans_pp),
    custom("TensorForestTrainTree", _check_forest),
    custom("TensorForestTreePredict", _check_forest),
    custom("BoostedTreesLensBucketize", _check_bucketize),
    custom("BoostedTreesLensQuantileBucketize", _check_quantile_bucketize),
    custom("BoostedTreesLensGrow", _check_grow_and_predict),
    custom("BoostedTreesLensPredict", _check_grow_and_predict),
]
