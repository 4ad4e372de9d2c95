"""The embedding projector's config: `visualize_embeddings(writer_or_logdir, config)` writes
ProjectorConfig as text to '<logdir>/projector_config.pbtxt' (TensorBoard's projector reads it
there, beside the run's checkpoints)."""

import os

from google.protobuf import text_format

from lens.events import gfile
from lens.proto import projector_config_pb2

PLUGIN_NAME = "projector"
PROJECTOR_FILENAME = "projector_config.pbtxt"
ProjectorConfig = projector_config_pb2.ProjectorConfig
EmbeddingInfo = projector_config_pb2.EmbeddingInfo
SpriteMetadata = projector_config_pb2.SpriteMetadata


def _as_lens_config(config):
    """lens's ProjectorConfig from lens's or any wire-compatible one (e.g. TensorBoard's)."""
    if isinstance(config, ProjectorConfig):
        return config
    serialize = getattr(config, "SerializeToString", None)
    if serialize is None or type(config).__name__ != "ProjectorConfig":
        raise TypeError("config must be a ProjectorConfig (lens.plugins.projector.ProjectorConfig), got %s"
                        % type(config).__name__)
    return ProjectorConfig.FromString(serialize())


def visualize_embeddings(writer_or_logdir, config):
    """Write config to <logdir>/projector_config.pbtxt; writer_or_logdir is a FileWriter or a path."""
    logdir = getattr(writer_or_logdir, "get_logdir", lambda: writer_or_logdir)()
    if logdir is None:
        raise ValueError("Expected logdir to be a path, but got None")
    text = text_format.MessageToString(_as_lens_config(config))
    logdir = os.fspath(logdir)
    gfile.makedirs(logdir)
    with gfile.GFile(os.path.join(logdir, PROJECTOR_FILENAME), "w") as f:
        f.write(text)
