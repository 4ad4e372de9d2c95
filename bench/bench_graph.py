"""Open generated graphs collapsed in chromium, and the server-side preparation of a graph
next to TensorBoard's own graph route processing.

Rows, 10,000 ops (goal < 2 s): time from navigation to the first drawn graph when the page
opens after the logdir is read (the board builds the first run's hierarchy at load time), cold
(cache emptied, the request builds it) and cached (page reload); the warm-up itself; the
hierarchy route vs TensorBoard's prepare_graph_for_ui + pbtxt on the same GraphDef (what its
page then parses in JS).

Rows, 50,000 ops in 100 scopes of 500 (issue 19's goal: < 1 s and < 0.5 s): from navigation
start to the collapsed graph drawn and painted, then double-clicking a scope until it is drawn
expanded (the top scope, the series of the 100 blocks; then one block inside it); medians of
several page opens, timed inside the page (performance.now()). Then the same open in the whole
board (`lens board` over a logdir, every dashboard's scripts), cold (the request builds the
hierarchy) and the load-time warm-up.
"""

import logging
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CACHE = os.environ.get("LENS_BENCH_CACHE", "/tmp/lens-bench")


def _graph_bytes(n_ops):
    """Serialized generated GraphDef, cached on disk."""
    from tests.board.graph_fixtures import generated_graph

    path = os.path.join(CACHE, f"graph_{n_ops}.pb")
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        data = generated_graph(n_ops).SerializeToString()
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)
    with open(path, "rb") as f:
        return f.read()


def _tensorboard_route_seconds(data):
    """TensorBoard's graph route work: parse, drop large attrs, format pbtxt."""
    from tensorboard.backend import process_graph
    from tensorboard.compat.proto import graph_pb2

    start = time.perf_counter()
    graph = graph_pb2.GraphDef.FromString(data)
    process_graph.prepare_graph_for_ui(graph, 1024, "_too_large_attrs")
    str(graph)
    return time.perf_counter() - start


def _page_open_seconds(url, page):
    """Navigation to the first drawn graph (the svg gets data-drawn after drawing)."""
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("svg.lg-svg[data-drawn]", timeout=60000)
    return time.perf_counter() - start


def _wait_for_warm_up(app, timeout=120.0):
    """Seconds until the board's load-time warm-up has cached the first run's hierarchy."""
    start = time.perf_counter()
    while not app.extensions.get("lens_graph_models"):
        if time.perf_counter() - start > timeout:
            raise RuntimeError("the graph warm-up did not finish in %.0f s" % timeout)
        time.sleep(0.005)
    return time.perf_counter() - start


# Resolves with performance.now() once the svg carries a data-drawn other than `old` and two
# animation frames have passed (the second frame starts after the first one was painted).
_DRAWN_AND_PAINTED = """(old) => new Promise(resolve => {
  (function poll() {
    const svg = document.querySelector('svg.lg-svg');
    const mark = svg && svg.getAttribute('data-drawn');
    if (mark && mark !== old) {
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now())));
    } else {
      setTimeout(poll, 2);
    }
  })();
})"""
_DOUBLE_CLICK = """(path) => {
  const node = document.querySelector(`.lg-node[data-path="${CSS.escape(path)}"] > .lg-shape`);
  if (!node) throw new Error('no drawn node ' + path);
  const start = performance.now();
  node.dispatchEvent(new MouseEvent('dblclick', {bubbles: true}));
  return start;
}"""


def _open_and_expand(page, url, scopes):
    """Seconds from navigation start to the collapsed graph painted, then per double-clicked scope."""
    page.goto("about:blank")
    page.goto(url)
    opened = page.evaluate(_DRAWN_AND_PAINTED, None) / 1000
    expands = []
    for path in scopes:
        old = page.get_attribute("svg.lg-svg", "data-drawn")
        start = page.evaluate(_DOUBLE_CLICK, path)
        expands.append((page.evaluate(_DRAWN_AND_PAINTED, old) - start) / 1000)
        page.wait_for_selector(f".lg-node.lg-expanded[data-path='{path}']", state="attached")
    return opened, expands


