"""Session semantics: fetch structures, feeds, errors, pruning, two sessions, default session."""
import collections

import numpy as np
import pytest

import lens as tf


def test_fetch_structures():
    a = tf.constant(1.0)
    b = tf.constant([1, 2])
    P = collections.namedtuple("P", "x y")
    with tf.Session() as sess:
        out = sess.run({"a": a, "pair": (a, [b, "Const:0"]), "nt": P(a, b), "op": a.op})
        assert out["a"] == 1.0 and out["op"] is None
        assert isinstance(out["pair"], tuple) and isinstance(out["pair"][1], list)
        assert out["pair"][1][1] == 1.0
        assert isinstance(out["nt"], P) and list(out["nt"].y) == [1, 2]
        assert sess.run("Const_1:0").tolist() == [1, 2]


def test_feeds_by_tensor_and_name_and_any_tensor():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = x * 2
    z = y + 1
    with tf.Session() as sess:
        assert sess.run(z, {x: [[1, 2]]}).tolist() == [[3, 5]]
        assert sess.run(z, {"x:0": [[1, 2]]}).tolist() == [[3, 5]]
        assert sess.run(z, {y: [[10, 10]]}).tolist() == [[11, 11]]


def test_feed_errors_name_the_placeholder():
    x = tf.placeholder(tf.float32, [None, 2], name="inp")
    y = x + 1
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=r"shape \(3,\).*'inp:0'.*\(\?, 2\)"):
            sess.run(y, {x: [1, 2, 3]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'inp'"):
            sess.run(y)
        with pytest.raises(ValueError, match="inp:0"):
            sess.run(y, {x: [["a", "b"]]})


def test_uninitialized_variable_names_it():
    v = tf.Variable(1.0, name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights"):
            sess.run(v + 1)


def test_kernel_failure_names_op_and_shapes_and_creation_site():
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    c = tf.matmul(a, b, name="mm")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(c, {a: np.ones((2, 3)), b: np.ones((2, 3))})
    msg = str(info.value)
    assert "[[node mm" in msg and "In[0]: [2,3], In[1]: [2,3]" in msg and "test_session.py" in msg
    assert info.value.op is c.op


def test_only_needed_ops_run():
    calls = []
    x = tf.constant(1.0)
    side = tf.py_func(lambda v: calls.append(v) or v, [x], tf.float32)
    y = x + 1
    with tf.Session() as sess:
        sess.run(y)
        assert calls == []
        sess.run(side)
        assert len(calls) == 1


def test_two_sessions_hold_their_own_variables():
    v = tf.Variable(1.0)
    inc = v.assign_add(1.0)
    s1, s2 = tf.Session(), tf.Session()
    s1.run(v.initializer)
    s2.run(v.initializer)
    s1.run(inc)
    s1.run(inc)
    assert s1.run(v) == 3.0 and s2.run(v) == 1.0
    s1.close()
    with pytest.raises(RuntimeError, match="closed"):
        s1.run(v)


def test_default_session_and_interactive_session():
    c = tf.constant(5.0)
    with pytest.raises(ValueError, match="No default session"):
        c.eval()
    sess = tf.Session()
    with sess.as_default():
        assert c.eval() == 5.0
        assert tf.get_default_session() is sess
    isess = tf.InteractiveSession()
    assert (c * 2).eval() == 10.0
    isess.close()


def test_fetched_arrays_are_private_copies():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(v)
        got[0] = 100.0
        assert sess.run(v).tolist() == [1.0, 2.0]


def test_control_dependencies_and_read_value():
    v = tf.Variable(0.0)
    assign = v.assign(5.0)
    with tf.control_dependencies([assign]):
        r = v.read_value()
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r) == 5.0


def test_plans_are_cached_per_signature():
    x = tf.placeholder(tf.float32)
    y = x + 1
    with tf.Session() as sess:
        sess.run(y, {x: 1.0})
        n = len(sess._runs)
        for i in range(5):
            sess.run(y, {x: float(i)})
        assert len(sess._runs) == n
        sess.run([y], {x: 1.0})
        assert len(sess._runs) == n + 1


def test_graph_def_round_trip_import():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.multiply(x, 3.0, name="y")
    gd = tf.get_default_graph().as_graph_def()
    assert isinstance(gd, tf.GraphDef)
    node = {n.name: n for n in gd.node}["y"]
    assert node.op == "Mul" and list(node.input) == ["x", "y/y"]
    assert node.attr["T"].type == tf.float32.as_datatype_enum
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="imp")
        x2 = g2.get_tensor_by_name("imp/x:0")
        y2 = g2.get_tensor_by_name("imp/y:0")
        with tf.Session(graph=g2) as sess:
            assert sess.run(y2, {x2: [1, 2]}).tolist() == [3, 6]


def test_tensor_operators():
    a = tf.constant([1.0, -2.0, 3.0])
    with tf.Session() as sess:
        out = sess.run([a + 1, 1 - a, -a, abs(a), a ** 2, a / 2, 7 // tf.constant(2), a < 0, a >= 1])
    assert out[0].tolist() == [2, -1, 4] and out[1].tolist() == [0, 3, -2]
    assert out[3].tolist() == [1, 2, 3] and out[6] == 3
    assert out[7].tolist() == [False, True, False]
