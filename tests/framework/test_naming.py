"""TF1 naming: ops, scopes, re-entered scopes, variables, gradients, summaries."""
import pytest

import lens as tf


def test_ops_are_uniquified_like_tf1():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    assert (a.name, b.name) == ("Const:0", "Const_1:0")
    c = a + b
    d = a + b
    assert (c.op.name, d.op.name) == ("add", "add_1")
    assert c.op.type == "AddV2"
    e = tf.add(a, 1.0)
    # TF1 keys used names case-insensitively: 'Add' after 'add', 'add_1' becomes 'Add_2'.
    assert e.op.name == "Add_2" and e.op.inputs[1].op.name == "Add_2/y"
    f = a * 2
    assert f.op.inputs[1].name == "mul/y:0"


def test_name_scopes_nest_reenter_and_reset():
    with tf.name_scope("layer1"):
        x = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
        with tf.name_scope("inner"):
            y = tf.identity(x)
    with tf.name_scope("layer1"):
        z = tf.identity(x)
    with tf.name_scope("layer1/"):
        w = tf.identity(x, name="abs")
    with tf.name_scope("a"):
        with tf.name_scope(None):
            top = tf.constant(0, name="top")
    assert x.op.name == "layer1/MatMul"
    assert y.op.name == "layer1/inner/Identity"
    assert z.op.name == "layer1_1/Identity"
    assert w.op.name == "layer1/abs"
    assert top.op.name == "top"


def test_variable_structure_and_names():
    v = tf.Variable(tf.zeros([3]), name="v")
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert {"v", "v/read", "v/Assign", "v/initial_value"} <= set(names) or "zeros" in names
    assert v.name == "v:0" and v.dtype == tf.float32_ref if hasattr(tf, "float32_ref") else True
    assert v.value().name == "v/read:0"
    assert v.initializer.name == "v/Assign"
    v2 = tf.Variable(1.0, name="v")
    assert v2.name == "v_1:0"
    assert v2.initial_value.name == "v_1/initial_value:0"


def test_variable_scope_reuse_and_errors():
    with tf.variable_scope("foo"):
        w = tf.get_variable("w", [3, 3])
    assert w.name == "foo/w:0"
    with tf.variable_scope("foo", reuse=True):
        assert tf.get_variable("w") is w
    with tf.variable_scope("foo") as scope:
        scope.reuse_variables()
        assert tf.get_variable("w") is w
    with tf.variable_scope("foo", reuse=tf.AUTO_REUSE):
        assert tf.get_variable("w", [3, 3]) is w
        assert tf.get_variable("new", [1]).name == "foo/new:0"
    with pytest.raises(ValueError, match="already exists, disallowed"):
        with tf.variable_scope("foo"):
            tf.get_variable("w", [3, 3])
    with pytest.raises(ValueError, match="does not exist"):
        with tf.variable_scope("bar", reuse=True):
            tf.get_variable("missing", [1])
    with tf.name_scope("ns"):
        u = tf.get_variable("u", [1])
    assert u.name == "u:0"


def test_reentered_variable_scope_names_ops_with_suffix():
    with tf.variable_scope("s"):
        a = tf.get_variable("a", [1])
        x = a * 2
    with tf.variable_scope("s", reuse=True):
        b = tf.get_variable("a", [1])
        y = b * 2
    assert a is b
    assert x.op.name == "s/mul" and y.op.name == "s_1/mul"


def test_gradient_names_follow_tf1():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.name_scope("layer1"):
        y = tf.reduce_sum(x * 3.0)
    g = tf.gradients(y, x)[0]
    assert g.name.startswith("gradients/layer1/mul_grad/")
    g2 = tf.gradients(y, x)[0]
    assert g2.name.startswith("gradients_1/")
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "gradients/Shape" in names and "gradients/grad_ys_0" in names and "gradients/Fill" in names


def test_minimize_names():
    v = tf.Variable(0.0, name="x")
    step = tf.Variable(0, name="global_step", trainable=False)
    train = tf.train.GradientDescentOptimizer(0.1).minimize((v - 3.0) ** 2, global_step=step)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "GradientDescent/update_x/ApplyGradientDescent" in names
    assert "GradientDescent/learning_rate" in names
    # With a global step TF1 returns the AssignAdd's (ref) tensor, named like the optimizer.
    assert train.op.name == "GradientDescent" and train.op.type == "AssignAdd"
    assert "GradientDescent/update" in names


def test_summary_tags_follow_scope():
    x = tf.constant(1.0)
    with tf.name_scope("train"):
        s1 = tf.summary.scalar("loss", x)
        s2 = tf.summary.scalar("loss", x)
    s3 = tf.summary.scalar("acc", x, family="eval")
    with tf.Session() as sess:
        tags = [tf.Summary.FromString(sess.run(s)).value[0].tag for s in (s1, s2, s3)]
    assert tags == ["train/loss", "train/loss_1", "eval/eval/acc"]


def test_fan_out_gradients_are_summed_with_addn():
    x = tf.placeholder(tf.float32, [2], name="x")
    g = tf.gradients(tf.reduce_sum(x * x), x)[0]
    assert g.op.type == "AddN" and g.op.name == "gradients/AddN"
    with tf.Session() as sess:
        assert sess.run(g, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
