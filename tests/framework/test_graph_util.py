"""tf.graph_util: freezing, sub-graph extraction and training-node removal give TF1's GraphDefs
(the expected node lists were read off TF 2.21's compat.v1 for the same program)."""
import numpy as np
import pytest

import lens as tf


def _model():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(3, 2))
        b = tf.get_variable("b", initializer=np.ones(2, np.float32))
    h = tf.matmul(x, w) + b
    check = tf.check_numerics(h, "bad")
    z = tf.identity(h, name="z")
    with tf.control_dependencies([check]):
        y = tf.identity(z, name="y")
    tf.get_variable("unused", [4])
    return x, w, y


def test_frozen_graph_holds_the_values_and_runs_without_variables():
    x, w, y = _model()
    feed = np.array([[1.0, -2.0, 0.5]], np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(w.assign(w * 3.0))  # the frozen value is the session's current one
        expected = s.run(y, {x: feed})
        frozen = tf.graph_util.convert_variables_to_constants(s, tf.get_default_graph().as_graph_def(), ["y"])
    ops = sorted((n.name, n.op) for n in frozen.node)
    assert ops == [("CheckNumerics", "CheckNumerics"), ("MatMul", "MatMul"), ("add", "AddV2"),
                   ("layer/b", "Const"), ("layer/b/read", "Identity"), ("layer/w", "Const"),
                   ("layer/w/read", "Identity"), ("x", "Placeholder"), ("y", "Identity"), ("z", "Identity")]
    g = tf.Graph()
    with g.as_default():
        out, = tf.import_graph_def(frozen, return_elements=["y:0"], name="")
        with tf.Session(graph=g) as s:
            np.testing.assert_allclose(s.run(out, {"x:0": feed}), expected)
    w_node = next(n for n in frozen.node if n.name == "layer/w")
    np.testing.assert_array_equal(tf.make_ndarray(w_node.attr["value"].tensor),
                                  np.arange(6, dtype=np.float32).reshape(3, 2) * 3.0)


def test_whitelist_and_blacklist_choose_what_freezes():
    _model()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        gd = tf.get_default_graph().as_graph_def()
        only_w = tf.graph_util.convert_variables_to_constants(s, gd, ["y"], variable_names_whitelist=["layer/w"])
        not_w = tf.graph_util.convert_variables_to_constants(s, gd, ["y"], variable_names_blacklist=["layer/w"])
    kinds = lambda g: {n.name: n.op for n in g.node if n.name in ("layer/w", "layer/b")}  # noqa: E731
    assert kinds(only_w) == {"layer/w": "Const", "layer/b": "VariableV2"}
    assert kinds(not_w) == {"layer/w": "VariableV2", "layer/b": "Const"}


def test_remove_training_nodes_splices_identities_and_drops_check_numerics():
    _model()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(s, tf.get_default_graph().as_graph_def(), ["y"])
    slim = tf.graph_util.remove_training_nodes(frozen, protected_nodes=["y"])
    assert sorted((n.name, n.op, tuple(n.input)) for n in slim.node) == [
        ("MatMul", "MatMul", ("x", "layer/w")), ("add", "AddV2", ("MatMul", "layer/b")),
        ("layer/b", "Const", ()), ("layer/w", "Const", ()), ("x", "Placeholder", ()),
        ("y", "Identity", ("add",))]


def test_extract_sub_graph_keeps_what_the_destinations_need_and_names_bad_input():
    _model()
    gd = tf.get_default_graph().as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["layer/b/read"])
    assert [n.name for n in sub.node] == ["layer/b", "layer/b/read"]
    with pytest.raises(TypeError, match="dest_nodes must be a list"):
        tf.graph_util.extract_sub_graph(gd, "y")
    with pytest.raises(AssertionError, match="nope is not in graph"):
        tf.graph_util.extract_sub_graph(gd, ["nope"])
