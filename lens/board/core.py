"""Core routes: runs, environment, plugin listing, plus lens's loading progress.

GET /data/runs
    ["run_a", "sub/run_b"]                       (by first event's wall time, then name)
    header X-Lens-Events: 40                     (lens extra: events read before the listing)
GET /data/environment
    {"version": "0.1.0", "data_location": "/logs", "window_title": "",
     "experiment_name": "", "experiment_description": "", "creation_time": 0.0}
GET /data/plugins_listing
    {"scalars": {"disable_reload": false, "enabled": true, "remove_dom": false,
                 "tab_name": "scalars", "loading_mechanism":
                     {"type": "CUSTOM_ELEMENT", "element_name": "tf-scalar-dashboard"}}, ...}
GET /data/lens/progress                          (lens extra; TensorBoard has no such route)
    {"runs": 3, "files": 3, "bytes_read": 1024, "bytes_total": 2048, "events": 40,
     "done": false, "reload_interval": 5.0,
     "errors": {"run_a": {"count": 1, "skipped": 1, "first": "run run_a: tag 'x' at ..."}}}
    errors: only runs that met unexpected errors while loading (count, records or values
    lost to them, the first message); the page marks those runs in the run selector.
    per_run: {"run_a": {"files": 1, "bytes_read": 512, "bytes_total": 1024, "events": 20}}
    for every run found so far; the run selector shows a percentage beside runs still loading.
"""

import logging
import math

from flask import Blueprint, current_app

from lens.board.params import json_response, provider

bp = Blueprint("core", __name__, url_prefix="/data")
log = logging.getLogger(__name__)

# TensorBoard's front-end element for each dashboard (part of the plugins_listing shape).
ELEMENT_NAMES = {
    "scalars": "tf-scalar-dashboard",
    "images": "tf-image-dashboard",
    "audio": "tf-audio-dashboard",
    "graphs": "tf-graph-dashboard",
    "distributions": "tf-distribution-dashboard",
    "histograms": "tf-histogram-dashboard",
    "text": "tf-text-dashboard",
    "pr_curves": "tf-pr-curve-dashboard",
    "custom_scalars": "tf-custom-scalar-dashboard",
    "hparams": "tf-hparams-dashboard",
    "projector": "vz-projector-dashboard",
    "mesh": "mesh-dashboard",
}
# Tab names TensorBoard gives that differ from the plugin name.
TAB_NAMES = {"pr_curves": "PR Curves", "custom_scalars": "Custom Scalars"}


def lens_version():
    """The installed lens version string."""
    try:
        from importlib.metadata import version

        return version("lens")
    except Exception:  # not installed as a distribution (e.g. run from a checkout)
        return "0.0.0"


def order_runs(runs, start_times):
    """Runs ordered by first-event wall time, runs without one last, ties by name."""
    def key(run):
        t = start_times.get(run)
        return (t is None or (isinstance(t, float) and math.isnan(t)), t or 0.0, run)

    return sorted(runs, key=key)


def environment(version, data_location, window_title=""):
    """The /data/environment object in TensorBoard's shape."""
    return {"version": version, "data_location": data_location, "window_title": window_title,
            "experiment_name": "", "experiment_description": "", "creation_time": 0.0}


# TensorBoard's graph dashboard does not refetch on reload (a graph is laid out once).
NO_RELOAD = frozenset({"graphs"})


def listing_entry(name, enabled):
    """One plugins_listing entry in TensorBoard's shape."""
    return {"disable_reload": name in NO_RELOAD, "enabled": bool(enabled),
            "loading_mechanism": {"type": "CUSTOM_ELEMENT",
                                  "element_name": ELEMENT_NAMES.get(name, f"lens-{name}")},
            "remove_dom": False, "tab_name": TAB_NAMES.get(name, name)}


def tags_active(data_provider, plugin):
    """A tag-based plugin is active when any run holds a tag for it."""
    return any(tags for tags in data_provider.list_tags(plugin).values())


def graphs_active(data_provider):
    """Graphs are active when any run has a graph or tagged run metadata."""
    return any(data_provider.graph(run) is not None or data_provider.run_metadata_tags(run)
               for run in data_provider.runs())


def plugin_active(name, module, data_provider):
    """Ask the module first (it may know better), then fall back to the provider's tags."""
    check = getattr(module, "is_active", None)
    try:
        if check is not None:
            return bool(check(data_provider))
        if name == "graphs":
            return graphs_active(data_provider)
        return tags_active(data_provider, name)
    except Exception:  # one broken plugin must not hide the others (TensorBoard does the same)
        log.exception("plugins_listing: is_active for %s failed; marking it inactive", name)
        return False


@bp.route("/runs")
def runs_route():
    data_provider = provider()
    # Counted first: the listing then reflects at least that many events, so the page can tell
    # whether its first load already saw everything the initial read brought in.
    events = data_provider.progress()["events"]
    runs = data_provider.runs()
    starts = {run: data_provider.run_start_time(run) for run in runs}
    response = json_response(order_runs(runs, starts))
    response.headers["X-Lens-Events"] = str(events)
    return response


@bp.route("/environment")
def environment_route():
    return json_response(environment(lens_version(), current_app.config["LENS_DATA_LOCATION"]))


@bp.route("/plugins_listing")
def plugins_listing_route():
    data_provider = provider()
    modules = current_app.config["LENS_DASHBOARDS"]
    listing = {name: listing_entry(name, plugin_active(name, module, data_provider))
               for name, module in modules.items()}
    return json_response(listing)


@bp.route("/lens/progress")
def progress_route():
    progress = dict(provider().progress())
    progress["reload_interval"] = current_app.config["LENS_RELOAD_INTERVAL"]
    return json_response(progress)
