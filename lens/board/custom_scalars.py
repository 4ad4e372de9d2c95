"""Custom scalars dashboard routes (TensorBoard's shapes).

GET /data/plugin/custom_scalars/layout
    The Layout proto as JSON ({"category": [{"title", "chart": [...], "closed"}]}), the layouts
    of all runs merged in run order: categories with the same title share their charts
    (duplicates dropped). {} when no run has a layout. Lens extra: "lensErrors" names runs
    whose layout could not be read (the others still merge).
GET /data/plugin/custom_scalars/scalars?run=a&tag=<regex>
    {"regex_valid": true, "tag_to_events": {"loss/train": [[wall_time, step, value], ...]}}
    every scalar tag of the run that the regex matches at its start (re.match).
GET /data/plugin/custom_scalars/download_data?run=a&tag=loss&format=csv|json
    One series, as the scalars dashboard's download.
"""

import re

from flask import Blueprint, Response, request
from google.protobuf import json_format
from werkzeug.exceptions import BadRequest

from lens.board.params import json_response, provider
from lens.board.scalars import read_rows, scalar_csv
from lens.events.plugin_data import text_scalar
from lens.events.provider import NotFound
from lens.proto import custom_scalar_layout_pb2 as layout_pb2

PLUGIN = "custom_scalars"
CONFIG_TAG = "custom_scalars__config__"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")


def is_active(data_provider):
    """Active when any run holds a layout."""
    return any(CONFIG_TAG in tags for tags in data_provider.plugin_tags(PLUGIN).values())


def read_layout(data_provider, run):
    """The run's layout (its first written value, as TensorBoard keeps one)."""
    series = data_provider.tensors(run, CONFIG_TAG)
    return layout_pb2.Layout.FromString(text_scalar(series[0][2]))


def merged_layout(data_provider):
    """(merged Layout or None, [error messages]) over every run with a layout."""
    merged, by_title, errors = None, {}, []
    for run, tags in sorted(data_provider.plugin_tags(PLUGIN).items()):
        if CONFIG_TAG not in tags:
            continue
        try:
            layout = read_layout(data_provider, run)
        except Exception as exc:  # a bad layout costs only its own run
            errors.append("run %r: the custom scalars layout could not be read (%s); write it "
                          "with lens.plugins.custom_scalar.pb(Layout(...))" % (run, exc))
            continue
        if merged is None:
            merged = layout
            by_title = {c.title: c for c in merged.category}
            continue
        for category in layout.category:
            if category.title in by_title:
                target = by_title[category.title]
                target.chart.extend([c for c in category.chart if c not in target.chart])
            else:
                added = merged.category.add()
                added.MergeFrom(category)
                by_title[category.title] = category
    return merged, errors


def scalars_matching(data_provider, run, pattern):
    """TensorBoard's /scalars answer for one run and a tag regex."""
    if not pattern:
        return {"regex_valid": False, "tag_to_events": {}}
    try:
        regex = re.compile(pattern)
    except re.error:
        return {"regex_valid": False, "tag_to_events": {}}
    tags = data_provider.list_tags("scalars").get(run, {})
    return {"regex_valid": True,
            "tag_to_events": {tag: read_rows(data_provider, run, tag)
                              for tag in tags if regex.match(tag)}}


@bp.route("/layout")
def layout_route():
    layout, errors = merged_layout(provider())
    body = json_format.MessageToDict(layout, always_print_fields_with_no_presence=True) \
        if layout is not None else {}
    if errors:
        body["lensErrors"] = errors
    return json_response(body)


@bp.route("/scalars")
def scalars_route():
    return json_response(scalars_matching(provider(), request.args.get("run"),
                                          request.args.get("tag")))


@bp.route("/download_data")
def download_data_route():
    run, tag = request.args.get("run"), request.args.get("tag")
    fmt = request.args.get("format") or "json"
    if fmt not in ("json", "csv"):
        raise BadRequest("format must be 'json' or 'csv', got %r" % fmt)
    try:
        rows = read_rows(provider(), run, tag)
    except NotFound as exc:
        raise BadRequest(str(exc)) from None
    if fmt == "csv":
        return Response(scalar_csv(rows), mimetype="text/csv")
    return json_response(rows)
