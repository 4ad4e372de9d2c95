"""tf.contrib.boosted_trees.estimator_batch: the GBDT estimators (`estimator` module, as TF's path)."""
from lens.estimator.contrib_boosted_trees.estimator_batch import estimator  # noqa: F401

__all__ = ["estimator"]
