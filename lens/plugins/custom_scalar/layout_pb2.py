"""tensorboard.plugins.custom_scalar.layout_pb2 under lens (the same messages and fields)."""

from lens.proto.custom_scalar_layout_pb2 import (Category, Chart, Layout,  # noqa: F401
                                                 MarginChartContent, MultilineChartContent)

__all__ = ["Category", "Chart", "Layout", "MarginChartContent", "MultilineChartContent"]
