"""HTML views of the debugger for notebooks: a dump's tensor table and screens as HTML.

The views reuse the terminal debugger's pure pieces: `DebugAnalyzer` handlers produce the
screens (`pt`, `ni`, `lt`, `ev`...), and `Screen` spans become styled HTML spans.
"""

import html

import numpy as np

from lens.dbg.analyzer import DebugAnalyzer, human_size
from lens.dbg.commands import CommandRegistry, Context
from lens.dbg.config import CLIConfig
from lens.dbg.debug_data import DebugDumpDir

MAX_ROWS = 200          # tensor rows drawn inline; the rest are counted
MAX_PREVIEWS = 100      # rows whose `pt` view is embedded (opened by clicking the name)
SCREEN_WIDTH = 100      # columns handlers format values for
_COLORS = {"red": "#c62828", "green": "#2e7d32", "yellow": "#b08800", "blue": "#1565c0",
           "magenta": "#ad1457", "cyan": "#00838f", "gray": "#777", "white": "#fff",
           "black": "#000"}
_TABLE_CSS = ("<style>.lens-dbg td,.lens-dbg th{padding:1px 8px;text-align:left;"
              "font-family:monospace;font-size:12px}.lens-dbg tr.lens-dbg-bad td{"
              "background:#fde0dc}.lens-dbg .lens-dbg-health-bad{color:#c62828;"
              "font-weight:bold}.lens-dbg summary{cursor:pointer}.lens-dbg details pre{"
              "margin:2px 0;max-height:300px;overflow:auto;background:#f7f7f7}</style>")


def _css(words):
    """Inline CSS for a span's style words."""
    rules = []
    for word in words:
        if word == "bold":
            rules.append("font-weight:bold")
        elif word == "underline":
            rules.append("text-decoration:underline")
        elif word == "reverse":
            rules.append("background:#333;color:#fff")
        elif word.startswith("bg_") and word[3:] in _COLORS:
            rules.append("background:" + _COLORS[word[3:]])
        elif word in _COLORS:
            rules.append("color:" + _COLORS[word])
    return ";".join(rules)


def screen_html(screen):
    """A Screen as a <pre> block keeping its styled spans."""
    out = []
    for index, line in enumerate(screen.lines):
        pos, parts = 0, []
        for span in screen.spans_at(index):
            if span.start < pos:  # overlapping spans: the first one wins
                continue
            parts.append(html.escape(line[pos:span.start]))
            text = html.escape(line[span.start:span.end])
            style = _css(span.words())
            parts.append(f'<span style="{style}">{text}</span>' if style else text)
            pos = span.end
        parts.append(html.escape(line[pos:]))
        out.append("".join(parts))
    return '<pre class="lens-dbg-screen">' + "\n".join(out) + "</pre>"


class ScreenView:
    """One command's output: HTML in a notebook, plain text elsewhere."""

    def __init__(self, screen):
        self.screen = screen

    @property
    def text(self):
        """The screen's plain text."""
        return self.screen.text

    def _repr_html_(self):
        return screen_html(self.screen)

    def __repr__(self):
        return self.screen.text


def _health(value):
    """(nan, -inf, -, 0, +, +inf counts, finite min/max/mean/std) of a numeric array, or None."""
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf":
        return None
    flat = value.ravel()
    isnan = np.isnan(flat) if flat.dtype.kind == "f" else np.zeros(flat.shape, bool)
    isinf = np.isinf(flat) if flat.dtype.kind == "f" else np.zeros(flat.shape, bool)
    finite = flat[~(isnan | isinf)]
    counts = {"nan": int(isnan.sum()), "-inf": int((isinf & (flat < 0)).sum()),
              "-": int((finite < 0).sum()), "0": int((finite == 0).sum()),
              "+": int((finite > 0).sum()), "+inf": int((isinf & (flat > 0)).sum())}
    stats = None
    if finite.size:
        f64 = finite.astype(np.float64)
        stats = (f64.min(), f64.max(), f64.mean(), f64.std())
    return counts, stats


