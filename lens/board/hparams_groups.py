"""Session groups for the HParams dashboard: build, aggregate, filter, sort and slice them as
TensorBoard's list_session_groups does for a ListSessionGroupsRequest."""

import re
from collections import OrderedDict

from lens.board import hparams_data as D
from lens.proto import hparams_api_pb2 as api_pb2


def _metric_values(metric_infos, session_name, last):
    out = []
    for info in metric_infos:
        run, tag = D.metric_run_tag(session_name, info.name)
        point = last.get(run, {}).get(tag)
        if point is None:
            continue
        wall, step, value = point
        out.append(api_pb2.MetricValue(name=info.name, wall_time_secs=wall,
                                       training_step=step, value=value))
    return out


def _average(group):
    """The group's metrics: each the mean over the sessions that measured it."""
    stats = OrderedDict()
    for session in group.sessions:
        for mv in session.metric_values:
            entry = stats.setdefault((mv.name.group, mv.name.tag), [0.0, 0, 0, 0.0])
            entry[0] += mv.value
            entry[1] += 1
            entry[2] += mv.training_step
            entry[3] += mv.wall_time_secs
    del group.metric_values[:]
    for (grp, tag), (total, count, steps, walls) in stats.items():
        group.metric_values.add(name=api_pb2.MetricName(group=grp, tag=tag),
                                value=float(total) / count, training_step=steps // count,
                                wall_time_secs=walls / count)


def _find(holder, name):
    for mv in holder.metric_values:
        if mv.name.tag == name.tag and mv.name.group == name.group:
            return mv
    return None


