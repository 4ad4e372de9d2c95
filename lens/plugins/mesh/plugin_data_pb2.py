"""tensorboard.plugins.mesh.plugin_data_pb2 under lens (the same message and fields)."""

from lens.proto.mesh_plugin_data_pb2 import MeshPluginData  # noqa: F401

__all__ = ["MeshPluginData"]
