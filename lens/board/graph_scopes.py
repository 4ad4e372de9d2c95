"""The hierarchy one scope at a time, so the page never loads all of a big graph at once.

GET hierarchy?run=train&scope=layer1 answers the full route's shape with only the nodes the
page needs to draw that scope expanded: the scope, its children, the ops embedded in those
children (their tooltips name them) and the first member of each child series (its colour);
small scopes inside come along too, breadth first up to INNER_NODES children, so expanding
them needs no request; "scopes" lists every scope whose children came (the root node always
comes too).
GET hierarchy?run=train&reveal=layer1/MatMul answers the nodes of every scope enclosing that
node (so the page can expand down to it) plus "path": the node's path, for an op name too.
Opening a 50k-op graph thus ships the root's few children instead of 13 MB of JSON.
"""

import json
import threading

from lens.board.graph_model import ROOT, compact_node

CACHE_ENTRIES = 256         # encoded answers kept per graph (a scope's is small)
INNER_NODES = 500           # children of inner scopes sent along with the scopes asked
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
        _add_node(child, node, out)
        for key in ("embed_in", "embed_out"):
            for embedded in node.get(key, ()):
                _add_node(embedded, nodes[embedded], out)
        if node["kind"] == "series" and node["children"]:
            first = node["children"][0]
            _add_node(first, nodes[first], out)


def _add_node(path, node, out):
    """A node drawn collapsed: a scope's edges only matter once it is expanded (and they are
    most of its record: each names the ops it links), so they come with its own scope."""
    if path in out:
        return      # already there, in full when it is a scope of this answer
    node = compact_node(path, node)
    if "edges" in node:
        node = {k: v for k, v in node.items() if k != "edges"}
    out[path] = node


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


def _add_small_inner_scopes(model, done, out, budget=None):
    """Also the scopes inside those asked, breadth first, while their children fit the budget.

    Expanding a scope whose children came along needs no request: a page opening a graph of
    100 blocks gets the blocks' own children with the root's, not one round trip per level."""
    nodes = model.nodes
    left = INNER_NODES if budget is None else budget
    queue = [c for p in done for c in nodes[p]["children"]]
    seen = set(done)
    while queue:
        path = queue.pop(0)
        node = nodes[path]
        if path in seen or node["kind"] == "op":
            continue
        seen.add(path)
        # Its children, and the member lists of those that are groups, will be shipped.
        cost = 1 + sum(1 + len(nodes[c].get("children", ())) for c in node["children"])
        if cost > left:
            continue
        left -= cost
        _add_scope(model, path, out)
        done.append(path)
        queue.extend(node["children"])


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
    _add_small_inner_scopes(model, done, out)
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
