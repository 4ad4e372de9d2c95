"""HParams dashboard routes (TensorBoard's JSON; requests are the API protos as JSON, POSTed
or passed as ?request=...).

POST /data/plugin/hparams/experiment      {"experimentName": ""}
    Experiment: hparamInfos (type, domain, differs), metricInfos, ...
POST /data/plugin/hparams/session_groups  ListSessionGroupsRequest (colParams with order and
    filters, allowedStatuses, aggregationType, startIndex, sliceSize)
    {"sessionGroups": [{"name", "hparams", "metricValues", "sessions", ...}], "totalSize": n}
POST /data/plugin/hparams/metric_evals    {"sessionName": "run", "metricName": {tag, group}}
    [[wall_time, step, value], ...]
GET  /data/plugin/hparams/download_data?format=csv|json|latex&request=...&columnsVisibility=[..]
Lens extra: "lensErrors": [...] names runs whose hparams metadata could not be read (those runs
are left out; everything else is listed).
"""

import json

from flask import Blueprint, Response, request
from google.protobuf import json_format
from werkzeug.exceptions import BadRequest

from lens.board import hparams_data as D
from lens.board import hparams_export
from lens.board.hparams_groups import list_groups
from lens.board.params import json_response, provider
from lens.board.scalars import read_rows
from lens.proto import hparams_api_pb2 as api_pb2

PLUGIN = "hparams"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")


def is_active(data_provider):
    """Active when any run holds an hparams summary."""
    return bool(data_provider.plugin_tags(PLUGIN))


def parse_request(proto_class):
    """The request proto from the POST body or the 'request' query parameter."""
    text = request.get_data(as_text=True) if request.method == "POST" else \
        request.args.get("request")
    if not text:
        raise BadRequest("expected a JSON %s in the POST body or in ?request=..."
                         % proto_class.__name__)
    try:
        return json_format.Parse(text, proto_class())
    except json_format.ParseError as exc:
        raise BadRequest("expected a JSON-formatted %s, got %r: %s"
                         % (proto_class.__name__, text[:200], exc)) from None


def to_json(message, content):
    """A proto as TensorBoard's JSON (defaults included), plus lens's errors if any."""
    body = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    if content.errors:
        body["lensErrors"] = list(content.errors)
    return body


def _answer(build):
    try:
        return build()
    except D.HParamsError as exc:
        raise BadRequest(str(exc)) from None


@bp.route("/experiment", methods=["GET", "POST"])
def experiment_route():
    req = parse_request(api_pb2.GetExperimentRequest)
    content = D.Content(provider())
    include = not req.HasField("include_metrics") or req.include_metrics
    limit = req.hparams_limit if req.HasField("hparams_limit") else None
    return json_response(to_json(_answer(lambda: D.experiment(content, include, limit)), content))


@bp.route("/session_groups", methods=["GET", "POST"])
def session_groups_route():
    req = parse_request(api_pb2.ListSessionGroupsRequest)
    content = D.Content(provider())
    return json_response(to_json(_answer(lambda: list_groups(content, req)), content))


@bp.route("/metric_evals", methods=["GET", "POST"])
def metric_evals_route():
    req = parse_request(api_pb2.ListMetricEvalsRequest)
    run, tag = D.metric_run_tag(req.session_name, req.metric_name)
    return json_response(read_rows(provider(), run, tag))


@bp.route("/download_data", methods=["GET", "POST"])
def download_data_route():
    fmt = request.args.get("format")
    try:
        visibility = json.loads(request.args.get("columnsVisibility") or "null")
    except ValueError:
        raise BadRequest("columnsVisibility must be a JSON list of booleans") from None
    req = parse_request(api_pb2.ListSessionGroupsRequest)
    content = D.Content(provider())
    include = not req.HasField("include_metrics") or req.include_metrics
    groups = _answer(lambda: list_groups(content, req))
    exp = D.experiment(content, include)
    body, mimetype = _answer(lambda: hparams_export.export(exp, groups, fmt, visibility))
    if mimetype == "application/json":
        return json_response(body)
    return Response(body, mimetype=mimetype)
