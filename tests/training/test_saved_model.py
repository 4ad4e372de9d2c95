"""SavedModel: lens exports parsed with tensorboard's protos and reloaded; TensorFlow's export runs in lens."""
import json
import os

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from tensorboard.compat.proto import meta_graph_pb2 as tb_meta_graph_pb2
from tensorboard.compat.proto import types_pb2 as tb_types_pb2
from tensorboard.compat.proto import variable_pb2 as tb_variable_pb2

import lens as tf
from lens.training import bundle

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "tf")
TF_EXPORT = os.path.join(FIXTURES, "saved_model")
EXPECTED = json.load(open(os.path.join(FIXTURES, "expected.json")))


def _oracle_saved_model_class():
    """TensorFlow's SavedModel message (fields 1, 2) on tensorboard's MetaGraphDef."""
    pool = descriptor_pool.Default()
    fdp = descriptor_pb2.FileDescriptorProto(name="oracle_saved_model.proto", package="oracle_sm", syntax="proto3",
                                             dependency=[tb_meta_graph_pb2.DESCRIPTOR.name])
    F = descriptor_pb2.FieldDescriptorProto
    msg = fdp.message_type.add(name="SavedModel")
    msg.field.add(name="saved_model_schema_version", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    msg.field.add(name="meta_graphs", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                  type_name=".tensorboard.MetaGraphDef")
    try:
        pool.FindFileByName(fdp.name)
    except KeyError:
        pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("oracle_sm.SavedModel"))


SavedModelOracle = _oracle_saved_model_class()


def _lens_model():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
    b = tf.get_variable("b", [2], initializer=tf.constant_initializer(0.5))
    y = tf.nn.softmax(tf.matmul(x, w) + b, name="y")
    return x, w, b, y


def test_simple_save_layout_parsed_with_tensorboard_protos_and_reloaded(tmp_path):
    export = str(tmp_path / "export")
    x, w, b, y = _lens_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = sess.run(y, {x: EXPECTED["x"]})
        tf.saved_model.simple_save(sess, export, {"x": x}, {"y": y})
    assert sorted(os.listdir(tmp_path)) == ["export"]          # no staging directory left
    assert sorted(os.listdir(export)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(export, "variables"))) == ["variables.data-00000-of-00001",
                                                                     "variables.index"]
    sm = SavedModelOracle.FromString(open(os.path.join(export, "saved_model.pb"), "rb").read())
    assert sm.saved_model_schema_version == 1 and len(sm.meta_graphs) == 1
    meta = sm.meta_graphs[0]
    assert list(meta.meta_info_def.tags) == ["serve"]
    assert (tf.saved_model.VARIABLES_DIRECTORY, tf.saved_model.SAVED_MODEL_FILENAME_PB) == ("variables",
                                                                                            "saved_model.pb")
    sig = meta.signature_def["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert sig.inputs["x"].name == "x:0" and sig.inputs["x"].dtype == tb_types_pb2.DT_FLOAT
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 3] and sig.outputs["y"].name == "y:0"
    assert meta.saver_def.sharded and meta.saver_def.filename_tensor_name == "save/Const:0"
    assert meta.saver_def.restore_op_name == "save/restore_all" and meta.saver_def.version == 2
    nodes = {n.name: n for n in meta.graph_def.node}
    assert nodes["save/RestoreV2"].op == "RestoreV2" and nodes["save/MergeV2Checkpoints"].op == "MergeV2Checkpoints"
    assert all(n.device == "" for n in meta.graph_def.node)       # simple_save clears devices
    vdefs = [tb_variable_pb2.VariableDef.FromString(v) for v in meta.collection_def["variables"].bytes_list.value]
    assert [(v.variable_name, v.initializer_name, v.snapshot_name) for v in vdefs] == \
        [("w:0", "w/Assign", "w/read:0"), ("b:0", "b/Assign", "b/read:0")]
    reader = bundle.BundleReader(os.path.join(export, "variables", "variables"))
    assert reader.names() == ["b", "w"] and reader.shape("w") == [3, 2]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export)
        sig = meta.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        np.testing.assert_array_equal(sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: EXPECTED["x"]}), want)
        assert sorted(v.op.name for v in tf.global_variables()) == ["b", "w"]


