"""The HParams dashboard's data: the experiment and its session groups, as TensorBoard builds
them from the hparams summaries' metadata and the last value of each scalar (pure functions of
a DataProvider; the routes are in hparams.py).

A session is a run with a '_hparams_/session_start_info' tag; its metrics are scalar tags of
the run itself (group '') or of runs below it (group = the relative path). A run whose hparams
metadata cannot be read is left out and named in `errors` (lens extra; TensorBoard fails the
whole request)."""

import math
import posixpath
from collections import defaultdict

from google.protobuf import json_format

from lens.proto import hparams_api_pb2 as api_pb2
from lens.proto import hparams_plugin_data_pb2 as plugin_data_pb2

EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"


class HParamsError(ValueError):
    """A request TensorBoard's hparams plugin would refuse (answered with 400)."""


class Content:
    """The hparams metadata of every run, parsed once per request; bad items in `errors`."""

    def __init__(self, data_provider):
        self.provider = data_provider
        self.errors = []
        self.experiment = None
        self.starts = {}  # run -> SessionStartInfo
        self.ends = {}  # run -> SessionEndInfo
        for run, tags in data_provider.plugin_tags("hparams").items():
            for tag, field, target in ((EXPERIMENT_TAG, "experiment", None),
                                       (SESSION_START_INFO_TAG, "session_start_info", self.starts),
                                       (SESSION_END_INFO_TAG, "session_end_info", self.ends)):
                if tag not in tags:
                    continue
                parsed = self._parse(run, tag, tags[tag]["content"], field)
                if parsed is None:
                    continue
                if target is not None:
                    target[run] = parsed
                elif self.experiment is None:
                    self.experiment = parsed
        for run in list(self.ends):
            if run not in self.starts:
                del self.ends[run]

    def _parse(self, run, tag, content, field):
        try:
            data = plugin_data_pb2.HParamsPluginData.FromString(content)
        except Exception as exc:  # protobuf's DecodeError
            self.errors.append("run %r: %s is not a valid HParamsPluginData (%s); rewrite it with "
                               "lens.plugins.hparams" % (run, tag, exc))
            return None
        if data.version != 0:
            self.errors.append("run %r: %s has plugin_data version %d; only version 0 is known"
                               % (run, tag, data.version))
            return None
        if not data.HasField(field):
            self.errors.append("run %r: %s does not hold %s" % (run, tag, field))
            return None
        return getattr(data, field)


def _value_type(value):
    kind = value.WhichOneof("kind")
    return {"number_value": api_pb2.DATA_TYPE_FLOAT64, "string_value": api_pb2.DATA_TYPE_STRING,
            "bool_value": api_pb2.DATA_TYPE_BOOL}.get(kind)


def serializable(value):
    """False for NaN and infinite numbers, which JSON cannot carry."""
    if value.WhichOneof("kind") != "number_value":
        return True
    return not (math.isnan(value.number_value) or math.isinf(value.number_value))


def _as_text(value):
    text = json_format.MessageToJson(value)
    return text[1:-1] if value.WhichOneof("kind") == "string_value" else text


def _hparam_info(name, values):
    """An HParamInfo whose type fits every value and whose domain spans them, or None."""
    info = api_pb2.HParamInfo(name=name, type=api_pb2.DATA_TYPE_UNSET)
    for value in values:
        kind = _value_type(value)
        if not kind:
            continue
        if info.type == api_pb2.DATA_TYPE_UNSET:
            info.type = kind
        elif info.type != kind:
            info.type = api_pb2.DATA_TYPE_STRING
        if info.type == api_pb2.DATA_TYPE_STRING:
            break
    if info.type == api_pb2.DATA_TYPE_UNSET:
        return None
    if info.type == api_pb2.DATA_TYPE_STRING:
        texts = sorted({_as_text(v) for v in values if _value_type(v) and serializable(v)})
        info.domain_discrete.extend(texts)
        info.differs = len(texts) > 1
    elif info.type == api_pb2.DATA_TYPE_BOOL:
        flags = sorted({v.bool_value for v in values})
        info.domain_discrete.extend(flags)
        info.differs = len(flags) > 1
    else:
        numbers = sorted(v.number_value for v in values)
        info.domain_interval.min_value = numbers[0]
        info.domain_interval.max_value = numbers[-1]
        info.differs = len(set(numbers)) > 1
    return info


def _longest_parent(paths, path):
    while path not in paths:
        if not path:
            return None
        path = posixpath.dirname(path)
    return path


def metric_names(data_provider, session_runs):
    """Sorted (tag, group) of every scalar tag in a session run or a run below one."""
    names = set()
    for run, tags in data_provider.list_tags("scalars").items():
        session = _longest_parent(session_runs, run)
        if session is None:
            continue
        group = posixpath.relpath(run, session)
        if group == "." and not run.endswith("."):
            group = ""
        names.update((tag, group) for tag in tags)
    return sorted(names)


def _sort_and_limit(experiment, limit=None):
    infos = sorted(experiment.hparam_infos, key=lambda i: (not i.differs, i.name))
    experiment.ClearField("hparam_infos")
    experiment.hparam_infos.extend(infos[:limit or len(infos)])


def experiment(content, include_metrics=True, hparams_limit=None):
    """The Experiment: the written config, else one inferred from the sessions, else empty."""
    if content.experiment is not None:
        result = api_pb2.Experiment()
        result.CopyFrom(content.experiment)
        if not include_metrics:
            result.ClearField("metric_infos")
        _sort_and_limit(result, hparams_limit)
        return result
    values = defaultdict(list)
    for start in content.starts.values():
        for name, value in start.hparams.items():
            values[name].append(value)
    infos = [info for info in (_hparam_info(n, v) for n, v in values.items()) if info is not None]
    metrics = []
    if infos and include_metrics:
        metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(group=group, tag=tag))
                   for tag, group in metric_names(content.provider, set(content.starts))]
    result = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    _sort_and_limit(result, hparams_limit)
    return result


def metric_run_tag(session_name, metric_name):
    """(run, tag) holding a session's metric: the group is a subdirectory of the session."""
    run = posixpath.join(session_name, metric_name.group)
    return (run[:-1] if run.endswith("/") else run), metric_name.tag


def to_python(value):
    kind = value.WhichOneof("kind")
    if kind in ("number_value", "string_value", "bool_value"):
        return getattr(value, kind)
    raise HParamsError("hparam value of unknown kind %r" % kind)


def python_list(list_value):
    """A google.protobuf.ListValue's items as Python values."""
    return [to_python(v) for v in list_value.values]
