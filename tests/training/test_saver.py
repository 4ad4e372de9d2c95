"""Saver: round trips, max_to_keep, the `checkpoint` file (checked with the real protobuf text parser), errors."""
import json
import os

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

import lens as tf
from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2
from tensorboard.compat.proto import meta_graph_pb2 as tb_meta_graph_pb2


def _tf_checkpoint_state_class():
    """TensorFlow's CheckpointState message built from its field numbers (an independent parser oracle)."""
    fdp = descriptor_pb2.FileDescriptorProto(name="w3_checkpoint_state.proto", package="w3oracle", syntax="proto3")
    msg = fdp.message_type.add(name="CheckpointState")
    F = descriptor_pb2.FieldDescriptorProto
    for name, number, ftype, label in (("model_checkpoint_path", 1, F.TYPE_STRING, F.LABEL_OPTIONAL),
                                       ("all_model_checkpoint_paths", 2, F.TYPE_STRING, F.LABEL_REPEATED),
                                       ("all_model_checkpoint_timestamps", 3, F.TYPE_DOUBLE, F.LABEL_REPEATED),
                                       ("last_preserved_timestamp", 4, F.TYPE_DOUBLE, F.LABEL_OPTIONAL)):
        msg.field.add(name=name, number=number, type=ftype, label=label)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("w3oracle.CheckpointState"))


CheckpointStateProto = _tf_checkpoint_state_class()


def _model(values=None):
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) if values is None else values, name="w")
    with tf.variable_scope("layer"):
        k = tf.get_variable("kernel", [3], tf.float64, initializer=tf.constant_initializer(0.5))
    n = tf.Variable(7, name="count", trainable=False)
    return w, k, n


def test_round_trip_restores_every_variable_into_a_new_graph(tmp_path):
    with tf.Graph().as_default():
        w, k, n = _model()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([w.assign(w * 2.0), k.assign([1.0, 2.0, 3.0]), n.assign(42)])
            path = saver.save(sess, str(tmp_path / "model.ckpt"))
    assert path == str(tmp_path / "model.ckpt")
    assert {f for f in os.listdir(tmp_path)} == {"checkpoint", "model.ckpt.index", "model.ckpt.data-00000-of-00001",
                                                 "model.ckpt.meta"}
    with tf.Graph().as_default():
        w, k, n = _model(np.zeros((2, 3), np.float32))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, path)      # no initializer run: restoring initializes
            got = sess.run([w, k, n])
    np.testing.assert_array_equal(got[0], np.arange(6, dtype=np.float32).reshape(2, 3) * 2)
    assert got[1].dtype == np.float64 and list(got[1]) == [1.0, 2.0, 3.0]
    assert got[2] == 42
    assert tf.train.list_variables(str(tmp_path)) == [("count", []), ("layer/kernel", [3]), ("w", [2, 3])]
    np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path), "layer/kernel"), [1.0, 2.0, 3.0])


def test_earlier_lens_npz_checkpoints_still_restore(tmp_path):
    from lens.training import saver_format
    prefix = str(tmp_path / "old")
    saver_format._write_data(prefix, [("w", np.full((2, 3), 4.0, np.float32)), ("layer/kernel", np.ones(3)),
                                      ("count", np.int32(9))])
    index = json.loads((tmp_path / "old.index").read_text())
    assert index["format"] == "lens-checkpoint" and index["data_file"] == "old.npz"
    with tf.Graph().as_default():
        w, k, n = _model()
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, prefix)
            got = sess.run([w, k, n])
    assert np.all(got[0] == 4.0) and list(got[1]) == [1.0, 1.0, 1.0] and got[2] == 9
    assert tf.train.list_variables(prefix) == [("count", []), ("layer/kernel", [3]), ("w", [2, 3])]
    assert tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()["layer/kernel"] == tf.float64


def test_var_list_as_dict_renames_and_list_selects(tmp_path):
    with tf.Graph().as_default():
        a = tf.Variable([1.0, 2.0], name="a")
        b = tf.Variable([5.0], name="b")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver({"renamed": a}).save(sess, str(tmp_path / "d"))
            assert [n for n, _ in tf.train.list_variables(path)] == ["renamed"]
            sess.run(a.assign([0.0, 0.0]))
            sess.run(b.assign([9.0]))
            tf.train.Saver({"renamed": a}).restore(sess, path)
            assert list(sess.run(a)) == [1.0, 2.0] and list(sess.run(b)) == [9.0]
            only_b = tf.train.Saver([b]).save(sess, str(tmp_path / "l"))
            assert [n for n, _ in tf.train.list_variables(only_b)] == ["b"]


def test_global_step_suffix_max_to_keep_and_checkpoint_file(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([1.0], name="w")
        step = tf.train.get_or_create_global_step()
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            paths = []
            for _ in range(4):
                sess.run(tf.assign_add(step, 10))
                paths.append(saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step))
            other = tf.train.Saver(pad_step_number=True)   # its own rotation: the checkpoints above stay
            assert other.save(sess, str(tmp_path / "x"), global_step=7, write_state=False).endswith("x-00000007")
    assert [os.path.basename(p) for p in paths] == ["model.ckpt-10", "model.ckpt-20", "model.ckpt-30", "model.ckpt-40"]
    assert saver.last_checkpoints == paths[2:]
    left = sorted(f for f in os.listdir(tmp_path) if f.startswith("model"))
    assert left == ["model.ckpt-30.data-00000-of-00001", "model.ckpt-30.index", "model.ckpt-30.meta",
                    "model.ckpt-40.data-00000-of-00001", "model.ckpt-40.index", "model.ckpt-40.meta"]
    state = text_format.Parse((tmp_path / "checkpoint").read_text(), CheckpointStateProto())
    assert state.model_checkpoint_path == paths[-1]
    assert list(state.all_model_checkpoint_paths) == paths[2:]
    assert len(state.all_model_checkpoint_timestamps) == 2 and state.last_preserved_timestamp > 0
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    ckpt = tf.train.get_checkpoint_state(str(tmp_path))
    assert ckpt.model_checkpoint_path == paths[-1] and ckpt.all_model_checkpoint_paths == paths[2:]


