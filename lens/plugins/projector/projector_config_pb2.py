"""tensorboard.plugins.projector.projector_config_pb2 under lens (the same messages and fields)."""

from lens.proto.projector_config_pb2 import EmbeddingInfo, ProjectorConfig, SpriteMetadata  # noqa: F401

__all__ = ["EmbeddingInfo", "ProjectorConfig", "SpriteMetadata"]
