"""tensorboard.plugins.custom_scalar.summary under lens."""

from lens.events.plugins.custom_scalar import op, pb  # noqa: F401

__all__ = ["op", "pb"]
