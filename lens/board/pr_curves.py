"""PR curves dashboard routes (TensorBoard's shapes).

GET /data/plugin/pr_curves/tags
    {"run": {"name/pr_curves": {"displayName": "name", "description": "<p>html</p>"}}}
GET /data/plugin/pr_curves/pr_curves?run=a&run=b&tag=name/pr_curves
    {"a": [{"wall_time", "step", "precision": [..], "recall": [..], "true_positives": [..],
            "false_positives", "true_negatives", "false_negatives", "thresholds": [..]}]}
    Thresholds are evenly spread over [0, 1]; every list stops after the last threshold that
    still has a positive prediction (TP + FP > 0), as TensorBoard trims them.
    A run without the tag is a 400 naming the run and the tag (TensorBoard's answer).
"""

import numpy as np
from flask import Blueprint, request
from werkzeug.exceptions import BadRequest

from lens.board import markdown
from lens.board.params import json_response, provider
from lens.events.provider import NotFound
from lens.proto import pr_curve_plugin_data_pb2

PLUGIN = "pr_curves"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")
KNOWN_VERSION = 0


def is_active(data_provider):
    """Active when any run holds a PR curve."""
    return bool(data_provider.plugin_tags(PLUGIN))


def _version_ok(content):
    try:
        return pr_curve_plugin_data_pb2.PrCurvePluginData.FromString(content).version \
            <= KNOWN_VERSION
    except Exception:  # unreadable plugin data: the tag is skipped like a newer version
        return False


def tag_index(tags_by_run):
    """Provider's plugin_tags -> TensorBoard's {run: {tag: {displayName, description}}}."""
    return {run: {tag: {"displayName": info["displayName"],
                        "description": markdown.render(info["description"] or "")}
                  for tag, info in tags.items() if _version_ok(info["content"])}
            for run, tags in tags_by_run.items()}


def pr_entry(wall_time, step, data):
    """One step's curve from the [6, num_thresholds] tensor, trimmed after the last threshold
    with any positive prediction."""
    data = np.asarray(data)
    if data.ndim != 2 or data.shape[0] != 6 or data.shape[1] < 1:
        raise ValueError("a PR curve tensor must have shape [6, num_thresholds], got %s"
                         % list(data.shape))
    positives = data[[0, 1], :].astype(int).sum(axis=0)
    end = len(positives) - 1
    while end > 0 and positives[end] == 0:
        end -= 1
    end += 1
    counts = data[:4, :end].astype(np.int64).tolist()  # truncated toward zero, as int()
    return {"wall_time": wall_time, "step": step,
            "precision": data[4, :end].tolist(), "recall": data[5, :end].tolist(),
            "true_positives": counts[0], "false_positives": counts[1],
            "true_negatives": counts[2], "false_negatives": counts[3],
            "thresholds": np.linspace(0.0, 1.0, data.shape[1])[:end].tolist()}


def curves(data_provider, runs, tag):
    """{run: [entry per step]}; ValueError naming the first run without the tag."""
    out = {}
    for run in runs:
        try:
            series = data_provider.tensors(run, tag)
        except NotFound:
            series = None
        if not series:
            raise ValueError("No PR curves could be found for run %r and tag %r" % (run, tag))
        out[run] = [pr_entry(wall, step, array) for wall, step, array in series]
    return out


@bp.route("/tags")
def tags_route():
    return json_response(tag_index(provider().plugin_tags(PLUGIN)))


@bp.route("/pr_curves")
def pr_curves_route():
    runs = request.args.getlist("run")
    if not runs:
        raise BadRequest("No runs provided when fetching PR curve data")
    tag = request.args.get("tag")
    if not tag:
        raise BadRequest("No tag provided when fetching PR curve data")
    try:
        return json_response(curves(provider(), runs, tag))
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
