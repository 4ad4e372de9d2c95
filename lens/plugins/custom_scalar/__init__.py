"""Custom scalar layouts (tensorboard.plugins.custom_scalar): op, pb and the layout protos."""

from lens.plugins.custom_scalar import layout_pb2  # noqa: F401
from lens.plugins.custom_scalar.summary import op, pb  # noqa: F401
from lens.plugins.custom_scalar.layout_pb2 import (Category, Chart, Layout,  # noqa: F401
                                                   MarginChartContent, MultilineChartContent)
