"""The Graphs dashboard's routes (url_prefix /data/plugin/graphs).

TensorBoard-compatible:
  GET info
      {"train": {"run": "train", "run_graph": true,
                 "tags": {"step_100": {"tag": "step_100", "conceptual_graph": false,
                                       "op_graph": false, "profile": true}}}}
  GET graph?run=train[&tag=][&limit_attr_size=1024&large_attrs_key=_too_large_attrs]
      the GraphDef as pbtxt (text/x-protobuf): node { name: "x" op: "Placeholder" ... }
  GET run_metadata?run=train&tag=step_100
      the RunMetadata as pbtxt: step_stats { dev_stats { device: "/cpu:0" ... } }

lens only (JSON, built once per graph and cached; each also takes &upload=<id> instead of
&run= for a graph uploaded with POST upload, see graph_upload.py):
  GET hierarchy?run=train[&tag=]
      {"num_ops": 42, "devices": ["/cpu:0"], "templates": 2,
       "nodes": {"": {"kind": "meta", "children": ["layer1", ...], "edges":
                      [["layer1", "layer2", 1, 0, "?×10", 10.0, ["layer1/Relu"],
                        ["layer2/MatMul"]]], "count": 42, ...},
                 "layer1/MatMul": {"kind": "op", "op": "MatMul", "parent": "layer1", ...}}}
      edges are [source, target, data edges, control edges, label, total elements or null,
                 ops inside source it leaves, ops inside target it reaches] (empty for op ends)
  GET hierarchy?run=train&scope=layer1     the same shape with only that scope's nodes, and
  GET hierarchy?run=train&reveal=layer1/MatMul   the scopes enclosing a node (+ "path"); the
      page loads a big graph this way, one scope at a time (see graph_scopes.py)
  GET node?run=train&name=layer1/MatMul
      {"path", "name", "kind": "op", "op", "device", "attributes": [{"key", "value"}],
       "inputs": [{"name", "path", "slot", "control", "shape"}], "outputs": [...]}
  GET trace?run=train&name=layer2/add
      {"node": path, "inputs": [op paths], "hosts": {embedded op path: path it is drawn on}}
  GET search?run=train&regex=Mat.*         {"hits": [paths], "limit": 42}
  GET stats?run=train&tag=step_100
      {"devices": [...], "matched_ops": n, "nodes": {path: {"compute_us", "memory_bytes"}}}
"""

import hashlib
import logging
import threading
import time
import weakref
from collections import OrderedDict

from flask import Blueprint, Response, current_app, request
from google.protobuf import text_format
from google.protobuf.message import DecodeError
from werkzeug.exceptions import BadRequest

from lens.board import graph_upload
from lens.board.graph_info import limit_attr_size, node_info
from lens.board.graph_model import GraphModel
from lens.board.graph_scopes import ScopeError, scopes_bytes
from lens.board.graph_stats import node_stats
from lens.board.params import json_response, optional_int, provider, required
from lens.events.provider import NotFound

bp = Blueprint("graphs", __name__, url_prefix="/data/plugin/graphs")
log = logging.getLogger(__name__)

RUN_GRAPH_TAG = "__run_graph__"   # TensorBoard's pseudo tag for a run-wide graph
CACHE_SIZE = 4                    # hierarchies kept per app (a 10k-op one is a few MB)
_cache_lock = threading.Lock()


def _proto(name):
    """A generated message class from lens.proto (imported late: it is generated code)."""
    from lens.proto import config_pb2, graph_pb2

    return {"GraphDef": graph_pb2.GraphDef, "RunMetadata": config_pb2.RunMetadata}[name]


def info_json(prov):
    """TensorBoard's info shape: every run with a graph or tagged run metadata."""
    result = {}
    for run in prov.runs():
        has_graph = prov.graph(run) is not None
        tags = list(prov.run_metadata_tags(run))
        if not has_graph and not tags:
            continue
        result[run] = {"run": run, "run_graph": has_graph,
                       "tags": {t: {"tag": t, "conceptual_graph": False, "op_graph": False,
                                    "profile": True} for t in tags}}
    return result


