"""Mesh and point-cloud summaries (tensorboard.plugins.mesh): op, pb and the plugin data proto."""

from lens.plugins.mesh import plugin_data_pb2  # noqa: F401
from lens.plugins.mesh.summary import op, pb  # noqa: F401