def test_tensorflow_export_runs_in_lens_with_tensorflows_outputs():
    with tf.Session() as sess:
        meta = tf.saved_model.load(sess, ["serve"], TF_EXPORT)
        sig = meta.signature_def["serving_default"]
        np.testing.assert_allclose(sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: EXPECTED["x"]}),
                                   EXPECTED["y"], rtol=1e-6)
        scores = tf.saved_model.signature_def_utils.get_signature_def_by_key(meta, "scores")
        got = sess.run(tf.saved_model.utils.get_tensor_from_tensor_info(scores.outputs["logits"]),
                       {tf.saved_model.utils.get_tensor_from_tensor_info(scores.inputs["inputs"]): EXPECTED["x"]})
        np.testing.assert_allclose(got, EXPECTED["logits"], rtol=1e-6)
        with pytest.raises(ValueError, match="No SignatureDef with key 'nope'.*'scores', 'serving_default'"):
            tf.saved_model.signature_def_utils.get_signature_def_by_key(meta, "nope")
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["train"], TF_EXPORT, import_scope="imported")
        assert list(meta.meta_info_def.tags) == ["train"]
        np.testing.assert_allclose(sess.run("imported/y:0", {"imported/x:0": EXPECTED["x"]}), EXPECTED["y"], rtol=1e-6)


def test_unknown_tags_and_missing_exports_fail_as_tensorflow(tmp_path):
    with tf.Session() as sess:
        with pytest.raises(RuntimeError, match="MetaGraphDef associated with tags 'gpu', 'serve' could not be found.*"
                                               r"\[\['serve'\], \['train'\]\]"):
            tf.saved_model.loader.load(sess, ["serve", "gpu"], TF_EXPORT)
        with pytest.raises(IOError, match="SavedModel file does not exist at"):
            tf.saved_model.loader.load(sess, ["serve"], str(tmp_path))
    assert tf.saved_model.loader.maybe_saved_model_directory(TF_EXPORT)
    assert not tf.saved_model.loader.maybe_saved_model_directory(str(tmp_path))


def test_builder_multiple_meta_graphs_main_op_text_format_and_errors(tmp_path):
    export = str(tmp_path / "out")
    x, w, b, y = _lens_model()
    counter = tf.Variable(0, name="counter", trainable=False)
    main_op = tf.group(tf.assign(counter, 5), name="main_op")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        builder = tf.saved_model.builder.SavedModelBuilder(export)
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["eval"])
        with pytest.raises(TypeError, match="must be a SignatureDef"):
            builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"s": {"x": x}})
        sig = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
        builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"serving_default": sig},
                                             main_op=main_op)
        with pytest.raises(AssertionError, match="already been saved"):
            builder.add_meta_graph_and_variables(sess, ["other"])
        builder.add_meta_graph(["eval", "gpu"])
        with pytest.raises(AssertionError, match="already added"):
            builder.add_meta_graph(["gpu", "eval"])
        assert not os.path.exists(export)                 # nothing visible until save()
        path = builder.save(as_text=True)
    assert path == os.path.join(export, "saved_model.pbtxt")
    with pytest.raises(AssertionError, match="isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(export)
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["gpu", "eval"], export)
        assert sess.run("counter:0") == 0                 # no main op recorded for this tag set
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], export)
        assert sess.run("counter:0") == 5                 # the main op ran after the restore


