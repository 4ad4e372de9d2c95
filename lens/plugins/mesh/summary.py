"""tensorboard.plugins.mesh.summary under lens."""

from lens.events.plugins.mesh import op, pb  # noqa: F401

__all__ = ["op", "pb"]
