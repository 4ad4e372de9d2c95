"""lens.notebook's pieces without a kernel: boards in this process, graph data, smoothing, magic."""

import errno
import json
import urllib.request

import numpy as np
import pytest

import lens as tf
from lens.board.graph_model import GraphModel
from lens.notebook import boards, charts, graph_view, magic
from tests.notebook.conftest import embedded_graph


def small_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        with tf.name_scope("layer"):
            w = tf.constant(np.arange(64, dtype=np.float32).reshape(4, 16), name="w")
            h = tf.nn.relu(tf.matmul(x, w), name="h")
        tf.reduce_sum(h + tf.constant(1.0, name="one"), name="total")
    return g


def test_graph_def_from_a_graph_or_any_graph_def_and_bad_input():
    g = small_graph()
    names = [n.name for n in g.as_graph_def().node]
    assert [n.name for n in graph_view.as_graph_def(g).node] == names
    # A GraphDef of another protobuf module (TensorFlow's) goes through its serialized bytes.
    foreign = type("ForeignGraphDef", (), {"node": [], "SerializeToString":
                                           lambda self: g.as_graph_def().SerializeToString()})()
    assert [n.name for n in graph_view.as_graph_def(foreign).node] == names
    with pytest.raises(TypeError, match="show_graph needs a Graph or a GraphDef, got int"):
        graph_view.as_graph_def(3)


def test_large_constants_are_stripped_small_ones_kept():
    gd = graph_view.strip_consts(graph_view.as_graph_def(small_graph()), max_const_size=32)
    consts = {n.name: n.attr["value"].tensor for n in gd.node if n.op == "Const"}
    assert consts["layer/w"].tensor_content.startswith(b"<stripped ")
    assert list(consts["layer/w"].tensor_shape.dim[1:2])[0].size == 16  # shape kept
    assert not consts["layer/w"].float_val
    assert consts["one"].float_val == [1.0]
    with pytest.raises(ValueError, match="max_const_size must be an int >= 0"):
        graph_view.strip_consts(gd, -1)


def test_inline_data_answers_as_the_board_routes():
    gd = graph_view.as_graph_def(small_graph())
    data = graph_view.graph_data(gd)
    model = GraphModel(gd)
    assert data["hierarchy"] == json.loads(json.dumps(model.to_json()))
    assert set(data["nodes"]) == set(model.nodes) - {""}
    assert data["nodes"]["layer/h"]["op"] == "Relu"


def test_graph_html_is_one_self_contained_iframe():
    html = graph_view.graph_html(small_graph(), height=400)
    assert html.count("<iframe") == 1 and 'height="400"' in html
    assert "dagre" in html and " src=" not in html
    assert html.isascii()  # non-ASCII text travels as character references
    assert "layer/h" in embedded_graph(html)["hierarchy"]["nodes"]
    view = graph_view.GraphView(small_graph())
    assert repr(view).startswith("lens graph, 8 nodes: x, layer/w, layer/MatMul, layer/h, one")
    assert view._repr_html_().startswith('<div class="lens-graph">')
    with pytest.raises(ValueError, match="height must be a positive"):
        graph_view.graph_html(small_graph(), height=0)


def test_smoothing_is_the_boards_debiased_ema():
    assert charts.smooth([5.0, 5.0, 5.0], 0.9) == [5.0, 5.0, 5.0]    # constant: unchanged
    out = charts.smooth([1.0, float("nan"), 3.0], 0.5)
    assert out[0] == 1.0 and np.isnan(out[1])
    assert out[2] == pytest.approx((0.5 * 0.5 * 1.0 + 0.5 * 3.0) / (1 - 0.25))
    with pytest.raises(ValueError, match="smoothing must be in"):
        charts.smooth([1.0], 1.5)


def test_magic_arguments():
    args = magic.parse("--logdir '/tmp/a b' --port 7000 --height 300")
    assert (args.logdir, args.port, args.height) == ("/tmp/a b", 7000, 300)
    assert magic.parse("").logdir is None
    with pytest.raises(magic.MagicUsageError, match="unrecognized arguments: --bogus"):
        magic.parse("--logdir x --bogus")
    with pytest.raises(magic.MagicUsageError, match="--height must be > 0"):
        magic.parse("--logdir x --height 0")


def test_board_in_process_serves_reuses_and_stops(tmp_path):
    board = boards.start(tmp_path, reload_interval=0)
    try:
        with urllib.request.urlopen(board.url + "data/runs", timeout=5) as response:
            assert json.loads(response.read()) == []
        assert boards.start(str(tmp_path)) is board
        assert f"port {board.port}: logdir {tmp_path}" in boards.list_text()
        with pytest.raises(OSError, match=f"port {board.port} on 127.0.0.1 is already in use") as err:
            boards.start(tmp_path / "other", port=board.port)
        assert err.value.errno == errno.EADDRINUSE
    finally:
        board.stop()
    assert boards.find(board.port) is None
    with pytest.raises(OSError):
        urllib.request.urlopen(board.url + "data/runs", timeout=2)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    """Two runs of scalars and histograms written by lens's FileWriter."""
    root = tmp_path_factory.mktemp("charts")
    for run, scale in (("a", 1.0), ("b", 2.0)):
        with tf.Graph().as_default():
            v = tf.placeholder(tf.float32, [])
            merged = tf.summary.merge([tf.summary.scalar("loss", v * v),
                                       tf.summary.histogram("acts", tf.range(10.0) * v)])
            writer = tf.summary.FileWriter(str(root / run))
            with tf.Session() as sess:
                for step in range(60):
                    writer.add_summary(sess.run(merged, {v: scale * (1 + np.sin(step))}), step)
            writer.close()
    return root


def test_charts_show_the_boards_data(logdir):
    from lens.board.app import create_app

    client = create_app(str(logdir), reload_interval=0).test_client()
    figures = charts.scalar_figures(logdir, tags="loss", smoothing=0.6)
    assert [f.layout.title.text for f in figures] == ["loss"]
    raw = {t.name: t for t in figures[0].data if t.opacity == 0.25}
    smoothed = {t.name: t for t in figures[0].data if t.opacity != 0.25}
    for run in ("a", "b"):
        rows = client.get(f"/data/plugin/scalars/scalars?run={run}&tag=loss").get_json()
        assert list(raw[run].x) == [r[1] for r in rows]
        assert list(raw[run].y) == [r[2] for r in rows]
        assert list(smoothed[run].y) == charts.smooth([r[2] for r in rows], 0.6)
    figures = charts.histogram_figures(logdir, runs=["b"])
    assert [f.layout.title.text for f in figures] == ["acts (b)"]
    rows = client.get("/data/plugin/histograms/histograms?run=b&tag=acts").get_json()
    assert [t.name for t in figures[0].data] == [f"step {r[1]}" for r in rows]   # 51 of 60
    assert len(rows) == 51
    last = rows[-1][2]
    assert list(figures[0].data[-1].y) == [c for _, _, c in last]
    assert list(figures[0].data[-1].x) == [(lo + hi) / 2 for lo, hi, _ in last]
    with pytest.raises(ValueError, match=r"no scalars match tags='nope'"):
        charts.scalar_figures(logdir, tags="nope")


def test_without_ipython_the_error_names_the_extra(monkeypatch):
    import sys

    from lens.notebook import ipy

    monkeypatch.setitem(sys.modules, "IPython.display", None)  # as if IPython were absent
    with pytest.raises(ImportError, match=r"pip install 'lens\[notebook\]'"):
        ipy.display(ipy.Html("<b>x</b>"))
