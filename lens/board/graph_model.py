"""The graph dashboard's model: a GraphDef turned into a name-scope hierarchy the page draws.

Pure Python on parsed protobuf messages (anything with `.node` of NodeDef-like objects).
The hierarchy is built once per graph and cached by the blueprint; the page lays out each
expanded metanode on demand, so opening a huge graph only lays out the root's children.

Node paths: an op keeps its name unless that name is also a scope prefix, in which case it
becomes `scope/(leaf)` (as TensorBoard does), so every op is a leaf of the tree.
"""

import contextlib
import gc
import json
import re
import threading

from lens.board import graph_series

ROOT = ""
_gc_lock = threading.Lock()
_gc_pausers = [0, False]     # builds running, whether the collector was on before the first


@contextlib.contextmanager
def _gc_paused():
    """The cyclic collector off while building: the build makes millions of objects and no
    cycles, and collections triggered by that allocation were half of a 50k-op build."""
    with _gc_lock:
        if _gc_pausers[0] == 0:
            _gc_pausers[1] = gc.isenabled()
            gc.disable()
        _gc_pausers[0] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pausers[0] -= 1
            if _gc_pausers[0] == 0 and _gc_pausers[1]:
                gc.enable()


def _leaf(path):
    """Last component of a slash-separated path."""
    return path.rsplit("/", 1)[-1]


def _dirname(path):
    """Parent scope of a path ('' for a top-level name)."""
    return path.rsplit("/", 1)[0] if "/" in path else ROOT


def _prefixes(path):
    """Every ancestor scope of path and path itself: 'a/b/c' -> ['a', 'a/b', 'a/b/c']."""
    out = []
    cut = path.find("/")
    while cut != -1:
        out.append(path[:cut])
        cut = path.find("/", cut + 1)
    out.append(path)
    return out


def parse_input(text):
    """(source op name, output slot, is_control) for a NodeDef input string."""
    if ":" not in text and not text.startswith("^"):
        return text, 0, False   # most inputs: a plain op name
    if text.startswith("^"):
        return text[1:], -1, True
    name, sep, slot = text.rpartition(":")
    if sep and slot.isdigit():
        return name, int(slot), False
    return text, 0, False


def shape_dims(shape_proto):
    """A TensorShapeProto as a list of ints (-1 unknown), or None for unknown rank."""
    if shape_proto.unknown_rank:
        return None
    return [int(d.size) for d in shape_proto.dim]


def output_shapes(node_def, memo=None):
    """Shapes from the `_output_shapes` attr, one per output slot, or [] when absent.

    With a memo dict, ops with the same serialized attr share one (read-only) list: most ops
    of a big graph repeat a few shapes, and reading dims field by field is the slow part."""
    value = node_def.attr.get("_output_shapes")
    if value is None:
        return []
    if memo is None:
        return [shape_dims(s) for s in value.list.shape]
    key = value.SerializeToString()
    shapes = memo.get(key)
    if shapes is None:
        shapes = memo[key] = [shape_dims(s) for s in value.list.shape]
    return shapes


class OpInfo:
    """One op of the GraphDef with what the board needs about it."""

    __slots__ = ("name", "path", "op", "device", "inputs", "shapes", "consumers", "host")

    def __init__(self, name, path, op, device, inputs, shapes):
        self.name = name
        self.path = path
        self.op = op
        self.device = device
        self.inputs = inputs            # [(source name, slot, is_control)]
        self.shapes = shapes            # [dims or None] per output slot
        self.consumers = []             # [(consumer name, slot, is_control)]
        self.host = None                # path of the node this op is embedded in, if any


