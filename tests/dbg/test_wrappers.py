"""Wrapper sessions on real lens graphs (needs the engine)."""

import io
import os
import select
import subprocess
import sys

import numpy as np
import pytest

tf = pytest.importorskip("lens")
if not hasattr(tf, "Session"):
    pytest.skip("the lens engine facade is not available yet", allow_module_level=True)

from lens import dbg as tf_debug  # noqa: E402
from lens.dbg import dump as dump_module  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def mlp():
    """A small MLP (8-16-4) built with lens ops in a fresh graph."""
    graph = tf.Graph()
    with graph.as_default():
        rng = np.random.default_rng(1)
        x = tf.placeholder(tf.float32, [None, 8], name="x")
        w1 = tf.Variable(rng.normal(size=(8, 16)).astype(np.float32), name="W1")
        w2 = tf.Variable(rng.normal(size=(16, 4)).astype(np.float32), name="W2")
        with tf.name_scope("hidden"):
            h = tf.matmul(x, w1)
        with tf.name_scope("logits"):
            logits = tf.matmul(h, w2)
        loss = tf.reduce_mean(logits, name="loss")
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    feed = {x: rng.normal(size=(5, 8)).astype(np.float32)}
    return sess, feed, loss, logits


def test_dumping_wrapper_writes_one_run_dir_per_call(mlp, tmp_path):
    sess, feed, loss, logits = mlp
    root = str(tmp_path / "session_root")
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, root)
    plain = sess.run({"l": loss, "z": [logits]}, feed_dict=feed)
    out = wrapped.run({"l": loss, "z": [logits]}, feed_dict=feed)  # fetch structure kept
    assert set(out) == {"l", "z"} and isinstance(out["z"], list)
    np.testing.assert_allclose(out["z"][0], plain["z"][0])
    wrapped.run(loss, feed_dict=feed)
    runs = sorted(os.listdir(root))
    assert len(runs) == 2 and all(r.startswith("run_") for r in runs)
    dump = tf_debug.DebugDumpDir(wrapped.last_run_dir)
    np.testing.assert_allclose(dump.get_tensors("logits/MatMul", 0, "DebugIdentity")[0],
                               plain["z"][0])
    assert dump.node_op_type("hidden/MatMul") == "MatMul"
    assert dump.node_inputs("logits/MatMul") == ["hidden/MatMul", "W2/read"]
    assert dump.core_metadata.output_names == ["loss:0"]
    assert wrapped.last_run_bytes > 0
    assert wrapped.graph is sess.graph
    with pytest.raises(NotImplementedError):
        wrapped.partial_run_setup([loss])
    with pytest.raises(ValueError, match="non-empty directory"):
        tf_debug.DumpingDebugWrapperSession(sess, root)


def test_watch_fn_allowlists_and_debug_ops(mlp, tmp_path):
    sess, feed, loss, _ = mlp

    def watch_fn(fetches, feeds):
        return tf_debug.WatchOptions(debug_ops=["DebugIdentity", "DebugNumericSummary"],
                                     node_name_regex_allowlist=r"(hidden|logits)/.*",
                                     op_type_regex_allowlist="MatMul",
                                     tensor_dtype_regex_allowlist="float32")
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "r"), watch_fn=watch_fn)
    wrapped.run(loss, feed_dict=feed)
    dump = tf_debug.DebugDumpDir(wrapped.last_run_dir)
    assert sorted({d.watch_key for d in dump.dumped_tensor_data}) == [
        "hidden/MatMul:0:DebugIdentity", "hidden/MatMul:0:DebugNumericSummary",
        "logits/MatMul:0:DebugIdentity", "logits/MatMul:0:DebugNumericSummary"]
    summary = dump.get_tensors("logits/MatMul", 0, "DebugNumericSummary")[0]
    full = dump.get_tensors("logits/MatMul", 0, "DebugIdentity")[0]
    assert summary[1] == full.size and summary[13] == 2 and list(summary[14:]) == [5, 4]
    assert summary[8] == pytest.approx(full.min())


