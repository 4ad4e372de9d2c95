"""Canned estimators: they learn, and name variables, metrics and summaries as TF1.15's do.

The expected names are TF1.15's (estimator 1.15 canned/metric_keys.py, head.py, and the
get_variable_names() listings of TF1.15 canned models); TensorFlow 2.21 no longer ships
tf.estimator, so they are written here rather than recorded."""
import numpy as np
import pytest

import lens as tf
from lens.events.provider import DataProvider

fc = tf.feature_column
COLS = [fc.numeric_column("x", shape=3)]
BINARY_KEYS = {"loss", "average_loss", "global_step", "accuracy", "accuracy_baseline", "auc",
               "auc_precision_recall", "label/mean", "precision", "prediction/mean", "recall"}
REGRESSION_KEYS = {"loss", "average_loss", "global_step", "label/mean", "prediction/mean"}
DNN_VARS = ["dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/bias/t_0/Adagrad", "dnn/hiddenlayer_0/kernel",
            "dnn/hiddenlayer_0/kernel/t_0/Adagrad", "dnn/logits/bias", "dnn/logits/bias/t_0/Adagrad",
            "dnn/logits/kernel", "dnn/logits/kernel/t_0/Adagrad", "global_step"]
LINEAR_VARS = ["linear/linear_model/bias_weights", "linear/linear_model/bias_weights/part_0/Ftrl",
               "linear/linear_model/bias_weights/part_0/Ftrl_1", "linear/linear_model/x/weights",
               "linear/linear_model/x/weights/part_0/Ftrl", "linear/linear_model/x/weights/part_0/Ftrl_1"]


def _inputs(x, y):
    train = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=32, num_epochs=None, shuffle=True)
    evaluate = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=100, num_epochs=1, shuffle=False)
    return train, evaluate


def _train_and_check(est, x, y, steps=150):
    train, evaluate = _inputs(x, y)
    before = est.evaluate(evaluate)
    est.train(train, steps=steps)
    after = est.evaluate(evaluate)
    assert after["loss"] < before["loss"] * 0.5
    assert after["global_step"] == steps
    return after


def test_dnn_regressor_seed_example(tmp_path, data):
    """The seed notes' DNNRegressor + numpy_input_fn: names, metrics, events and predictions."""
    x, y, _ = data
    est = tf.estimator.DNNRegressor(hidden_units=[8, 4], feature_columns=COLS, model_dir=str(tmp_path),
                                    config=tf.estimator.RunConfig(save_summary_steps=50, tf_random_seed=3))
    metrics = _train_and_check(est, x, y)  # seeded: unseeded, some random starts do not halve the loss
    assert set(metrics) == REGRESSION_KEYS
    np.testing.assert_allclose(metrics["loss"], metrics["average_loss"] * 100, rtol=1e-4)  # SUM over a batch of 100
    assert est.get_variable_names() == sorted(
        DNN_VARS[:4] + ["dnn/hiddenlayer_1/bias", "dnn/hiddenlayer_1/bias/t_0/Adagrad", "dnn/hiddenlayer_1/kernel",
                        "dnn/hiddenlayer_1/kernel/t_0/Adagrad"] + DNN_VARS[4:])
    assert est.get_variable_value("dnn/hiddenlayer_0/kernel").shape == (3, 8)
    preds = list(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:5]}, shuffle=False)))
    assert [sorted(p) for p in preds] == [["predictions"]] * 5
    np.testing.assert_allclose([p["predictions"][0] for p in preds], y[:5], atol=1.0)
    provider = DataProvider(str(tmp_path), reload_interval=0)
    provider.reload()
    tags = set(provider.list_tags("scalars")["."])
    assert {"loss", "average_loss", "global_step/sec", "dnn/dnn/hiddenlayer_0/fraction_of_zero_values",
            "dnn/dnn/logits/fraction_of_zero_values"} <= tags
    assert "dnn/dnn/hiddenlayer_0/activation" in provider.list_tags("histograms")["."]
    assert set(provider.list_tags("scalars")["eval"]) == REGRESSION_KEYS - {"global_step"}


def test_dnn_classifier_binary_metrics_and_predictions(tmp_path, data):
    x, _, labels = data
    est = tf.estimator.DNNClassifier(hidden_units=[8], feature_columns=COLS, model_dir=str(tmp_path),
                                     config=tf.estimator.RunConfig(tf_random_seed=3))
    metrics = _train_and_check(est, x, labels)
    assert set(metrics) == BINARY_KEYS
    assert metrics["accuracy"] > 0.9 and metrics["auc"] > 0.95
    np.testing.assert_allclose(metrics["label/mean"], labels.mean(), rtol=1e-6)
    np.testing.assert_allclose(metrics["accuracy_baseline"], max(labels.mean(), 1 - labels.mean()), rtol=1e-6)
    assert est.get_variable_names() == DNN_VARS
    pred = next(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))
    assert set(pred) == {"logits", "logistic", "probabilities", "class_ids", "classes", "all_class_ids",
                         "all_classes"}
    assert pred["classes"][0] == str(pred["class_ids"][0]).encode()
    np.testing.assert_allclose(pred["probabilities"].sum(), 1.0, rtol=1e-6)


