"""SparseTensor / SparseTensorValue: construction checks, feeding, fetching, eval, the tf.sparse names."""
import numpy as np
import pytest

import lens as tf


def test_sparse_tensor_components_and_static_shape():
    with tf.Graph().as_default() as g:
        sp = tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4])
        assert sp.indices.dtype == tf.int64 and sp.dense_shape.dtype == tf.int64
        assert sp.dtype == tf.float32 and sp.graph is g and sp.op is sp.values.op
        assert sp.shape.as_list() == [3, 4] and sp.get_shape().as_list() == [3, 4]
        with pytest.raises(ValueError):
            tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0, 3.0], [3, 4])   # 2 indices, 3 values
        with pytest.raises(ValueError):
            tf.SparseTensor([[0, 1]], [1.0], [3, 4, 5])                  # rank 2 indices, rank 3 shape
        with pytest.raises(TypeError, match="not iterable"):
            list(sp)


def test_feed_and_fetch_sparse_values():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=[2, 3], name="sp")
        assert sp.values.name == "sp/values:0" and sp.indices.name == "sp/indices:0"
        total = tf.sparse_reduce_sum(sp)
        with tf.Session() as sess:
            value = tf.SparseTensorValue([[0, 0], [1, 2]], [1.5, 2.5], [2, 3])
            assert sess.run(total, {sp: value}) == 4.0
            assert sess.run(total, {sp: ([[0, 1]], [7.0], [2, 3])}) == 7.0
            got = sess.run(sp, {sp: value})
            assert isinstance(got, tf.SparseTensorValue)
            np.testing.assert_array_equal(got.indices, [[0, 0], [1, 2]])
            np.testing.assert_array_equal(got.dense_shape, [2, 3])
            dense = sess.run(tf.sparse.to_dense(sp), {sp: value})
            np.testing.assert_array_equal(dense, [[1.5, 0, 0], [0, 0, 2.5]])
            with pytest.raises(TypeError, match="SparseTensorValue"):
                sess.run(total, {sp: np.zeros([2, 3])})
            const = tf.SparseTensor.from_value(value)
            assert const.eval(session=sess).values.tolist() == [1.5, 2.5]


def test_sparse_ops_reject_dense_inputs_and_mismatched_shapes():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="SparseTensor"):
            tf.sparse.reorder(tf.constant([1.0]))
        with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
            tf.sparse.add(tf.constant([1.0]), tf.constant([2.0]))
        a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
        with pytest.raises(ValueError, match=r"Shapes \(2, 2\) and \(3, 2\) are incompatible"):
            tf.sparse.add(a, tf.SparseTensor([[0, 0]], [1.0], [3, 2]))
        b = tf.SparseTensor([[0, 0]], [1.0], tf.placeholder_with_default(np.array([3, 2], np.int64), [2]))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="shapes do not match"):
            sess.run(tf.sparse.add(a, b))
        bad = tf.SparseTensor([[5, 0]], [1.0], [2, 2])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
            sess.run(tf.sparse.reduce_sum(bad))


def test_parse_example_var_len_features_are_sparse_tensors():
    from lens.proto.example_pb2 import Example
    ex = Example()
    ex.features.feature["ids"].int64_list.value.extend([4, 5, 6])
    with tf.Graph().as_default():
        out = tf.parse_single_example(ex.SerializeToString(), {"ids": tf.VarLenFeature(tf.int64)})
        assert isinstance(out["ids"], tf.SparseTensor)
        with tf.Session() as sess:
            got = sess.run(out["ids"])
        assert isinstance(got, tf.SparseTensorValue) and got.values.tolist() == [4, 5, 6]


def test_namespaces_answer_to_tf1_names():
    for name in ("add", "to_dense", "reorder", "reshape", "reduce_sum", "reduce_max", "matmul", "concat",
                 "retain", "fill_empty_rows", "slice", "transpose", "split", "softmax", "maximum", "minimum",
                 "from_dense", "placeholder", "to_indicator", "sparse_dense_matmul"):
        assert callable(getattr(tf.sparse, name)), name
    for name in ("sparse_tensor_to_dense", "sparse_to_indicator", "sparse_reduce_sum", "sparse_concat",
                 "sparse_tensor_dense_matmul", "sparse_split", "sparse_placeholder", "sparse_maximum"):
        assert callable(getattr(tf, name)), name
    for name in ("set_size", "set_intersection", "set_union", "set_difference"):
        assert callable(getattr(tf.sets, name))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"):
        assert callable(getattr(tf.bitwise, name))