class DumpView:
    """The dumped tensors of one debugged run: an inline table plus `pt`-style value views."""

    def __init__(self, dump_root, graph=None, filters=None, tensor_filter=None, result=None,
                 run_index=None):
        from lens.dbg.filters import FilterRegistry

        self.dump_root = dump_root
        self.dump = DebugDumpDir(dump_root)
        if graph is not None:
            self.dump.set_python_graph(graph)
        self.filters = filters if filters is not None else FilterRegistry()
        self.tensor_filter = tensor_filter
        self.result = result          # what Session.run returned for this run
        self.run_index = run_index
        self._registry = CommandRegistry()
        self._analyzer = DebugAnalyzer(self.dump, self.filters, CLIConfig())
        self._analyzer.register(self._registry)
        self._tripped = None

    # --- data ---------------------------------------------------------------------------
    @property
    def tripped(self):
        """Names of the dumped tensors passing the run's filter (execution order)."""
        if self._tripped is None:
            names = []
            if self.tensor_filter:
                fn = self.filters.get(self.tensor_filter)
                for d in self.dump.dumped_tensor_data:
                    if not self.filters.is_allowed(d.node_name) and fn(d, d.get_tensor()):
                        names.append(d.tensor_name)
            self._tripped = names
        return list(self._tripped)

    def tensor_names(self):
        """Every dumped tensor's name, in execution order."""
        return [d.tensor_name for d in self.dump.dumped_tensor_data]

    def get_tensor(self, tensor_name):
        """The dumped value of a tensor ('node:slot'; the first dump when there are several)."""
        node, _, slot = tensor_name.rpartition(":")
        if not node or not slot.isdigit():
            raise ValueError(f"tensor name must look like 'node:0', got {tensor_name!r}")
        return self.dump.get_tensors(node, int(slot), "DebugIdentity")[0]

    def rows(self):
        """One dict per dump: t_ms, tensor_name, op_type, size, health, bad."""
        t0 = self.dump.t0 or 0
        bad = set(self.tripped)
        out = []
        for d in self.dump.dumped_tensor_data:
            value = d.get_tensor()
            out.append({"t_ms": (d.timestamp - t0) / 1000.0, "tensor_name": d.tensor_name,
                        "op_type": self._analyzer._op_type(d.node_name),
                        "size": d.dump_size_bytes, "health": _health(value),
                        "shape": getattr(value, "shape", None),
                        "dtype": str(getattr(value, "dtype", type(value).__name__)),
                        "bad": d.tensor_name in bad})
        return out

    # --- commands -----------------------------------------------------------------------
    def command(self, line):
        """Run any analyzer command (lt, pt, ni, li, lo, ev, ...) and view its screen."""
        return ScreenView(self._registry.dispatch(line, Context(SCREEN_WIDTH)))

    def pt(self, tensor_name, ranges=None, print_all=False, numeric_summary=False, number=-1):
        """`pt` for one tensor (slicing allowed: 'x:0[0:2, :]'), as a styled value view."""
        argv = ["pt", tensor_name]
        if ranges:
            argv += ["-r", str(ranges).replace(" ", "")]
        if print_all:
            argv.append("-a")
        if numeric_summary:
            argv.append("-s")
        if number >= 0:
            argv += ["-n", str(number)]
        return self.command(" ".join(argv))

    def _pt_screen(self, tensor_name):
        """The `pt` screen of a tensor's first dump (a tensor dumped twice shows dump 0)."""
        screen = self._registry.dispatch(f"pt {tensor_name}", Context(SCREEN_WIDTH))
        if screen.annotations.get("is_error"):
            screen = self._registry.dispatch(f"pt -n 0 {tensor_name}", Context(SCREEN_WIDTH))
        return screen

    def ni(self, node_name):
        """`ni -a -d -t`: a node's attributes, dumps and creation traceback."""
        return self.command(f"ni -a -d -t {node_name}")

    # --- display ------------------------------------------------------------------------
    def _caption(self, rows):
        what = f"run #{self.run_index}: " if self.run_index is not None else ""
        text = f"{what}{len(rows)} dumped tensor(s)"
        if self.tensor_filter:
            text += f", {len(self.tripped)} passing filter {self.tensor_filter}"
        return text

    @staticmethod
    def _health_cell(health):
        if health is None:
            return "(n/a)"
        counts, stats = health
        text = " ".join(str(counts[k]) for k in ("nan", "-inf", "-", "0", "+", "+inf"))
        if stats is not None:
            text += " | %.4g %.4g %.4g %.4g" % stats
        klass = ' class="lens-dbg-health-bad"' if counts["nan"] or counts["-inf"] or \
            counts["+inf"] else ""
        return f"<span{klass}>{html.escape(text)}</span>"

    def _repr_html_(self):
        rows = self.rows()
        # Tensors passing the filter first (as `lt -f` lists them), then the rest in order.
        ordered = [r for r in rows if r["bad"]] + [r for r in rows if not r["bad"]]
        head = ("<tr><th>t (ms)</th><th>Size (B)</th><th>Op type</th><th>Tensor name</th>"
                "<th>dtype</th><th>Shape</th>"
                "<th>Health (nan -inf - 0 + +inf | min max mean std)</th></tr>")
        body = []
        for n, r in enumerate(ordered[:MAX_ROWS]):
            name = html.escape(r["tensor_name"])
            if n < MAX_PREVIEWS:  # the value travels with the output: browsable offline too
                name = (f"<details><summary>{name}</summary>"
                        f"{screen_html(self._pt_screen(r['tensor_name']))}</details>")
            shape = "" if r["shape"] is None else str(list(r["shape"]))
            body.append(
                f'<tr class="{"lens-dbg-bad" if r["bad"] else ""}">'
                f'<td>[{r["t_ms"]:.3f}]</td><td>{human_size(r["size"])}</td>'
                f'<td>{html.escape(r["op_type"])}</td><td>{name}</td>'
                f'<td>{html.escape(r["dtype"])}</td><td>{shape}</td>'
                f'<td>{self._health_cell(r["health"])}</td></tr>')
        more = len(ordered) - MAX_ROWS
        note = (f"<div>{more} more: narrow with view.command('lt -n REGEX')</div>"
                if more > 0 else "")
        return (f'{_TABLE_CSS}<div class="lens-dbg"><div><b>{html.escape(self._caption(rows))}'
                f'</b></div><table class="lens-dbg">{head}{"".join(body)}</table>{note}'
                f"<div>Click a tensor name for its value; view.pt('name:0', ranges=...) and "
                f"view.ni('name') give more."
                f"</div></div>")

    def __repr__(self):
        return f"<DumpView {self._caption(self.rows())} in {self.dump_root}>"
