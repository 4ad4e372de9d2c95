"""Embedding projector routes (TensorBoard's paths and answers, plus lens's projections).

GET /data/plugin/projector/runs                  ["run", ...]: runs with embeddings
GET /info?run=                                   the run's ProjectorConfig as JSON, completed with its
                                                 checkpoint's 2D tensors and their shapes
GET /tensor?run=&name=[&num_rows=]               the tensor as float32 bytes (row-major)
GET /metadata?run=&name=[&num_rows=]             the metadata TSV (header row kept)
GET /bookmarks?run=&name=                        the bookmarks JSON file
GET /sprite_image?run=&name=                     the sprite image
lens only:
GET /problems                                    {"runs": {run: message}, "embeddings": {run: [{tensor, error}]}}
GET /projection?run=&name=&method=pca|tsne|umap&dims=2|3
                                                 the points as float32 bytes [N, dims]; headers
                                                 X-Lens-Dims and X-Lens-Variance (PCA's explained
                                                 variance per component, comma-separated)
GET /methods                                     {"pca": true, "tsne": bool, "umap": bool}
Errors are 400s with TensorBoard's messages.
"""

import os
import threading
import weakref

import numpy as np
from flask import Blueprint, Response, request
from google.protobuf import json_format
from werkzeug.exceptions import BadRequest

from lens.board import projector_data as D
from lens.board import projector_math
from lens.board.params import json_response, provider

PLUGIN = "projector"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")
_caches = weakref.WeakKeyDictionary()     # provider -> {"key", "value"}
_cache_lock = threading.Lock()


def _mtime(path):
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _signature(run_dirs):
    """What a change of forces a reload: configs and checkpoint state files, per run directory."""
    files = []
    for directory in sorted(set(run_dirs.values())):
        for name in (D.PROJECTOR_FILENAME, os.path.join(D.ASSETS_DIR, D.PROJECTOR_FILENAME), "checkpoint",
                     os.path.join(os.pardir, "checkpoint")):
            path = os.path.join(directory, name)
            files.append((path, _mtime(path)))
    return tuple(sorted(run_dirs.items())), tuple(files)


def runs_state(data_provider):
    """(runs, problems) for the provider's logdir, reloaded when a config or checkpoint changes."""
    run_dirs = data_provider.run_dirs() if hasattr(data_provider, "run_dirs") else {}
    key = _signature(run_dirs)
    with _cache_lock:
        cache = _caches.setdefault(data_provider, {"key": None, "value": None})
        if cache["key"] != key:
            cache["value"] = D.load_runs(run_dirs)
            cache["key"] = key
        return cache["value"]


def is_active(data_provider):
    """Active when any run has an embedding to show."""
    return bool(runs_state(data_provider)[0])


def _arg(name):
    value = request.args.get(name)
    if value is None:
        raise BadRequest('query parameter "%s" is required' % name)
    return value


def _num_rows():
    raw = request.args.get("num_rows")
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        raise BadRequest("query parameter num_rows must be integer > 0")
    return value


def _run():
    name = _arg("run")
    if not name:
        raise BadRequest('query parameter "run" is required')
    entry = runs_state(provider())[0].get(name)
    if entry is None:
        raise BadRequest('Unknown run: "%s"' % name)
    return entry


def _asset(entry, fpath):
    try:
        fpath = D.asset_path(fpath, entry.config_fpath)
    except D.ProjectorError as e:
        raise BadRequest(str(e)) from None
    if not os.path.isfile(fpath):
        raise BadRequest('"%s" not found, or is not a file' % fpath)
    return fpath


def _embedding_file(entry, name, field, what):
    info = D.find_embedding(entry.config, name)
    fpath = getattr(info, field) if info is not None else ""
    if not fpath:
        raise BadRequest('No %s file found for tensor "%s" in the config file "%s"'
                         % (what, name, entry.config_fpath))
    return _asset(entry, fpath)


def _tensor(entry, name):
    try:
        return entry.tensor(name)
    except (D.ProjectorError, OSError, ValueError) as e:
        raise BadRequest(str(e)) from None


@bp.route("/runs")
def runs_route():
    return json_response(list(runs_state(provider())[0]))


@bp.route("/info")
def info_route():
    entry = _run()
    return json_response(json_format.MessageToDict(entry.config))


@bp.route("/tensor")
def tensor_route():
    entry = _run()
    name = _arg("name")
    num_rows = _num_rows()
    tensor = _tensor(entry, name)
    if num_rows:
        tensor = tensor[:num_rows]
    return Response(tensor.tobytes(), mimetype="application/octet-stream")


@bp.route("/metadata")
def metadata_route():
    entry = _run()
    name = _arg("name")
    num_rows = _num_rows()
    fpath = _embedding_file(entry, name, "metadata_path", "metadata")
    lines, header = [], 0
    with open(fpath, encoding="utf-8", newline="") as f:
        for line in f:
            lines.append(line)
            if len(lines) == 1 and "\t" in line:
                header = 1
            if num_rows and len(lines) >= num_rows + header:
                break
    return Response("".join(lines), mimetype="text/plain")


@bp.route("/bookmarks")
def bookmarks_route():
    entry = _run()
    fpath = _embedding_file(entry, _arg("name"), "bookmarks_path", "bookmarks")
    with open(fpath, "rb") as f:
        return Response(f.read(), mimetype="application/json")


_IMAGE_TYPES = ((b"\x89PNG", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"),
                (b"BM", "image/bmp"))


@bp.route("/sprite_image")
def sprite_image_route():
    entry = _run()
    name = _arg("name")
    info = D.find_embedding(entry.config, name)
    if info is None or not info.sprite.image_path:
        raise BadRequest('No sprite image file found for tensor "%s" in the config file "%s"'
                         % (name, entry.config_fpath))
    try:
        fpath = D.asset_path(info.sprite.image_path, entry.config_fpath)
    except D.ProjectorError as e:
        raise BadRequest(str(e)) from None
    if not os.path.isfile(fpath):
        raise BadRequest('"%s" does not exist or is directory' % fpath)
    with open(fpath, "rb") as f:
        data = f.read()
    mimetype = next((m for magic, m in _IMAGE_TYPES if data.startswith(magic)), "application/octet-stream")
    return Response(data, mimetype=mimetype)


@bp.route("/problems")
def problems_route():
    runs, problems = runs_state(provider())
    return json_response({"runs": problems,
                          "embeddings": {run: entry.errors for run, entry in runs.items() if entry.errors}})


@bp.route("/methods")
def methods_route():
    return json_response(projector_math.available())


@bp.route("/projection")
def projection_route():
    entry = _run()
    name = _arg("name")
    method = request.args.get("method", "pca")
    try:
        dims = int(request.args.get("dims", "3"))
    except ValueError:
        raise BadRequest("dims must be 2 or 3, got %r" % request.args.get("dims")) from None
    key = (name, method, dims)
    if key not in entry.projections:
        tensor = _tensor(entry, name)
        try:
            entry.projections[key] = projector_math.project(tensor, method, dims)
        except (ValueError, projector_math.ProjectionError) as e:
            raise BadRequest(str(e)) from None
    points, variance = entry.projections[key]
    response = Response(np.ascontiguousarray(points, dtype="<f4").tobytes(), mimetype="application/octet-stream")
    response.headers["X-Lens-Dims"] = str(points.shape[1])
    response.headers["X-Lens-Variance"] = ",".join("%.6g" % v for v in variance or [])
    return response
