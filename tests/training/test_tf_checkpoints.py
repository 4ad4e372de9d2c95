"""TensorFlow-written checkpoints load into lens; what TensorFlow read back from lens's files (recorded)."""
import json
import os
import shutil

import numpy as np
import pytest

import lens as tf

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "tf")
CKPT_DIR = os.path.join(FIXTURES, "ckpt")
EXPECTED = json.load(open(os.path.join(FIXTURES, "expected.json")))


def _value(name):
    if EXPECTED["dtypes"][name] == "string":
        return [s.encode("latin-1") for s in EXPECTED["variables"][name]]
    return np.array(EXPECTED["variables"][name], dtype=EXPECTED["dtypes"][name])


def _model(kernel_shape=(3, 2)):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.variable_scope("dense"):
        k = tf.get_variable("kernel", kernel_shape, initializer=tf.zeros_initializer())
        b = tf.get_variable("bias", kernel_shape[1:], initializer=tf.zeros_initializer())
    words = tf.Variable([b"", b"", b""], name="words")
    step = tf.Variable(np.int64(0), name="global_step", trainable=False)
    y = tf.nn.softmax(tf.add(tf.matmul(x, k), b), name="y")
    return x, y, k, b, words, step


def test_reader_sees_tensorflows_names_dtypes_shapes_and_values():
    reader = tf.train.load_checkpoint(CKPT_DIR)
    assert reader.get_variable_to_shape_map() == {"dense/bias": [2], "dense/kernel": [3, 2], "global_step": [],
                                                  "words": [3]}
    assert {n: d.name for n, d in reader.get_variable_to_dtype_map().items()} == EXPECTED["dtypes"]
    for name in EXPECTED["variables"]:
        got = reader.get_tensor(name)
        if EXPECTED["dtypes"][name] == "string":
            assert list(got) == _value(name)
        else:
            np.testing.assert_array_equal(got, _value(name))
    state = tf.train.get_checkpoint_state(CKPT_DIR)
    assert state.model_checkpoint_path == os.path.join(CKPT_DIR, "model.ckpt-7")
    assert tf.train.checkpoint_exists(state.model_checkpoint_path)
    assert not tf.train.checkpoint_exists(os.path.join(CKPT_DIR, "model.ckpt-8"))


def test_saver_restores_a_tensorflow_checkpoint_into_a_lens_graph():
    x, y, k, b, words, step = _model()
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, tf.train.latest_checkpoint(CKPT_DIR))
        np.testing.assert_allclose(sess.run(y, {x: EXPECTED["x"]}), EXPECTED["y"], rtol=1e-6)
        assert list(sess.run(words)) == _value("words") and sess.run(step) == 7


def test_import_meta_graph_runs_tensorflows_own_restore_ops(tmp_path):
    saver = tf.train.import_meta_graph(os.path.join(CKPT_DIR, "model.ckpt-7.meta"))
    assert sorted(v.op.name for v in tf.global_variables()) == sorted(EXPECTED["variables"])
    assert sorted(v.op.name for v in tf.trainable_variables()) == ["dense/bias", "dense/kernel", "words"]
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(CKPT_DIR, "model.ckpt-7"))
        np.testing.assert_allclose(sess.run("y:0", {"x:0": EXPECTED["x"]}), EXPECTED["y"], rtol=1e-6)
        # TensorFlow's save ops run in lens too, writing a bundle lens reads back.
        path = saver.save(sess, str(tmp_path / "again"))
    assert sorted(os.listdir(tmp_path)) == ["again.data-00000-of-00001", "again.index", "again.meta", "checkpoint"]
    np.testing.assert_array_equal(tf.train.load_variable(path, "dense/kernel"), _value("dense/kernel"))


def test_missing_or_misshaped_variables_name_the_culprit_and_change_nothing():
    x, y, k, b, words, step = _model(kernel_shape=(3, 4))
    extra = tf.Variable([1.0], name="extra")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.NotFoundError, match="Key extra not found in checkpoint"):
            tf.train.Saver().restore(sess, os.path.join(CKPT_DIR, "model.ckpt-7"))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"variable dense/kernel: shape \[3, 4\] in the graph "
                                                                 r"but \[3, 2\]"):
            tf.train.Saver([step, k]).restore(sess, os.path.join(CKPT_DIR, "model.ckpt-7"))
        assert np.all(sess.run(k) == 0) and np.all(sess.run(b) == 0) and sess.run(step) == 0
        assert list(sess.run(extra)) == [1.0]


def test_init_from_checkpoint_maps_scopes_and_names():
    with tf.variable_scope("net"):
        k = tf.get_variable("kernel", [3, 2], initializer=tf.ones_initializer())
        b = tf.get_variable("bias", [2], initializer=tf.ones_initializer())
    other = tf.get_variable("other", [2], initializer=tf.ones_initializer())
    tf.train.init_from_checkpoint(CKPT_DIR, {"dense/": "net/"})
    tf.train.init_from_checkpoint(CKPT_DIR, {"dense/bias": other})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(k), _value("dense/kernel"))
        np.testing.assert_array_equal(sess.run(b), _value("dense/bias"))
        np.testing.assert_array_equal(sess.run(other), _value("dense/bias"))
    with pytest.raises(ValueError, match="Tensor nothing/here is not found"):
        tf.train.init_from_checkpoint(CKPT_DIR, {"nothing/here": "net/kernel"})
    with pytest.raises(ValueError, match="Shape of variable net/bias"):
        tf.train.init_from_checkpoint(CKPT_DIR, {"dense/kernel": b})


