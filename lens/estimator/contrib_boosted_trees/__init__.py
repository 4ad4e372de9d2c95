"""tf.contrib.boosted_trees: GradientBoostedDecisionTreeClassifier / Regressor configured by a
learner_pb2.LearnerConfig (layer-by-layer trees; the kernels are tf.estimator.BoostedTrees*')."""
from lens.estimator.contrib_boosted_trees import estimator_batch, proto  # noqa: F401

__all__ = ["estimator_batch", "proto"]
