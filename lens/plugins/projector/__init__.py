"""The embedding projector's writer (tensorboard.plugins.projector, TF1's
tf.contrib.tensorboard.plugins.projector): ProjectorConfig, EmbeddingInfo, SpriteMetadata and
visualize_embeddings(writer_or_logdir, config)."""

from lens.plugins.projector import projector_config_pb2  # noqa: F401
from lens.plugins.projector.projector_config_pb2 import (EmbeddingInfo, ProjectorConfig,  # noqa: F401
                                                         SpriteMetadata)
from lens.events.plugins.projector import visualize_embeddings  # noqa: F401

__all__ = ["EmbeddingInfo", "ProjectorConfig", "SpriteMetadata", "visualize_embeddings"]