def test_disk_budget_stops_dumping_but_not_the_run(mlp, tmp_path, monkeypatch, capsys):
    sess, feed, loss, _ = mlp
    monkeypatch.setenv("TFDBG_DISK_BYTES_LIMIT", "3000")
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "r"))
    value = wrapped.run(loss, feed_dict=feed)
    assert np.isfinite(value)
    assert "TFDBG_DISK_BYTES_LIMIT=3000" in capsys.readouterr().err
    assert dump_module.disk_bytes_used() <= 3000
    dump_module.reset_disk_byte_usage()


def test_local_cli_filter_run_checks_in_memory(monkeypatch, capsys):
    """run -f: only the tripping run reaches the disk; the run-end screen lists the culprit."""
    sys.path.insert(0, HERE)
    import inf_model
    graph = tf.Graph()
    with graph.as_default():
        x, loss, train = inf_model.build()
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    wrapped = tf_debug.LocalCLIDebugWrapperSession(sess, ui_type="readline")
    seen = []

    def spy_filter(datum, tensor):
        seen.append(type(datum).__name__)
        return tf_debug.has_inf_or_nan(datum, tensor)
    wrapped.add_tensor_filter("spy", spy_filter)
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "run -f spy\npt cross_entropy/Log:0\npt W:0\npt AssignSub:0\nrun -n\nrun -n\n"))
    dump_module.reset_disk_byte_usage()
    feed = {x: np.ones((2, 3), np.float32) / 3}
    with np.errstate(divide="ignore", invalid="ignore"):
        for step in range(3):
            wrapped.run([loss, train], feed_dict=feed)
        assert dump_module.disk_bytes_used() == 0  # three healthy runs: nothing written
        assert set(seen) == {"MemoryDatum"}
        wrapped.run([loss, train], feed_dict=feed)
        assert dump_module.disk_bytes_used() > 0
        wrapped.run([loss, train], feed_dict=feed)
    out = capsys.readouterr().out
    assert "--- run-end: run #4: 2 fetches; 1 feed (x:0) ---" in out
    table = out.split('passing filter "spy":')[1].split("\n")
    assert table[3].endswith("cross_entropy/Log:0")
    assert "array([[-inf, -inf]," in out
    # The variable was held as a copy: W:0 shows its value before this run's update.
    w_text = out.split('Tensor "W:0:DebugIdentity":')[1].split("tfdbg>")[0]
    update_text = out.split('Tensor "AssignSub:0:DebugIdentity":')[1].split("tfdbg>")[0]
    assert "array([[0., 0.]," in w_text and "-0.25" not in w_text
    assert "array([[-0.25, -0.25]," in update_text
    assert not os.path.exists(wrapped.dump_root)  # dump removed after the run-end screen


def _read_pty(master):
    chunks = []
    while select.select([master], [], [], 0)[0]:
        chunks.append(os.read(master, 65536))
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_filter_progress_lines_on_a_terminal_agree_with_the_screen(monkeypatch, capsys):
    """The `run -f` status lines are whole lines, and count what `lt -f` then lists."""
    sys.path.insert(0, HERE)
    import inf_model
    graph = tf.Graph()
    with graph.as_default():
        x, loss, train = inf_model.build()
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    wrapped = tf_debug.LocalCLIDebugWrapperSession(sess, ui_type="readline")
    master, slave = os.openpty()  # a real terminal for stderr, as when run from a shell
    terminal = os.fdopen(slave, "w")
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(sys, "stdin", io.StringIO("run -f has_inf_or_nan\nrun\n"))
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            for step in range(4):
                wrapped.run([loss, train], feed_dict={x: np.ones((2, 3), np.float32) / 3})
                print("step %d done" % (step + 1), file=terminal, flush=True)  # the program's
        shown = _read_pty(master).split("\n")
    finally:
        terminal.close()
        os.close(master)
    assert shown[:2] == ["run -f has_inf_or_nan: 1 run(s) checked, no tensor passed the "
                         "filter yet (run #1)", "step 1 done"]
    # Runs 2 and 3 come within the rationing interval: no line, the program's own only.
    assert shown[2:6] == ["step 2 done", "step 3 done",
                          "run -f has_inf_or_nan: filter passed at run #4 (3 tensor(s))",
                          "step 4 done"]
    # Neg's output is a NumPy scalar (-inf): held in memory it must count as in the dump.
    out = capsys.readouterr().out
    assert '3 dumped tensor(s) passing filter "has_inf_or_nan":' in out
    assert out.split("Tensor name")[1].split("\n")[3].endswith("cross_entropy/Neg:0")


