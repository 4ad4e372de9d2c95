"""tf.contrib.factorization.KMeans against k-means computed in NumPy, and the public TF1 k-means example."""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lens as tf
from lens.contrib.factorization import KMeans

EXAMPLES = Path(__file__).resolve().parents[1] / "contrib_examples"   # the public contrib examples share one input_data


def _blobs(seed=0, n=60, d=4):
    rng = np.random.RandomState(seed)
    centers = np.array([[5.0, 0, 0, 0], [0, 5.0, 0, 0], [0, 0, 5.0, 0]])[:, :d]
    ids = rng.randint(0, 3, size=n)
    return (centers[ids] + rng.normal(0, 0.3, size=(n, d))).astype(np.float32), ids


def test_nearest_neighbors_matches_numpy():
    rng = np.random.RandomState(1)
    pts, ctr = rng.normal(size=(7, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    idx, dist = tf.contrib.factorization.nearest_neighbors(pts, ctr, 2)
    with tf.Session() as s:
        i, d = s.run([idx, dist])
    full = ((pts[:, None, :] - ctr[None]) ** 2).sum(-1)
    want = np.argsort(full, axis=1)[:, :2]
    assert i.dtype == np.int64 and (i == want).all()
    np.testing.assert_allclose(d, np.take_along_axis(full, want, 1), rtol=1e-5, atol=1e-5)


def test_full_batch_step_is_a_lloyd_step():
    x, _ = _blobs()
    init = x[:3].copy()
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, [None, 4])
        out = KMeans(X, 3, initial_clusters=init).training_graph()
        all_scores, idx, scores, initialized, centers, init_op, train_op = out
        assert centers.op.name == "clusters" and initialized.op.name == "initialized"
        with tf.Session() as s:
            s.run(tf.global_variables_initializer(), {X: x})
            s.run(init_op, {X: x})
            assert s.run(initialized)
            np.testing.assert_allclose(s.run(centers), init)
            d, i, sc = s.run([all_scores[0], idx[0], scores[0]], {X: x})
            s.run(train_op, {X: x})
            new = s.run(centers)
    full = ((x[:, None] - init[None]) ** 2).sum(-1)
    np.testing.assert_allclose(d, full, rtol=1e-4, atol=1e-3)
    assert (i == full.argmin(1)).all()
    np.testing.assert_allclose(sc, full.min(1), rtol=1e-4, atol=1e-3)
    want = np.stack([x[i == c].sum(0) / ((i == c).sum() + 1e-6) for c in range(3)])
    np.testing.assert_allclose(new, want, rtol=1e-5)


def test_mini_batch_update_is_a_running_mean():
    x, _ = _blobs(2)
    init = x[:3].copy()
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, [None, 4])
        _, idx, _, _, centers, init_op, train_op = KMeans(X, 3, initial_clusters=init,
                                                          use_mini_batch=True).training_graph()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(init_op, {X: x})
            want, counts = init.astype(np.float64), np.ones(3)
            for batch in (x[:20], x[20:45]):
                i = s.run(idx[0], {X: batch})
                s.run(train_op, {X: batch})
                for c in np.unique(i):
                    k = (i == c).sum()
                    want[c] += (batch[i == c].sum(0) - k * want[c]) / (counts[c] + k)
                    counts[c] += k
                np.testing.assert_allclose(s.run(centers), want, rtol=1e-5, atol=1e-5)


def test_kmeans_plus_plus_picks_one_center_per_blob_and_cosine_scores():
    x, ids = _blobs(3)
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, [None, 4])
        km = KMeans(X, 3, initial_clusters="kmeans_plus_plus", distance_metric="cosine", random_seed=5)
        all_scores, idx, scores, _, centers, init_op, train_op = km.training_graph()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(init_op, {X: x})
            c = s.run(centers)
            sc, i, d = s.run([scores[0], idx[0], all_scores[0]], {X: x})
    np.testing.assert_allclose(np.linalg.norm(c, axis=1), 1, rtol=1e-5)
    assert sorted(np.argmax(c, 1)) == [0, 1, 2]     # one center in each blob
    xn = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = 1 - xn @ c.T
    np.testing.assert_allclose(d, cos, atol=1e-5)
    np.testing.assert_allclose(sc, cos.min(1), atol=1e-5)
    assert len(set(zip(i, ids))) == 3               # clusters agree with the blobs


def test_bad_arguments_name_the_culprit():
    X = tf.placeholder(tf.float32, [None, 2])
    with pytest.raises(ValueError, match="distance metric 'manhattan'"):
        KMeans(X, 2, distance_metric="manhattan")
    with pytest.raises(ValueError, match="initial_clusters 'kmc2'"):
        KMeans(X, 2, initial_clusters="kmc2")


def test_public_kmeans_example_finds_the_clusters():
    proc = subprocess.run([sys.executable, "kmeans.py"], capture_output=True, text=True, timeout=120,
                          cwd=str(EXAMPLES))
    assert proc.returncode == 0, proc.stderr[-3000:]
    dist = [float(v) for v in re.findall(r"Avg Distance: ([\d.]+)", proc.stdout)]
    assert len(dist) == 2 and dist[1] < dist[0]
    assert float(re.search(r"Test Accuracy: ([\d.]+)", proc.stdout).group(1)) > 0.6   # chance: 0.1
