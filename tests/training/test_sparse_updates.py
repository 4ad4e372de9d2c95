"""IndexedSlices gradients (gather, embedding lookups) and the optimizers' sparse updates, which must land
where the dense updates do."""
import warnings

import numpy as np
import pytest

import lens as tf

OPTIMIZERS = {
    "GradientDescent": lambda: tf.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "Nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "Adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "Adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
    "Adam": lambda: tf.train.AdamOptimizer(0.1),
    "RMSProp": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5),
    "CenteredRMSProp": lambda: tf.train.RMSPropOptimizer(0.1, centered=True),
    "Ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    "FtrlShrinkage": lambda: tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1),
}
IDS = [0, 3, 3, 5]        # rows 0, 3 (twice) and 5 are touched every step


def _train(make_opt, sparse, steps=3):
    with tf.Graph().as_default():
        emb = tf.Variable(np.arange(12.0).reshape(6, 2) / 10.0)
        table = emb if sparse else emb + 0.0          # a dense path to the same rows
        rows = tf.nn.embedding_lookup(table, tf.constant(IDS))
        loss = tf.reduce_sum(tf.square(rows - 1.0))
        opt = make_opt()
        (grad, _), = opt.compute_gradients(loss, [emb])
        assert isinstance(grad, tf.IndexedSlices) == sparse
        train = opt.apply_gradients([(grad, emb)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
            return sess.run(emb)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_sparse_updates_equal_dense_updates_on_the_touched_rows(name):
    dense, sparse = _train(OPTIMIZERS[name], False), _train(OPTIMIZERS[name], True)
    np.testing.assert_allclose(sparse[IDS], dense[IDS], rtol=1e-12, atol=1e-12)
    if name in ("GradientDescent", "Adagrad", "Adam", "Adadelta"):
        # Their dense step leaves a zero-gradient row alone (slots start at zero or only accumulate).
        np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-12)
    untouched = [1, 2, 4]
    np.testing.assert_array_equal(sparse[untouched], (np.arange(12.0).reshape(6, 2) / 10.0)[untouched])


def test_gather_gradient_is_indexed_slices_and_densifies_to_the_segment_sum():
    with tf.Graph().as_default():
        p = tf.constant(np.arange(6.0).reshape(3, 2))
        w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], tf.float64)
        g = tf.gradients(tf.reduce_sum(tf.gather(p, [2, 0, 2]) * w), p)[0]
        assert isinstance(g, tf.IndexedSlices) and g.dense_shape is not None
        with tf.Session() as sess:
            value = sess.run(g)
            dense = sess.run(tf.convert_to_tensor(g))
        assert isinstance(value, tf.IndexedSlicesValue)
        assert value.indices.tolist() == [2, 0, 2] and value.dense_shape.tolist() == [3, 2]
        np.testing.assert_array_equal(dense, [[3, 4], [0, 0], [6, 8]])


def test_mixed_dense_and_sliced_gradients_aggregate_into_indexed_slices():
    with tf.Graph().as_default():
        p = tf.constant(np.arange(6.0).reshape(3, 2))
        y = tf.reduce_sum(tf.gather(p, [1]) * 3.0) + tf.reduce_sum(p * p) + tf.reduce_sum(tf.gather(p, [1, 2]))
        g = tf.gradients(y, p)[0]
        assert isinstance(g, tf.IndexedSlices)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(tf.convert_to_tensor(g)),
                                       2 * np.arange(6.0).reshape(3, 2) + [[0, 0], [4, 4], [1, 1]])


def test_conversion_warnings_and_errors_as_tensorflow():
    with tf.Graph().as_default():
        vals = tf.placeholder(tf.float32, [None, 2])
        idx = tf.placeholder(tf.int32, [None])
        with pytest.raises(ValueError, match="without dense_shape"):
            tf.convert_to_tensor(tf.IndexedSlices(vals, idx))
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            tf.convert_to_tensor(tf.IndexedSlices(vals, idx, tf.shape(vals)))
            tf.convert_to_tensor(tf.IndexedSlices(vals, idx, tf.constant([4, 2])))
        msgs = [str(r.message) for r in rec]
        assert msgs == ["Converting sparse IndexedSlices to a dense Tensor of unknown shape. This may consume a "
                        "large amount of memory."]
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            tf.convert_to_tensor(tf.IndexedSlices(vals, idx, tf.constant([10 ** 5, 10 ** 4])))
        assert "with 1000000000 elements" in str(rec[0].message)


