"""tf.contrib.tensor_forest: online random forests (`python.tensor_forest`'s ForestHParams and
RandomForestGraphs) with NumPy tree kernels (`forest_ops`)."""
from lens.tensor_forest import python  # noqa: F401 - tf.contrib.tensor_forest.python.tensor_forest
from lens.tensor_forest.python.tensor_forest import ForestHParams, RandomForestGraphs

__all__ = ["python", "ForestHParams", "RandomForestGraphs"]
