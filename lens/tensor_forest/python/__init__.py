"""tf.contrib.tensor_forest.python, as TF's module path (`from ... import tensor_forest`)."""
from lens.tensor_forest.python import tensor_forest  # noqa: F401

__all__ = ["tensor_forest"]
