"""Debugger V2 dashboard routes: TensorBoard's routes, JSON and 400 messages over tfdbg v2
DebugEvent dumps (written by lens or TensorFlow 2.x) found anywhere under the logdir.

GET /data/plugin/debugger-v2/runs                                 {run: {"start_time": s}}
GET /alerts?run=&begin=0&end=-1[&alert_type=InfNanAlert]           InfNan alerts, paged
GET /execution/digests|data?run=&begin=&end=                       top-level executions
GET /graph_execution/digests|data?run=&begin=&end=                 intra-graph traces
GET /graphs/graph_info?run=&graph_id=     GET /graphs/op_info?run=&graph_id=&op_name=
GET /source_files/list?run=    /source_files/file?run=&index=    /stack_frames/stack_frames?
    run=&stack_frame_ids=a,b
A logdir that is itself a dump is run `__default_debugger_run__`; other dumps are named by
their folder relative to the logdir. Lens's additions: /damage?run= ({file: problem}) and
/health_pills?run=&graph_id=[&execution=k] (the last health summary per op, for the graph).
"""

import threading
import time

from flask import Blueprint, current_app, request

from lens.board.params import json_response, provider
from lens.events.debug_events import DebuggerRuns, RequestError

PLUGIN = "debugger-v2"
bp = Blueprint("debugger_v2", __name__, url_prefix=f"/data/plugin/{PLUGIN}")
RELOAD_SECONDS = 1.0  # a page asking often sees new records within a second (live tailing)
_init_lock = threading.Lock()


def _error(message):
    return json_response({"error": message}, status=400)


def _app_state():
    ext = current_app.extensions
    with _init_lock:
        state = ext.get("lens_debugger_v2")
        if state is None:
            state = ext["lens_debugger_v2"] = {"runs": DebuggerRuns.for_provider(provider()),
                                               "at": 0.0, "lock": threading.Lock()}
    return state


def runs_of_app():
    """The app's DebuggerRuns, re-read at most once per RELOAD_SECONDS."""
    state = _app_state()
    with state["lock"]:
        if time.monotonic() - state["at"] >= RELOAD_SECONDS:
            state["runs"].reload()
            state["at"] = time.monotonic()
    return state["runs"]


def is_active(data_provider):
    """Active when a dump lies under the logdir (found without reading it: a big dump's first
    load must not hold up the page's tab listing)."""
    return _app_state()["runs"].has_dumps()


def _int(name, default):
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise RequestError("query parameter '%s' must be an integer, got %r" % (name, raw)) \
            from None


def _answer(build):
    """Run a route body: RequestError -> 400 {"error": message}."""
    run = request.args.get("run")
    if run is None:
        return _error("run parameter is not provided")
    try:
        return json_response(build(runs_of_app(), run))
    except RequestError as e:
        return _error(str(e))


@bp.route("/runs")
def runs_route():
    return json_response(runs_of_app().runs())


@bp.route("/alerts")
def alerts_route():
    return _answer(lambda r, run: r.alerts(run, _int("begin", 0), _int("end", -1),
                                           request.args.get("alert_type")))


@bp.route("/execution/digests")
def execution_digests_route():
    return _answer(lambda r, run: r.execution_digests(run, _int("begin", 0), _int("end", -1)))


@bp.route("/execution/data")
def execution_data_route():
    return _answer(lambda r, run: r.execution_data(run, _int("begin", 0), _int("end", -1)))


@bp.route("/graph_execution/digests")
def graph_execution_digests_route():
    return _answer(lambda r, run: r.graph_execution_digests(run, _int("begin", 0),
                                                            _int("end", -1)))


@bp.route("/graph_execution/data")
def graph_execution_data_route():
    return _answer(lambda r, run: r.graph_execution_data(run, _int("begin", 0),
                                                         _int("end", -1)))


@bp.route("/graphs/graph_info")
def graph_info_route():
    return _answer(lambda r, run: r.graph_info(run, _graph_id()))


def _graph_id():
    graph_id = request.args.get("graph_id")
    if not graph_id:
        # TensorBoard fails with a 500 here; a 400 says what is missing.
        raise RequestError("graph_id parameter is not provided")
    return graph_id


@bp.route("/graphs/op_info")
def op_info_route():
    return _answer(lambda r, run: r.op_info(run, _graph_id(), request.args.get("op_name")))


@bp.route("/source_files/list")
def source_files_list_route():
    return _answer(lambda r, run: r.source_files_list(run))


@bp.route("/source_files/file")
def source_file_route():
    def build(r, run):
        if request.args.get("index") is None:
            raise RequestError("index is not provided for source file content")
        return r.source_file(run, _int("index", 0))
    return _answer(build)


@bp.route("/stack_frames/stack_frames")
def stack_frames_route():
    def build(r, run):
        ids = request.args.get("stack_frame_ids")
        if ids is None:
            raise RequestError("Missing stack_frame_ids parameter")
        if not ids:
            raise RequestError("Empty stack_frame_ids parameter")
        return r.stack_frames(run, ids.split(","))
    return _answer(build)


@bp.route("/damage")
def damage_route():
    return _answer(lambda r, run: r.damage(run))


@bp.route("/health_pills")
def health_pills_route():
    return _answer(lambda r, run: r.health_pills(run, request.args.get("graph_id"),
                                                 _int("execution", -1)))
