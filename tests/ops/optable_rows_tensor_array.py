"""Op-table rows: TensorArray ops through tf.TensorArray programs (NumPy references, finite differences)."""
import numpy as np

import lens as tf
from lens.ops.tensor_array import TensorArray
from optable_lib import F, Row, custom


def _unstack_stack(x):
    return TensorArray(x.dtype, size=3).unstack(x).stack()


def _write_read(x):
    ta = TensorArray(x.dtype, size=2).write(0, x[1] * 2.0).write(1, x[0])
    return [ta.read(0), ta.read(1), ta.size()]


def _gather(x):
    return TensorArray(x.dtype, size=3, clear_after_read=False).unstack(x).gather([2, 0, 2])


def _split_concat(x):
    ta = TensorArray(x.dtype, size=3, clear_after_read=False, infer_shape=False).split(x, [1, 3, 2])
    return [ta.concat(), ta.read(1)]


def _flow_ops_check():
    """Gradients of reads, gathers, writes, splits and concats build the flow ops and match NumPy."""
    rng = np.random.default_rng(0)
    x0 = rng.uniform(-1, 1, (4, 2))
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [4, 2])
        ta = TensorArray(tf.float64, size=4, clear_after_read=False).unstack(x)
        parts = TensorArray(tf.float64, size=2, clear_after_read=False, infer_shape=False).split(
            tf.reshape(x, [8]), [3, 5])
        loss = (tf.reduce_sum(ta.read(1) * 3.0) + tf.reduce_sum(ta.gather([0, 0, 3]) ** 2)
                + tf.reduce_sum(parts.concat() * tf.range(8.0, dtype=tf.float64)) + tf.reduce_sum(parts.read(1)))
        grad = tf.gradients(loss, x)[0]
        types = {o.type for o in g.get_operations()}
        for t in ("TensorArrayFlowGather", "TensorArrayFlowScatter", "TensorArrayFlowConcat", "TensorArrayFlowSplit"):
            assert t in types, t
        with tf.Session() as sess:
            got = sess.run(grad, {x: x0})
    exp = np.zeros((4, 2))
    exp[1] += 3.0
    exp[0] += 2 * 2 * x0[0]
    exp[3] += 2 * x0[3]
    exp += np.arange(8.0).reshape(4, 2)
    exp.reshape(8)[3:] += 1.0
    np.testing.assert_allclose(got, exp, rtol=1e-12)


def _flow_second_order_check():
    """The flow ops' own gradients: d/dx of a gradient that went through flows."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        ta = TensorArray(tf.float64, size=3).unstack(x)
        y = tf.reduce_sum(ta.stack() ** 3)
        g1 = tf.gradients(y, x)[0]
        g2 = tf.gradients(tf.reduce_sum(g1), x)[0]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(g2, {x: [1.0, -2.0, 0.5]}), 6 * np.array([1.0, -2.0, 0.5]))


def _close_check():
    with tf.Graph().as_default():
        ta = TensorArray(tf.float32, size=1)
        close = ta.close()
        assert close.type == "TensorArrayCloseV3"
        with tf.Session() as sess:
            sess.run(close)


ROWS = [
    Row("TensorArrayScatterV3", _unstack_stack, lambda x: x, [[F(3, 2)]]),
    Row("TensorArrayGatherV3", _gather, lambda x: x[[2, 0, 2]], [[F(3, 2)]]),
    Row("TensorArrayV3", _unstack_stack, lambda x: x, [[F(3)]], label="TensorArrayV3"),
    Row("TensorArrayWriteV3", _write_read, lambda x: [x[1] * 2.0, x[0], np.int32(2)], [[F(2, 3)]]),
    Row("TensorArrayReadV3", _write_read, lambda x: [x[1] * 2.0, x[0], np.int32(2)], [[F(2, 3)]],
        label="TensorArrayReadV3"),
    Row("TensorArraySizeV3", _write_read, lambda x: [x[1] * 2.0, x[0], np.int32(2)], [[F(2, 3)]],
        label="TensorArraySizeV3"),
    Row("TensorArraySplitV3", _split_concat, lambda x: [x, x[1:4]], [[F(6, 2)]]),
    Row("TensorArrayConcatV3", _split_concat, lambda x: [x, x[1:4]], [[F(6)]], label="TensorArrayConcatV3"),
    custom("TensorArrayCloseV3", _close_check),
] + [custom(t, _flow_ops_check, label=t) for t in ("TensorArrayFlowGather", "TensorArrayFlowScatter",
                                                     "TensorArrayFlowConcat", "TensorArrayFlowSplit")] + [
    custom("TensorArrayFlowGather", _flow_second_order_check, label="TensorArray second order")]