def test_linear_classifier_multiclass_with_vocabulary(tmp_path, data):
    x, y, _ = data
    names = np.array(["low", "mid", "high"])
    labels = names[np.digitize(y, [-1.0, 1.0])]
    est = tf.estimator.LinearClassifier(feature_columns=COLS, n_classes=3, label_vocabulary=list(names),
                                        model_dir=str(tmp_path))
    metrics = _train_and_check(est, x, labels)
    assert set(metrics) == {"loss", "average_loss", "accuracy", "global_step"}
    assert metrics["accuracy"] > 0.8
    assert [n for n in est.get_variable_names() if n != "global_step"] == LINEAR_VARS
    assert est.get_variable_value("linear/linear_model/x/weights").shape == (3, 3)
    pred = next(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))
    assert pred["classes"][0] in (b"low", b"mid", b"high")
    assert pred["all_classes"].tolist() == [b"low", b"mid", b"high"]


def test_linear_regressor_with_categorical_columns(tmp_path):
    rng = np.random.RandomState(1)
    color = rng.choice(["red", "green", "blue"], 120)
    size = rng.rand(120).astype(np.float32)
    y = (np.select([color == "red", color == "green"], [1.0, -1.0], 0.5) + 2 * size).astype(np.float32)
    cols = [fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"]),
            fc.numeric_column("size")]
    est = tf.estimator.LinearRegressor(feature_columns=cols, model_dir=str(tmp_path))
    train = tf.estimator.inputs.numpy_input_fn({"color": color, "size": size}, y, batch_size=30,
                                               num_epochs=None, shuffle=True)
    est.train(train, steps=200)
    w = est.get_variable_value("linear/linear_model/color/weights").ravel()
    assert w[0] > w[2] > w[1]  # red > blue > green, as the data says


def test_dnn_linear_combined(tmp_path, data):
    x, y, labels = data
    reg = tf.estimator.DNNLinearCombinedRegressor(linear_feature_columns=COLS, dnn_feature_columns=COLS,
                                                  dnn_hidden_units=[4], model_dir=str(tmp_path / "r"),
                                                  config=tf.estimator.RunConfig(tf_random_seed=3))  # seeded: see above
    metrics = _train_and_check(reg, x, y)
    assert set(metrics) == REGRESSION_KEYS
    names = reg.get_variable_names()
    assert "dnn/hiddenlayer_0/kernel" in names and "linear/linear_model/x/weights" in names
    assert "dnn/hiddenlayer_0/kernel/t_0/Adagrad" in names and "linear/linear_model/x/weights/part_0/Ftrl" in names
    cls = tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=COLS, dnn_feature_columns=COLS,
                                                   dnn_hidden_units=[4], model_dir=str(tmp_path / "c"),
                                                   config=tf.estimator.RunConfig(tf_random_seed=3))
    assert set(_train_and_check(cls, x, labels)) == BINARY_KEYS


def test_canned_argument_errors():
    with pytest.raises(ValueError, match="Either linear_feature_columns or dnn_feature_columns must be defined."):
        tf.estimator.DNNLinearCombinedRegressor()
    with pytest.raises(ValueError, match="Unsupported optimizer name: Foo"):
        with tf.Graph().as_default():
            from lens.estimator.canned.optimizers import get_optimizer_instance
            get_optimizer_instance("Foo", 0.1)
    with pytest.raises(ValueError, match="n_classes must be > 2"):
        from lens.estimator.canned.head_classification import MultiClassHead
        MultiClassHead(1)


