"""The requests whose answers must match TensorBoard's on the plugin logdirs (PR curves,
custom scalars, hparams), shared by the recording script and the parity test."""

import json
from urllib.parse import urlencode

PR = "/data/plugin/pr_curves"
CS = "/data/plugin/custom_scalars"
HP = "/data/plugin/hparams"
ALL_STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]


def _get(url, **params):
    return {"method": "GET", "url": url + ("?" + urlencode(params, doseq=True) if params else "")}


def _post(url, body):
    return {"method": "POST", "url": url, "body": json.dumps(body)}


def _groups(col_params, **extra):
    body = {"experimentName": "", "allowedStatuses": ALL_STATUSES, "colParams": col_params,
            "startIndex": 0, "sliceSize": 100}
    body.update(extra)
    return _post(HP + "/session_groups", body)


def _metric(tag, group="", **extra):
    return dict({"metric": {"tag": tag, "group": group}}, **extra)


def _hparam(name, **extra):
    return dict({"hparam": name}, **extra)


def hparams_requests(prefix):
    """Session group listings: sorting, filters, aggregation, slicing, metric evals, CSV."""
    cols = [_hparam("lr"), _hparam("optimizer"), _hparam("dropout"), _hparam("units"),
            _metric("loss"), _metric("accuracy", "eval")]
    out = [_post(HP + "/experiment", {"experimentName": ""}),
           _post(HP + "/experiment", {"experimentName": "", "includeMetrics": False}),
           _post(HP + "/experiment", {"experimentName": "", "hparamsLimit": 2}),
           _get(HP + "/experiment", request=json.dumps({"experimentName": ""})),
           _groups(cols, includeMetrics=False),
           _post(HP + "/session_groups", {"experimentName": "", "colParams": cols}),
           _groups(cols),
           _groups([_hparam("lr", order="ORDER_DESC"), _metric("loss")]),
           _groups([_hparam("lr"), _metric("loss", order="ORDER_ASC")]),
           _groups([_hparam("lr"), _metric("accuracy", "eval", order="ORDER_DESC")]),
           _groups([_hparam("lr"), _metric("accuracy", "eval", order="ORDER_ASC",
                                           missingValuesFirst=True)]),
           _groups([_hparam("lr", filterInterval={"minValue": 0.005, "maxValue": 0.06}),
                    _metric("loss")]),
           _groups([_hparam("optimizer", filterRegexp="^s"), _metric("loss")]),
           _groups([_hparam("dropout", filterDiscrete=[True]), _metric("loss")]),
           _groups([_hparam("lr"), _metric("loss", filterInterval={"minValue": 0.0,
                                                                   "maxValue": 0.35})]),
           _groups([_hparam("lr"), _metric("accuracy", "eval", excludeMissingValues=True,
                                           filterInterval={"minValue": 0, "maxValue": 1})]),
           _groups(cols, aggregationType="AGGREGATION_MIN",
                   aggregationMetric={"tag": "loss", "group": ""}),
           _groups(cols, aggregationType="AGGREGATION_MAX",
                   aggregationMetric={"tag": "loss", "group": ""}),
           _groups(cols, aggregationType="AGGREGATION_MEDIAN",
                   aggregationMetric={"tag": "loss", "group": ""}),
           _groups(cols, startIndex=1, sliceSize=2),
           _groups(cols, allowedStatuses=["STATUS_SUCCESS"]),
           _groups([_hparam("lr", includeInResult=True), _hparam("units", includeInResult=False),
                    _metric("loss")]),
           _post(HP + "/metric_evals", {"experimentName": "", "sessionName": prefix + "s0",
                                        "metricName": {"tag": "loss", "group": ""}}),
           _post(HP + "/metric_evals", {"experimentName": "", "sessionName": prefix + "s0",
                                        "metricName": {"tag": "accuracy", "group": "eval"}})]
    listing = {"experimentName": "", "allowedStatuses": ALL_STATUSES, "colParams": cols,
               "startIndex": 0, "sliceSize": 100}
    visible = [True, True, False, True, True, True]
    for fmt in ("csv", "json", "latex"):
        out.append(_get(HP + "/download_data", format=fmt, request=json.dumps(listing),
                        columnsVisibility=json.dumps(visible)))
    return out


def main_requests(pr_tags):
    """Requests on plugin_logdir; pr_tags is TensorBoard's /pr_curves/tags answer."""
    out = [_get("/data/plugins_listing"), _get(PR + "/tags")]
    for run, tags in sorted(pr_tags.items()):
        for tag in sorted(tags):
            out.append(_get(PR + "/pr_curves", run=run, tag=tag))
    out.append(_get(PR + "/pr_curves", run=["pr/a", "pr/b"], tag="cats"))
    out.append(_get(CS + "/layout"))
    for run in ("cs/a", "cs/b"):
        for regex in (r"loss/.*", "mean", "mean/(lower|upper)", "acc", "nothing"):
            out.append(_get(CS + "/scalars", run=run, tag=regex))
    out.append(_get(CS + "/scalars", run="cs/a", tag="(unclosed"))
    out.append(_get(CS + "/scalars", run="cs/a", tag=""))
    out.append(_get(CS + "/scalars", run="no/such/run", tag="loss/.*"))
    out.append(_get(CS + "/download_data", run="cs/a", tag="loss/train", format="json"))
    out.append(_get(CS + "/download_data", run="cs/a", tag="loss/train", format="csv"))
    return out + hparams_requests("hp/")


def inferred_requests():
    """Requests on plugin_logdir_inferred (no experiment config: inferred from sessions)."""
    return [_get("/data/plugins_listing")] + hparams_requests("")
