"""count_nonzero, meshgrid and the space/depth ops' static shapes and errors, as TF1 gives them."""
import numpy as np
import pytest

import lens as tf


def test_space_depth_static_shapes_and_errors():
    x = tf.placeholder(tf.float32, [None, None, None, 3])
    assert tf.space_to_depth(x, 2).shape.as_list() == [None, None, None, 12]
    y = tf.depth_to_space(tf.placeholder(tf.float32, [None, 2, 2, 12]), 2)
    assert (y.op.type, y.shape.as_list()) == ("DepthToSpace", [None, 4, 4, 3])
    with pytest.raises(ValueError, match="evenly divisible by 4 but is 6"):
        tf.depth_to_space(tf.zeros([1, 2, 2, 6]), 2)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Image width 6 and height 5 should be divisible by block_size: 2"):
            sess.run(tf.space_to_depth(x, 2), {x: np.zeros((1, 5, 6, 3), np.float32)})


def test_count_nonzero_counts_as_int64_under_its_scope():
    c = tf.count_nonzero(tf.constant([[0.0, 1.0], [2.0, 0.0], [3.0, 4.0]]), axis=0)
    b = tf.count_nonzero(tf.constant([[True, False], [True, True]]), axis=1, keepdims=True)
    assert (c.op.name, c.dtype) == ("count_nonzero/Sum", tf.int64)
    with tf.Session() as sess:
        got_c, got_b = sess.run([c, b])
    assert got_c.tolist() == [2, 2] and got_b.tolist() == [[1], [2]]


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = [1, 2], [3, 4, 5], [6.0, 7.0]
    with tf.Graph().as_default():
        grids = tf.meshgrid(a, b, indexing=indexing)
        grids3 = tf.meshgrid(np.array(a, np.float32), np.array(b, np.float32), c, indexing=indexing)
        assert grids[0].op.name == "meshgrid/mul"
        with tf.Session() as sess:
            got, got3 = sess.run([grids, grids3])
    for g, w in zip(got + got3, np.meshgrid(a, b, indexing=indexing) + np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(g, w)
