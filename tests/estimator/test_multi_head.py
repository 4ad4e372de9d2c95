"""tf.contrib.estimator.multi_head: one DNN trained on a regression and a classification head."""
import numpy as np
import pytest

import lens as tf


def test_multi_head_trains_both_heads(tmp_path, data):
    x, y, labels = data
    contrib = tf.contrib.estimator
    head = contrib.multi_head([contrib.regression_head(name="value"),
                               contrib.binary_classification_head(name="sign")])
    est = contrib.DNNEstimator(head=head, hidden_units=[8], model_dir=str(tmp_path),
                               feature_columns=[tf.feature_column.numeric_column("x", shape=3)])
    train = tf.estimator.inputs.numpy_input_fn({"x": x}, {"value": y, "sign": labels}, batch_size=32,
                                               num_epochs=None, shuffle=True)
    evaluate = tf.estimator.inputs.numpy_input_fn({"x": x}, {"value": y, "sign": labels}, batch_size=100,
                                                  shuffle=False)
    before = est.evaluate(evaluate)
    est.train(train, steps=200)
    after = est.evaluate(evaluate)
    assert {"loss", "global_step", "loss/value", "loss/sign", "average_loss/value", "average_loss/sign",
            "label/mean/value", "prediction/mean/value", "accuracy/sign", "auc/sign", "precision/sign",
            "recall/sign"} <= set(after)
    assert after["loss"] < before["loss"] * 0.5 and after["accuracy/sign"] > 0.9
    # contrib heads reduce with SUM_OVER_BATCH_SIZE: the per-head loss is the per-example mean
    np.testing.assert_allclose(after["loss/value"], after["average_loss/value"], rtol=1e-4)
    np.testing.assert_allclose(after["loss"], after["loss/value"] + after["loss/sign"], rtol=1e-4)
    pred = next(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))
    assert ("value", "predictions") in pred and ("sign", "probabilities") in pred
    assert est.get_variable_value("dnn/logits/kernel").shape == (8, 2)


def test_multi_head_errors():
    contrib = tf.contrib.estimator
    with pytest.raises(ValueError, match="All given heads must have name specified"):
        contrib.multi_head([contrib.regression_head()])
    with pytest.raises(ValueError, match="heads and head_weights must have the same size"):
        contrib.multi_head([contrib.regression_head(name="a")], head_weights=[1.0, 2.0])


def test_add_metrics_reports_extra_metrics(tmp_path, data):
    x, y, _ = data
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=3)], model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, num_epochs=None, shuffle=True), steps=20)

    def rmse(labels, predictions):
        return {"rmse": tf.metrics.root_mean_squared_error(labels, predictions["predictions"][:, 0])}
    metrics = tf.contrib.estimator.add_metrics(est, rmse).evaluate(
        tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=200, shuffle=False))
    np.testing.assert_allclose(metrics["rmse"] ** 2, metrics["average_loss"], rtol=1e-4)
    with pytest.raises(ValueError, match="must include predictions argument"):
        tf.contrib.estimator.add_metrics(est, lambda labels: {})
