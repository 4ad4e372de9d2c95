"""Estimator.export_saved_model: TF1.15's signatures, loadable by tf.saved_model.loader, same outputs."""
import os

import numpy as np
import pytest

import lens as tf
from lens.proto import saved_model_pb2

fc = tf.feature_column
COLS = [fc.numeric_column("x", shape=3)]


def _trained(tmp_path, data, estimator_cls, labels, **kw):
    x = data[0]
    est = estimator_cls(feature_columns=COLS, model_dir=str(tmp_path / "model"), **kw)
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, labels, batch_size=32, num_epochs=None,
                                                 shuffle=True), steps=30)
    return est


def _signatures(export_dir):
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    (meta,) = sm.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    return meta.signature_def


def _examples(x):
    out = []
    for row in x:
        ex = tf.train.Example(features=tf.train.Features(feature={
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=row.tolist()))}))
        out.append(ex.SerializeToString())
    return out


def test_regressor_export_with_parsing_receiver_runs_in_a_fresh_session(tmp_path, data):
    x, y, _ = data
    est = _trained(tmp_path, data, tf.estimator.DNNRegressor, y, hidden_units=[4])
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(COLS))
    export_dir = est.export_saved_model(str(tmp_path / "export"), receiver)
    assert isinstance(export_dir, bytes) and os.path.basename(export_dir).isdigit()
    export_dir = export_dir.decode()
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    sigs = _signatures(export_dir)
    assert set(sigs) == {"serving_default", "regression", "predict"}
    assert sigs["serving_default"].method_name == "tensorflow/serving/regress"
    assert list(sigs["predict"].outputs) == ["predictions"]
    assert sigs["predict"].inputs["examples"].name == "input_example_tensor:0"
    expected = np.array([p["predictions"] for p in est.predict(
        tf.estimator.inputs.numpy_input_fn({"x": x[:4]}, shuffle=False))])
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["serving_default"]
        got = sess.run(sig.outputs["outputs"].name, {sig.inputs["inputs"].name: _examples(x[:4])})
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_classifier_export_signatures_and_raw_receiver(tmp_path, data):
    x, _, labels = data
    est = _trained(tmp_path, data, tf.estimator.LinearClassifier, labels)
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 3], name="x")})
    sigs = _signatures(est.export_saved_model(str(tmp_path / "raw"), raw).decode())
    # classify/regress need one serialized-Example input: only predict is servable from raw tensors
    assert set(sigs) == {"predict"}
    assert set(sigs["predict"].outputs) == {"logits", "logistic", "probabilities", "class_ids", "classes",
                                            "all_class_ids", "all_classes"}
    parsing = tf.estimator.export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(COLS))
    sigs = _signatures(est.export_savedmodel(str(tmp_path / "parsed"), parsing).decode())
    assert set(sigs) == {"serving_default", "classification", "regression", "predict"}
    assert set(sigs["classification"].outputs) == {"classes", "scores"}


def test_export_needs_a_checkpoint(tmp_path):
    est = tf.estimator.DNNRegressor(hidden_units=[2], feature_columns=COLS, model_dir=str(tmp_path / "m"))
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(COLS))
    with pytest.raises(ValueError, match="Couldn't find trained model at"):
        est.export_saved_model(str(tmp_path / "e"), receiver)
    assert not os.path.exists(tmp_path / "e") or os.listdir(tmp_path / "e") == []


def test_exported_parse_example_node_has_tensorflows_layout(tmp_path, data):
    """TF's ParseExample op def: serialized, names, Nsparse + Ndense key inputs, the defaults; attrs
    Nsparse, Ndense, sparse_types, Tdense, dense_shapes and nothing else (TF 2.21 loads such an
    export and serves the same predictions: checked once with tests/estimator/check_export_in_tf.py)."""
    x, y, _ = data
    est = _trained(tmp_path, data, tf.estimator.DNNRegressor, y, hidden_units=[2])
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(COLS))
    export_dir = est.export_saved_model(str(tmp_path / "e"), receiver).decode()
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    nodes = {n.name: n for n in sm.meta_graphs[0].graph_def.node}
    parse = nodes["ParseExample"]
    assert sorted(parse.attr) == ["Ndense", "Nsparse", "Tdense", "dense_shapes", "sparse_types"]
    assert parse.attr["Ndense"].i == 1 and parse.attr["Nsparse"].i == 0
    assert list(parse.input) == ["input_example_tensor", "ParseExample/names", "ParseExample/dense_keys_0",
                                 "ParseExample/key_x"]
    assert nodes["ParseExample/dense_keys_0"].attr["value"].tensor.string_val == [b"x"]
    assert "T" not in nodes["dnn/Cast"].attr if "dnn/Cast" in nodes else True


def test_train_and_evaluate_with_latest_and_final_exporters(tmp_path, data):
    x, y, _ = data
    est = tf.estimator.DNNRegressor(hidden_units=[2], feature_columns=COLS, model_dir=str(tmp_path / "m"),
                                    config=tf.estimator.RunConfig(save_checkpoints_steps=10))
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(COLS))
    latest = tf.estimator.LatestExporter("latest", receiver, exports_to_keep=2)
    final = tf.estimator.FinalExporter("final", receiver)
    train_spec = tf.estimator.TrainSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, y, num_epochs=None, shuffle=True), max_steps=30)
    eval_spec = tf.estimator.EvalSpec(tf.estimator.inputs.numpy_input_fn({"x": x}, y, shuffle=False),
                                      steps=None, exporters=[latest, final], throttle_secs=0)
    metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    assert metrics["global_step"] == 30
    # evaluations at steps 10, 20, 30: three latest exports (two kept) and one final export
    assert len([e for e in exports if e is not None]) == 4
    assert len(os.listdir(tmp_path / "m" / "export" / "latest")) == 2
    (final_dir,) = os.listdir(tmp_path / "m" / "export" / "final")
    assert set(_signatures(str(tmp_path / "m" / "export" / "final" / final_dir))) == {
        "serving_default", "regression", "predict"}
    with pytest.raises(ValueError, match="must have unique names"):
        tf.estimator.EvalSpec(eval_spec.input_fn, exporters=[latest, latest])