def test_allowed_inf_nodes_do_not_trip(monkeypatch, capsys):
    sys.path.insert(0, HERE)
    import inf_model
    graph = tf.Graph()
    with graph.as_default():
        x, loss, train = inf_model.build()
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    wrapped = tf_debug.LocalCLIDebugWrapperSession(
        sess, ui_type="readline", allowed_inf_nodes=[r"cross_entropy/(Log|Mean|Neg)$"])
    monkeypatch.setattr(sys, "stdin", io.StringIO("run -f has_inf_or_nan\n"))
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(5):
            wrapped.run([loss, train], feed_dict={x: np.ones((2, 3), np.float32) / 3})
    out = capsys.readouterr().out
    assert "run-end" not in out  # only the allowed nodes ever held inf: never stopped


def test_readline_ui_script_in_subprocess():
    """The whole workflow with the readline UI fed by a script, as in an IDE or CI."""
    script = ("run -f has_inf_or_nan\npt cross_entropy/Log:0\nni -t cross_entropy/Log\n"
              "bogus\nexit\n")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "inf_model.py"), "readline", "6"],
                          input=script, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONWARNINGS="ignore"))
    assert proc.returncode == 1, proc.stderr
    assert "Note: user exited from debugger CLI: Calling sys.exit(1)." in proc.stderr
    assert "step 3 loss" in proc.stdout and "step 4 loss" not in proc.stdout
    assert 'ERROR: Invalid command prefix "bogus"' in proc.stdout
    assert 'Text:     "log = tf.log(probs)"' in proc.stdout


def test_op_error_shows_error_screen_then_raises_and_profile_mode(monkeypatch, capsys):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, None], name="x")
        w = tf.constant(np.ones((3, 2), np.float32), name="w")
        y = tf.matmul(x, w, name="bad_matmul")
    wrapped = tf_debug.LocalCLIDebugWrapperSession(tf.Session(graph=graph), ui_type="readline")
    monkeypatch.setattr(sys, "stdin", io.StringIO("run\nni bad_matmul\nrun -p\nrun\n"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        wrapped.run(y, {x: np.ones((2, 5), np.float32)})
    out = capsys.readouterr().out
    assert "!!! An error occurred during the run !!!" in out
    assert "Op name:    bad_matmul" in out and "  Op: MatMul" in out
    value = wrapped.run(y, {x: np.ones((2, 3), np.float32)})
    np.testing.assert_array_equal(value, np.full((2, 2), 3.0))
    out = capsys.readouterr().out
    assert "--- run-end (profiler mode): run #2: 1 fetch (bad_matmul:0); 1 feed (x:0) ---" in out
    profile_row = next(line for line in out.split("\n") if line.startswith("bad_matmul"))
    assert profile_row.split()[1] == "MatMul" and "test_wrappers.py" in profile_row


def test_wrapper_is_a_session_context_manager(mlp):
    sess, feed, loss, _ = mlp
    import tempfile
    with tf_debug.DumpingDebugWrapperSession(sess, tempfile.mkdtemp() + "/r") as wrapped:
        assert tf.get_default_session() is wrapped
        assert np.isfinite(loss.eval(feed_dict=feed))  # eval goes through the wrapper
        assert wrapped.run_call_count == 1
    with pytest.raises(RuntimeError, match="closed"):
        sess.run(loss, feed)


def test_watch_graph_in_run_options(mlp, tmp_path):
    """tfdbg's watch_graph: RunOptions.debug_options drive a dump (what the hooks return)."""
    from lens.dbg import debug_utils
    from lens.dbg.watch import FilterSink
    from lens.proto import config_pb2
    sess, feed, loss, _ = mlp
    options = config_pb2.RunOptions()
    tf_debug.watch_graph(options, sess.graph, debug_urls="file://%s" % (tmp_path / "d"),
                         op_type_regex_allowlist="MatMul")
    assert sorted(w.node_name for w in options.debug_options.debug_tensor_watch_opts) == [
        "hidden/MatMul", "logits/MatMul"]
    debug_utils.run_with_debug_options(sess, loss, feed, options)
    dump = tf_debug.DebugDumpDir(str(tmp_path / "d"))
    assert [d.tensor_name for d in dump.dumped_tensor_data] == ["hidden/MatMul:0",
                                                                "logits/MatMul:0"]
    sink = FilterSink(lambda d, t: t.max() > 0, lambda node: False)
    debug_utils.register_memory_sink("t1", sink)
    mem = config_pb2.RunOptions()
    tf_debug.add_debug_tensor_watch(mem, "logits/MatMul", 0, debug_urls="memcbk://t1")
    debug_utils.run_with_debug_options(sess, loss, feed, mem)
    assert [d.tensor_name for d in sink.data] == ["logits/MatMul:0"]
    debug_utils.unregister_memory_sink("t1")
    with pytest.raises(ValueError, match="grpc:// is not supported"):
        bad = config_pb2.RunOptions()
        tf_debug.add_debug_tensor_watch(bad, "loss", debug_urls="grpc://localhost:1")
        debug_utils.run_with_debug_options(sess, loss, feed, bad)


def _dump_of_inf_model(tmp_path):
    sys.path.insert(0, HERE)
    import inf_model
    graph = tf.Graph()
    with graph.as_default():
        x, loss, train = inf_model.build()
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "root"))
    wrapped.run([loss, train], {x: np.ones((2, 3), np.float32) / 3})
    dump = tf_debug.DebugDumpDir(wrapped.last_run_dir)
    dump.set_python_graph(graph)
    return dump, os.path.join(HERE, "inf_model.py")