def test_checkpoint_file_written_by_protobuf_is_read_and_relative_paths_resolve(tmp_path):
    state = CheckpointStateProto(model_checkpoint_path="run \"a\"/m-5", all_model_checkpoint_paths=["run \"a\"/m-5"])
    (tmp_path / "checkpoint").write_text(text_format.MessageToString(state))
    ckpt = tf.train.get_checkpoint_state(str(tmp_path))
    assert ckpt.model_checkpoint_path == os.path.join(str(tmp_path), 'run "a"/m-5')
    assert tf.train.latest_checkpoint(str(tmp_path)) is None      # the files themselves do not exist
    assert tf.train.latest_checkpoint(str(tmp_path / "nowhere")) is None
    (tmp_path / "checkpoint").write_text("model_checkpoint_path: unquoted\n")
    with pytest.raises(ValueError, match="checkpoint:1"):
        tf.train.get_checkpoint_state(str(tmp_path))


def test_relative_save_path_writes_relative_state(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("ck")
    with tf.Graph().as_default():
        tf.Variable([1.0], name="w")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, "ck/model", global_step=3)
    state = text_format.Parse(open("ck/checkpoint").read(), CheckpointStateProto())
    assert state.model_checkpoint_path == "model-3"
    assert tf.train.latest_checkpoint("ck") == os.path.join("ck", "model-3")


def test_restore_missing_variable_names_it_and_changes_nothing(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([1.0], name="a")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        a = tf.Variable([5.0], name="a")
        tf.Variable([2.0], name="extra")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.NotFoundError, match=r"Key extra not found in checkpoint.*holds: a"):
                saver.restore(sess, path)
            assert list(sess.run(a)) == [5.0]


def test_restore_wrong_shape_or_dtype_names_the_variable(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(np.zeros((2, 3), np.float32), name="w")
        tf.Variable([1.0], name="v")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        w = tf.Variable(np.ones((3, 2), np.float32), name="w")
        tf.Variable([1.0], name="v", dtype=tf.float64)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                tf.train.Saver().restore(sess, path)
            msg = str(info.value)
            assert "variable w: shape [3, 2] in the graph but [2, 3]" in msg
            assert "variable v: the checkpoint holds float32, the graph has float64" in msg
            assert np.all(sess.run(w) == 1.0)
            tf.train.Saver([w], reshape=True).restore(sess, path)      # same size: reshape allowed
            assert np.all(sess.run(w) == 0.0)


def test_bad_paths_and_arguments_raise_clear_errors(tmp_path):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to save"):
            tf.train.Saver()
        assert tf.train.Saver(allow_empty=True).save(tf.Session(), str(tmp_path / "e")) is None
        v = tf.Variable([1.0], name="v")
        with pytest.raises(TypeError, match="must be a Variable"):
            tf.train.Saver([tf.constant(1.0)])
        with tf.Graph().as_default():
            other = tf.Variable([3.0], name="v")     # same op name, another variable
        with pytest.raises(ValueError, match="same name: v"):
            tf.train.Saver([v, other])
        saver = tf.train.Saver([v])
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(ValueError, match="Parent directory of .* doesn't exist"):
                saver.save(sess, str(tmp_path / "missing" / "m"))
            with pytest.raises(ValueError, match="not a valid checkpoint"):
                saver.restore(sess, str(tmp_path / "nothing"))
            with pytest.raises(ValueError, match="it is None"):
                saver.restore(sess, None)
            (tmp_path / "tf.ckpt.data-00000-of-00001").write_bytes(b"\0")
            with pytest.raises(ValueError, match="index is missing"):
                saver.restore(sess, str(tmp_path / "tf.ckpt"))
            (tmp_path / "bad.index").write_text("{not json")
            with pytest.raises(tf.errors.DataLossError, match="bad.index"):
                saver.restore(sess, str(tmp_path / "bad"))


def test_meta_graph_and_write_graph_are_read_by_tensorboard_protos(tmp_path):
    with tf.Graph().as_default() as g:
        w = tf.Variable([1.0], name="w")
        tf.identity(w * 2.0, name="out")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
        text_path = tf.train.write_graph(g, str(tmp_path / "graphs"), "g.pbtxt")
        bin_path = tf.train.write_graph(g.as_graph_def(), str(tmp_path / "graphs"), "g.pb", as_text=False)
    meta = tb_meta_graph_pb2.MetaGraphDef.FromString((tmp_path / "m.meta").read_bytes())
    names = {n.name for n in meta.graph_def.node}
    assert {"w", "out", "save/restore_all"} <= names
    assert meta.saver_def.restore_op_name == "save/restore_all"
    parsed = text_format.Parse(open(text_path).read(), tb_graph_pb2.GraphDef())
    assert {n.name for n in parsed.node} == names
    assert {n.name for n in tb_graph_pb2.GraphDef.FromString(open(bin_path, "rb").read()).node} == names
    assert path.endswith("m")
    with pytest.raises(TypeError, match="Graph or a GraphDef"):
        tf.train.write_graph("not a graph", str(tmp_path), "x")
