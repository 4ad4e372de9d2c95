"""tf.data: sources, transformations, iterators and end of sequence, run in real sessions."""
import numpy as np
import pytest

import lens as tf
from lens import errors
from tests.ops.optable_lib import dataset_elements


def _drain(sess, nxt, limit=1000):
    """Run get_next until OutOfRangeError; the list of values (fails if it never ends)."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(nxt))
        except errors.OutOfRangeError:
            return out
    raise AssertionError("dataset did not end after %d elements" % limit)


def _all(ds):
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return _drain(sess, nxt)


def test_from_tensor_slices_tuple_gives_rows_then_out_of_range_forever():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([1, 0, 1, 1], dtype=np.int64)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    assert ds.output_types == (tf.float32, tf.int64)
    assert [s.as_list() for s in ds.output_shapes] == [[3], []]
    it = ds.make_one_shot_iterator()
    a, b = it.get_next()
    assert a.shape.as_list() == [3] and b.dtype == tf.int64 and a.op.type == "IteratorGetNext"
    with tf.Session() as sess:
        for i in range(4):
            va, vb = sess.run([a, b])
            assert va.dtype == np.float32 and np.array_equal(va, x[i]) and vb == y[i]
        for _ in range(2):
            with pytest.raises(errors.OutOfRangeError, match="End of sequence"):
                sess.run(a)


def test_from_tensor_slices_dict_and_mismatched_rows():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [[1.0], [2.0]]})
    assert ds.output_types == {"a": tf.int32, "b": tf.float32}
    got = _all(ds)
    assert [g["a"] for g in got] == [1, 2] and np.array_equal(got[1]["b"], [2.0])
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.data.Dataset.from_tensor_slices(3.0)


def test_from_tensors_range_take_skip_repeat_concatenate():
    assert [v.tolist() for v in _all(tf.data.Dataset.from_tensors([1, 2]))] == [[1, 2]]
    assert _all(tf.data.Dataset.range(4)) == [0, 1, 2, 3]
    assert _all(tf.data.Dataset.range(2, 8, 3)) == [2, 5]
    assert _all(tf.data.Dataset.range(5, 0, -2)) == [5, 3, 1]
    assert _all(tf.data.Dataset.range(10).skip(3).take(4)) == [3, 4, 5, 6]
    assert _all(tf.data.Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert _all(tf.data.Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert _all(tf.data.Dataset.range(0).repeat()) == []  # empty forever is still empty
    assert _all(tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(5, 7))) == [0, 1, 5, 6]
    assert _all(tf.data.Dataset.range(3).prefetch(2).cache()) == [0, 1, 2]
    assert tf.data.Dataset.range(3).output_types == tf.int64


def test_zip_nested_structure():
    a = tf.data.Dataset.range(3)
    b = tf.data.Dataset.from_tensor_slices(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    z = tf.data.Dataset.zip((a, {"v": b}))
    assert z.output_types == (tf.int64, {"v": tf.float32})
    got = _all(z)
    assert len(got) == 2 and got[1][0] == 1 and np.array_equal(got[1][1]["v"], [3.0, 4.0])
    with pytest.raises(TypeError, match="datasets"):
        tf.data.Dataset.zip((a, 3))


def test_map_with_lens_ops_tuple_and_dict():
    ds = tf.data.Dataset.from_tensor_slices((np.arange(4, dtype=np.float32), np.arange(4)))
    m = ds.map(lambda x, y: {"sq": x * x, "y2": tf.cast(y, tf.float32) + 0.5})
    assert m.output_types == {"sq": tf.float32, "y2": tf.float32}
    got = _all(m)
    assert [g["sq"] for g in got] == [0.0, 1.0, 4.0, 9.0]
    assert got[3]["y2"] == np.float32(3.5) and got[3]["sq"].dtype == np.float32
    # A dict element reaches the function as one argument.
    assert _all(m.map(lambda d: d["sq"] - d["y2"])) == [-0.5, -0.5, 1.5, 5.5]


def test_map_function_using_an_outer_tensor_names_the_problem():
    c = tf.constant(2.0)
    with pytest.raises(ValueError, match="outer graph"):
        tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) * c)


def test_filter_and_its_predicate_check():
    assert _all(tf.data.Dataset.range(10).filter(lambda x: tf.equal(x % 3, 0))) == [0, 3, 6, 9]
    with pytest.raises(ValueError, match="scalar boolean"):
        tf.data.Dataset.range(3).filter(lambda x: x + 1)


def test_batch_remainder_drop_and_shape_errors():
    ds = tf.data.Dataset.range(7)
    got = _all(ds.batch(3))
    assert [g.tolist() for g in got] == [[0, 1, 2], [3, 4, 5], [6]]
    assert ds.batch(3).output_shapes.as_list() == [None]
    dropped = ds.batch(3, drop_remainder=True)
    assert dropped.output_shapes.as_list() == [3]
    assert [g.tolist() for g in _all(dropped)] == [[0, 1, 2], [3, 4, 5]]
    ragged = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill(tf.expand_dims(tf.cast(n, tf.int32), 0), 1)).batch(2)
    with pytest.raises(errors.InvalidArgumentError, match="different shapes in component 0"):
        _all(ragged)


def test_padded_batch_like_the_tf_guide():
    ds = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill(tf.expand_dims(tf.cast(n, tf.int32), 0), n))
    pb = ds.padded_batch(2, padded_shapes=[None])
    assert pb.output_shapes.as_list() == [None, None]
    got = [g.tolist() for g in _all(pb)]
    assert got == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    fixed = ds.padded_batch(4, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64))
    assert fixed.output_shapes.as_list() == [None, 5]
    (only,) = _all(fixed)
    assert only[0].tolist() == [1, -1, -1, -1, -1] and only.shape == (4, 5)
    with pytest.raises(errors.InvalidArgumentError, match="smaller size"):
        _all(ds.padded_batch(4, padded_shapes=[3]))
    with pytest.raises(ValueError, match="ranks differ"):
        ds.padded_batch(2, padded_shapes=[None, None])


def test_shuffle_is_a_seeded_permutation_and_reshuffles_per_epoch():
    def epochs(reshuffle, seed=7):
        tf.reset_default_graph()
        ds = tf.data.Dataset.range(20).shuffle(20, seed=seed, reshuffle_each_iteration=reshuffle).repeat(3)
        got = _all(ds)
        return [got[i * 20:(i + 1) * 20] for i in range(3)]
    a = epochs(True)
    assert all(sorted(e) == list(range(20)) for e in a)
    assert a[0] != list(range(20)) and a[0] != a[1]
    assert epochs(True) == a  # same seed, new session: same orders
    b = epochs(False)
    assert b[0] == b[1] == b[2] and b[0] != list(range(20))
    assert epochs(True, seed=8) != a
    # A buffer of one cannot reorder anything.
    assert _all(tf.data.Dataset.range(6).shuffle(1, seed=3)) == list(range(6))


def test_graph_seed_makes_shuffle_reproducible():
    orders = []
    for _ in range(2):
        tf.reset_default_graph()
        tf.set_random_seed(42)
        orders.append(_all(tf.data.Dataset.range(10).shuffle(10)))
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(10))


def test_flat_map_and_interleave_like_the_tf_docs():
    ds = tf.data.Dataset.range(1, 4).flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
    assert _all(ds) == [1, 2, 2, 3, 3, 3]
    inter = tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert _all(inter) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4,
                           5, 5, 5, 5, 5, 5]


def test_initializable_iterator_with_fed_placeholder_and_reinit():
    x = tf.placeholder(tf.float32, [None, 2])
    ds = tf.data.Dataset.from_tensor_slices(x).map(lambda r: tf.reduce_sum(r))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    assert {o.type for o in tf.get_default_graph().get_operations()} >= {"IteratorV2", "MakeIterator"}
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="not been initialized"):
            sess.run(nxt)
        sess.run(it.initializer, {x: [[1, 2], [3, 4]]})
        assert _drain(sess, nxt) == [3.0, 7.0]
        sess.run(it.initializer, {x: [[10, 20]]})
        assert _drain(sess, nxt) == [30.0]
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        ds.make_one_shot_iterator()


def test_reinitializable_iterator_from_structure():
    train = tf.data.Dataset.range(5).map(lambda v: v * 10)
    val = tf.data.Dataset.range(2)
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    nxt = it.get_next()
    init_train, init_val = it.make_initializer(train), it.make_initializer(val)
    with tf.Session() as sess:
        sess.run(init_train)
        assert _drain(sess, nxt) == [0, 10, 20, 30, 40]
        sess.run(init_val)
        assert _drain(sess, nxt) == [0, 1]
    with pytest.raises(TypeError, match="Expected output types"):
        it.make_initializer(tf.data.Dataset.from_tensors(1.0))
    with pytest.raises(ValueError, match="does not have an initializer"):
        it.initializer  # noqa: B018


def test_feedable_iterator_switches_by_string_handle():
    a = tf.data.Dataset.range(100).make_one_shot_iterator()
    b = tf.data.Dataset.range(100, 200).make_initializable_iterator()
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
    nxt = it.get_next()
    with tf.Session() as sess:
        ha, hb = sess.run([a.string_handle(), b.string_handle()])
        sess.run(b.initializer)
        got = [sess.run(nxt, {handle: h}) for h in (ha, ha, hb, ha, hb)]
        assert got == [0, 1, 100, 2, 101]
        with pytest.raises(errors.FailedPreconditionError):
            sess.run(nxt, {handle: b"no-such-iterator"})


def test_each_session_has_its_own_iterator_state():
    nxt = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
    with tf.Session() as s1, tf.Session() as s2:
        assert [s1.run(nxt), s1.run(nxt), s2.run(nxt)] == [0, 1, 0]


def test_from_generator_converts_and_checks():
    def gen():
        for i in range(3):
            yield i, [float(i)] * i
    ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.float32), ([], [None]))
    got = _all(ds)
    assert got[2][0] == 2 and got[2][1].dtype == np.float32 and got[2][1].tolist() == [2.0, 2.0]
    bad = tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), tf.int32, [3])
    with pytest.raises(errors.InvalidArgumentError, match="shape"):
        _all(bad)


def test_graph_mode_iteration_and_graph_def_export():
    ds = tf.data.Dataset.range(3).map(lambda x: x + 1).batch(2)
    with pytest.raises(RuntimeError, match="eager"):
        iter(ds)
    ds.make_one_shot_iterator().get_next()
    gd = tf.get_default_graph().as_graph_def()
    types = [n.op for n in gd.node]
    assert {"RangeDataset", "MapDataset", "BatchDatasetV2", "OneShotIterator", "IteratorGetNext"} <= set(types)
    batch = next(n for n in gd.node if n.op == "BatchDatasetV2")
    assert list(batch.input) == ["MapDataset", "batch_size", "drop_remainder"]


def test_input_pipeline_trains_a_model_and_ends_after_the_last_epoch():
    rng = np.random.default_rng(0)
    n, epochs, bs = 200, 4, 32
    x = rng.normal(size=(n, 3)).astype(np.float32)
    true_w = np.array([[1.5], [-2.0], [0.5]], np.float32)
    y = (x @ true_w > 0).astype(np.float32)
    tf.set_random_seed(1)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(n, seed=3).batch(bs).repeat(epochs)
    xb, yb = ds.make_one_shot_iterator().get_next()
    assert xb.shape.as_list() == [None, 3] and yb.shape.as_list() == [None, 1]
    w = tf.Variable(tf.zeros([3, 1]))
    b = tf.Variable(0.0)
    logits = tf.matmul(xb, w) + b
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=yb, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    losses, steps = [], 0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        while True:
            try:
                losses.append(sess.run([loss, train])[0])
            except errors.OutOfRangeError:
                break
            steps += 1
        assert steps == epochs * -(-n // bs)  # every batch of every epoch, then the end
        full = sess.run(tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.matmul(x, w) + b > 0, tf.float32), y),
                                               tf.float32)))
    first, last = np.mean(losses[:3]), np.mean(losses[-3:])
    assert last < 0.6 * first, (first, last)
    assert full > 0.9


def test_batched_rows_fast_path_matches_element_by_element_batching():
    x = np.arange(30, dtype=np.float32).reshape(15, 2)
    names = np.array([b"n%d" % i for i in range(15)], dtype=object)

    def batches(through_map):
        tf.reset_default_graph()
        ds = tf.data.Dataset.from_tensor_slices({"x": x, "name": names}).shuffle(6, seed=5)
        if through_map:  # map hides the slices from Batch, forcing element-wise stacking
            ds = ds.map(lambda d: d)
        return _all(ds.batch(4))
    fast, slow = batches(False), batches(True)
    assert len(fast) == len(slow) == 4
    for f, s in zip(fast, slow):
        assert np.array_equal(f["x"], s["x"]) and f["x"].dtype == np.float32
        assert f["name"].tolist() == s["name"].tolist()
    assert sorted(np.concatenate([f["x"][:, 0] for f in fast]).tolist()) == x[:, 0].tolist()


def test_padded_batch_of_rows_filled_from_int64_elements():
    # Dataset.range yields int64; tf.fill takes int64 dims as TF's Fill does (index_type).
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(
        2, padded_shapes=[None])
    assert dataset_elements(ds)[1].tolist() == [[3, 3, 3, 0], [4, 4, 4, 4]]
    ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(
        2, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64))
    assert [b.tolist() for b in dataset_elements(ds)] == [[[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]],
                                                         [[3, 3, 3, -1, -1]]]
