"""tf.contrib.tensor_forest.client.random_forest.TensorForestEstimator: fit / evaluate / predict on
synthetic data, the head's probabilities equal to the forest's, and the early stop once trees are full."""
import numpy as np
import pytest

import lens as tf
from lens.contrib.tensor_forest.client import random_forest
from lens.contrib.tensor_forest.python import tensor_forest


def _data():
    rng = np.random.RandomState(0)
    x = rng.uniform(0, 1, (600, 4)).astype(np.float32)
    return x, (x[:, 0] + x[:, 1] > 1).astype(np.int64)


def test_fit_evaluate_predict_and_early_stop(tmp_path):
    x, y = _data()
    params = tensor_forest.ForestHParams(num_classes=2, num_features=4, num_trees=3, max_nodes=31,
                                         split_after_samples=20, base_random_seed=7).fill()
    est = random_forest.TensorForestEstimator(params, model_dir=str(tmp_path), early_stopping_rounds=5)
    est.fit(input_fn=tf.estimator.inputs.numpy_input_fn(x, y, batch_size=100, num_epochs=None, shuffle=True),
            max_steps=500)
    sizes = tf.train.load_checkpoint(est.model_dir).get_tensor
    assert [sizes("tree-%d/size" % i) for i in range(3)] == [31, 31, 31]   # full trees
    assert sizes("global_step") < 500                                       # then the loss hook stopped it
    metrics = est.evaluate(input_fn=tf.estimator.inputs.numpy_input_fn(x, y, batch_size=600, shuffle=False))
    assert metrics["accuracy"] > 0.9
    preds = list(est.predict(input_fn=tf.estimator.inputs.numpy_input_fn(x, y, batch_size=600, shuffle=False)))
    probs = np.array([p["probabilities"] for p in preds])
    np.testing.assert_allclose(probs.sum(1), 1, rtol=1e-5)
    assert ((probs[:, 1] > 0.5) == [p["class_ids"][0] for p in preds]).all()


def test_regression_is_refused_with_a_clear_error():
    params = tensor_forest.ForestHParams(num_classes=1, num_features=2, regression=True).fill()
    with pytest.raises(NotImplementedError, match="regression"):
        random_forest.TensorForestEstimator(params)
