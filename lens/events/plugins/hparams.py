"""HParams summaries: TensorBoard's hparams `summary_v2` (hparams, hparams_pb, hparams_config,
hparams_config_pb) and TF1-era `summary` (experiment_pb, session_start_pb, session_end_pb).

Everything lives in the value's metadata (plugin 'hparams', HParamsPluginData content) with an
empty float tensor, under the tags '_hparams_/experiment', '_hparams_/session_start_info' and
'_hparams_/session_end_info'."""

import hashlib
import json
import time

import numpy as np

from lens.events.plugins.hparams_api import HParam
from lens.framework import dtypes
from lens.framework.convert import constant
from lens.proto import hparams_api_pb2 as api_pb2
from lens.proto import hparams_plugin_data_pb2 as plugin_data_pb2
from lens.proto import summary_pb2, tensor_pb2, tensor_shape_pb2

PLUGIN_NAME = "hparams"
PLUGIN_DATA_VERSION = 0
EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"


def null_tensor():
    """The empty float32 [0] tensor every hparams value carries."""
    return tensor_pb2.TensorProto(dtype=1, tensor_shape=tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=0)]))


def create_summary_metadata(plugin_data):
    """SummaryMetadata holding a copy of `plugin_data` (version set to 0)."""
    if not isinstance(plugin_data, plugin_data_pb2.HParamsPluginData):
        raise TypeError("Needed an instance of HParamsPluginData, got %s"
                        % type(plugin_data).__name__)
    content = plugin_data_pb2.HParamsPluginData()
    content.CopyFrom(plugin_data)
    content.version = PLUGIN_DATA_VERSION
    return summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name=PLUGIN_NAME, content=content.SerializeToString()))


def _summary(tag, plugin_data):
    value = summary_pb2.Summary.Value(tag=tag, metadata=create_summary_metadata(plugin_data),
                                      tensor=null_tensor())
    return summary_pb2.Summary(value=[value])


def _normalize(hparams):
    """{name: python value}: HParam keys become their names, NumPy scalars Python values."""
    out = {}
    for key, value in hparams.items():
        name = key.name if isinstance(key, HParam) else key
        if name in out:
            raise ValueError("multiple values specified for hparam %r" % (name,))
        out[name] = value.item() if isinstance(value, np.generic) else value
    return out


def _set_value(target, name, value):
    """Store one hparam value in a google.protobuf.Value map entry."""
    if isinstance(value, bool):
        target[name].bool_value = value
    elif isinstance(value, (int, float)):
        target[name].number_value = value
    elif isinstance(value, str):
        target[name].string_value = value
    else:
        raise TypeError("hparams[%r] = %r, of unsupported type %r: use bool, int, float or str"
                        % (name, value, type(value)))


def group_name(trial_id, hparams):
    """The session group name: trial_id, or the SHA-256 of the hparams as sorted JSON."""
    if trial_id is not None:
        if not isinstance(trial_id, str):
            raise TypeError("`trial_id` should be a `str`, but got: %r" % (trial_id,))
        return trial_id
    text = json.dumps(hparams, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def hparams_pb(hparams, trial_id=None, start_time_secs=None):
    """A Summary proto recording one session's hparam values (its session start)."""
    if start_time_secs is None:
        start_time_secs = time.time()
    hparams = _normalize(hparams)
    info = plugin_data_pb2.SessionStartInfo(start_time_secs=start_time_secs)
    for name in sorted(hparams):
        _set_value(info.hparams, name, hparams[name])
    info.group_name = group_name(trial_id, hparams)
    return _summary(SESSION_START_INFO_TAG,
                    plugin_data_pb2.HParamsPluginData(session_start_info=info))


def hparams_config_pb(hparams, metrics, time_created_secs=None):
    """A Summary proto describing the experiment: its HParams (with domains) and Metrics."""
    infos = []
    for hparam in hparams:
        info = api_pb2.HParamInfo(name=hparam.name, description=hparam.description,
                                  display_name=hparam.display_name)
        if hparam.domain is not None:
            hparam.domain.update_hparam_info(info)
        infos.append(info)
    experiment = api_pb2.Experiment(hparam_infos=infos,
                                    metric_infos=[m.as_proto() for m in metrics],
                                    time_created_secs=time_created_secs)
    return _summary(EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=experiment))


def _as_op(summary, name):
    """A string tensor holding the serialized summary (run it and pass it to add_summary)."""
    return constant(summary.SerializeToString(), dtype=dtypes.string, name=name)


def hparams(hparams, trial_id=None, start_time_secs=None):
    """hparams_pb as a graph tensor (in no summary collection: write it once, not per step)."""
    return _as_op(hparams_pb(hparams, trial_id, start_time_secs), "hparams")


def hparams_config(hparams, metrics, time_created_secs=None):
    """hparams_config_pb as a graph tensor (in no summary collection)."""
    return _as_op(hparams_config_pb(hparams, metrics, time_created_secs), "hparams_config")


def experiment_pb(hparam_infos, metric_infos, user="", description="", time_created_secs=None):
    """TF1-era: a Summary defining the experiment from HParamInfo and MetricInfo protos."""
    if time_created_secs is None:
        time_created_secs = time.time()
    experiment = api_pb2.Experiment(description=description, user=user,
                                    time_created_secs=time_created_secs,
                                    hparam_infos=hparam_infos, metric_infos=metric_infos)
    return _summary(EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=experiment))


def session_start_pb(hparams, model_uri="", monitor_url="", group_name="",
                     start_time_secs=None):
    """TF1-era: a Summary starting a session with these hparam values."""
    if start_time_secs is None:
        start_time_secs = time.time()
    info = plugin_data_pb2.SessionStartInfo(model_uri=model_uri, monitor_url=monitor_url,
                                            group_name=group_name,
                                            start_time_secs=start_time_secs)
    for name, value in hparams.items():
        value = value.item() if isinstance(value, np.generic) else value
        if isinstance(value, (list, tuple)):
            value = str(value)  # the TF1-era API stores sequences as their text
        _set_value(info.hparams, name, value)
    return _summary(SESSION_START_INFO_TAG,
                    plugin_data_pb2.HParamsPluginData(session_start_info=info))


def session_end_pb(status, end_time_secs=None):
    """TF1-era: a Summary ending the session with an api Status (e.g. STATUS_SUCCESS)."""
    if end_time_secs is None:
        end_time_secs = time.time()
    info = plugin_data_pb2.SessionEndInfo(status=status, end_time_secs=end_time_secs)
    return _summary(SESSION_END_INFO_TAG, plugin_data_pb2.HParamsPluginData(session_end_info=info))
