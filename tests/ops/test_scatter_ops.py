"""confusion_matrix, scatter/sparse-to-dense errors and names, as TF1 gives them."""
import numpy as np
import pytest

import lens as tf


def test_confusion_matrix_counts_and_weights():
    with tf.Graph().as_default():
        counts = tf.confusion_matrix([0, 1, 2, 1], [0, 2, 2, 1])
        weighted = tf.math.confusion_matrix([0, 1, 2, 1], [0, 2, 2, 1], weights=[1.0, 2.0, 3.0, 4.0])
        fixed = tf.confusion_matrix([0, 1], [1, 1], num_classes=4, dtype=tf.float32)
        assert counts.op.name == "confusion_matrix/ScatterNd" and fixed.shape.as_list() == [4, 4]
        with tf.Session() as sess:
            c, w, f = sess.run([counts, weighted, fixed])
    assert c.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    assert w.tolist() == [[1, 0, 0], [0, 4, 2], [0, 0, 3]] and w.dtype == np.int32
    assert f[0, 1] == 1.0 and f[1, 1] == 1.0 and f.sum() == 2.0


@pytest.mark.parametrize("build, message", [
    (lambda: tf.scatter_nd([[7]], [1.0], [5]), "indices[0] = [7] does not index into shape [5]"),
    (lambda: tf.gather_nd(tf.zeros([5]), [[7]]), "indices[0] = [7] does not index into param shape [5]"),
    (lambda: tf.sparse_to_dense([[5, 1]], [2, 3], [4.0]),
     r"indices\[0\] = \[5,1\] is out of bounds: need 0 <= index < \[2,3\]"),
    (lambda: tf.unravel_index([20], [3, 4]), "index is out of bound as with dims")])
def test_out_of_range_indices_say_what_tf_says(build, message):
    with tf.Graph().as_default():
        t = build()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")
                               if "\\" not in message else message):
                sess.run(t)


def test_sparse_to_dense_gradients_reach_values_and_default():
    with tf.Graph().as_default():
        v = tf.constant([4.0, 5.0])
        d = tf.constant(-1.0)
        dense = tf.sparse_to_dense([[0, 1], [1, 2]], [2, 3], v, d)
        gv, gd = tf.gradients(tf.reduce_sum(dense * tf.reshape(tf.range(6.0), [2, 3])), [v, d])
        with tf.Session() as sess:
            got_v, got_d = sess.run([gv, gd])
    assert got_v.tolist() == [1.0, 5.0] and got_d == 0 + 2 + 3 + 4  # the positions left default


def test_histogram_fixed_width_is_one_op_named_as_tf():
    with tf.Graph().as_default():
        h = tf.histogram_fixed_width([-3.0, 0.0, 1.5, 2.0, 9.0], [-2.0, 4.0], nbins=4)
        assert (h.op.type, h.op.name, h.shape.as_list()) == ("HistogramFixedWidth",
                                                               "histogram_fixed_width", [4])
        with tf.Session() as sess:
            assert sess.run(h).tolist() == [1, 1, 2, 1]
