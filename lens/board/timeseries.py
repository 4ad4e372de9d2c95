"""Time Series dashboard routes (TensorBoard's metrics plugin, url_prefix /data/plugin/timeseries).

GET /data/plugin/timeseries/tags
    {"scalars": {"runTagInfo": {"train": ["loss"]}, "tagDescriptions": {"loss": "<p>..</p>"}},
     "histograms": {"runTagInfo": {...}, "tagDescriptions": {...}},
     "images": {"tagDescriptions": {...},
                "tagRunSampledInfo": {"input/image": {"train": {"maxSamplesPerStep": 1}}}}}
    (tagDescriptions holds only tags with a description; one tag described differently by
    several runs gets TensorBoard's combined "Multiple descriptions" text)
POST /data/plugin/timeseries/timeSeries      form: requests=[{"plugin": "scalars", "tag": "loss"},
        {"plugin": "histograms", "tag": "w", "run": "train"},
        {"plugin": "images", "tag": "input/image", "run": "train", "sample": 0}]
    (GET with ?requests=... too) -> one response per request, in order:
    [{"plugin": "scalars", "tag": "loss",
      "runToSeries": {"train": [{"wallTime": 1700000000.5, "step": 0, "value": 2.31}]}},
     {"plugin": "histograms", "tag": "w", "run": "train", "runToSeries": {"train":
        [{"wallTime": .., "step": 0, "bins": [{"min": -1.0, "max": 0.5, "count": 3.0}]}]}},
     {"plugin": "images", "tag": "input/image", "run": "train", "sample": 0, "runToSeries":
        {"train": [{"wallTime": .., "step": 0, "imageId": "<opaque>"}]}}]
    A bad request gets {"plugin", "tag", "error": "Missing tag" | "Invalid plugin" |
    "Missing run" | "Missing sample"} in its slot, as TensorBoard answers.
    Histograms and images need "run"; scalars without one answer every run.
    Lens extras per request: "runs": [names] (scalars: only these runs), "downsample": N
    (scalars: about N points per run, each bucket's first, min, max and last kept; default
    20000 as the Scalars dashboard asks, TensorBoard samples 1000; histograms: N steps,
    default 51); "format": "columns" (scalars: each run's series as {"wallTime": [..],
    "step": [..], "value": [..]} instead of a list of points; the Time Series cards ask so).
GET /data/plugin/timeseries/imageData?imageId=<opaque>
    the image bytes, Content-Type sniffed from them (as individualImage).
"""

import json
from urllib.parse import parse_qs, urlencode

from flask import Blueprint, Response, request
from werkzeug.exceptions import BadRequest
from werkzeug.exceptions import NotFound as HTTPNotFound

from lens.board import images, markdown
from lens.board.histograms import histogram_rows
from lens.board.params import json_response, provider, required
from lens.board.scalar_json import BODIES, Raw, columns_json, compose, objects_json
from lens.events.provider import NotFound

PLUGIN = "timeseries"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")

SCALAR_POINTS = 20000     # points per run per scalar series before bucketing (lens's default)
HISTOGRAM_STEPS = 51      # steps per histogram series (TensorBoard's histograms route)
PLUGINS = ("scalars", "histograms", "images")
SINGLE_RUN = frozenset({"histograms", "images"})


def is_active(data_provider):
    """Active when any run holds scalars, histograms or images (TensorBoard's rule)."""
    return any(tags for plugin in PLUGINS for tags in data_provider.list_tags(plugin).values())


def tag_descriptions(tags_by_run):
    """{tag: description HTML} for described tags; differing descriptions are combined."""
    by_tag = {}
    for run, tags in tags_by_run.items():
        for tag, meta in tags.items():
            text = meta.get("description") or ""
            if text:
                by_tag.setdefault(tag, {}).setdefault(text, set()).add(run)
    out = {}
    for tag, texts in by_tag.items():
        if len(texts) == 1:
            text = next(iter(texts))
        else:
            parts = []
            for text in sorted(texts):
                runs = sorted(texts[text])
                parts.append(f"## For {'runs' if len(runs) > 1 else 'run'}: "
                             f"{', '.join(runs)}\n{text}")
            text = "# Multiple descriptions\n" + "\n".join(parts)
        out[tag] = markdown.render(text)
    return out


def basic_mapping(tags_by_run):
    return {"runTagInfo": {run: sorted(tags) for run, tags in tags_by_run.items() if tags},
            "tagDescriptions": tag_descriptions(tags_by_run)}


def image_mapping(tags_by_run):
    sampled = {}
    for run, tags in tags_by_run.items():
        for tag, meta in tags.items():
            sampled.setdefault(tag, {})[run] = {"maxSamplesPerStep": int(meta.get("samples", 0))}
    return {"tagDescriptions": tag_descriptions(tags_by_run), "tagRunSampledInfo": sampled}


@bp.route("/tags")
def tags_route():
    data_provider = provider()
    return json_response({
        "scalars": basic_mapping(data_provider.list_tags("scalars")),
        "histograms": basic_mapping(data_provider.list_tags("histograms")),
        "images": image_mapping(data_provider.list_tags("images")),
    })


