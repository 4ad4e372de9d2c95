"""The Debugger V2 dashboard in Debian's chromium against a real board over a logdir holding a
graph (FileWriter) and a lens DebugEvent dump of the same program: alert -> op -> source,
and "show in graph" revealing the node in the Graphs dashboard."""

import numpy as np
import pytest

import lens as tf
from lens.board.app import create_app
from tests.board.graph_server import page, serve  # noqa: F401 (page is a fixture)


def _write_logdir(logdir):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.Variable([[1., -1.], [2., 0.], [0.5, 1.]], name="w")
        relu = tf.nn.relu(tf.matmul(x, w, name="dense/MatMul"), name="dense/Relu")
        log = tf.log(relu, name="loss/Log")  # THE LOG LINE
        mean = tf.reduce_mean(log, name="loss/Mean")
        init = tf.global_variables_initializer()
    tf.summary.FileWriter(str(logdir / "train"), graph).close()
    tf.debugging.experimental.enable_dump_debug_info(str(logdir / "debug"), "FULL_HEALTH")
    try:
        with tf.Session(graph=graph) as sess:
            sess.run(init)
            sess.run(mean, {x: np.array([[1., 2., 3.], [-1., 0., 1.]], np.float32)})
    finally:
        tf.debugging.experimental.disable_dump_debug_info()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("dbg2_page")
    _write_logdir(logdir)
    with serve(create_app(str(logdir), reload_interval=0)) as url:
        yield url


def test_first_alert_opens_its_op_and_the_highlighted_source_line(page, base_url):
    page.goto(base_url + "/#tab=debugger_v2")
    page.wait_for_selector("#dbg2-first-alert", timeout=20000)
    assert "Log" in page.inner_text("#dbg2-first-alert")
    page.click("#dbg2-first-open")
    page.wait_for_selector("#dbg2-op-name:has-text('loss/Log')", timeout=10000)
    assert page.inner_text("#dbg2-traces tr.dbg2-selected").split("\t")[2] == "loss/Log:0"
    page.wait_for_selector("#dbg2-source-text .dbg2-hl", timeout=10000)
    assert "THE LOG LINE" in page.inner_text("#dbg2-source-text .dbg2-hl")
    assert page.is_visible("#dbg2-source-text .dbg2-hl")
    # The op's consumers and inputs link onwards.
    assert "loss/Mean" in page.inner_text("#dbg2-op") and "dense/Relu" in page.inner_text("#dbg2-op")


def test_show_in_graph_reveals_the_node_in_the_graphs_dashboard(page, base_url):
    page.goto(base_url + "/#tab=debugger_v2&debugger_v2.graphRun=train")
    page.wait_for_selector("#dbg2-first-open", timeout=20000)
    page.click("#dbg2-first-open")
    page.wait_for_selector("#dbg2-show-in-graph", timeout=10000)
    page.select_option("#dashboard-debugger_v2 select[aria-label^='Graph run']", "train")
    page.click("#dbg2-show-in-graph")
    page.wait_for_selector("#dashboard-graphs .lg-node[data-path='loss/Log']", timeout=20000)
    assert page.is_visible("#dashboard-graphs")
    assert not page.is_visible("#dashboard-debugger_v2")
    page.wait_for_function("location.hash.includes('graphs.graph.node=loss%2FLog')",
                           timeout=10000)


def test_health_pills_overlay_the_graph_nodes(page, base_url):
    page.goto(base_url + "/#tab=debugger_v2&debugger_v2.overlay=1")
    page.wait_for_selector("#dbg2-first-open", timeout=20000)
    page.click("#dbg2-first-open")
    page.select_option("#dashboard-debugger_v2 select[aria-label^='Graph run']", "train")
    page.click("#dbg2-show-in-graph")
    page.wait_for_selector(
        "#dashboard-graphs .lg-node[data-path='loss/Log'] .dbg2-graph-pill rect", timeout=20000)
    title = page.text_content("#dashboard-graphs .lg-node[data-path='loss/Log'] .dbg2-graph-pill")
    assert "-inf: 1" in title
    # The first Session.run (the initializer) ran no Log: its pills leave the node bare.
    page.evaluate("location.hash = location.hash.replace('tab=graphs', 'tab=debugger_v2')")
    page.fill("#dbg2-pill-step", "0")
    page.dispatch_event("#dbg2-pill-step", "change")
    page.evaluate("location.hash = location.hash.replace('tab=debugger_v2', 'tab=graphs')")
    page.wait_for_selector("#dashboard-graphs .lg-node[data-path='loss/Log'] .dbg2-graph-pill",
                           state="detached", timeout=10000)
