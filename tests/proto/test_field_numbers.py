"""lens's messages use TensorFlow's names and field numbers: checked against TensorBoard's copies."""
import importlib

import pytest
from google.protobuf import descriptor as _d

# (lens module, tensorboard.compat.proto module, message names) — TensorBoard ships the
# TensorFlow protos under package "tensorboard", a faithful oracle without TensorFlow.
PAIRS = [
    ("event", "event", ["Event", "SourceMetadata", "LogMessage", "SessionLog", "TaggedRunMetadata"]),
    ("summary", "summary", ["Summary", "SummaryMetadata", "SummaryDescription"]),
    ("histogram", "histogram", ["HistogramProto"]),
    ("tensor", "tensor", ["TensorProto", "VariantTensorDataProto"]),
    ("tensor_shape", "tensor_shape", ["TensorShapeProto"]),
    ("resource_handle", "resource_handle", ["ResourceHandleProto"]),
    ("attr_value", "attr_value", ["AttrValue", "NameAttrList"]),
    ("node_def", "node_def", ["NodeDef"]),
    ("graph", "graph", ["GraphDef"]),
    ("versions", "versions", ["VersionDef"]),
    ("function", "function", ["FunctionDefLibrary", "FunctionDef", "GradientDef"]),
    ("op_def", "op_def", ["OpDef", "OpList", "OpDeprecation"]),
    ("step_stats", "step_stats", ["StepStats", "DeviceStepStats", "NodeExecStats",
                                  "AllocatorMemoryUsed", "AllocationRecord", "NodeOutput",
                                  "MemoryStats"]),
    ("allocation_description", "allocation_description", ["AllocationDescription"]),
    ("tensor_description", "tensor_description", ["TensorDescription"]),
    ("cost_graph", "cost_graph", ["CostGraphDef"]),
    ("debug", "debug", ["DebugTensorWatch", "DebugOptions", "DebuggedSourceFile"]),
    ("config", "config", ["ConfigProto", "RunOptions", "RunMetadata", "GPUOptions",
                          "GraphOptions", "OptimizerOptions", "ThreadPoolOptionProto",
                          "SessionMetadata", "CallableOptions"]),
    ("meta_graph", "meta_graph", ["MetaGraphDef", "CollectionDef", "TensorInfo",
                                  "SignatureDef", "AssetFileDef"]),
    ("saver", "saver", ["SaverDef"]),
    ("trackable_object_graph", "trackable_object_graph", ["TrackableObjectGraph", "RegisteredSaver"]),
    ("variable", "variable", ["VariableDef", "SaveSliceInfoDef"]),
]


def _shape(desc):
    """Map field number -> (name, type, repeated, referenced type's short name) recursively."""
    out = {}
    for f in desc.fields:
        ref = f.message_type or f.enum_type
        out[f.number] = (f.name, f.type, f.is_repeated, ref.name if ref else None)
    return out


def _compare(lens_desc, tb_desc, path):
    """Every lens field must exist in TF's message with the same name, type and label."""
    ours, theirs = _shape(lens_desc), _shape(tb_desc)
    for number, spec in ours.items():
        assert number in theirs, "%s: field %d %s not in TensorFlow" % (path, number, spec[0])
        assert spec == theirs[number], "%s field %d: %r vs TF %r" % (path, number, spec, theirs[number])
    for nested in lens_desc.nested_types:
        _compare(nested, tb_desc.nested_types_by_name[nested.name], path + "." + nested.name)
    for enum in lens_desc.enum_types:
        tb_enum = tb_desc.enum_types_by_name[enum.name]
        assert {v.name: v.number for v in enum.values} == {v.name: v.number for v in tb_enum.values}


@pytest.mark.parametrize("lens_mod,tb_mod,names", PAIRS, ids=[p[0] for p in PAIRS])
def test_fields_match_tensorflow(lens_mod, tb_mod, names):
    ours = importlib.import_module("lens.proto.%s_pb2" % lens_mod)
    theirs = importlib.import_module("tensorboard.compat.proto.%s_pb2" % tb_mod)
    assert ours.DESCRIPTOR.package == "tensorflow"
    for name in names:
        _compare(ours.DESCRIPTOR.message_types_by_name[name],
                 theirs.DESCRIPTOR.message_types_by_name[name], name)


def test_core_messages_are_complete():
    """The messages the board and engine read must carry every TensorFlow field, none missing."""
    from lens.proto import event_pb2, summary_pb2, tensor_pb2, graph_pb2, histogram_pb2
    from tensorboard.compat.proto import event_pb2 as te, summary_pb2 as ts, tensor_pb2 as tt
    from tensorboard.compat.proto import graph_pb2 as tg, histogram_pb2 as th
    for ours, theirs in [(event_pb2.Event, te.Event), (summary_pb2.Summary.Value, ts.Summary.Value),
                         (summary_pb2.Summary.Image, ts.Summary.Image),
                         (summary_pb2.Summary.Audio, ts.Summary.Audio),
                         (tensor_pb2.TensorProto, tt.TensorProto), (graph_pb2.GraphDef, tg.GraphDef),
                         (histogram_pb2.HistogramProto, th.HistogramProto)]:
        assert _shape(ours.DESCRIPTOR) == _shape(theirs.DESCRIPTOR), ours.DESCRIPTOR.name


def test_datatype_enum_matches_tensorflow():
    from lens.proto import types_pb2
    from tensorboard.compat.proto import types_pb2 as tb
    ours = {v.name: v.number for v in types_pb2.DataType.DESCRIPTOR.values}
    assert ours == {v.name: v.number for v in tb.DataType.DESCRIPTOR.values}
    assert ours["DT_FLOAT_REF"] == 101 and ours["DT_FLOAT4_E2M1FN_REF"] == 133


def test_example_roundtrip_wire_format():
    """tf.train.Example: features map -> Feature oneof, with TF's field numbers on the wire."""
    from lens.proto import example_pb2, feature_pb2
    ex = example_pb2.Example()
    ex.features.feature["label"].int64_list.value.extend([3, -1])
    ex.features.feature["x"].float_list.value.append(0.5)
    ex.features.feature["name"].bytes_list.value.append(b"cat")
    back = example_pb2.Example.FromString(ex.SerializeToString())
    assert list(back.features.feature["label"].int64_list.value) == [3, -1]
    assert back.features.feature["name"].WhichOneof("kind") == "bytes_list"
    assert isinstance(back.features.feature["x"], feature_pb2.Feature)
    # Feature.float_list is field 2 (tag 0x12); FloatList.value is packed field 1 (tag 0x0a).
    one = feature_pb2.Feature(float_list=feature_pb2.FloatList(value=[0.5]))
    assert one.SerializeToString() == b"\x12\x06\x0a\x04" + bytes.fromhex("0000003f")