def test_warm_start_initializes_matching_trainable_variables():
    with tf.variable_scope("dense"):
        k = tf.get_variable("kernel", [3, 2], initializer=tf.ones_initializer())
        b = tf.get_variable("bias", [2], initializer=tf.ones_initializer())
    fresh = tf.get_variable("fresh", [2], initializer=tf.ones_initializer())
    tf.train.warm_start(CKPT_DIR, vars_to_warm_start="dense/kernel")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(k), _value("dense/kernel"))
        assert np.all(sess.run(b) == 1) and np.all(sess.run(fresh) == 1)


def test_tensorflow_read_lens_checkpoints_and_saved_models():
    """The fixture script had TensorFlow 2.21 read what lens wrote; lens still computes what TF computed."""
    rec = json.load(open(os.path.join(FIXTURES, "tf_reads_lens.json")))
    assert rec["checkpoint_shapes"] == {"dense/bias": [2], "dense/kernel": [3, 2], "global_step": [], "words": [3]}
    assert rec["checkpoint_dtypes"] == {"dense/bias": "float32", "dense/kernel": "float32", "global_step": "int64",
                                        "words": "string"}
    assert rec["checkpoint_values"]["words"] == ["lens", "", "bundle"] and rec["checkpoint_values"]["global_step"] == 11
    assert rec["meta_graph_restore_y_matches_lens"] and rec["saved_model_y_matches_lens"]
    assert rec["meta_graph_global_variables"] == ["dense/bias", "dense/kernel", "global_step", "words"]
    # The same model built in lens now gives the outputs TensorFlow computed from lens's files then.
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.variable_scope("dense"):
        k = tf.get_variable("kernel", initializer=np.arange(6, dtype=np.float32).reshape(3, 2) / 5.0 - 0.4)
        b = tf.get_variable("bias", initializer=np.array([0.3, -0.1], np.float32))
    y = tf.nn.softmax(tf.add(tf.matmul(x, k), b))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y, {x: EXPECTED["x"]}), rec["saved_model_y"], rtol=1e-6)
        np.testing.assert_allclose(rec["checkpoint_values"]["dense/kernel"], sess.run(k))


def test_sharded_saver_round_trip(tmp_path):
    v = tf.Variable(np.arange(4.0), name="v")
    saver = tf.train.Saver(sharded=True)
    assert saver.saver_def.sharded and saver.saver_def.save_tensor_name.startswith("save/Identity")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
        sess.run(v.assign(np.zeros(4)))
        saver.restore(sess, path)
        assert list(sess.run(v)) == [0.0, 1.0, 2.0, 3.0]
        # The restored array is adopted by the variable (no copy): in-place updates stay its own.
        fetched = sess.run(v)
        sess.run(tf.assign_add(v, np.ones(4)))
        assert list(sess.run(v)) == [1.0, 2.0, 3.0, 4.0] and list(fetched) == [0.0, 1.0, 2.0, 3.0]
        saver.restore(sess, path)
        assert list(sess.run(v)) == [0.0, 1.0, 2.0, 3.0]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m.data-00000-of-00001", "m.index", "m.meta"]
    shutil.rmtree(tmp_path)


V1_DIR = os.path.join(FIXTURES, "v1")
SLICED_DIR = os.path.join(FIXTURES, "sliced")


def _sliced_values():
    with np.load(os.path.join(SLICED_DIR, "values.npz")) as data:
        return {k: data[k] for k in data.files}


def test_v1_checkpoints_read_and_restore_with_partitioned_variables_joined():
    prefix = tf.train.latest_checkpoint(V1_DIR)
    assert prefix == os.path.join(V1_DIR, "model.ckpt") and tf.train.checkpoint_exists(prefix)
    assert tf.train.list_variables(V1_DIR) == [("a", [2, 3]), ("emb", [200, 3]), ("part", [5, 3]), ("s", [2])]
    reader = tf.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_dtype_map()["part"] == tf.float64
    want = _sliced_values()
    np.testing.assert_array_equal(reader.get_tensor("part"), want["part"])
    np.testing.assert_array_equal(reader.get_tensor("emb"), want["emb"])
    a = tf.Variable(np.zeros((2, 3), np.float32), name="a")
    s = tf.Variable([b"", b""], name="s")
    part = tf.Variable(np.zeros((5, 3)), name="part")
    with tf.Session() as sess:
        tf.train.Saver([a, s, part]).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(a), np.arange(6).reshape(2, 3))
        assert list(sess.run(s)) == [b"x", b"yz"]
        np.testing.assert_array_equal(sess.run(part), want["part"])