def test_warm_start_from_another_model(tmp_path, data):
    x, y, _ = data
    first = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=COLS, model_dir=str(tmp_path / "a"))
    first.train(_inputs(x, y)[0], steps=20)
    second = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=COLS, model_dir=str(tmp_path / "b"),
                                       warm_start_from=tf.estimator.WarmStartSettings(
                                           str(tmp_path / "a"), vars_to_warm_start="dnn/hiddenlayer.*"))
    second.train(_inputs(x, y)[0], steps=1)
    # one Adagrad step moved the warm-started kernel only a little from the first model's value
    a = first.get_variable_value("dnn/hiddenlayer_0/kernel")
    b = second.get_variable_value("dnn/hiddenlayer_0/kernel")
    assert np.abs(a - b).max() < 0.1
    assert not np.allclose(first.get_variable_value("dnn/logits/kernel"),
                           second.get_variable_value("dnn/logits/kernel"), atol=0.1)
    with pytest.raises(ValueError, match="is not found in"):
        tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=COLS, model_dir=str(tmp_path / "c"),
                                  warm_start_from=tf.estimator.WarmStartSettings(
                                      str(tmp_path / "a"), var_name_to_prev_var_name={
                                          "dnn/logits/bias": "no/such/var"})).train(_inputs(x, y)[0], steps=1)


def test_dnn_batch_norm_variables(tmp_path, data):
    x, y, _ = data
    # Seeded: from some random starts 100 steps of a 4-unit batch-normed layer do not lower the loss.
    est = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=COLS, model_dir=str(tmp_path),
                                    batch_norm=True, config=tf.estimator.RunConfig(tf_random_seed=0))
    train, evaluate = _inputs(x, y)
    before = est.evaluate(evaluate)
    est.train(train, steps=100)
    metrics = est.evaluate(evaluate)
    assert metrics["loss"] < before["loss"]
    names = est.get_variable_names()
    for v in ("gamma", "beta", "moving_mean", "moving_variance"):
        assert "dnn/hiddenlayer_0/batchnorm_0/" + v in names
    # the moving statistics were updated by the train op (UPDATE_OPS)
    assert not np.allclose(est.get_variable_value("dnn/hiddenlayer_0/batchnorm_0/moving_mean"), 0.0)
    assert metrics["global_step"] == 100


def test_wide_and_deep_with_categorical_hashed_and_crossed_columns(tmp_path):
    rng = np.random.RandomState(0)
    n = 300
    edu = rng.choice(["hs", "college", "phd"], n)
    occ = rng.choice(["a", "b", "c", "d"], n)
    age = rng.randint(18, 70, n).astype(np.float32)
    y = ((edu == "phd") | ((occ == "a") & (age > 40))).astype(np.int64)
    edu_c = fc.categorical_column_with_vocabulary_list("edu", ["hs", "college", "phd"])
    occ_c = fc.categorical_column_with_hash_bucket("occ", 10)
    age_b = fc.bucketized_column(fc.numeric_column("age"), [30, 40, 50])
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[edu_c, occ_c, age_b, fc.crossed_column(["occ", age_b], 50)],
        dnn_feature_columns=[fc.indicator_column(edu_c), fc.embedding_column(occ_c, 3), fc.numeric_column("age")],
        dnn_hidden_units=[8], model_dir=str(tmp_path),
        config=tf.estimator.RunConfig(tf_random_seed=7))  # seeded: the accuracy check must not be luck
    feats = {"edu": edu, "occ": occ, "age": age}
    est.train(tf.estimator.inputs.numpy_input_fn(feats, y, batch_size=50, num_epochs=None, shuffle=True),
              steps=500)
    metrics = est.evaluate(tf.estimator.inputs.numpy_input_fn(feats, y, shuffle=False))
    assert metrics["accuracy"] > metrics["accuracy_baseline"] + 0.15
    names = est.get_variable_names()
    for name in ("dnn/input_from_feature_columns/input_layer/occ_embedding/embedding_weights",
                 "linear/linear_model/age_bucketized_X_occ/weights", "linear/linear_model/edu/weights",
                 "linear/linear_model/occ/weights", "linear/linear_model/age_bucketized/weights"):
        assert name in names
    assert est.get_variable_value("linear/linear_model/age_bucketized_X_occ/weights").shape == (50, 1)


def test_baseline_estimators_learn_the_prior(tmp_path, data):
    x, y, labels = data
    reg = tf.estimator.BaselineRegressor(model_dir=str(tmp_path / "r"))
    train, evaluate = _inputs(x, y)
    reg.train(train, steps=300)
    assert reg.get_variable_names()[:2] == ["baseline/bias", "baseline/bias/Ftrl"]
    np.testing.assert_allclose(reg.get_variable_value("baseline/bias"), [y.mean()], atol=0.2)
    assert set(reg.evaluate(evaluate)) == REGRESSION_KEYS
    cls = tf.estimator.BaselineClassifier(model_dir=str(tmp_path / "c"), n_classes=3)
    three = np.digitize(y, [-1.0, 1.0])
    cls.train(_inputs(x, three)[0], steps=300)
    probs = next(cls.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))["probabilities"]
    np.testing.assert_allclose(probs, np.bincount(three, minlength=3) / len(three), atol=0.1)