class GraphModel:
    """The hierarchy of one GraphDef: ops, metanodes, series and aggregated edges."""

    def __init__(self, graph_def):
        with _gc_paused():
            self._build(graph_def)

    def _build(self, graph_def):
        """Every step of the hierarchy, in order."""
        self.node_defs = {}             # op name -> NodeDef (for attributes in the info panel)
        self.ops = {}                   # op name -> OpInfo
        self.by_path = {}               # node path -> op name (ops only)
        self.nodes = {}                 # node path -> JSON-able dict (meta, series and ops)
        self._summary = None
        self._json_bytes = None
        self.scope_cache = {}           # encoded hierarchy?scope= answers (graph_scopes.py)
        self._read(graph_def)
        self._build_tree()
        self._embed()
        self._hide_empty_scopes()
        self._scope_edges()
        graph_series.group_and_sign(self)
        self._count_devices()
        graph_series.extract_high_degree(self)

    # -- building ---------------------------------------------------------------------------

    def _read(self, graph_def):
        """Collect ops, renaming those whose name is also a scope to `scope/(leaf)`."""
        names = [n.name for n in graph_def.node]
        if len(set(names)) != len(names):
            seen, dup = set(), None
            for n in names:
                if n in seen:
                    dup = n
                    break
                seen.add(n)
            raise ValueError(f"GraphDef has two nodes named {dup!r}; node names must be unique")
        scopes = set()
        for n in names:
            cut = n.rfind("/")
            while cut > 0:
                scope = n[:cut]
                if scope in scopes:
                    break       # its enclosing scopes are in already
                scopes.add(scope)
                cut = n.rfind("/", 0, cut)
        memo = {}
        ops, node_defs, by_path = self.ops, self.node_defs, self.by_path
        for name, nd in zip(names, graph_def.node):
            path = f"{name}/({_leaf(name)})" if name in scopes else name
            inputs = [parse_input(t) for t in nd.input]
            ops[name] = OpInfo(name, path, nd.op, nd.device, inputs, output_shapes(nd, memo))
            node_defs[name] = nd
            by_path[path] = name
        for op in ops.values():
            for src, slot, ctrl in op.inputs:
                if src in ops:
                    ops[src].consumers.append((op.name, slot, ctrl))

    def _meta(self, path):
        """The metanode at path, created with its ancestors when missing."""
        node = self.nodes.get(path)
        if node is None:
            node = {"kind": "meta", "label": _leaf(path) if path else "", "children": [],
                    "edges": [], "count": 0, "devices": {}}
            self.nodes[path] = node
            if path != ROOT:
                parent = _dirname(path)
                node["parent"] = parent
                self._meta(parent)["children"].append(path)
        return node

    def _build_tree(self):
        """One node per op under its scope's metanode."""
        self._meta(ROOT)
        for op in self.ops.values():
            parent = _dirname(op.path)
            self._meta(parent)["children"].append(op.path)
            self.nodes[op.path] = {"kind": "op", "label": _leaf(op.path), "parent": parent,
                                   "op": op.op, "device": op.device, "count": 1}
            if op.path != op.name:
                self.nodes[op.path]["name"] = op.name

    def _embed(self):
        """Constants become in-embeddings of their one consumer, summaries out-embeddings."""
        for op in self.ops.values():
            if op.op == "Const" and not op.inputs:
                consumers = {c for c, _, _ in op.consumers}
                if len(consumers) == 1 and op.name not in consumers:
                    self._attach(op, self.ops[consumers.pop()], "embed_in")
        for op in self.ops.values():
            if not op.op.endswith("Summary") or op.op == "MergeSummary" or op.consumers:
                continue
            if op.host is not None:
                continue
            sources = {s for s, _, ctrl in op.inputs
                       if not ctrl and s in self.ops and self.ops[s].host is None}
            if len(sources) == 1:
                self._attach(op, self.ops[sources.pop()], "embed_out")

    def _attach(self, op, host, key):
        """Hide op from its scope and list it on host."""
        op.host = host.path
        self.nodes[op.path]["embedded_in"] = host.path
        self.nodes[host.path].setdefault(key, []).append(op.path)
        siblings = self.nodes[self.nodes[op.path]["parent"]]["children"]
        siblings.remove(op.path)

    def _hide_empty_scopes(self):
        """Scopes left empty by embedding (a summary's own scope) are not drawn."""
        metas = [p for p, n in self.nodes.items() if n["kind"] == "meta" and p != ROOT]
        metas.sort(key=lambda p: -p.count("/"))
        for path in metas:
            node = self.nodes[path]
            if not node["children"]:
                node["empty"] = True
                self.nodes[node["parent"]]["children"].remove(path)

    def _scope_edges(self):
        """Each op edge attached to its lowest common scope, between that scope's children."""
        buckets = {}
        prefixes = {}      # op name -> _prefixes(path), computed once per op (big graphs)
        for dst in self.ops.values():
            if dst.host is not None:
                continue
            dp = prefixes.get(dst.name) or prefixes.setdefault(dst.name, _prefixes(dst.path))
            for src_name, slot, ctrl in dst.inputs:
                src = self.ops.get(src_name)
                if src is None or src.host is not None or src is dst:
                    continue
                sp = prefixes.get(src_name) or prefixes.setdefault(src_name, _prefixes(src.path))
                # k: how many enclosing scopes the two ops share (equal prefixes).
                k = 0
                while k < len(sp) - 1 and k < len(dp) - 1 and sp[k] == dp[k]:
                    k += 1
                scope = sp[k - 1] if k else ROOT
                a, b = sp[k], dp[k]
                dims = src.shapes[slot] if 0 <= slot < len(src.shapes) else False
                # The op paths ride along so the page can continue an edge into an
                # expanded scope up to the op it really reaches.
                buckets.setdefault(scope, []).append((a, b, ctrl, dims, src.path, dst.path))
        for scope, raw in buckets.items():
            self.nodes[scope]["raw_edges"] = raw

    def _count_devices(self):
        """Op counts and per-device op counts on every ancestor (embedded ops included)."""
        for op in self.ops.values():
            path = self.nodes[op.path]["parent"]
            while True:
                node = self.nodes[path]
                node["count"] += 1
                node["devices"][op.device] = node["devices"].get(op.device, 0) + 1
                if path == ROOT:
                    break
                path = node["parent"]

    # -- queries ----------------------------------------------------------------------------

    def resolve(self, name):
        """Node path for a node path or an op name; KeyError naming it when unknown."""
        if name in self.nodes:
            return name
        if name in self.ops:
            return self.ops[name].path
        raise KeyError(f"no node named {name!r} in this graph")

    def ops_under(self, path):
        """Names of every op in the subtree at path (the op itself for an op path)."""
        if path in self.by_path:
            return [self.by_path[path]]
        out = []
        stack = [path]
        while stack:
            for child in self.nodes[stack.pop()].get("children", ()):
                if child in self.by_path:
                    out.append(self.by_path[child])
                    for emb in self.nodes[child].get("embed_in", []) + \
                            self.nodes[child].get("embed_out", []):
                        out.append(self.by_path[emb])
                else:
                    stack.append(child)
        return out

    def trace_inputs(self, name):
        """Paths of every op the node transitively depends on (data and control inputs)."""
        start = self.ops_under(self.resolve(name))
        seen = set(start)
        stack = list(start)
        while stack:
            for src, _, _ in self.ops[stack.pop()].inputs:
                if src in self.ops and src not in seen:
                    seen.add(src)
                    stack.append(src)
        return sorted(self.ops[n].path for n in seen - set(start))

    def search(self, pattern, limit=42):
        """Paths of ops and metanodes whose path or op name matches the regex (at most limit)."""
        try:
            rx = re.compile(pattern)
        except re.error as err:
            raise ValueError(f"bad regex {pattern!r}: {err}") from None
        hits = []
        for path, node in self.nodes.items():
            if path and not node.get("empty") and rx.search(path):
                hits.append(path)
                if len(hits) >= limit:
                    break
        return hits

    def to_json(self):
        """The hierarchy as plain data: {'num_ops', 'devices', 'nodes': {path: node}}."""
        nodes = {path: compact_node(path, node) for path, node in self.nodes.items()}
        return dict(self.summary_json(), nodes=nodes)

    def summary_json(self):
        """What the page needs besides nodes: op count, devices, shared-structure count."""
        if self._summary is None:
            self._summary = {"num_ops": len(self.ops), "devices": sorted(self.nodes[ROOT]["devices"]),
                             "templates": graph_series.template_count(self)}
        return self._summary

    @property
    def json_bytes(self):
        """to_json() encoded once, on first use (a 50k-op graph's is 13 MB: never at build)."""
        if self._json_bytes is None:
            self._json_bytes = json.dumps(self.to_json(), separators=(",", ":")).encode()
        return self._json_bytes


def compact_node(path, node):
    """A node as the routes ship it: op nodes leave out what the page can rebuild.

    That is a label equal to the path's last part, count 1 and an empty device: ops are most
    of a big graph, so this shrinks the JSON."""
    if node["kind"] != "op":
        return node
    return {k: v for k, v in node.items()
            if not (k == "count" or (k == "device" and not v) or (k == "label" and v == _leaf(path)))}