def test_v2_slices_of_partitioned_variables_are_joined_and_hidden_from_the_listing():
    from lens.proto import tensor_slice_pb2
    from lens.training.bundle_slices import slice_key
    assert tf.train.list_variables(SLICED_DIR) == [("a", [2, 3]), ("emb", [200, 3]), ("part", [5, 3]), ("s", [2])]
    want = _sliced_values()
    reader = tf.train.load_checkpoint(SLICED_DIR)
    np.testing.assert_array_equal(reader.get_tensor("emb"), want["emb"])
    np.testing.assert_array_equal(reader.get_tensor("part"), want["part"])
    # The key of emb's second slice (rows 67..133) as TensorFlow 2.21 wrote it.
    sl = tensor_slice_pb2.TensorSliceProto()
    sl.extent.add(start=67, length=67)
    sl.extent.add(start=0, length=3)
    assert slice_key("emb", sl) == b"\x00emb\x00\x01\x01\x02\xc0C\xc0C\x80\x83"
    del sl.extent[1]
    sl.extent.add()                       # a whole dimension: start 0, length -1
    assert slice_key("emb", sl) == b"\x00emb\x00\x01\x01\x02\xc0C\xc0C\x80\x7f"
    emb = tf.Variable(np.zeros((200, 3), np.float32), name="emb")
    with tf.Session() as sess:
        tf.train.Saver([emb]).restore(sess, os.path.join(SLICED_DIR, "model.ckpt"))
        np.testing.assert_array_equal(sess.run(emb), want["emb"])


def test_import_meta_graph_brings_back_global_step_and_train_op(tmp_path):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.Variable([1.0, 2.0], name="w")
        loss = tf.reduce_sum(tf.square(w), name="loss")
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        tf.add_to_collection("my_train", train_op)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            path = saver.save(sess, str(tmp_path / "m"), global_step=step)
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        step = tf.train.get_global_step()
        assert step is not None and step.op.name == "global_step"
        (train_op,) = tf.get_collection("my_train")
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(step) == 1
            sess.run(train_op)
            assert sess.run(step) == 2
            np.testing.assert_allclose(sess.run("w:0"), np.array([1.0, 2.0]) * 0.8 * 0.8)


def test_checkpoints_iterator_yields_each_new_checkpoint_then_times_out(tmp_path):
    import threading
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    saver.save(sess, str(tmp_path / "m"), global_step=1)
    later = threading.Timer(0.3, lambda: saver.save(sess, str(tmp_path / "m"), global_step=2))
    later.start()
    seen = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=1.5))
    later.join()
    sess.close()
    assert [os.path.basename(p) for p in seen] == ["m-1", "m-2"]
    calls = []
    assert list(tf.train.checkpoints_iterator(str(tmp_path / "none"), timeout=0.1,
                                              timeout_fn=lambda: calls.append(1) or len(calls) >= 2)) == []
    assert len(calls) == 2
    state = tf.train.generate_checkpoint_state_proto(str(tmp_path), str(tmp_path / "m-2"),
                                                     [str(tmp_path / "m-1")])
    assert state.all_model_checkpoint_paths == [str(tmp_path / "m-1"), str(tmp_path / "m-2")]
    assert tf.train.SaverDef(version=tf.train.SaverDef.V2).version == 2


def test_import_meta_graph_input_map_and_collection_predicate():
    new_x = tf.constant(np.array(EXPECTED["x"], np.float32), name="fixed_x")
    saver = tf.train.import_meta_graph(os.path.join(CKPT_DIR, "model.ckpt-7.meta"), import_scope="m",
                                       input_map={"x:0": new_x},
                                       restore_collections_predicate=lambda key: key != "trainable_variables")
    assert tf.trainable_variables() == [] and len(tf.global_variables()) == 4
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(CKPT_DIR, "model.ckpt-7"))
        np.testing.assert_allclose(sess.run("m/y:0"), EXPECTED["y"], rtol=1e-6)


def test_debug_string_and_inspect_checkpoint_print_as_tensorflow(capsys):
    from lens.python.tools import inspect_checkpoint
    prefix = os.path.join(CKPT_DIR, "model.ckpt-7")
    # TensorFlow 2.21's CheckpointReader.debug_string() for this fixture.
    assert tf.train.NewCheckpointReader(prefix).debug_string() == (
        b"dense/bias (DT_FLOAT) [2]\ndense/kernel (DT_FLOAT) [3,2]\nglobal_step (DT_INT64) []\nwords (DT_STRING) [3]\n")
    inspect_checkpoint.print_tensors_in_checkpoint_file(prefix, tensor_name="dense/bias", all_tensors=False)
    assert capsys.readouterr().out == "tensor_name:  dense/bias\n[ 0.1 -0.2]\n# Total number of params: 12\n"
    inspect_checkpoint.print_tensors_in_checkpoint_file(prefix, "", all_tensors=False, all_tensor_names=True,
                                                        count_exclude_pattern="global_step|words")
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "tensor_name:  dense/bias" and out.endswith("# Total number of params: 8\n")
    inspect_checkpoint.print_tensors_in_checkpoint_file(prefix, "nope", all_tensors=False)
    assert "Key nope not found in checkpoint" in capsys.readouterr().out
