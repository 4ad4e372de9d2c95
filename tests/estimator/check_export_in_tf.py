"""Manual interop check (not a test): lens exports canned estimators, TensorFlow serves them.

    .venv/bin/python tests/estimator/check_export_in_tf.py export /tmp/tfcheck
    /tmp/tfvenv/bin/python tests/estimator/check_export_in_tf.py serve /tmp/tfcheck

The first step trains a DNNRegressor and a DNNClassifier in lens and exports them with a parsing
serving receiver; the second loads both SavedModels with TensorFlow's compat.v1 loader, feeds
serialized tf.Examples to their signatures and compares with lens's Estimator.predict."""
import json
import os
import sys

import numpy as np


def export(out):
    import lens as tf
    fc = tf.feature_column
    rng = np.random.RandomState(0)
    x = rng.randn(100, 3).astype(np.float32)
    y = (x @ np.array([1., -2., .5], np.float32)).astype(np.float32)
    cols = [fc.numeric_column("x", shape=3)]
    for name, est, labels in [
            ("reg", tf.estimator.DNNRegressor([4], cols, model_dir=os.path.join(out, "mreg")), y),
            ("cls", tf.estimator.DNNClassifier([4], cols, model_dir=os.path.join(out, "mcls")),
             (y > 0).astype(np.int64))]:
        est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, labels, num_epochs=None, shuffle=True), steps=20)
        receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(cols))
        path = est.export_saved_model(os.path.join(out, "exp_" + name), receiver).decode()
        key = "predictions" if name == "reg" else "probabilities"
        preds = [p[key].tolist() for p in est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:3]}, shuffle=False))]
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({"dir": path, "x": x[:3].tolist(), "expected": preds}, f)


def serve(out):
    import tensorflow as tf
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    for name, sig_name, output in [("reg", "serving_default", "outputs"), ("reg", "predict", "predictions"),
                                   ("cls", "serving_default", "scores"), ("cls", "predict", "probabilities")]:
        with open(os.path.join(out, name + ".json")) as f:
            info = json.load(f)
        examples = [tf.train.Example(features=tf.train.Features(feature={
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=row))})).SerializeToString()
            for row in info["x"]]
        with tf.Graph().as_default(), v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, ["serve"], info["dir"])
            sig = meta.signature_def[sig_name]
            got = sess.run(sig.outputs[output].name, {list(sig.inputs.values())[0].name: examples})
        same = np.allclose(np.ravel(got), np.ravel(info["expected"]), rtol=1e-5)
        print(name, sig_name, sorted(meta.signature_def), "same outputs" if same else "DIFFERENT")


if __name__ == "__main__":
    {"export": export, "serve": serve}[sys.argv[1]](sys.argv[2])