def _run_metadata(prov, run, tag):
    """The parsed RunMetadata of a run's tag (NotFound names the run and tag)."""
    if tag not in list(prov.run_metadata_tags(run)):
        raise NotFound(f"run {run!r} has no run metadata tagged {tag!r}; "
                       f"see /data/plugin/graphs/info for the tags of each run")
    msg = _proto("RunMetadata")()
    msg.ParseFromString(prov.run_metadata(run, tag))
    return msg


def graph_bytes(prov, run, tag):
    """Serialized GraphDef for a run (tag None/__run_graph__) or a tagged run's graphs."""
    if tag in (None, "", RUN_GRAPH_TAG):
        data = prov.graph(run)
        if data is None:
            raise NotFound(f"run {run!r} has no graph; write one with "
                           f"FileWriter(logdir, graph=sess.graph) or add_graph()")
        return bytes(data)
    meta = _run_metadata(prov, run, tag)
    combined = _proto("GraphDef")()
    seen = set()
    sources = [fg.pre_optimization_graph for fg in meta.function_graphs] or \
        list(meta.partition_graphs)
    for g in sources:
        for node in g.node:
            if node.name not in seen:
                seen.add(node.name)
                combined.node.add().CopyFrom(node)
    if not seen:
        raise NotFound(f"run metadata {tag!r} of run {run!r} holds no graph; "
                       f"open the run graph and pick {tag!r} under 'Session runs' instead")
    return combined.SerializeToString()


def _cache():
    """This app's LRU of built models, keyed by run, tag and graph digest."""
    return current_app.extensions.setdefault("lens_graph_models", OrderedDict())


def _build_lock(key):
    """One lock per graph being built, so a request arriving mid-build waits for that build."""
    building = current_app.extensions.setdefault("lens_graph_building", {})
    with _cache_lock:
        return building.setdefault(key, threading.Lock())


def model_for(prov, run, tag):
    """The GraphModel for a run's graph, built once per distinct GraphDef."""
    data = graph_bytes(prov, run, tag)
    key = (run, tag or RUN_GRAPH_TAG, hashlib.sha1(data).hexdigest())
    cache = _cache()
    with _cache_lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
    with _build_lock(key):
        with _cache_lock:
            if key in cache:  # built by the request (or the warm-up) we waited for
                return cache[key]
        try:
            model = GraphModel(_parse_graph(run, data))
        except ValueError as err:
            raise BadRequest(f"the graph of run {run!r} cannot be shown: {err}") from None
        with _cache_lock:
            cache[key] = model
            while len(cache) > CACHE_SIZE:
                cache.popitem(last=False)
            current_app.extensions["lens_graph_building"].pop(key, None)
    return model


def _loaded(prov):
    """True once the provider's first pass over the logdir is done (or it cannot say)."""
    progress = getattr(prov, "progress", None)
    return progress is None or bool(progress().get("done"))


def warm_up(app, poll_seconds=0.25):
    """Build the graph the page opens first (the first run with one) once the data is read.

    Runs in a daemon thread started when the blueprint is registered, so opening the Graphs
    tab of a big graph only ships cached JSON instead of building the hierarchy on demand.
    The thread holds the app weakly: an app dropped before its logdir is read ends it."""
    app_ref = weakref.ref(app)

    def loaded():
        """True when the data is read, None when the app is gone."""
        live = app_ref()
        return None if live is None else _loaded(live.config["LENS_PROVIDER"])

    def work():
        try:
            while True:
                state = loaded()
                if state is None:
                    return
                if state:
                    break
                time.sleep(poll_seconds)
            live = app_ref()
            if live is None:
                return
            prov = live.config["LENS_PROVIDER"]
            with live.app_context():
                runs = sorted(run for run in prov.runs() if prov.graph(run) is not None)
                if runs:
                    scopes_bytes(model_for(prov, runs[0], None), [""])  # the page's first ask
        except Exception:  # a bad graph is reported when the page asks for it
            log.debug("graph warm-up failed", exc_info=True)

    threading.Thread(target=work, name="lens-graph-warm-up", daemon=True).start()


bp.record_once(lambda state: warm_up(state.app))


def _parse_graph(run, data):
    """GraphDef from bytes; a corrupt graph is reported with its run, never a 500."""
    graph_def = _proto("GraphDef")()
    try:
        graph_def.ParseFromString(data)
    except DecodeError as err:
        raise BadRequest(f"the graph of run {run!r} is corrupt ({err}); rewrite it with "
                         f"FileWriter.add_graph") from None
    return graph_def


