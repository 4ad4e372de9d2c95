"""Custom scalar layouts: TensorBoard's `custom_scalar.summary` (op, pb). The layout proto is
written as a string tensor under the tag 'custom_scalars__config__' (plugin 'custom_scalars')."""

import numpy as np

from lens.events import summary_builders as B
from lens.events import summary_ops
from lens.framework import dtypes
from lens.framework.convert import constant
from lens.proto import custom_scalar_layout_pb2 as layout_pb2
from lens.proto import summary_pb2

PLUGIN_NAME = "custom_scalars"
CONFIG_SUMMARY_TAG = "custom_scalars__config__"


def create_summary_metadata():
    """SummaryMetadata naming the custom_scalars plugin (no content)."""
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME))


def _layout_bytes(scalars_layout):
    """Serialized Layout; accepts lens's Layout or any message with the same wire format."""
    serialize = getattr(scalars_layout, "SerializeToString", None)
    if serialize is None or type(scalars_layout).__name__ != "Layout":
        raise TypeError("scalars_layout must be a Layout proto (lens.plugins.custom_scalar."
                        "layout_pb2.Layout), got %s" % type(scalars_layout).__name__)
    data = serialize()
    layout_pb2.Layout.FromString(data)  # a foreign Layout must still be a valid lens Layout
    return data


def pb(scalars_layout):
    """A Summary proto holding the layout."""
    tensor = B._tensor_proto(np.array(_layout_bytes(scalars_layout), dtype=object))
    value = summary_pb2.Summary.Value(tag=CONFIG_SUMMARY_TAG, tensor=tensor,
                                      metadata=create_summary_metadata())
    return summary_pb2.Summary(value=[value])


def op(scalars_layout, collections=None):
    """A summary op that writes the layout when run."""
    data = constant(_layout_bytes(scalars_layout), dtype=dtypes.string)
    return summary_ops.tensor_summary(CONFIG_SUMMARY_TAG, data, collections=collections,
                                      summary_metadata=create_summary_metadata())
