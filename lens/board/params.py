"""Shared request helpers for the board's blueprints: argument parsing and JSON responses.

Every helper raises werkzeug's BadRequest with a message saying what is wrong and how to
fix it; the app's error handler turns that into `{"error": message}` with status 400.
"""

import json
import math

from flask import Response, current_app, request
from werkzeug.exceptions import BadRequest


def provider():
    """The DataProvider serving this app."""
    return current_app.config["LENS_PROVIDER"]


def required(name):
    """A query parameter that must be present and non-empty."""
    value = request.args.get(name)
    if value is None or value == "":
        raise BadRequest(f"missing query parameter '{name}': add ?{name}=... to the URL")
    return value


def optional_int(name, default=None, minimum=None):
    """An optional integer query parameter, checked against a lower bound."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"query parameter '{name}' must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise BadRequest(f"query parameter '{name}' must be >= {minimum}, got {value}")
    return value


def cleanse(obj):
    """Replace NaN/Infinity floats by the strings TensorBoard sends ("NaN", "Infinity")."""
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        if math.isnan(obj):
            return "NaN"
        return "Infinity" if obj > 0 else "-Infinity"
    if isinstance(obj, (list, tuple)):
        return [cleanse(x) for x in obj]
    if isinstance(obj, dict):
        return {k: cleanse(v) for k, v in obj.items()}
    return obj


def json_text(obj):
    """obj as compact JSON the way TensorBoard writes it (non-finite floats as strings)."""
    try:
        return json.dumps(obj, allow_nan=False, separators=(",", ":"))
    except ValueError:
        # Only walk the structure when a non-finite float is actually present.
        return json.dumps(cleanse(obj), separators=(",", ":"))


def json_response(obj, status=200):
    """Serialize obj as JSON the way TensorBoard does (non-finite floats as strings)."""
    return Response(json_text(obj), status=status, mimetype="application/json")


def even_sample(items, k):
    """At most k items spread evenly, always keeping the first and the last (k<=0: all)."""
    n = len(items)
    if k <= 0 or n <= k:
        return list(items)
    if k == 1:
        return [items[-1]]
    # Index i*(n-1)/(k-1) hits 0 and n-1 exactly and never repeats an item since k < n.
    return [items[(i * (n - 1)) // (k - 1)] for i in range(k)]
