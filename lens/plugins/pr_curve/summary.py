"""tensorboard.plugins.pr_curve.summary under lens."""

from lens.events.plugins.pr_curve import (op, pb, raw_data_op, raw_data_pb,  # noqa: F401
                                          streaming_op)

__all__ = ["op", "pb", "raw_data_op", "raw_data_pb", "streaming_op"]
