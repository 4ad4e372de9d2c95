"""Scalars dashboard routes (TensorBoard's shapes, plus lens's viewport downsampling).

GET /data/plugin/scalars/tags
    {"train": {"loss": {"displayName": "loss", "description": ""}}}   (runs w/o scalars omitted)
    displayName as TensorBoard gives it: the summary's display name, the tag for a TF1
    simple_value without one, "" for a TF2 tensor summary written without one.
GET /data/plugin/scalars/scalars?run=train&tag=loss
    [[1700000000.5, 0, 2.31], [1700000001.5, 1, 2.04]]               ([wall_time, step, value])
GET /data/plugin/scalars/scalars?run=train&tag=loss&format=csv
    Wall time,Step,Value
    1700000000.5,0,2.31
GET /data/plugin/scalars/scalars?run=train&tag=loss&downsample=1000&min_step=100&max_step=900
    lens extra: only steps in [min_step, max_step], reduced to about 1000 points by buckets
    over the step axis keeping each bucket's first, min, max and last point (spikes survive).
    Without downsample every point is returned (lens keeps all scalars). The response header
    X-Lens-Total-Points tells how many points the step range holds before downsampling.
POST /data/plugin/scalars/scalars_multirun     form: tag=loss&runs=train&runs=eval
    {"train": [[1700000000.5, 0, 2.31]], "eval": [...]}   (runs without the tag are omitted;
    accepts the same downsample/min_step/max_step extras as form fields)
GET /data/plugin/scalars/export?tag=loss&format=csv|json[&layout=long|wide][&run=train...]
    lens extra: one tag across every run (or the runs given) as a download, the table
    `lens export` writes: long rows run,tag,step,wall_time,value or wide step x run/tag columns.
Non-finite values are sent as the strings "NaN", "Infinity", "-Infinity" like TensorBoard.
"""

import csv
import io
import json
from urllib.parse import parse_qsl

from flask import Blueprint, Response, request
from werkzeug.exceptions import BadRequest

from lens.board import markdown
from lens.board.params import json_response, provider, required
from lens.board.scalar_json import BODIES, rows_json
from lens.events import answers, export
from lens.events.provider import NotFound

PLUGIN = "scalars"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")


def tag_index(tags_by_run):
    """Provider's {run: {tag: meta}} -> TensorBoard's index, descriptions as safe HTML."""
    return {run: {tag: {"displayName": meta.get("displayName", ""),
                        "description": markdown.render(meta.get("description") or "")}
                  for tag, meta in tags.items()}
            for run, tags in tags_by_run.items() if tags}


def scalar_rows(steps, wall_times, values):
    """Column arrays -> [[wall_time, step, value], ...] (plain Python numbers)."""
    return [list(row) for row in zip(wall_times.tolist(), steps.tolist(), values.tolist())]


def scalar_csv(rows):
    """Rows -> TensorBoard's CSV text with the header 'Wall time,Step,Value'."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Wall time", "Step", "Value"])
    writer.writerows(rows)
    return out.getvalue()


def _int_field(source, name, minimum=None):
    """An optional integer from a form or query dict."""
    raw = source.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"'{name}' must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise BadRequest(f"'{name}' must be >= {minimum}, got {value}")
    return value


def viewport(source):
    """(max_points, step_range) from downsample/min_step/max_step, validated."""
    max_points = _int_field(source, "downsample", minimum=4)
    lo, hi = _int_field(source, "min_step"), _int_field(source, "max_step")
    if lo is not None and hi is not None and lo > hi:
        raise BadRequest(f"min_step ({lo}) is greater than max_step ({hi}): swap them")
    step_range = None
    if lo is not None or hi is not None:
        step_range = (lo if lo is not None else -(2 ** 63), hi if hi is not None else 2 ** 63 - 1)
    return max_points, step_range


def read_rows(data_provider, run, tag, max_points=None, step_range=None):
    """One series as rows, through the provider (never the filesystem)."""
    steps, walls, values = data_provider.scalars(run, tag, max_points=max_points,
                                                 step_range=step_range)
    return scalar_rows(steps, walls, values)


def _cached_rows_json(steps, walls, values):
    """rows_json through the board's cache of encoded bodies."""
    return BODIES.encode(rows_json, steps, walls, values)


@bp.route("/tags")
def tags_route():
    return json_response(tag_index(provider().list_tags(PLUGIN)))


