"""The example notebook and notebook habits, executed on one real kernel (nbclient + ipykernel)."""

import json
import re
import urllib.error
import urllib.request

import nbformat
import pytest

from tests.notebook.conftest import (EXAMPLE, embedded_graph, errors_of, html_of, live_kernel,
                                    text_of, wait_until)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("example_logdir")
    nb = nbformat.read(EXAMPLE, as_version=4)
    with live_kernel(nb, tmp_path_factory.mktemp("cwd"), {"LENS_EXAMPLE_LOGDIR": str(logdir)}) as k:
        k.logdir = logdir
        yield k


def cell_with(nb, needle):
    """The executed code cell whose source contains needle."""
    return next(c for c in nb.cells if c.cell_type == "code" and needle in c.source)


def fetch(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.headers, response.read()


def board_url(html):
    match = re.search(r'<iframe class="lens-board-frame" src="([^"]+)"', html)
    assert match, f"no board iframe in {html[:300]!r}"
    return match.group(1)


def test_example_notebook_runs_clean(kernel):
    assert errors_of(kernel.nb) == []
    assert "final loss" in text_of(cell_with(kernel.nb, "final loss").outputs)


def test_lens_magic_frames_a_live_board_of_the_logdir(kernel):
    html = html_of(cell_with(kernel.nb, "%lens --logdir").outputs)
    url = board_url(html)
    assert url.startswith("http://127.0.0.1:")
    assert 'height="600"' in html
    headers, body = fetch(url + "data/runs")
    assert json.loads(body) == ["train"]
    # The page may be framed by a notebook on localhost (the board alone allows only 'self').
    assert "frame-ancestors 'self' http://localhost:*" in headers["Content-Security-Policy"]
    _, body = fetch(url + "data/plugin/scalars/scalars?run=train&tag=train_loss")
    assert [row[1] for row in json.loads(body)] == list(range(30))


def test_lens_alone_lists_the_boards_and_the_magic_reuses_one(kernel):
    url = board_url(html_of(cell_with(kernel.nb, "%lens --logdir").outputs))
    port = url.rsplit(":", 1)[1].strip("/")
    listing = text_of([o for c in kernel.nb.cells if c.cell_type == "code" and c.source == "%lens"
                       for o in c.outputs])
    assert f"port {port}: logdir {kernel.logdir}" in listing
    again = kernel.run("%lens --logdir $logdir")
    assert board_url(html_of(again)) == url


def test_display_and_list_from_code(kernel):
    url = board_url(html_of(cell_with(kernel.nb, "%lens --logdir").outputs))
    port = int(url.rsplit(":", 1)[1].strip("/"))
    outputs = kernel.run(f"lens.notebook.display(port={port}, height=333)\nlens.notebook.list()")
    assert board_url(html_of(outputs)) == url and 'height="333"' in html_of(outputs)
    assert f"port {port}" in text_of(outputs)
    newest = board_url(html_of(kernel.run("lens.notebook.display()")))   # the newest board
    assert newest == board_url(html_of(kernel.run("print(lens.notebook.start(logdir).url)\n"
                                                  "lens.notebook.display()")))
    outputs = kernel.run("lens.notebook.display(port=1)", raises=True)
    assert "ValueError: no lens board started by this kernel serves port 1" in text_of(outputs)
    outputs = kernel.run("%lens --port notaport")
    assert "%lens: argument --port: invalid int value" in text_of(outputs)
    outputs = kernel.run(f"%lens --logdir /tmp/elsewhere --port {port}")
    assert re.fullmatch(f"%lens: could not start a board: port {port} on 127.0.0.1 is already "
                        r"in use \(another lens board or TensorBoard\?\)\. Try %lens --port "
                        r"\d+\.\n", text_of(outputs))


def test_board_picks_up_events_written_later_in_the_notebook(kernel, tmp_path):
    outputs = kernel.run(
        f"live = {str(tmp_path)!r}\n"
        "w2 = tf.summary.FileWriter(os.path.join(live, 'run'))\n"
        "for step in range(3):\n"
        "    w2.add_summary(sess.run(summaries, {x: data_x, y: data_y}), step)\n"
        "w2.flush()\n"
        "%lens --logdir $live --reload_interval 0.3 --height 300")
    url = board_url(html_of(outputs))

    def steps():
        try:
            _, body = fetch(url + "data/plugin/scalars/scalars?run=run&tag=train_loss")
        except urllib.error.HTTPError:
            return []
        return [row[1] for row in json.loads(body)]

    assert wait_until(lambda: steps() == [0, 1, 2]), steps()
    kernel.run("for step in range(3, 6):\n"
               "    w2.add_summary(sess.run(summaries, {x: data_x, y: data_y}), step)\n"
               "w2.flush()")
    assert wait_until(lambda: steps() == [0, 1, 2, 3, 4, 5]), steps()


def test_show_graph_output_holds_the_graph(kernel):
    outputs = cell_with(kernel.nb, "show_graph").outputs
    html = html_of(outputs)
    assert html.count("<iframe") == 1 and "srcdoc=" in html and " src=" not in html
    text = text_of(outputs)
    data = embedded_graph(html)
    for name in ("dense/weights", "dense/bias", "loss/mse", "GradientDescent"):
        assert name in text and name in data["hierarchy"]["nodes"]
    assert data["nodes"]["dense/MatMul"]["op"] == "MatMul"


def test_show_scalars_and_histograms_draw_plotly_charts(kernel):
    scalars = html_of(cell_with(kernel.nb, "show_scalars").outputs)
    assert "Plotly.newPlot" in scalars and "plotly.js v" in scalars  # plotly.js sent once
    assert '"text":"train_loss"' in scalars
    histograms = html_of(cell_with(kernel.nb, "show_histograms").outputs)
    assert "Plotly.newPlot" in histograms and "plotly.js v" not in histograms
    assert "weights (train)" in histograms


def test_debugger_view_lists_the_nan_and_prints_it(kernel):
    table = html_of(cell_with(kernel.nb, "run_until").outputs)
    assert "passing filter has_inf_or_nan" in table
    assert re.search(r'<tr class="lens-dbg-bad"><td>[^<]*</td><td>[^<]*</td><td>Log</td>'
                     r'<td><details><summary>log_pred:0</summary>', table)
    assert "lens-dbg-health-bad" in table
    printed = text_of(cell_with(kernel.nb, 'view.pt("log_pred:0")').outputs)
    assert 'Tensor "log_pred:0:DebugIdentity"' in printed and "nan" in printed


def test_interactive_session_eval(kernel):
    outputs = kernel.run("tf.reset_default_graph()\n"
                         "isess = tf.InteractiveSession()\n"
                         "c = tf.constant([1.0, 2.0]) * 3\n"
                         "print(c.eval(), (c + 1).eval())\n"
                         "isess.close()")
    assert text_of(outputs).strip() == "[3. 6.] [4. 7.]"


def test_rerunning_a_cell_that_rebuilds_the_graph(kernel):
    cell = ("tf.reset_default_graph()\n"
            "v = tf.Variable(1.0, name='v')\n"
            "out = tf.identity(v * 2, name='out')\n"
            "with tf.Session() as s:\n"
            "    s.run(tf.global_variables_initializer())\n"
            "    print(sorted(op.name for op in tf.get_default_graph().get_operations()),"
            " s.run(out))")
    first, second = text_of(kernel.run(cell)), text_of(kernel.run(cell))
    assert first == second and "'v'" in first and "v_1" not in first and "2.0" in first
