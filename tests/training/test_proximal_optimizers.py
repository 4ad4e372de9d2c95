"""ProximalGradientDescent, ProximalAdagrad and AdagradDA: dense and sparse (embedding) updates step by step
against TensorFlow 2.21's compat.v1 (fixtures/record_proximal_tf.py), slots and bad arguments."""
import json
import pathlib

import numpy as np
import pytest

import lens as tf

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "proximal_tf.json").read_text())
W0 = [[1.0, -2.0, 0.05], [0.5, 3.0, -0.02]]
E0 = [[0.3, -0.1], [2.0, 1.0], [-0.5, 0.04], [1.5, -2.5]]
CONFIGS = {
    "ProximalGradientDescent": lambda gs: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
    "ProximalAdagrad": lambda gs: tf.train.ProximalAdagradOptimizer(
        0.3, initial_accumulator_value=0.2, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
    "ProximalAdagradNoReg": lambda gs: tf.train.ProximalAdagradOptimizer(0.3),
    "AdagradDA": lambda gs: tf.train.AdagradDAOptimizer(
        0.5, gs, initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.05,
        l2_regularization_strength=0.2),
    "AdagradDANoReg": lambda gs: tf.train.AdagradDAOptimizer(3.0, gs),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_steps_match_tensorflow(name):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable(np.array(W0, np.float32), name="w")
        emb = tf.Variable(np.array(E0, np.float32), name="emb")
        x = tf.constant([[1.0, 2.0], [-1.0, 0.5]], tf.float32)
        rows = tf.nn.embedding_lookup(emb, [2, 0, 2])
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0)) + tf.reduce_sum(rows * rows * [1.0, -3.0])
        opt = CONFIGS[name](gs)
        train = opt.minimize(loss, global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step, want in enumerate(FIXTURE[name]):
                sess.run(train)
                got_w, got_e = sess.run([w, emb])
                np.testing.assert_allclose(got_w, want["w"], rtol=2e-5, atol=1e-6, err_msg="%s step %d" % (name, step))
                np.testing.assert_allclose(got_e, want["emb"], rtol=2e-5, atol=1e-6, err_msg="%s emb %d" % (name, step))
        ops = {o.type for o in tf.get_default_graph().get_operations()}
        kind = "AdagradDA" if name.startswith("AdagradDA") else name.replace("NoReg", "")
        assert "Apply" + kind in ops and "SparseApply" + kind in ops


def test_slot_names_and_bad_arguments():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.AdagradDAOptimizer(0.1, gs)
        opt.minimize(tf.reduce_sum(v * v), global_step=gs)
        assert opt.get_slot_names() == ["gradient_accumulator", "gradient_squared_accumulator"]
        pa = tf.train.ProximalAdagradOptimizer(0.1)
        pa.minimize(tf.reduce_sum(v * v))
        assert pa.get_slot_names() == ["accumulator"]
        with pytest.raises(ValueError, match="positive"):
            tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)
        with pytest.raises(ValueError, match="Global step"):
            tf.train.AdagradDAOptimizer(0.1, None).minimize(tf.reduce_sum(v * v))
