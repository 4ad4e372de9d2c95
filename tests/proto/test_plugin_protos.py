"""The plugin protos (PR curves, custom scalars, hparams) match TensorBoard's field for field."""
import importlib

import pytest

# (lens module, tensorboard module, messages)
PAIRS = [
    ("pr_curve_plugin_data", "tensorboard.plugins.pr_curve.plugin_data_pb2", ["PrCurvePluginData"]),
    ("custom_scalar_layout", "tensorboard.plugins.custom_scalar.layout_pb2",
     ["Chart", "MultilineChartContent", "MarginChartContent", "Category", "Layout"]),
    ("hparams_api", "tensorboard.plugins.hparams.api_pb2",
     ["Experiment", "HParamInfo", "Interval", "MetricName", "MetricInfo", "SessionGroup",
      "MetricValue", "Session", "GetExperimentRequest", "ListSessionGroupsRequest", "ColParams",
      "ListSessionGroupsResponse", "ListMetricEvalsRequest"]),
    ("hparams_plugin_data", "tensorboard.plugins.hparams.plugin_data_pb2",
     ["HParamsPluginData", "SessionStartInfo", "SessionEndInfo"]),
]


def _fields(desc):
    """number -> (name, type, repeated, oneof name, referenced short name), nested included."""
    out = {}
    for f in desc.fields:
        ref = f.message_type or f.enum_type
        oneof = f.containing_oneof.name if f.containing_oneof else None
        out[f.number] = (f.name, f.type, f.is_repeated, oneof, ref.name if ref else None)
    for nested in desc.nested_types:
        out[nested.name] = _fields(nested)
    return out


@pytest.mark.parametrize("ours,theirs,names", PAIRS, ids=[p[0] for p in PAIRS])
def test_messages_match_tensorboard(ours, theirs, names):
    lens_mod = importlib.import_module("lens.proto.%s_pb2" % ours)
    tb_mod = importlib.import_module(theirs)
    for name in names:
        assert _fields(lens_mod.DESCRIPTOR.message_types_by_name[name]) == \
            _fields(tb_mod.DESCRIPTOR.message_types_by_name[name]), name


def test_enums_match_tensorboard():
    from tensorboard.plugins.hparams import api_pb2 as tb
    from lens.proto import hparams_api_pb2 as ours

    for name, enum in tb.DESCRIPTOR.enum_types_by_name.items():
        mine = ours.DESCRIPTOR.enum_types_by_name[name]
        assert {v.name: v.number for v in mine.values} == {v.name: v.number for v in enum.values}


def test_bytes_round_trip_through_tensorboard():
    from tensorboard.plugins.hparams import plugin_data_pb2 as tb
    from lens.proto import hparams_plugin_data_pb2 as ours

    data = ours.HParamsPluginData(version=0)
    data.session_start_info.hparams["lr"].number_value = 0.1
    data.session_start_info.group_name = "g"
    back = tb.HParamsPluginData.FromString(data.SerializeToString())
    assert back.session_start_info.hparams["lr"].number_value == 0.1
    assert back.session_start_info.group_name == "g"
