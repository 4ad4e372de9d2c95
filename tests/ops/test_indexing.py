"""tensor[...] (StridedSlice), gather, split, one_hot and friends: NumPy semantics, TF1 names, errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lens as tf
from lens.ops import indexing as X

SHAPE = (3, 4, 5)
_idx = st.one_of(st.integers(-6, 6), st.none())
_slices = st.builds(slice, _idx, _idx, st.one_of(st.none(), st.sampled_from([1, 2, -1, -2, 3])))
_entry = st.one_of(st.integers(-3, 2), _slices, st.just(None), st.just(Ellipsis))


@settings(max_examples=60, deadline=None)
@given(st.lists(_entry, min_size=1, max_size=4))
def test_getitem_matches_numpy_values_static_shape_and_gradient(key):
    key = tuple(key)
    x_np = np.arange(60, dtype=np.float64).reshape(SHAPE)
    if sum(k is Ellipsis for k in key) > 1 or sum(k is not None and k is not Ellipsis for k in key) > 3:
        return  # numpy rejects these too
    expected = x_np[key]
    with tf.Graph().as_default():
        x = tf.constant(x_np)
        y = x[key]
        assert y.op.type == "StridedSlice" and y.op.name == "strided_slice"
        assert y.shape.as_list() == list(expected.shape)
        g = tf.gradients(tf.reduce_sum(y * 2.0), x)[0]
        with tf.Session() as sess:
            got, grad = sess.run([y, g])
    np.testing.assert_array_equal(got, expected)
    want = np.zeros(SHAPE)
    np.add.at(want, key, 2.0) if expected.size else None
    np.testing.assert_array_equal(grad, want)


def test_tensor_indices_and_names_follow_tf1():
    x = tf.constant(np.arange(12.0).reshape(3, 4))
    i = tf.placeholder(tf.int32, [])
    y = x[i, 1:]
    names = [o.name for o in tf.get_default_graph().get_operations()]
    assert "strided_slice/stack" in names and y.op.name == "strided_slice"
    assert y.shape.as_list() == [3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {i: 2}), [9.0, 10.0, 11.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 7 of dimension 0 out of bounds"):
            sess.run(y, {i: 7})


def test_bad_indices_raise_clear_errors():
    x = tf.constant(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[1.5]
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[[0, 1]]
    with pytest.raises(ValueError, match="out of bounds"):
        x[5]
    with pytest.raises(ValueError, match="Index out of range using input dim 2"):
        x[0, 0, 0]
    with pytest.raises(ValueError, match="Multiple ellipses"):
        x[..., ...]


def test_gather_out_of_range_names_the_index():
    p = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    i = tf.placeholder(tf.int32, [3])
    y = tf.gather(p, i)
    assert y.op.type == "GatherV2" and y.shape.as_list() == [3, 2]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 2\)"):
            sess.run(y, {i: [0, 5, 1]})
    with pytest.raises(TypeError, match="int32, int64"):
        tf.gather(p, tf.constant([0.0]))


def test_gather_gradient_accumulates_repeated_indices():
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    g = tf.gradients(tf.reduce_sum(tf.gather(p, [2, 0, 2])), p)[0]
    assert isinstance(g, tf.IndexedSlices)            # as TF1: the rows and their gradients
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(g)), [[1, 1], [0, 0], [2, 2]])


def test_split_matches_tf1_graph_and_errors():
    g = tf.Graph()
    with g.as_default():
        a, b = tf.split(tf.zeros([4, 6]), 2, axis=1)
        assert a.op.type == "Split" and a.op.name == "split" and a.shape.as_list() == [4, 3]
        assert "Const" in [o.name for o in g.get_operations()]   # TF1 leaves this top-level const
        parts = tf.split(tf.zeros([7]), [2, -1, 1])
        assert [p.shape.as_list() for p in parts] == [[2], [4], [1]]
        with pytest.raises(ValueError, match="evenly divisible by 4"):
            tf.split(tf.zeros([6]), 4)
        with pytest.raises(ValueError, match="Cannot infer num"):
            tf.split(tf.zeros([6]), tf.placeholder(tf.int32, [None]))


def test_one_hot_names_dtype_and_shape():
    y = tf.one_hot([0, 2], 3, on_value=5, off_value=-1)
    assert y.op.name == "one_hot" and y.dtype == tf.int32 and y.shape.as_list() == [2, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), [[5, -1, -1], [-1, -1, 5]])


def test_boolean_mask_sequence_mask_clip_reverse():
    x = tf.constant(np.arange(6.0).reshape(3, 2))
    m = tf.boolean_mask(x, [True, False, True])
    s = tf.sequence_mask([1, 3], 4, dtype=tf.float32)
    c = tf.clip_by_value(x, 1.0, 4.0)
    r = tf.reverse(x, [0])
    assert c.op.name == "clip_by_value" and c.op.type == "Maximum"
    with tf.Session() as sess:
        mv, sv, cv, rv = sess.run([m, s, c, r])
    np.testing.assert_array_equal(mv, [[0, 1], [4, 5]])
    np.testing.assert_array_equal(sv, [[1, 0, 0, 0], [1, 1, 1, 0]])
    np.testing.assert_array_equal(cv, np.clip(np.arange(6.0).reshape(3, 2), 1, 4))
    np.testing.assert_array_equal(rv, np.arange(6.0).reshape(3, 2)[::-1])
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask(x, True)


def test_scatter_nd_and_gather_nd_round_trip():
    idx = tf.constant([[0, 1], [2, 0]])
    upd = tf.constant([5.0, 7.0])
    s = X.scatter_nd(idx, upd, [3, 2])
    back = tf.gather_nd(s, idx)
    with tf.Session() as sess:
        sv, bv = sess.run([s, back])
    np.testing.assert_array_equal(sv, [[0, 5], [0, 0], [7, 0]])
    np.testing.assert_array_equal(bv, [5.0, 7.0])