def request_error(req):
    """TensorBoard's error string for a malformed series request, or None."""
    if not isinstance(req.get("tag"), str):
        return "Missing tag"
    if req.get("plugin") not in PLUGINS:
        return "Invalid plugin"
    if req["plugin"] in SINGLE_RUN and not isinstance(req.get("run"), str):
        return "Missing run"
    if req["plugin"] == "images" and not isinstance(req.get("sample"), int):
        return "Missing sample"
    return None


def _downsample(req, default):
    value = req.get("downsample", default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadRequest(f"'downsample' of the {req.get('plugin')} request for tag "
                         f"{req.get('tag')!r} must be a whole number >= 0, got {value!r}")
    return value


ENCODERS = {"points": objects_json, "columns": columns_json}


def scalar_series(data_provider, req, listing):
    runs = [req["run"]] if isinstance(req.get("run"), str) else req.get("runs")
    points = _downsample(req, SCALAR_POINTS)
    encoder = ENCODERS.get(req.get("format", "points"))
    if encoder is None:
        raise BadRequest(f"'format' of the scalars request for tag {req.get('tag')!r} must be "
                         f"one of {sorted(ENCODERS)}, got {req.get('format')!r}")
    known = listing("scalars")
    wanted = known if runs is None else [r for r in runs if r in known]
    out = {}
    for run in wanted:
        if req["tag"] not in known[run]:
            continue
        columns = data_provider.scalars(run, req["tag"], max_points=points or None)
        out[run] = Raw(BODIES.encode(encoder, *columns))
    return out


def histogram_series(data_provider, req, listing):
    run, tag = req["run"], req["tag"]
    try:
        series = data_provider.histogram_buckets(run, tag)
    except NotFound:
        return {}
    rows = histogram_rows(series, _downsample(req, HISTOGRAM_STEPS))
    return {run: [{"wallTime": wall, "step": step,
                   "bins": [{"min": a, "max": b, "count": c} for a, b, c in buckets]}
                  for wall, step, buckets in rows]}


def image_series(data_provider, req, listing):
    run, tag, sample = req["run"], req["tag"], req["sample"]
    try:
        entries = data_provider.images(run, tag)
    except NotFound:
        return {}
    rows = [{"wallTime": float(e["wall_time"]), "step": int(e["step"]),
             "imageId": urlencode({"run": run, "tag": tag, "index": i, "sample": sample})}
            for i, e in enumerate(images.of_sample(entries, sample))]
    return {run: rows} if rows else {}


SERIES = {"scalars": scalar_series, "histograms": histogram_series, "images": image_series}


def answer(data_provider, req, listing=None):
    """One TimeSeriesResponse for one request; listing(plugin): the provider's tag listing
    (a route answering many requests lists the tags once)."""
    if not isinstance(req, dict):
        raise BadRequest(f"each entry of 'requests' must be an object, got {req!r}")
    response = {"plugin": req.get("plugin"), "tag": req.get("tag")}
    if isinstance(req.get("run"), str):
        response["run"] = req["run"]
    if isinstance(req.get("sample"), int):
        response["sample"] = req["sample"]
    error = request_error(req)
    if error:
        response["error"] = error
        return response
    response["runToSeries"] = SERIES[req["plugin"]](data_provider, req,
                                                    listing or data_provider.list_tags)
    return response


@bp.route("/timeSeries", methods=["GET", "POST"])
def time_series_route():
    source = request.form if request.method == "POST" else request.args
    text = source.get("requests")
    if not text:
        raise BadRequest("missing 'requests': send a JSON list of "
                         "{plugin, tag[, run][, sample]} objects")
    try:
        reqs = json.loads(text)
    except ValueError:
        raise BadRequest("'requests' is not valid JSON") from None
    if not isinstance(reqs, list):
        raise BadRequest("'requests' must be a JSON list of {plugin, tag, ...} objects")
    data_provider = provider()
    listings = {}

    def listing(plugin):
        if plugin not in listings:
            listings[plugin] = data_provider.list_tags(plugin)
        return listings[plugin]
    body = ",".join(compose(answer(data_provider, r, listing)) for r in reqs)
    return Response("[" + body + "]", mimetype="application/json")


@bp.route("/imageData")
def image_data_route():
    fields = {k: v[0] for k, v in parse_qs(required("imageId")).items()}
    run, tag = fields.get("run"), fields.get("tag")
    if not run or not tag:
        raise BadRequest("'imageId' is not one this server gave out: take it from timeSeries")
    try:
        index, sample = int(fields.get("index", 0)), int(fields.get("sample", 0))
    except ValueError:
        raise BadRequest("'imageId' is not one this server gave out: take it from timeSeries") from None
    chosen = images.of_sample(provider().images(run, tag), sample)
    if not 0 <= index < len(chosen):
        raise HTTPNotFound(f"run {run!r} tag {tag!r} has {len(chosen)} images at sample "
                           f"{sample}; the image asked for is gone")
    data = bytes(chosen[index]["encoded"])
    response = Response(data, mimetype=images.sniff_content_type(data))
    response.headers["Cache-Control"] = "private, max-age=3600"
    return response
