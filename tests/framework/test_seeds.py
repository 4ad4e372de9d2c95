"""The seed notes' snippets with their printed outputs (../shared/seeds), reproduced exactly."""
import numpy as np

import lens as tf


def _printed(value):
    # The notes were printed with NumPy 1.x; legacy mode prints scalars the same way.
    with np.printoptions(legacy="1.25"):
        return str(value)


def test_gradients_with_grad_ys():
    with tf.variable_scope("seed"):
        w1 = tf.get_variable("w1", shape=[3])
        w2 = tf.get_variable("w2", shape=[3])
        w3 = tf.get_variable("w3", shape=[3])
        w4 = tf.get_variable("w4", shape=[3])
    z1 = w1 + w2 + w3
    z2 = w3 + w4
    grads = tf.gradients([z1, z2], [w1, w2, w3, w4],
                         grad_ys=[tf.convert_to_tensor([2., 2., 3.]), tf.convert_to_tensor([3., 2., 4.])])
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        assert _printed(sess.run(grads)) == ("[array([2., 2., 3.], dtype=float32), array([2., 2., 3.], "
                                             "dtype=float32), array([5., 4., 7.], dtype=float32), "
                                             "array([3., 2., 4.], dtype=float32)]")


def test_stop_gradients_argument_and_op():
    a = tf.constant(0.)
    b = 2 * a
    g = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    g2 = tf.gradients(a + b, [a, b])
    a3 = tf.stop_gradient(tf.constant(0.))
    b3 = tf.stop_gradient(2 * a3)
    g3 = tf.gradients(a3 + b3, [a3, b3])
    with tf.Session() as sess:
        assert _printed(sess.run(g)) == "[1.0, 1.0]"
        assert _printed(sess.run(g2)) == "[3.0, 1.0]"
        assert _printed(sess.run(g3)) == "[1.0, 1.0]"


def test_higher_order_derivatives():
    a = tf.constant(3.)
    b = tf.pow(a, 2)
    grad = tf.gradients(ys=b, xs=a)
    grad_2 = tf.gradients(ys=grad[0], xs=a)
    grad_3 = tf.gradients(ys=grad_2[0], xs=a)
    with tf.Session() as sess:
        assert [_printed(sess.run(x)) for x in (grad_3, grad_2, grad)] == ["[0.0]", "[2.0]", "[6.0]"]


def test_stop_gradient_blocks_the_only_path():
    w1 = tf.constant(2.0)
    w2 = tf.constant(2.0)
    a = tf.multiply(w1, 3.0)
    b = tf.multiply(a, w2)
    grad = tf.gradients(b, [w1, w2])
    a_stopped = tf.stop_gradient(a)
    b2 = tf.multiply(a_stopped, w2)
    grad2 = tf.gradients(b2, [w1, w2])
    assert grad2[0] is None and "_grad/Mul_1:0" in grad2[1].name
    with tf.Session() as sess:
        assert _printed(sess.run(grad)) == "[6.0, 6.0]"
        assert _printed(sess.run(grad2[1])) == "6.0"


def test_stopped_branch_still_has_other_path():
    a = tf.Variable(1.0)
    b = tf.Variable(1.0)
    c = tf.add(a, b)
    c_stopped = tf.stop_gradient(c)
    d = tf.add(a, b)
    e = tf.add(c_stopped, d)
    gradients = tf.gradients(e, xs=[a, b])
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        assert _printed(sess.run(gradients)) == "[1.0, 1.0]"


def test_gradient_descent_on_x_minus_3_squared():
    x = tf.Variable(tf.truncated_normal([1]), name="x") if hasattr(tf, "truncated_normal") \
        else tf.Variable([0.0], name="x")
    goal = tf.pow(x - 3, 2, name="goal")
    train_step = tf.train.GradientDescentOptimizer(learning_rate=0.18).minimize(goal)
    lines = []
    with tf.Session() as sess:
        x.initializer.run()
        x.load([0.06676739])
        for _ in range(7):
            lines.append("x:  " + _printed(x.eval()))
            train_step.run()
            lines.append("goal:  " + _printed(goal.eval()))
    assert lines == [
        "x:  [0.06676739]", "goal:  [3.5241385]", "x:  [1.1227311]", "goal:  [1.4434869]",
        "x:  [1.798548]", "goal:  [0.5912522]", "x:  [2.2310708]", "goal:  [0.24217696]",
        "x:  [2.5078852]", "goal:  [0.0991956]", "x:  [2.6850467]", "goal:  [0.04063048]",
        "x:  [2.79843]", "goal:  [0.01664222]"]


def test_interactive_session_eval_and_print(capfd):
    sess = tf.InteractiveSession()
    a = tf.constant([1.0, 3.0])
    a = tf.Print(a, [a], message="This is a: ")
    b = tf.add(a, a)
    assert b.eval().tolist() == [2.0, 6.0]
    assert "This is a: [1 3]" in capfd.readouterr().err
    c = tf.constant(5.0) * tf.constant(6.0)
    assert _printed(c.eval()) == "30.0"
    sess.close()


def test_read_value_after_assign_with_control_dependencies():
    v = tf.get_variable("v", shape=(), initializer=tf.zeros_initializer())
    assignment = v.assign_add(1)
    with tf.control_dependencies([assignment]):
        w = v.read_value()
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert [sess.run(w) for _ in range(3)] == [1.0, 2.0, 3.0]


def test_feeding_any_tensor_and_eval_with_session():
    c = tf.constant(5.0)
    d = c * 2
    sess = tf.Session()
    assert sess.run(d, {c: 1.0}) == 2.0
    with tf.Session():
        assert d.eval() == 10.0
