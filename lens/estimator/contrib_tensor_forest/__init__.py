"""tf.contrib.tensor_forest.client: `random_forest.TensorForestEstimator` (tf.contrib.learn style)."""
from lens.estimator.contrib_tensor_forest import random_forest  # noqa: F401

__all__ = ["random_forest"]