def _pick_session(group, metric, how):
    """Copy the metrics of the session with the min, max or median value of `metric`."""
    measured = [(mv.value, i) for i, s in enumerate(group.sessions)
                for mv in [_find(s, metric)] if mv is not None]
    if not measured:
        raise D.HParamsError("no session of group %r measured the aggregation metric %s/%s"
                             % (group.name, metric.group, metric.tag))
    if how == "median":
        chosen = sorted(measured, key=lambda m: m[0])[(len(measured) - 1) // 2][1]
    else:
        chosen = (min if how == "min" else max)(measured, key=lambda m: m[0])[1]
    del group.metric_values[:]
    group.metric_values.MergeFrom(group.sessions[chosen].metric_values)


def aggregate(group, request):
    kind = request.aggregation_type
    if kind in (api_pb2.AGGREGATION_AVG, api_pb2.AGGREGATION_UNSET):
        _average(group)
    elif kind == api_pb2.AGGREGATION_MEDIAN:
        _pick_session(group, request.aggregation_metric, "median")
    elif kind == api_pb2.AGGREGATION_MIN:
        _pick_session(group, request.aggregation_metric, "min")
    elif kind == api_pb2.AGGREGATION_MAX:
        _pick_session(group, request.aggregation_metric, "max")
    else:
        raise D.HParamsError("Unknown aggregation_type in request: %s" % kind)


def build_groups(content, metric_infos, request, include_metrics):
    """Every session (a run with a start info) in its group, metrics aggregated."""
    last = content.provider.last_scalars() if include_metrics else {}
    groups = OrderedDict()
    allowed = set(request.allowed_statuses)
    for run, start in content.starts.items():
        session = api_pb2.Session(name=run, start_time_secs=start.start_time_secs,
                                  model_uri=start.model_uri, monitor_url=start.monitor_url,
                                  metric_values=_metric_values(metric_infos, run, last))
        end = content.ends.get(run)
        if end is not None:
            session.status = end.status
            session.end_time_secs = end.end_time_secs
        if session.status not in allowed:
            continue
        name = start.group_name or run
        group = groups.get(name)
        if group is None:
            group = groups[name] = api_pb2.SessionGroup(name=name, monitor_url=start.monitor_url)
            for key, value in start.hparams.items():
                if D.serializable(value):
                    group.hparams[key].CopyFrom(value)
        group.sessions.append(session)
    for group in groups.values():
        group.sessions.sort(key=lambda s: s.name)
        aggregate(group, request)
    return list(groups.values())


def extractor(col):
    """A function group -> Python value (or None) for one column."""
    which = col.WhichOneof("name")
    if which == "metric":
        metric = col.metric
        return lambda g: (lambda mv: mv.value if mv is not None else None)(_find(g, metric))
    if which == "hparam":
        name = col.hparam
        return lambda g: D.to_python(g.hparams[name]) if name in g.hparams else None
    raise D.HParamsError('Got ColParam with both "metric" and "hparam" fields unset: %s' % col)


def _value_filter(col):
    which = col.WhichOneof("filter")
    if which == "filter_regexp":
        try:
            pattern = re.compile(col.filter_regexp)
        except re.error as exc:
            raise D.HParamsError("filter_regexp %r is not a valid regex: %s"
                                 % (col.filter_regexp, exc)) from None

        def by_regex(value):
            if not isinstance(value, str):
                raise D.HParamsError("Cannot use a regexp filter for a value of type %s. "
                                     "Value: %s" % (type(value), value))
            return pattern.search(value) is not None
        return by_regex
    if which == "filter_interval":
        lo, hi = col.filter_interval.min_value, col.filter_interval.max_value

        def by_interval(value):
            if not isinstance(value, (int, float)):
                raise D.HParamsError("Cannot use an interval filter for a value of type: %s, "
                                     "Value: %s" % (type(value), value))
            return lo <= value <= hi
        return by_interval
    if which == "filter_discrete":
        allowed = D.python_list(col.filter_discrete)
        return lambda value: value in allowed
    return None


def make_filters(cols, extractors):
    filters = []
    for col, extract in zip(cols, extractors):
        keep_missing = not col.exclude_missing_values
        check = _value_filter(col)
        if check is None:
            if keep_missing:
                continue
            check = lambda _value: True  # noqa: E731 - only the missing values go

        def passes(group, extract=extract, check=check, keep_missing=keep_missing):
            value = extract(group)
            return keep_missing if value is None else check(value)
        filters.append(passes)
    return filters


def sort_groups(groups, cols, extractors):
    """By name, then by each ordered column, the first column deciding last-sorted ties."""
    groups.sort(key=lambda g: g.name)
    for col, extract in reversed(list(zip(cols, extractors))):
        if col.order == api_pb2.ORDER_UNSPECIFIED:
            continue
        if col.order not in (api_pb2.ORDER_ASC, api_pb2.ORDER_DESC):
            raise D.HParamsError("Unknown col_param.order given: %s" % col)
        descending = col.order == api_pb2.ORDER_DESC
        none_largest = col.missing_values_first if descending else not col.missing_values_first

        def key(group, extract=extract, none_largest=none_largest):
            value = extract(group)
            return (value is None, value) if none_largest else (value is not None, value)
        try:
            groups.sort(key=key, reverse=descending)
        except TypeError:
            raise D.HParamsError("column %s mixes values of different types and cannot be "
                                 "sorted" % (col.hparam or col.metric.tag)) from None


def keep_included_hparams(groups, cols):
    """Drop hparams a column excluded with include_in_result: false."""
    if not any(col.HasField("include_in_result") for col in cols):
        return
    wanted = {col.hparam for col in cols if col.hparam and
              not (col.HasField("include_in_result") and not col.include_in_result)}
    for group in groups:
        kept = {k: v for k, v in group.hparams.items() if k in wanted}
        group.ClearField("hparams")
        for key, value in kept.items():
            group.hparams[key].CopyFrom(value)


def list_groups(content, request):
    """The ListSessionGroupsResponse for a request."""
    include_metrics = not request.HasField("include_metrics") or request.include_metrics
    if not content.starts:
        return api_pb2.ListSessionGroupsResponse(session_groups=[], total_size=0)
    exp = D.experiment(content, include_metrics)
    cols = list(request.col_params)
    extractors = [extractor(col) for col in cols]
    filters = make_filters(cols, extractors)
    groups = build_groups(content, exp.metric_infos, request, include_metrics)
    groups = [g for g in groups if all(f(g) for f in filters)]
    sort_groups(groups, cols, extractors)
    keep_included_hparams(groups, cols)
    start = request.start_index
    return api_pb2.ListSessionGroupsResponse(
        session_groups=groups[start:start + request.slice_size], total_size=len(groups))
