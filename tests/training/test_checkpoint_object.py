"""tf.train.Checkpoint / CheckpointManager (graph mode): a checkpoint written by TF 2.21's compat.v1 restores
into lens, lens writes the same keys and object graph, and Saver's readers read lens's files."""
import json
import os
import pathlib
import shutil

import numpy as np
import pytest

import lens as tf
from lens.proto import trackable_object_graph_pb2

FIX = pathlib.Path(__file__).parent / "fixtures"
TF_CKPT = json.loads((FIX / "tf_object_ckpt.json").read_text())


def _model():
    w = tf.get_variable("w", initializer=[1.0, 2.0])
    b = tf.Variable(3.0, name="bias")
    gs = tf.train.get_or_create_global_step()
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(tf.reduce_sum(w * w) + b * b, global_step=gs)
    ck = tf.train.Checkpoint(w=w, opt=opt, step=gs, sub=tf.train.Checkpoint(b=b))
    return ck, train, w, b, gs, opt


def _object_graph(path):
    g = trackable_object_graph_pb2.TrackableObjectGraph()
    g.ParseFromString(np.asarray(tf.train.load_variable(path, "_CHECKPOINTABLE_OBJECT_GRAPH"), dtype=object).item())
    return g


def test_restores_a_tensorflow_checkpoint(tmp_path):
    shutil.copytree(FIX / "tf_object_ckpt", tmp_path / "ck")
    with tf.Graph().as_default():
        ck, train, w, b, gs, opt = _model()
        path = tf.train.latest_checkpoint(str(tmp_path / "ck"))
        assert path.endswith("model-2")
        with tf.Session() as sess:
            status = ck.restore(path)
            status.assert_consumed()
            status.initialize_or_restore(sess)
            vals = TF_CKPT["values"]
            np.testing.assert_allclose(sess.run(w), vals["w/.ATTRIBUTES/VARIABLE_VALUE"])
            assert sess.run(gs) == 2 and sess.run(ck.save_counter) == 2
            np.testing.assert_allclose(sess.run(opt.get_slot(b, "m")),
                                       vals["sub/b/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE"])
            np.testing.assert_allclose(sess.run(opt._get_non_slot_variable("beta1_power")),
                                       vals["opt/beta1_power/.ATTRIBUTES/VARIABLE_VALUE"])


def test_writes_what_tensorflow_writes(tmp_path):
    with tf.Graph().as_default():
        ck, train, w, b, gs, opt = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            ck.save(str(tmp_path / "model"), session=sess)
            sess.run(train)
            path = ck.save(str(tmp_path / "model"), session=sess)
    assert path == str(tmp_path / "model-2")
    assert (tmp_path / "checkpoint").read_text() == TF_CKPT["state"]
    assert str(_object_graph(path)) == TF_CKPT["object_graph"]
    names = {n for n, _ in tf.train.list_variables(path)} - {"_CHECKPOINTABLE_OBJECT_GRAPH"}
    assert names == set(TF_CKPT["values"])
    for name, want in TF_CKPT["values"].items():
        np.testing.assert_allclose(tf.train.load_variable(path, name), want, rtol=1e-6, err_msg=name)


def test_assertions_and_partial_restores(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        extra = tf.Variable(0.5, name="extra")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Checkpoint(v=v).save(str(tmp_path / "a" / "ck"), session=sess)
            sess.run(v.assign([7.0, 7.0]))
            bigger = tf.train.Checkpoint(v=v, extra=extra)
            status = bigger.restore(path)
            with pytest.raises(AssertionError, match="extra"):
                status.assert_consumed()
            status.assert_nontrivial_match()
            status.run_restore_ops(sess)
            assert sess.run(v).tolist() == [1.0, 2.0]
            other = tf.train.Checkpoint(w=v)
            with pytest.raises(AssertionError):
                other.restore(path).assert_consumed()
            with pytest.raises(AssertionError, match="No checkpoint"):
                tf.train.Checkpoint(v=v).restore(None).assert_consumed()
            with pytest.raises(tf.errors.NotFoundError):
                bigger.restore(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="trackable"):
        tf.train.Checkpoint(x=3)


def test_manager_keeps_max_to_keep_and_numbers_saves(tmp_path):
    d = str(tmp_path / "m")
    with tf.Graph().as_default():
        v = tf.Variable(0.0)
        bump = v.assign_add(1.0)
        ck = tf.train.Checkpoint(v=v)
        manager = tf.train.CheckpointManager(ck, d, max_to_keep=2)
        with tf.Session() as sess, sess.as_default():
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                sess.run(bump)
                manager.save()
            assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-3", "ckpt-4"]
            assert not os.path.exists(os.path.join(d, "ckpt-1.index"))
            assert tf.train.latest_checkpoint(d) == os.path.join(d, "ckpt-4")
            assert manager.save(checkpoint_number=100).endswith("ckpt-100")
    with tf.Graph().as_default():
        v = tf.Variable(0.0)
        ck = tf.train.Checkpoint(v=v)
        again = tf.train.CheckpointManager(ck, d, max_to_keep=2)
        assert [os.path.basename(p) for p in again.checkpoints] == ["ckpt-4", "ckpt-100"]
        with tf.Session() as sess, sess.as_default():
            assert again.restore_or_initialize().endswith("ckpt-100")
            assert sess.run(v) == 4.0
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.CheckpointManager(ck, d, max_to_keep=0)
