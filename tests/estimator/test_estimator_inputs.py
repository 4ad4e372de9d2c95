"""Estimator inputs: params and config reach model_fn/input_fn, Dataset input_fns, seeds, weights,
and SparseTensor features from parse_example through categorical columns."""
import numpy as np

import lens as tf

fc = tf.feature_column


def test_params_config_and_dataset_input_fn(tmp_path):
    seen = {}

    def model_fn(features, labels, mode, params, config):
        seen["params"], seen["seed"] = params, config.tf_random_seed
        w = tf.get_variable("w", [], tf.float32, initializer=tf.zeros_initializer())
        pred = w * features["x"]
        loss = tf.reduce_mean(tf.square(pred - labels))
        train = tf.train.GradientDescentOptimizer(params["lr"]).minimize(loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, predictions=pred, loss=loss, train_op=train)

    def input_fn(params):
        seen["input_params"] = params
        ds = tf.data.Dataset.from_tensor_slices(({"x": np.arange(8, dtype=np.float32)},
                                                 3 * np.arange(8, dtype=np.float32)))
        return ds.repeat().batch(4)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), params={"lr": 0.01},
                                 config=tf.estimator.RunConfig(tf_random_seed=7))
    est.train(input_fn, steps=50)
    assert seen == {"params": {"lr": 0.01}, "seed": 7, "input_params": {"lr": 0.01}}
    np.testing.assert_allclose(est.get_variable_value("w"), 3.0, rtol=1e-3)


def test_tf_random_seed_makes_initial_models_equal(tmp_path):
    cols = [fc.numeric_column("x", shape=2)]
    preds = []
    for name in ("a", "b"):
        est = tf.estimator.DNNRegressor([3], cols, model_dir=str(tmp_path / name),
                                        config=tf.estimator.RunConfig(tf_random_seed=3))
        preds.append([p["predictions"][0] for p in est.predict(tf.estimator.inputs.numpy_input_fn(
            {"x": np.ones((2, 2), np.float32)}, shuffle=False))])
    assert preds[0] == preds[1]


def test_weight_column_scales_the_loss(tmp_path):
    x = np.ones((4, 1), np.float32)
    y = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    cols = [fc.numeric_column("x")]
    est = tf.estimator.LinearRegressor(cols, model_dir=str(tmp_path), weight_column="w")
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x, "w": np.ones(4, np.float32)}, y, shuffle=False),
              steps=1)
    metrics = {}
    for weights in ([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 2.0]):
        metrics[weights[0]] = est.evaluate(tf.estimator.inputs.numpy_input_fn(
            {"x": x, "w": np.array(weights, np.float32)}, y, batch_size=4, shuffle=False))
    pred = next(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))["predictions"][0]
    np.testing.assert_allclose(metrics[1.0]["average_loss"], np.mean((y - pred) ** 2), rtol=1e-5)
    np.testing.assert_allclose(metrics[0.0]["average_loss"], (4 - pred) ** 2, rtol=1e-5)  # weighted mean
    np.testing.assert_allclose(metrics[0.0]["loss"], 2 * (4 - pred) ** 2, rtol=1e-5)  # SUM reduction


def test_categorical_columns_read_sparse_features_from_examples():
    examples = []
    for tags in (["a", "c"], [], ["b"]):
        ex = tf.train.Example(features=tf.train.Features(feature={
            "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[t.encode() for t in tags]))}))
        examples.append(ex.SerializeToString())
    tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
    with tf.Graph().as_default():
        features = tf.parse_example(tf.constant(examples), fc.make_parse_example_spec([tags]))
        out = fc.input_layer(features, [fc.indicator_column(tags)])
        with tf.Session() as sess:
            got = sess.run(out)
    np.testing.assert_allclose(got, [[1, 0, 1], [0, 0, 0], [0, 1, 0]])
