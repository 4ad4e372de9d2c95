"""tensorboard.summary.v1's plugin names under lens: pr_curve*, custom_scalar*."""

from lens.events.plugins.custom_scalar import op as custom_scalar  # noqa: F401
from lens.events.plugins.custom_scalar import pb as custom_scalar_pb  # noqa: F401
from lens.events.plugins.pr_curve import op as pr_curve  # noqa: F401
from lens.events.plugins.pr_curve import pb as pr_curve_pb  # noqa: F401
from lens.events.plugins.pr_curve import raw_data_op as pr_curve_raw_data_op  # noqa: F401
from lens.events.plugins.pr_curve import raw_data_pb as pr_curve_raw_data_pb  # noqa: F401
from lens.events.plugins.pr_curve import streaming_op as pr_curve_streaming_op  # noqa: F401

__all__ = ["custom_scalar", "custom_scalar_pb", "pr_curve", "pr_curve_pb",
           "pr_curve_raw_data_op", "pr_curve_raw_data_pb", "pr_curve_streaming_op"]