def test_signature_builders_and_validity():
    sdu = tf.saved_model.signature_def_utils
    examples = tf.placeholder(tf.string, [None], name="examples")
    classes = tf.constant([b"a", b"b"], name="classes")
    scores = tf.constant([[0.5, 0.5]], name="scores")
    pred = tf.constant([1.5], name="pred")
    cls = sdu.classification_signature_def(examples, classes, scores)
    assert cls.method_name == "tensorflow/serving/classify" and sorted(cls.outputs) == ["classes", "scores"]
    reg = sdu.regression_signature_def(examples, pred)
    assert reg.inputs["inputs"].name == "examples:0" and reg.outputs["outputs"].name == "pred:0"
    assert sdu.is_valid_signature(cls) and sdu.is_valid_signature(reg)
    assert sdu.is_valid_signature(sdu.predict_signature_def({"a": pred}, {"b": scores}))
    assert not sdu.is_valid_signature(sdu.build_signature_def({"inputs": tf.saved_model.utils.build_tensor_info(pred)},
                                                              {}, "tensorflow/serving/regress"))
    assert not sdu.is_valid_signature(sdu.build_signature_def(method_name="made/up"))
    with pytest.raises(ValueError, match="Classification examples must be a string Tensor"):
        sdu.classification_signature_def(pred, classes, None)
    with pytest.raises(ValueError, match="classes and scores cannot both be None"):
        sdu.classification_signature_def(examples, None, None)
    with pytest.raises(ValueError, match="Regression output must be a float Tensor"):
        sdu.regression_signature_def(examples, classes)
    with pytest.raises(ValueError, match="Prediction inputs cannot be None or empty"):
        sdu.predict_signature_def({}, {"b": scores})
    info = tf.saved_model.utils.build_tensor_info(examples)
    assert info.name == "examples:0" and info.dtype == tb_types_pb2.DT_STRING
    assert [d.size for d in info.tensor_shape.dim] == [-1]
    sparse = tf.SparseTensor(indices=[[0, 0]], values=[1.0], dense_shape=[2, 2])
    sinfo = tf.saved_model.utils.build_tensor_info(sparse)
    assert sinfo.WhichOneof("encoding") == "coo_sparse" and sinfo.coo_sparse.values_tensor_name == sparse.values.name
    with pytest.raises(TypeError, match="needs a Tensor"):
        tf.saved_model.utils.build_tensor_info(np.ones(2))