def test_print_source_and_list_source(tmp_path):
    from lens.dbg.analyzer import DebugAnalyzer
    from lens.dbg.commands import CommandRegistry
    from lens.dbg.config import CLIConfig
    from lens.dbg.filters import FilterRegistry
    dump, source = _dump_of_inf_model(tmp_path)
    registry = CommandRegistry()
    DebugAnalyzer(dump, FilterRegistry(), CLIConfig(path="")).register(registry)
    screen = registry.dispatch("ps %s -b 21" % source)
    line = next(i for i, t in enumerate(screen.lines) if "log = tf.log(probs)" in t)
    assert screen.lines[line].startswith("L21 ")
    assert "yellow" in screen.styled(line, "L21")
    assert screen.lines[line + 1] == "    cross_entropy/Log"
    assert screen.links()[0][2].startswith("pt ")
    assert screen.annotations["scroll_to"] == line
    tensors = registry.dispatch("ps %s -t" % source)
    assert "    cross_entropy/Log:0" in tensors.lines
    listing = registry.dispatch("ls")
    assert listing.lines[0] == "List of source files that created nodes in this run"
    row = next(t for t in listing.lines if t.startswith(source))
    nodes, tensors_count, dumps = map(int, row[len(source):].split())
    assert nodes >= 8 and dumps >= tensors_count > 0
    assert "lens library file(s):" in listing.lines
    assert registry.dispatch("ps /nope.py").lines[0].startswith("ERROR: Cannot read")
    for flag in ("--path_filter", "--node_name_filter"):
        bad = registry.dispatch("ls %s %s" % (flag, "(" * 5000))
        assert len(bad.lines) == 1 and bad.lines[0].startswith(
            "ERROR: Invalid regular expression for %s: " % flag)


def test_thread_name_filter_skips_other_threads(mlp, tmp_path):
    import threading
    sess, feed, loss, _ = mlp
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "r"),
                                                  thread_name_filter="MainThread$")
    worker = threading.Thread(target=lambda: wrapped.run(loss, feed), name="QueueRunner")
    worker.start()
    worker.join()
    assert os.listdir(str(tmp_path / "r")) == []
    wrapped.run(loss, feed)
    assert len(os.listdir(str(tmp_path / "r"))) == 1