def _median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _full_board(graph, opens):
    """The real board over a logdir holding graph: seconds to open its Graphs tab, per open."""
    import tempfile

    from lens.board.app import create_app
    from lens.events.writer import FileWriter
    from tests.board.graph_server import chromium_page, serve

    with tempfile.TemporaryDirectory() as root:
        writer = FileWriter(os.path.join(root, "run1"), graph_def=graph)
        writer.close()
        app = create_app(root, reload_interval=0)
        provider = app.config["LENS_PROVIDER"]
        try:
            _wait_for_warm_up(app)
            times = []
            with serve(app) as base, chromium_page() as page:
                page.goto(f"{base}/data/plugin/graphs/info")
                for _ in range(opens):
                    times.append(_open_and_expand(page, f"{base}/#tab=graphs", [])[0])
                assert not page.js_errors, page.js_errors
        finally:
            provider.stop()
    return times


def run_scoped(quick=False):
    """Rows for a 50k-op graph of 100 scopes of 500 ops: open collapsed, double-click scopes."""
    from lens.proto import graph_pb2
    from tests.board.graph_fixtures import GraphProvider, generated_graph
    from tests.board.graph_server import chromium_page, harness_app, serve

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    scopes = 10 if quick else 100
    n_ops = scopes * 500 + 1
    print(f"  graph bench: {n_ops} ops in {scopes} scopes", file=sys.stderr, flush=True)
    graph = generated_graph(n_ops, layers=scopes)
    app = harness_app(GraphProvider({"big": graph_pb2.GraphDef.FromString(
        graph.SerializeToString())}))
    warm_up = _wait_for_warm_up(app)
    series = f"block_[0-{scopes - 1}]"      # the blocks share one structure: one series node
    inner = f"block_{scopes // 2}"
    opens, tops, blocks = [], [], []
    load = os.getloadavg()[0]
    with serve(app) as base, chromium_page() as page:
        url = f"{base}/graph_harness/index.html#graph.run=big"
        page.goto(f"{base}/data/plugin/graphs/info")   # chromium's renderer is up before timing
        for _ in range(2 if quick else 7):
            opened, (top, block) = _open_and_expand(page, url, [series, inner])
            opens.append(opened)
            tops.append(top)
            blocks.append(block)
        app.extensions["lens_graph_models"].clear()     # the page's request builds it
        cold, _ = _open_and_expand(page, url, [])
        assert not page.js_errors, page.js_errors
    board = _full_board(graph, 2 if quick else 5)
    label = f"{n_ops // 1000}k ops ({scopes} scopes of 500)"
    spread = lambda v: f"median of {len(v)}, {min(v):.2f}-{max(v):.2f} s; load avg {load:.1f}"
    other = {"other": None, "other_name": "TensorBoard (not driven here)", "unit": "s"}
    return [
        dict(name=f"graph page open, {label}, after load", lens=_median(opens), **other,
             note=f"navigation start to collapsed graph painted; {spread(opens)}; goal < 1 s"),
        dict(name=f"graph double-click top scope, {label}", lens=_median(tops), **other,
             note=f"expands {series} ({scopes} blocks); {spread(tops)}; goal < 0.5 s"),
        dict(name=f"graph double-click a block, {label}", lens=_median(blocks), **other,
             note=f"then expands {inner} (500 ops); {spread(blocks)}; goal < 0.5 s"),
        dict(name=f"graph tab open in the whole board, {label}", lens=_median(board), **other,
             note=f"lens board over a logdir, /#tab=graphs: every dashboard's scripts load "
                  f"first; {spread(board)}"),
        dict(name=f"graph page open, {label}, cold", lens=cold, **other,
             note="cache emptied: the page's first request builds the hierarchy"),
        dict(name=f"graph hierarchy warm-up at load, {label}", lens=warm_up, other=None,
             other_name="", unit="s", note="background thread, from app creation until cached"),
    ]


