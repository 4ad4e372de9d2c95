"""PR curve summaries (tensorboard.plugins.pr_curve): op, pb, raw_data_op, raw_data_pb,
streaming_op."""

from lens.plugins.pr_curve.summary import (op, pb, raw_data_op, raw_data_pb,  # noqa: F401
                                           streaming_op)