def test_exported_graphs_carry_the_attrs_tensorflows_opdefs_require(tmp_path):
    """TF rejects a node missing a required attr; the recorded run shows TF 2.21 training a lens graph."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    logits = tf.layers.dense(x, 2, name="out")
    loss = tf.losses.softmax_cross_entropy(tf.one_hot(labels, 2), logits)
    picked = tf.where(loss > 1.0, loss, 2 * loss, name="picked")
    total = tf.add_n([picked, loss], name="total")
    tf.train.AdamOptimizer(0.01).minimize(total)
    meta = tb_meta_graph_pb2.MetaGraphDef.FromString(
        tf.train.export_meta_graph(str(tmp_path / "m.meta")).SerializeToString())
    nodes = {n.name: n for n in meta.graph_def.node}
    assert nodes["picked"].op == "Select" and nodes["picked"].attr["T"].type == tb_types_pb2.DT_FLOAT
    assert nodes["total"].attr["N"].i == 2 and nodes["total"].attr["T"].type == tb_types_pb2.DT_FLOAT
    assert nodes["gradients/Fill"].attr["T"].type == tb_types_pb2.DT_FLOAT      # its value's dtype, not the dims'
    assert nodes["gradients/Fill"].attr["index_type"].type == tb_types_pb2.DT_INT32
    slices = [n for n in meta.graph_def.node if n.op == "Slice"]
    assert slices and all(n.attr["Index"].type in (tb_types_pb2.DT_INT32, tb_types_pb2.DT_INT64) for n in slices)
    assert all("T" not in n.attr for n in meta.graph_def.node if n.op in ("MergeSummary", "SaveV2", "NoOp"))
    rec = json.load(open(os.path.join(FIXTURES, "tf_reads_lens.json")))
    assert rec["training_meta_graph_steps_in_tensorflow"] == 2
    assert "out/kernel/Adam_1" in rec["training_meta_graph_variables"]


def test_main_op_initializes_locals_and_tables_after_the_restore(tmp_path):
    export = str(tmp_path / "e")
    x, w, b, y = _lens_model()
    counter = tf.Variable(3, name="counter", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(tf.assign(counter, 9))
        saver = tf.train.Saver(tf.global_variables(), sharded=True)
        builder = tf.saved_model.builder.SavedModelBuilder(export)
        builder.add_meta_graph_and_variables(sess, ["serve"], saver=saver,
                                             main_op=tf.group(tf.local_variables_initializer(), name="init_locals"))
        builder.save()
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], export)
        assert sess.run("counter:0") == 3             # a local variable: initialized, not restored
        np.testing.assert_array_equal(sess.run("w:0"), np.arange(6, dtype=np.float32).reshape(3, 2) / 10)
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver()
        assert tf.saved_model.main_op.main_op().type == "NoOp"
        op = tf.saved_model.main_op.main_op_with_restore(saver.saver_def.restore_op_name)
        assert saver.saver_def.restore_op_name in [c.name for c in op.control_inputs]


def test_assets_are_copied_recorded_and_fed_to_the_main_op(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    export = str(tmp_path / "e")
    asset = tf.constant(str(vocab), name="asset_path")
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, asset)
    seen = tf.Variable(b"", name="seen", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.identity(x * 2.0, name="y")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        tf.saved_model.simple_save(sess, export, {"x": x}, {"y": y},
                                   legacy_init_op=tf.group(tf.assign(seen, asset), name="init_op"))
    assert (tmp_path / "e" / "assets" / "vocab.txt").read_text() == "a\nb\n"
    meta = SavedModelOracle.FromString(open(os.path.join(export, "saved_model.pb"), "rb").read()).meta_graphs[0]
    assert [(a.tensor_info.name, a.filename) for a in meta.asset_file_def] == [("asset_path:0", "vocab.txt")]
    packed = meta.collection_def["saved_model_assets"].any_list.value
    assert len(packed) == 1 and packed[0].type_url.endswith("tensorflow.AssetFileDef")
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], export)
        # The main op saw the asset's path inside the export, not where the file was at export time.
        assert sess.run("seen:0") == os.path.join(export, "assets", "vocab.txt").encode()
    rec = json.load(open(os.path.join(FIXTURES, "tf_reads_lens.json")))
    assert rec["assets_main_op_saw"] == "assets_model/assets/vocab.txt" and rec["assets_file_text"] == "a\nb\n"


def test_graphs_with_ops_lens_lacks_fail_before_anything_is_imported():
    from lens.proto import meta_graph_pb2
    meta = meta_graph_pb2.MetaGraphDef()
    meta.graph_def.node.add(name="c", op="Const")
    meta.graph_def.node.add(name="call", op="StatefulPartitionedCall")
    with pytest.raises(ValueError, match="Op type not registered 'StatefulPartitionedCall' in lens .*node call.*"
                                         "TF2 SavedModel"):
        tf.train.import_meta_graph(meta)
    assert tf.get_default_graph().get_operations() == []


def test_saved_model_cli_prints_what_tensorflows_prints(capsys):
    from lens.python.tools import saved_model_cli
    want = json.load(open(os.path.join(FIXTURES, "saved_model_cli.json")))
    cases = {"show": [], "show_tag_set": ["--tag_set", "serve"],
             "show_signature": ["--tag_set", "serve", "--signature_def", "serving_default"], "show_all": ["--all"]}
    for name, extra in cases.items():
        saved_model_cli.main(["show", "--dir", TF_EXPORT] + extra)
        assert capsys.readouterr().out.rstrip("\n") == want[name], name
    saved_model_cli.main(["run", "--dir", TF_EXPORT, "--tag_set", "serve", "--signature_def", "serving_default",
                          "--input_exprs", "x=%r" % (EXPECTED["x"],)])
    out = capsys.readouterr().out
    assert out.splitlines()[0] == want["run"].splitlines()[0] == "Result for output key y:"
    numbers = [float(v) for v in out.replace("[", " ").replace("]", " ").split()[5:]]
    np.testing.assert_allclose(numbers, np.ravel(EXPECTED["y"]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="tag-set gpu could not be found.*'serve', 'train'"):
        saved_model_cli.main(["show", "--dir", TF_EXPORT, "--tag_set", "gpu"])
    with pytest.raises(ValueError, match='Could not find signature "nope". Please choose from: scores, serving_def'):
        saved_model_cli.main(["show", "--dir", TF_EXPORT, "--tag_set", "serve", "--signature_def", "nope"])