def _pbtxt(message):
    """A message as protobuf text format, the way TensorBoard serves graphs."""
    return Response(text_format.MessageToString(message), mimetype="text/x-protobuf")


@bp.route("/info")
def info():
    """Runs with graphs and the run-metadata tags of each."""
    return json_response(info_json(provider()))


@bp.route("/graph")
def graph():
    """The GraphDef as pbtxt, large attributes dropped and listed as TensorBoard does."""
    run = required("run")
    tag = request.args.get("tag") or None
    limit = optional_int("limit_attr_size")
    key = request.args.get("large_attrs_key") or None
    if limit is not None:
        if limit <= 0:
            raise BadRequest(f"query parameter 'limit_attr_size' must be > 0, got {limit}")
        if key is None:
            raise BadRequest("limit_attr_size needs large_attrs_key: add "
                             "&large_attrs_key=_too_large_attrs to the URL")
    graph_def = _parse_graph(run, graph_bytes(provider(), run, tag))
    limit_attr_size(graph_def, limit, key)
    return _pbtxt(graph_def)


@bp.route("/run_metadata")
def run_metadata():
    """A tagged RunMetadata as pbtxt."""
    tag = required("tag")
    run = required("run")
    return _pbtxt(_run_metadata(provider(), run, tag))


def requested_model():
    """The graph a request names: &upload=<id> (an uploaded file) or &run=[&tag=]."""
    upload = request.args.get("upload")
    if upload:
        return graph_upload.uploaded(upload)
    return model_for(provider(), required("run"), request.args.get("tag") or None)


@bp.route("/upload", methods=["POST"])
def upload():
    """Parse an uploaded GraphDef (see graph_upload) and keep it for the routes above."""
    file = request.files.get("file")
    name = request.args.get("name") or (file.filename if file else "") or "graph.pb"
    data = file.read() if file else request.get_data()
    return json_response(graph_upload.add_upload(data, name))


@bp.route("/hierarchy")
def hierarchy():
    """The preprocessed scope hierarchy the page draws, whole or by scope (graph_scopes.py)."""
    model = requested_model()
    scopes = request.args.getlist("scope")
    reveal = request.args.get("reveal") or None
    if not scopes and reveal is None:
        return Response(model.json_bytes, mimetype="application/json")
    try:
        return Response(scopes_bytes(model, scopes, reveal), mimetype="application/json")
    except KeyError as err:
        raise NotFound(err.args[0]) from None
    except ScopeError as err:
        raise BadRequest(str(err)) from None


def _node_name(model):
    """The 'name' parameter resolved against the model (404 when it is not in the graph)."""
    name = required("name")
    try:
        return model.resolve(name)
    except KeyError as err:
        raise NotFound(err.args[0]) from None


@bp.route("/node")
def node():
    """Info card data for one node."""
    model = requested_model()
    path = _node_name(model)
    if path == "":
        raise BadRequest("name the node to describe: the root scope has no info card")
    return json_response(node_info(model, path))


@bp.route("/trace")
def trace():
    """Every op the node depends on, for 'Trace inputs'."""
    model = requested_model()
    path = _node_name(model)
    inputs = model.trace_inputs(path)
    # Embedded ops are drawn on their host; the page may not hold their nodes to look it up.
    hosts = {p: model.nodes[p]["embedded_in"] for p in inputs if "embedded_in" in model.nodes[p]}
    return json_response({"node": path, "inputs": inputs, "hosts": hosts})


@bp.route("/search")
def search():
    """Node paths matching a regex (at most 'limit', default 42)."""
    model = requested_model()
    limit = optional_int("limit", default=42, minimum=1)
    try:
        hits = model.search(required("regex"), limit)
    except ValueError as err:
        raise BadRequest(f"{err}; fix the 'regex' parameter") from None
    return json_response({"hits": hits, "limit": limit})


@bp.route("/stats")
def stats():
    """Compute time and memory per node from a tagged RunMetadata ('Session runs')."""
    prov = provider()
    run, tag = required("run"), required("tag")
    model = model_for(prov, run, request.args.get("graph_tag") or None)
    return json_response(node_stats(model, _run_metadata(prov, run, tag)))