@bp.route("/scalars")
def scalars_route():
    run, tag = required("run"), required("tag")
    output = request.args.get("format", "json")
    if output not in ("json", "csv"):
        raise BadRequest(f"format must be 'json' or 'csv', got {output!r}")
    max_points, step_range = viewport(request.args)
    data_provider = provider()
    ready = getattr(data_provider, "scalar_answer", None)
    if output == "json" and ready is not None:
        # The provider's answer: the count and the JSON text, kept ready for small answers.
        total, body = ready(run, tag, max_points=max_points, step_range=step_range,
                            encode=_cached_rows_json)
        response = Response(body, mimetype="application/json")
        response.headers["X-Lens-Total-Points"] = str(total)
        return response
    # The whole range first: its length is the X-Lens-Total-Points header, and when it holds
    # no more than max_points it is the answer itself (one provider call instead of two).
    columns = data_provider.scalars(run, tag, step_range=step_range)
    total = len(columns[0])
    if max_points is not None and total > max_points:
        columns = data_provider.scalars(run, tag, max_points=max_points, step_range=step_range)
    if output == "csv":
        response = Response(scalar_csv(scalar_rows(*columns)), mimetype="text/csv")
    else:
        response = Response(BODIES.encode(rows_json, *columns), mimetype="application/json")
    # Lens extra: how many points the range holds, so the page knows to refetch on zoom.
    response.headers["X-Lens-Total-Points"] = str(total)
    return response


def wsgi_fast_path(wsgi_app, data_provider, headers):
    """wsgi_app, with the scalars route's ready answers (downsample <= answers.MEMO_POINTS over
    every step: what the page asks once per run and tag, thousands at a start) served without
    Flask's dispatch, byte for byte the route's response; any other request goes to Flask."""
    ready = getattr(data_provider, "scalar_answer", None)
    if ready is None:
        return wsgi_app
    path = bp.url_prefix + "/scalars"

    def app(environ, start_response):
        if environ.get("PATH_INFO") == path and environ.get("REQUEST_METHOD") == "GET":
            found = _ready_answer(ready, environ.get("QUERY_STRING", ""))
            if found is not None:
                total, body = found
                data = body.encode("ascii")
                start_response("200 OK", [("Content-Type", "application/json"),
                                          ("Content-Length", str(len(data))),
                                          ("X-Lens-Total-Points", str(total)), *headers])
                return [data]
        return wsgi_app(environ, start_response)

    return app


def _ready_answer(ready, query):
    """(total, JSON text) for ?run=&tag=&downsample=N[&format=json] when the answer is kept
    ready; None for anything else (Flask answers it, errors included)."""
    try:
        fields = parse_qsl(query.encode("latin-1").decode(), keep_blank_values=True,
                           errors="strict")
    except (UnicodeError, ValueError):
        return None
    args = dict(fields)
    if len(args) != len(fields) or not args.keys() <= {"run", "tag", "downsample", "format"} or \
            args.get("format", "json") != "json" or not args.get("run") or not args.get("tag"):
        return None
    raw = args.get("downsample", "")
    if not (raw.isascii() and raw.isdigit()) or not 4 <= int(raw) <= answers.MEMO_POINTS:
        return None
    try:
        return ready(args["run"], args["tag"], max_points=int(raw), encode=_cached_rows_json)
    except Exception:  # noqa: BLE001 - Flask answers the same request with the right error
        return None


@bp.route("/scalars_multirun", methods=["POST"])
def scalars_multirun_route():
    tags = request.form.getlist("tag") or request.form.getlist("tags")
    if len(tags) != 1:
        raise BadRequest(f"form field 'tag' must be given exactly once, got {len(tags)}")
    runs = request.form.getlist("runs")
    max_points, step_range = viewport(request.form)
    data_provider = provider()
    known = set(data_provider.runs())
    ready = getattr(data_provider, "scalar_answer", None)
    parts = {}
    for run in runs:
        if run not in known:
            continue  # TensorBoard omits runs it has no data for
        try:
            if ready is not None:
                parts[run] = ready(run, tags[0], max_points=max_points, step_range=step_range,
                                   encode=_cached_rows_json)[1]
                continue
            columns = data_provider.scalars(run, tags[0], max_points=max_points,
                                            step_range=step_range)
        except NotFound:
            continue
        parts[run] = BODIES.encode(rows_json, *columns)
    # The same text json.dumps gives for {run: rows} (runs in request order, repeats once).
    body = ",".join(json.dumps(run) + ":" + rows for run, rows in parts.items())
    return Response("{" + body + "}", mimetype="application/json")


@bp.route("/export")
def export_route():
    tag = required("tag")
    output = request.args.get("format", "csv")
    layout = request.args.get("layout", "long")
    if output not in ("csv", "json"):
        raise BadRequest(f"format must be 'csv' or 'json', got {output!r}")
    if layout not in export.LAYOUTS:
        raise BadRequest(f"layout must be 'long' or 'wide', got {layout!r}")
    data_provider = provider()
    wanted = request.args.getlist("run")
    runs = [run for run, tags in sorted(data_provider.list_tags(PLUGIN).items())
            if tag in tags and (not wanted or run in wanted)]
    if not runs:
        raise NotFound(f"no run has the scalar tag {tag!r}")
    out = io.StringIO()
    export.TEXT_WRITERS[(output, layout)](
        export.iter_series(data_provider, [(run, tag) for run in runs]), out)
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in tag) or "scalars"
    response = Response(out.getvalue(), mimetype="text/csv" if output == "csv"
                        else "application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}.{output}"'
    return response