def _np_lookup(params, rows, weights, combiner):
    out = []
    for ids, ws in zip(rows, weights):
        if not ids:
            out.append(np.zeros(params.shape[1]))
            continue
        total = sum(w * params[i] for i, w in zip(ids, ws))
        scale = {"sum": 1.0, "mean": sum(ws), "sqrtn": np.sqrt(sum(w * w for w in ws))}[combiner]
        out.append(total / scale)
    return np.array(out)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_lookup_sparse_matches_numpy(combiner, weighted):
    params = np.arange(10.0).reshape(5, 2)
    rows, weights = [[1, 3], [4], [0, 0, 2]], [[2.0, 1.0], [0.5], [1.0, 2.0, 3.0]]
    ind = [[r, k] for r, ids in enumerate(rows) for k in range(len(ids))]
    with tf.Graph().as_default():
        p = tf.Variable(params)
        sp_ids = tf.SparseTensor(ind, np.array([i for ids in rows for i in ids], np.int64), [3, 3])
        sp_w = tf.SparseTensor(ind, [w for ws in weights for w in ws], [3, 3]) if weighted else None
        out = tf.nn.embedding_lookup_sparse(p, sp_ids, sp_w, combiner=combiner)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = tf.gradients(tf.reduce_sum(out), p)[0]
        assert isinstance(g, tf.IndexedSlices)
        with tf.Session() as sess:
            sess.run(p.initializer)
            got, grad = sess.run([out, tf.convert_to_tensor(g)])
    ws = weights if weighted else [[1.0] * len(ids) for ids in rows]
    np.testing.assert_allclose(got, _np_lookup(params, rows, ws, combiner))
    # d sum(out) / d params[i] = sum over occurrences of weight / scale, in both columns
    exp = np.zeros(5)
    for ids, w in zip(rows, ws):
        scale = {"sum": 1.0, "mean": sum(w), "sqrtn": np.sqrt(sum(x * x for x in w))}[combiner]
        for i, x in zip(ids, w):
            exp[i] += x / scale
    np.testing.assert_allclose(grad, np.stack([exp, exp], 1))


def test_safe_embedding_lookup_sparse_prunes_and_fills_rows():
    params = np.arange(10.0).reshape(5, 2)
    with tf.Graph().as_default():
        ids = tf.SparseTensor([[0, 0, 0], [1, 1, 0], [1, 1, 1]], np.array([1, -1, 4], np.int64), [2, 2, 2])
        out = tf.nn.safe_embedding_lookup_sparse(tf.constant(params), ids)
        with_default = tf.nn.safe_embedding_lookup_sparse(tf.constant(params), ids, default_id=2)
        assert out.shape.as_list()[-1] == 2 and out.shape.ndims == 3
        with tf.Session() as sess:
            a, b = sess.run([out, with_default])
    np.testing.assert_array_equal(a, [[[2, 3], [0, 0]], [[0, 0], [8, 9]]])
    np.testing.assert_array_equal(b, [[[2, 3], [4, 5]], [[4, 5], [8, 9]]])


def test_scatter_names_and_errors():
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 2)))
        with pytest.raises(ValueError, match="incompatible"):
            tf.scatter_add(v, [0, 1], np.ones((3, 2)))
        bad = tf.scatter_update(v, [5], np.ones((1, 2)))
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 3\)"):
                sess.run(bad)
            sess.run(tf.scatter_nd_add(v, [[2, 1]], [7.0]))
            assert sess.run(v)[2, 1] == 7.0


def test_clipping_keeps_indexed_slices_and_their_norm():
    with tf.Graph().as_default():
        p = tf.Variable(np.ones((4, 2)))
        q = tf.Variable(np.ones(2))
        grads = tf.gradients(tf.reduce_sum(tf.gather(p, [1, 2]) * 3.0) + tf.reduce_sum(q * 4.0), [p, q])
        clipped, norm = tf.clip_by_global_norm(grads, 1.0)
        assert isinstance(clipped[0], tf.IndexedSlices) and isinstance(clipped[1], tf.Tensor)
        by_norm = tf.clip_by_norm(grads[0], 1.0)
        assert isinstance(by_norm, tf.IndexedSlices)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert np.isclose(sess.run(norm), np.sqrt(4 * 9 + 2 * 16))
            dense = sess.run(tf.convert_to_tensor(clipped[0]))
            np.testing.assert_allclose(dense[1:3], 3.0 / np.sqrt(68.0))
            np.testing.assert_allclose(sess.run(by_norm.values), 0.5)
