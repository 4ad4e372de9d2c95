"""lens.dbg.notebook: the notebook wrapper session and its HTML views (no kernel needed)."""

import os
import re

import numpy as np
import pytest

import lens as tf
from lens.dbg.notebook import DumpView, NotebookDebugWrapperSession, ScreenView


@pytest.fixture()
def model():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        w = tf.Variable([1.0, 2.0, 3.0], name="w")
        logs = tf.log(x * w, name="logs")
        total = tf.reduce_sum(logs, name="total")
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    dsess = NotebookDebugWrapperSession(sess)
    yield dsess, x, total
    dsess.close()


def test_plain_run_is_the_sessions(model):
    dsess, x, total = model
    assert dsess.run(total, {x: [1.0, 1.0, 1.0]}) == pytest.approx(np.log([1, 2, 3]).sum())
    assert dsess.run_call_count == 1


def test_run_until_stops_at_the_first_nonfinite_run(model):
    dsess, x, total = model
    view = dsess.run_until(total, feed_dict=lambda i: {x: [1.0, 1.0, 1.0 - i]}, max_runs=5)
    assert isinstance(view, DumpView) and view.run_index == 2  # i=1 makes log(0) = -inf
    assert view.result == -np.inf
    assert view.tripped == ["logs:0", "total:0"]
    with np.errstate(divide="ignore"):
        expected = np.log(np.array([1, 2, 0], np.float32))
    np.testing.assert_array_equal(view.get_tensor("logs:0"), expected)
    html = view._repr_html_()
    assert "run #2: 6 dumped tensor(s), 2 passing filter has_inf_or_nan" in html
    rows = re.findall(r'<tr class="([^"]*)"><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>'
                      r'<td>(?:<details><summary>)?([^<]*)', html)
    assert rows[:2] == [("lens-dbg-bad", "Log", "logs:0"), ("lens-dbg-bad", "Sum", "total:0")]
    assert ("", "VariableV2", "w:0") in rows
    assert "0 1 0 1 1 0 | 0 0.6931" in html   # nan -inf - 0 + +inf | min max ...
    # Each name opens its `pt` view, embedded in the output.
    preview = re.search(r"<summary>logs:0</summary>(.*?)</details>", html, re.S).group(1)
    assert "array([0.       , 0.6931472,      -inf], dtype=float32)" in preview


def test_pt_view_keeps_the_screens_highlights(model):
    dsess, x, total = model
    view = dsess.run_until(total, {x: [1.0, 1.0, 0.0]})
    shown = view.pt("logs:0", ranges="[-1, 0.5]")
    assert isinstance(shown, ScreenView)
    assert "Highlighted([-1,0.5]): 1 of 3 element(s)" in shown.text
    # The highlighted element keeps the screen's style as an inline-styled span.
    assert re.search(r'<span style="[^"]+">0\.?\s*</span>', shown._repr_html_())
    assert "logs:0" in view.command("lt -f has_inf_or_nan").text
    assert "Op: Log" in view.ni("logs").text
    assert "ERROR" in view.pt("nope:0").text


def test_debug_run_dumps_one_whole_run_and_clean_runs_give_none(model, capsys):
    dsess, x, total = model
    view = dsess.debug_run(total, {x: [1.0, 2.0, 3.0]})
    assert sorted(view.tensor_names()) == sorted(
        ["w:0", "w/read:0", "mul:0", "logs:0", "total/reduction_indices:0", "total:0"])
    assert view.tripped == [] and "lens-dbg-bad\"" not in view._repr_html_()
    assert dsess.run_until(total, {x: [1.0, 2.0, 3.0]}, max_runs=3) is None
    assert "no tensor passed has_inf_or_nan in 3 run(s)" in capsys.readouterr().out
    with pytest.raises(ValueError, match="no tensor filter named 'nope'"):
        dsess.run_until(total, {x: [1.0, 2.0, 3.0]}, filter="nope")


def test_custom_filters_and_close_removes_the_dumps(model):
    dsess, x, total = model
    dsess.add_tensor_filter("big", lambda datum, t: np.size(t) == 3 and float(np.max(t)) > 5)
    view = dsess.run_until(total, feed_dict=lambda i: {x: [1.0, 1.0, float(i)]}, filter="big")
    assert view.run_index == 3 and view.tripped == ["mul:0"]   # i=2: x*w = [1, 2, 6]
    root = dsess.dump_root
    assert os.path.isdir(root)
    dsess.close()
    assert not os.path.exists(root)
