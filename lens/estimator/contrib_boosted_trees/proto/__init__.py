"""tf.contrib.boosted_trees.proto: learner_pb2 (LearnerConfig and its parts, TensorFlow's field numbers)."""
from lens.proto import boosted_trees_learner_pb2 as learner_pb2

__all__ = ["learner_pb2"]
