"""The hierarchy one scope at a time, so the page never loads all of a big graph at once.

GET hierarchy?run=train&scope=layer1 answers the full route's shape with only the nodes the
page needs to draw that scope expanded: the scope, its children, the ops embedded in those
children (their tooltips name them) and the first member of each child series (its colour);
"scopes" lists the scopes whose children came along (the root node always comes too).
GET hierarchy?run=train&reveal=layer1/MatMul answers the nodes of every scope enclosing that
node (so the page can expand down to it) plus "path": the node's path, for an op name too.
Opening a 50k-op graph thus ships the root's few children instead of 13 MB of JSON.
"""

import json
import threading

from lens.board.graph_model import ROOT, compact_node

CACHE_ENTRIES = 256         # encoded answers kept per graph (a scope's is small)
_lock = threading.Lock()


class ScopeError(ValueError):
    """A scope that cannot be expanded (an op); the route answers 400 with this message."""


def _add_scope(model, path, out):
    """The scope at path, its children and what drawing those children looks up."""
    nodes = model.nodes
    scope = nodes[path]
    if scope["kind"] == "op":
        raise ScopeError(f"{path!r} is an op, not a scope: only metanodes and series have "
                         f"children to expand")
    out[path] = compact_node(path, scope)
    for child in scope["children"]:
        node = nodes[child]
        out[child] = compact_node(child, node)
        for key in ("embed_in", "embed_out"):
            for embedded in node.get(key, ()):
                out[embedded] = compact_node(embedded, nodes[embedded])
        if node["kind"] == "series" and node["children"]:
            first = node["children"][0]
            out[first] = compact_node(first, nodes[first])


def enclosing_scopes(model, path):
    """Paths of the scopes around path, outermost (the root) first; embedded ops count their host's."""
    node = model.nodes[path]
    host = node.get("embedded_in")
    if host is not None:
        node = model.nodes[host]
    chain = []
    while "parent" in node:
        chain.append(node["parent"])
        node = model.nodes[node["parent"]]
    return chain[::-1]


def scopes_json(model, scopes, reveal=None):
    """The route's answer for the scopes asked (KeyError naming a path that is not there)."""
    out = {}
    extra = {}
    if reveal is not None:
        path = model.resolve(reveal)
        extra["path"] = path
        scopes = list(scopes) + enclosing_scopes(model, path)
    done = []
    for path in scopes:
        if path not in model.nodes or model.nodes[path].get("empty"):
            raise KeyError(f"no scope named {path!r} in this graph")
        if path not in done:
            _add_scope(model, path, out)
            done.append(path)
    if ROOT not in out:
        out[ROOT] = compact_node(ROOT, model.nodes[ROOT])
    return dict(model.summary_json(), nodes=out, scopes=done, **extra)


def scopes_bytes(model, scopes, reveal=None):
    """scopes_json encoded, kept on the model: reopening a page re-asks the same scopes."""
    key = (tuple(scopes), reveal)
    cache = model.scope_cache
    with _lock:
        hit = cache.get(key)
    if hit is not None:
        return hit
    data = json.dumps(scopes_json(model, scopes, reveal), separators=(",", ":")).encode()
    with _lock:
        if len(cache) >= CACHE_ENTRIES:
            cache.pop(next(iter(cache)))
        cache[key] = data
    return data