def run(quick=False):
    """Bench rows for `python -m bench graph`: the 10k-op rows, then the 50k-op ones."""
    return run_10k(quick) + run_scoped(quick)


def run_10k(quick=False):
    """Rows for the 10k-op graph: page open after load, cold and cached; warm-up; route."""
    from lens.proto import graph_pb2
    from tests.board.graph_fixtures import GraphProvider
    from tests.board.graph_server import chromium_page, harness_app, serve

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    n_ops = 1000 if quick else 10000
    print(f"  graph bench: {n_ops} ops", file=sys.stderr, flush=True)
    data = _graph_bytes(n_ops)
    provider = GraphProvider({"big": graph_pb2.GraphDef.FromString(data)})
    app = harness_app(provider)          # starts the load-time warm-up thread
    warm_up = _wait_for_warm_up(app)
    rows = []
    with serve(app) as base, chromium_page() as page:
        url = f"{base}/graph_harness/index.html#graph.run=big"
        # A user's browser is already running: start chromium's renderer before timing.
        page.goto(f"{base}/data/plugin/graphs/info")
        after_load = _page_open_seconds(url, page)
        client = app.test_client()
        app.extensions["lens_graph_models"].clear()
        start = time.perf_counter()
        resp = client.get("/data/plugin/graphs/hierarchy?run=big")
        lens_route = time.perf_counter() - start
        assert resp.status_code == 200, resp.get_data(as_text=True)
        app.extensions["lens_graph_models"].clear()
        start = time.perf_counter()
        root = client.get("/data/plugin/graphs/hierarchy?run=big&scope=")
        root_route = time.perf_counter() - start
        assert root.status_code == 200, root.get_data(as_text=True)
        app.extensions["lens_graph_models"].clear()   # the page's open must build it cold
        page.goto("about:blank")
        cold = _page_open_seconds(url, page)
        warm = []
        for _ in range(1 if quick else 3):
            page.goto("about:blank")
            warm.append(_page_open_seconds(url, page))
    tb_route = _tensorboard_route_seconds(data)
    size_mb = len(resp.get_data()) / 1e6
    rows.append({"name": f"graph page open, {n_ops} ops, after load", "lens": after_load,
                 "other": None, "other_name": "TensorBoard (not driven here)", "unit": "s",
                 "note": "first open once the logdir is read (hierarchy built at load time); "
                         "goal < 2 s"})
    rows.append({"name": f"graph page open, {n_ops} ops, cold", "lens": cold, "other": None,
                 "other_name": "TensorBoard (not driven here)", "unit": "s",
                 "note": "cache emptied: the request builds the hierarchy; goal < 2 s"})
    rows.append({"name": f"graph page open, {n_ops} ops, cached", "lens": min(warm),
                 "other": None, "other_name": "TensorBoard (not driven here)", "unit": "s",
                 "note": "page reload, hierarchy cached on the server"})
    rows.append({"name": f"graph hierarchy warm-up at load, {n_ops} ops", "lens": warm_up,
                 "other": None, "other_name": "", "unit": "s",
                 "note": "background thread, from app creation until cached"})
    rows.append({"name": f"graph route, {n_ops} ops", "lens": lens_route, "other": tb_route,
                 "other_name": "TensorBoard graph route (prepare_graph_for_ui + pbtxt)",
                 "unit": "s", "note": f"lens builds the full hierarchy ({size_mb:.1f} MB JSON); "
                                      "TB then parses pbtxt and builds it in the browser"})
    rows.append({"name": f"graph route, root scope, {n_ops} ops", "lens": root_route,
                 "other": tb_route, "other_name": "TensorBoard graph route (prepare_graph_for_ui "
                 "+ pbtxt)", "unit": "s",
                 "note": f"what the page asks first: build + the root's part "
                         f"({len(root.get_data()) / 1e3:.0f} kB JSON)"})
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(row)
