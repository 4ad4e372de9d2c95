"""Mesh summaries: TensorBoard's `mesh.summary` (op, pb). A mesh is up to three tensor summaries,
'<name>_VERTEX' (float32 [batch, points, 3]), '<name>_FACE' (int32 [batch, faces, 3]) and
'<name>_COLOR' (uint8 [batch, points, 3]), each with MeshPluginData naming the mesh, the part,
the parts present (a bitmask) and the part's shape; the board regroups them by name."""

import json

import numpy as np

from lens.events import summary_builders as B
from lens.events import summary_ops
from lens.framework import dtypes
from lens.framework.convert import convert_to_tensor
from lens.ops import math
from lens.proto import mesh_plugin_data_pb2, summary_pb2

PLUGIN_NAME = "mesh"
PROTO_VERSION = 0
ContentType = mesh_plugin_data_pb2.MeshPluginData
_PARTS = ((ContentType.VERTEX, dtypes.float32, np.float32),
          (ContentType.FACE, dtypes.int32, np.int32),
          (ContentType.COLOR, dtypes.uint8, np.uint8))


def components_bitmask(content_types):
    """The bitmask of the parts present (1 << content_type each)."""
    out = 0
    for content_type in content_types:
        if content_type == ContentType.UNDEFINED:
            raise ValueError("Cannot include UNDEFINED content type in mask.")
        out |= 1 << content_type
    return out


def instance_name(name, content_type):
    """The tag of one part: '<name>_VERTEX', '<name>_FACE' or '<name>_COLOR'."""
    return "%s_%s" % (name, ContentType.ContentType.Name(content_type))


def create_summary_metadata(name, display_name, content_type, components, shape, description=None,
                            json_config=None):
    """SummaryMetadata with the mesh plugin data of one part; shape must be [batch, n, 3]."""
    if len(shape) != 3:
        raise ValueError("Tensor shape should be of shape BxNx3, but got %s." % str(shape))
    content = mesh_plugin_data_pb2.MeshPluginData(
        version=PROTO_VERSION, name=name, content_type=content_type, components=components,
        shape=shape, json_config=json_config)
    return summary_pb2.SummaryMetadata(
        display_name=display_name, summary_description=description,
        plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name=PLUGIN_NAME, content=content.SerializeToString()))


def parse_plugin_metadata(content):
    """MeshPluginData from plugin_data.content bytes (components filled in for old writers)."""
    result = mesh_plugin_data_pb2.MeshPluginData.FromString(bytes(content))
    if result.components == 0:
        result.components = components_bitmask([ContentType.VERTEX, ContentType.FACE, ContentType.COLOR])
    return result


def _json_config(config_dict):
    return json.dumps(config_dict, sort_keys=True) if config_dict is not None else "{}"


def pb(name, vertices, faces=None, colors=None, display_name=None, description=None, config_dict=None):
    """A Summary proto with the mesh's parts from NumPy arrays."""
    display_name = name if display_name is None else display_name
    json_config = _json_config(config_dict)
    given = [(ct, np.asarray(data, dtype=npd)) for (ct, _, npd), data in zip(_PARTS, (vertices, faces, colors))
             if data is not None]
    components = components_bitmask([ct for ct, _ in given])
    summary = summary_pb2.Summary()
    for content_type, data in given:
        meta = create_summary_metadata(name, display_name, content_type, components, list(data.shape),
                                       description, json_config=json_config)
        summary.value.add(tag=instance_name(name, content_type), metadata=meta, tensor=B._tensor_proto(data))
    return summary


def op(name, vertices, faces=None, colors=None, display_name=None, description=None, collections=None,
       config_dict=None):
    """A merged summary op writing the mesh's parts when run (their static shapes must be rank 3)."""
    display_name = name if display_name is None else display_name
    json_config = _json_config(config_dict)
    given = [(ct, convert_to_tensor(data), dt) for (ct, dt, _), data in zip(_PARTS, (vertices, faces, colors))
             if data is not None]
    components = components_bitmask([ct for ct, _, _ in given])
    summaries = []
    for content_type, tensor, dtype in given:
        if tensor.dtype.base_dtype != dtype:
            tensor = math.cast(tensor, dtype)
        dims = tensor.shape.as_list() if tensor.shape.ndims is not None else []
        shape = [-1 if d is None else d for d in dims]
        meta = create_summary_metadata(name, display_name, content_type, components, shape, description,
                                       json_config=json_config)
        summaries.append(summary_ops.tensor_summary(instance_name(name, content_type), tensor,
                                                    summary_metadata=meta, collections=collections))
    return summary_ops.merge(summaries, collections=collections, name=name)
