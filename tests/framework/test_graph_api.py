"""Graph API: gradient registration and overrides, devices, colocation, collections, finalize."""
import pytest

import lens as tf


def test_register_gradient_and_override_map():
    @tf.RegisterGradient("TimesTenGrad_test")
    def _times_ten(op, grad):
        return [grad * 10.0]

    x = tf.constant(2.0)
    g = tf.get_default_graph()
    with g.gradient_override_map({"Identity": "TimesTenGrad_test"}):
        y = tf.identity(x)
    z = tf.identity(x)
    gy, gz = tf.gradients(y, x)[0], tf.gradients(z, x)[0]
    with tf.Session() as sess:
        assert sess.run([gy, gz]) == [10.0, 1.0]
    with pytest.raises(KeyError, match="Registering two gradient"):
        tf.RegisterGradient("TimesTenGrad_test")(_times_ten)


def test_missing_gradient_names_op_and_not_differentiable():
    tf.NotDifferentiable("NoGradOpForTest")
    x = tf.constant([1.0, 2.0])
    idx = tf.argmax(x)
    assert tf.gradients(tf.cast(idx, tf.float32), x) == [None]


def test_unconnected_gradients_are_none():
    x = tf.constant(1.0)
    y = tf.constant(2.0) * 3.0
    assert tf.gradients(y, x) == [None]


def test_device_strings_and_functions_are_recorded():
    with tf.device("/cpu:0"):
        a = tf.constant(1.0)
        with tf.device(lambda op: "/device:CPU:1" if op.type == "Mul" else ""):
            b = a * 2.0
    c = tf.constant(3.0)
    assert "CPU" in a.op.device.upper() and "1" in b.op.device and c.op.device == ""


def test_colocate_with_records_class_attr():
    v = tf.Variable(1.0, name="v")
    with tf.colocate_with(v.op):
        c = tf.identity(v, name="c")
    assert c.op.get_attr("_class") == [b"loc:@v"]
    nd = [n for n in tf.get_default_graph().as_graph_def().node if n.name == "c"][0]
    assert list(nd.attr["_class"].list.s) == [b"loc:@v"]


def test_collections_and_graph_keys():
    tf.add_to_collection("mine", 1)
    tf.add_to_collections(["a", "b"], 2)
    ref = tf.get_collection_ref("mine")
    ref.append(3)
    assert tf.get_collection("mine") == [1, 3] and tf.get_collection("b") == [2]
    assert tf.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"


def test_finalize_blocks_new_ops():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0)
        g.finalize()
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(2.0)


def test_get_by_name_errors():
    tf.constant(1.0, name="c")
    g = tf.get_default_graph()
    assert g.get_tensor_by_name("c:0").op is g.get_operation_by_name("c")
    with pytest.raises(KeyError, match="does not exist"):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(ValueError, match="refers to an Operation"):
        g.get_tensor_by_name("c")
    with pytest.raises(KeyError, match="outputs"):
        g.get_tensor_by_name("c:3")


def test_placeholder_with_default_and_partial_shapes():
    p = tf.placeholder_with_default([1.0, 2.0], shape=[None])
    x = tf.placeholder(tf.float32, [None, 3])
    assert x.shape.as_list() == [None, 3] and str(x.shape) == "(?, 3)"
    with tf.Session() as sess:
        assert sess.run(p).tolist() == [1.0, 2.0]
        assert sess.run(p, {p: [5.0]}).tolist() == [5.0]


def test_op_creation_traceback_points_here():
    c = tf.constant(1.0)
    assert c.op.traceback[-1][0].endswith("test_graph_api.py")
