"""`show_graph`: the board's graph view inside a cell output, with no server.

The board's own graph scripts (lens/board/static/js/graph) and the vendored dagre are inlined
into an iframe's srcdoc together with the graph's data; a small shim answers the dashboard's
`fetchJSON` calls (info, hierarchy, node, trace) from that data. The output is one HTML
string, so it also works in exported HTML (nbconvert) and in JupyterLab.
"""

import base64
import gzip
import html
import json
import re
from pathlib import Path

from lens.board.app import STATIC_DIR
from lens.board.graph_info import node_info
from lens.board.graph_model import GraphModel
from lens.notebook import ipy
from lens.proto import graph_pb2

GRAPH_DASHBOARD = "js/graph/graph_dashboard.js"
DEFAULT_HEIGHT = 620
RUN_NAME = "graph"   # the one "run" the inline view shows
SHIM = Path(__file__).resolve().parent / "inline_graph.js"

_TEMPLATE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>
html,body{{margin:0;font:13px sans-serif;background:#fff}}
.lg-root{{height:calc(100vh - 4px) !important;min-height:0 !important}}
.lg-upload,.lg-upload-file{{display:none !important}}
</style></head><body>
<div id="lens-graph"></div>
<script type="application/octet-stream" id="lens-graph-data">{data}</script>
<script>{dagre}</script>
<script>{shim}</script>
{scripts}
<script>window.lensInline.boot();</script>
</body></html>"""


def _static(relative):
    """Text of a file of the board's static folder."""
    return (STATIC_DIR / relative).read_text(encoding="utf-8")


def graph_scripts():
    """The graph dashboard's script and its parts, in the order the dashboard loads them
    (read from its PARTS list, so parts the board adds are inlined too)."""
    source = _static(GRAPH_DASHBOARD)
    match = re.search(r"const PARTS = \[([^\]]*)\]", source)
    if not match:
        raise RuntimeError(f"{GRAPH_DASHBOARD} no longer lists its parts in `const PARTS = [...]`"
                           f"; update lens.notebook.graph_view.graph_scripts")
    parts = re.findall(r'"([\w.-]+\.js)"', match.group(1))
    return [source] + [_static("js/graph/" + name) for name in parts]


def _script_text(text):
    """JavaScript or JSON made safe to sit inside a <script> element."""
    return text.replace("</", "<\\/")


def as_graph_def(graph_or_graph_def):
    """A lens GraphDef from a Graph (anything with as_graph_def) or a GraphDef of any protobuf."""
    obj = graph_or_graph_def
    if hasattr(obj, "as_graph_def"):
        obj = obj.as_graph_def()
    if isinstance(obj, graph_pb2.GraphDef):
        copy = graph_pb2.GraphDef()
        copy.CopyFrom(obj)
        return copy
    if hasattr(obj, "SerializeToString") and hasattr(obj, "node"):
        return graph_pb2.GraphDef.FromString(obj.SerializeToString())
    kind = type(graph_or_graph_def).__name__
    raise TypeError(f"show_graph needs a Graph or a GraphDef, got {kind}; pass "
                    f"tf.get_default_graph() or graph.as_graph_def()")


def strip_consts(graph_def, max_const_size=32):
    """Replace Const values over max_const_size bytes by '<stripped N bytes>' (in place)."""
    if not isinstance(max_const_size, int) or max_const_size < 0:
        raise ValueError(f"max_const_size must be an int >= 0 (bytes), got {max_const_size!r}")
    for node in graph_def.node:
        if node.op != "Const" or "value" not in node.attr:
            continue
        tensor = node.attr["value"].tensor
        size = tensor.ByteSize()
        if size <= max_const_size:
            continue
        dtype, shape = tensor.dtype, type(tensor.tensor_shape)()  # keep dtype and shape only
        shape.CopyFrom(tensor.tensor_shape)
        tensor.Clear()
        tensor.dtype = dtype
        tensor.tensor_shape.CopyFrom(shape)
        tensor.tensor_content = b"<stripped %d bytes>" % size
    return graph_def


def graph_data(graph_def):
    """Everything the inline view asks for: hierarchy, info cards and what trace needs."""
    model = GraphModel(graph_def)
    hierarchy = model.to_json()
    infos = {path: node_info(model, path) for path in model.nodes if path}
    inputs = {op.path: sorted({model.ops[src].path for src, _, _ in op.inputs if src in model.ops})
              for op in model.ops.values()}
    under = {path: sorted(model.ops[n].path for n in model.ops_under(path))
             for path, node in model.nodes.items() if path and node["kind"] != "op"}
    return {"run": RUN_NAME, "hierarchy": hierarchy, "nodes": infos,
            "trace": {"inputs": inputs, "under": under}}


def graph_page(graph_def):
    """The standalone HTML page drawing graph_def with the board's graph view."""
    # gzip + base64: a tenth of the JSON's size, and nothing to escape in the srcdoc attribute.
    data = base64.b64encode(gzip.compress(
        json.dumps(graph_data(graph_def), separators=(",", ":")).encode(), mtime=0)).decode()
    scripts = "\n".join(f"<script>{_script_text(text)}</script>" for text in graph_scripts())
    return _TEMPLATE.format(data=data,
                            dagre=_script_text(_static("vendor/dagre.min.js")),
                            shim=_script_text(SHIM.read_text(encoding="utf-8")),
                            scripts=scripts)


def _frame(graph_def, height):
    """The iframe whose srcdoc is the whole graph page of an already stripped graph_def."""
    if not isinstance(height, int) or height <= 0:
        raise ValueError(f"height must be a positive number of pixels, got {height!r}")
    # Character references keep non-ASCII text intact whatever charset the host page has.
    srcdoc = html.escape(graph_page(graph_def), quote=True).encode(
        "ascii", "xmlcharrefreplace").decode("ascii")
    return (f'<div class="lens-graph"><iframe class="lens-graph-frame" srcdoc="{srcdoc}" '
            f'width="100%" height="{height}" frameborder="0" style="border:1px solid #ddd" '
            f'title="lens graph ({len(graph_def.node)} nodes)"></iframe></div>')


def graph_html(graph_or_graph_def, max_const_size=32, height=DEFAULT_HEIGHT):
    """The cell output: an iframe whose srcdoc is the whole graph page."""
    return _frame(strip_consts(as_graph_def(graph_or_graph_def), max_const_size), height)


class GraphView:
    """What show_graph displays: the inline view as HTML, the node names as plain text."""

    MAX_NAMES = 200    # names listed in the plain-text form

    def __init__(self, graph_or_graph_def, max_const_size=32, height=DEFAULT_HEIGHT):
        graph_def = strip_consts(as_graph_def(graph_or_graph_def), max_const_size)
        self.html = _frame(graph_def, height)
        self.names = [n.name for n in graph_def.node]

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        shown = self.names[:self.MAX_NAMES]
        more = len(self.names) - len(shown)
        return (f"lens graph, {len(self.names)} nodes: " + ", ".join(shown) +
                (f", … ({more} more)" if more > 0 else ""))


def show_graph(graph_or_graph_def, max_const_size=32, height=DEFAULT_HEIGHT):
    """Draw a Graph or GraphDef inline (the board's graph view, no server needed)."""
    ipy.display(GraphView(graph_or_graph_def, max_const_size, height))
