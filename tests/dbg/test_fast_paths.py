"""The fast dump and in-memory filter paths keep tfdbg's bytes, values and semantics."""

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lens.dbg import dump_encoding
from lens.dbg.debug_data import load_tensor_from_event_file
from lens.dbg.dump import DumpWriter, make_tensor_event
from lens.dbg.filters import nonfinite

tf = pytest.importorskip("lens")
from lens import dbg as tf_debug  # noqa: E402
from lens.dbg import dump as dump_module  # noqa: E402

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _encoded(value, node="a/b/c", slot=1, ts=1234567):
    array = dump_encoding.raw_array(value)
    assert array is not None
    parts = dump_encoding.WatchEncoder(node, slot, "DebugIdentity", DEVICE).parts(array, ts)
    return b"".join(bytes(p) for p in parts)


@pytest.mark.parametrize("value", [
    np.arange(12, dtype=np.float32).reshape(3, 4), np.arange(300, dtype=np.int64),
    np.linspace(-1, 1, 7), np.arange(6, dtype=np.int32).reshape(1, 2, 3),
    np.arange(4, dtype=np.uint8)])
def test_direct_event_bytes_equal_the_protobuf_encoding(value):
    expected = make_tensor_event("a/b/c", 1, "DebugIdentity", value, 1234567, DEVICE)
    assert _encoded(value) == expected.SerializeToString()


@pytest.mark.parametrize("value", [
    np.float32(3.5), np.array(-2.0), np.zeros((0, 3), np.int64), np.array([True, False]),
    np.arange(6, dtype=np.float16), np.array([1 + 2j, np.inf - 1j], np.complex64),
    np.arange(12, dtype=np.float64).reshape(3, 4).T,  # not contiguous
    np.arange(5, dtype=">i4"),  # big-endian
    np.array([np.nan, -np.inf, np.inf], np.float32)])
def test_direct_event_round_trips_through_lens_and_tensorboard(tmp_path, value):
    from tensorboard.compat.proto import event_pb2 as tb_event_pb2
    from tensorboard.util import tensor_util as tb_tensor_util
    data = _encoded(value)
    path = tmp_path / "dump"
    path.write_bytes(data)
    np.testing.assert_array_equal(load_tensor_from_event_file(str(path)), value)
    event = tb_event_pb2.Event.FromString(data)
    assert event.wall_time == 1234567.0
    summary_value = event.summary.value[0]
    assert (summary_value.node_name, summary_value.tag) == ("a/b/c:1:DebugIdentity", "a/b/c")
    assert summary_value.metadata.plugin_data.plugin_name == "debugger"
    np.testing.assert_array_equal(tb_tensor_util.make_ndarray(summary_value.tensor), value)


def test_writer_suffixes_taken_names_and_counts_bytes(tmp_path):
    writer = DumpWriter(str(tmp_path))
    value = np.ones(3, np.float32)
    first = writer.write_tensor("s/n", 0, "DebugIdentity", value, 7, DEVICE)
    second = writer.write_tensor("s/n", 0, "DebugIdentity", value * 2, 7, DEVICE)
    writer.flush()
    assert second == first + "-1"
    np.testing.assert_array_equal(load_tensor_from_event_file(second), value * 2)
    assert writer.bytes_written == os.path.getsize(first) + os.path.getsize(second)


_floats = st.sampled_from([np.float32, np.float64, np.float16, np.complex64])


@settings(max_examples=150, deadline=None)
@given(dtype=_floats, size=st.integers(0, 5000), bad=st.sampled_from([None, np.inf, -np.inf,
                                                                        np.nan]),
       where=st.floats(0, 1, exclude_max=True), big=st.sampled_from([0, 1, 2]),
       stride=st.integers(1, 3))
def test_nonfinite_agrees_with_isfinite(dtype, size, bad, where, big, stride):
    # 6e4 overflows a float16 sum; half the dtype's largest value overflows any sum or square.
    value = np.full(size, [0.5, 6e4, np.finfo(dtype).max / 2][big], dtype)
    if bad is not None and size:
        value[int(where * size)] = bad
    value = value[::stride]
    with np.errstate(all="ignore"):  # as inside a run
        assert nonfinite(value) == (not np.isfinite(value).all())
    assert nonfinite(np.arange(4)) is False


def _train_graph():
    """784-16-10 softmax regression with one SGD step; returns (sess, fetches, feed, W)."""
    rng = np.random.default_rng(3)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 20], name="x")
        y = tf.placeholder(tf.float32, [None, 4], name="y")
        w = tf.Variable(rng.normal(size=(20, 4)).astype(np.float32), name="W")
        b = tf.Variable(np.zeros(4, np.float32), name="b")
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits),
                              name="loss")
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    feed = {x: rng.normal(size=(8, 20)).astype(np.float32),
            y: np.eye(4, dtype=np.float32)[rng.integers(0, 4, 8)]}
    return sess, [train, loss], feed, w


def test_dumped_training_step_shows_values_before_and_after_the_update(tmp_path):
    sess, fetches, feed, w = _train_graph()
    before = sess.run(w)
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "root"))
    _, loss = wrapped.run(fetches, feed)
    after = sess.run(w)
    assert not np.array_equal(before, after)
    dump = tf_debug.DebugDumpDir(wrapped.last_run_dir)
    np.testing.assert_array_equal(dump.get_tensors("W", 0, "DebugIdentity")[0], before)
    np.testing.assert_array_equal(dump.get_tensors("W/read", 0, "DebugIdentity")[0], before)
    update = [d for d in dump.dumped_tensor_data if d.node_name.endswith("update_W/"
                                                                        "ApplyGradientDescent")]
    np.testing.assert_array_equal(update[0].get_tensor(), after)
    assert dump.get_tensors("loss", 0, "DebugIdentity")[0] == loss
    # The partition graph holds what the run executed (and the fed placeholders), as tfdbg's:
    # not the initializers, which this run did not execute.
    nodes = set(dump.nodes())
    assert {"x", "y", "W", "W/read", "loss"} <= nodes
    assert not any("Initializer" in n or n.endswith("/Assign") for n in nodes)
    assert {d.node_name for d in dump.dumped_tensor_data} <= nodes
    assert wrapped.last_run_bytes == sum(
        os.path.getsize(os.path.join(folder, f))
        for folder, _, files in os.walk(wrapped.last_run_dir) for f in files)
    dump_module.reset_disk_byte_usage()


def _two_update_graph():
    """v is read, updated, read again and updated again within one run; returns the fetches.

    `middle` is fetched too: nothing reads it, so as in TF (Grappler turns such an op into a
    NoOp before tfdbg instruments the graph) it would otherwise not run."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.zeros(3, np.float32), name="v")
        first = tf.assign_add(v, np.ones(3, np.float32), name="first")
        with tf.control_dependencies([first]):
            middle = tf.identity(v, name="middle")
        with tf.control_dependencies([middle]):
            second = tf.assign_add(v, np.full(3, 10, np.float32), name="second")
        with tf.control_dependencies([second]):
            done = tf.identity(second, name="done")
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    return sess, [done, middle]


@pytest.mark.parametrize("run_args", [[], ["--node_name_filter", "(v|first|middle|second|done)"]])
def test_filter_run_holds_each_moment_of_an_updated_variable(monkeypatch, run_args, dumped_values):
    """Copies of a variable's buffer are taken when each op produced it, never shared across
    an update, with and without every op watched."""
    import io
    import sys
    sess, fetches = _two_update_graph()
    wrapped = tf_debug.LocalCLIDebugWrapperSession(sess, ui_type="readline")
    wrapped.add_tensor_filter("at_done", lambda datum, tensor: datum.node_name == "done")
    monkeypatch.setattr(sys, "stdin", io.StringIO(" ".join(["run", "-f", "at_done"] + run_args)
                                                  + "\nrun -n\n"))
    wrapped.run(fetches)
    expected = {"v": 0, "first": 1, "middle": 1, "second": 11, "done": 11}
    for name, number in expected.items():
        np.testing.assert_array_equal(dumped_values[name], np.full(3, number, np.float32),
                                      err_msg=name)
    dump_module.reset_disk_byte_usage()


@pytest.fixture
def slow_writer():
    """Holds the dump writer thread for 0.3 s from the first file of the test on, so the run
    reaches its variable updates while that run's files still wait to be written."""
    import threading
    from lens.dbg import dump_queue
    gate = threading.Lock()
    gate.acquire()
    dump_queue.submit(gate.acquire, ())  # the writer blocks here until the timer fires
    timer = threading.Timer(0.3, gate.release)
    timer.start()
    yield
    timer.join()


@pytest.mark.parametrize("watch_fn", [None, lambda fetches, feeds: tf_debug.WatchOptions(
    node_name_regex_allowlist="(v|first|middle|second|done)")])
def test_dumps_written_later_hold_each_moment_of_an_updated_variable(tmp_path, slow_writer,
                                                                      watch_fn):
    """Files handed to the writer thread show each value as its op produced it, even when
    the variable is updated in place before the file is written."""
    sess, fetches = _two_update_graph()
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "root"),
                                                  watch_fn=watch_fn)
    wrapped.run(fetches)
    dump = tf_debug.DebugDumpDir(wrapped.last_run_dir)
    expected = {"v": 0, "first": 1, "middle": 1, "second": 11, "done": 11}
    for name, number in expected.items():
        np.testing.assert_array_equal(dump.get_tensors(name, 0, "DebugIdentity")[0],
                                      np.full(3, number, np.float32), err_msg=name)
    dump_module.reset_disk_byte_usage()


def test_writer_thread_files_equal_direct_writes(tmp_path, slow_writer):
    """Every file of a run dumped through the writer thread has the bytes the direct path
    (DumpWriter.create in the run's thread) writes for the same values."""
    sess, fetches, feed, _ = _train_graph()
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "queued"))
    sess_direct, fetches_direct, feed_direct, _ = _train_graph()
    direct = tf_debug.DumpingDebugWrapperSession(sess_direct, str(tmp_path / "direct"))
    later = DumpWriter.create_later

    def create_now(self, folder, name, parts, nbytes, done=None):
        self.create(folder, name, parts, nbytes)
        if done is not None:
            done.release()
    for _ in range(2):  # the second run: encodings cached from the first
        wrapped.run(fetches, feed)
        DumpWriter.create_later = create_now
        try:
            direct.run(fetches_direct, feed_direct)
        finally:
            DumpWriter.create_later = later
        a = tf_debug.DebugDumpDir(wrapped.last_run_dir)
        b = tf_debug.DebugDumpDir(direct.last_run_dir)
        assert len(a.dumped_tensor_data) == len(b.dumped_tensor_data) > 10
        for x, y in zip(a.dumped_tensor_data, b.dumped_tensor_data):
            assert (x.node_name, x.output_slot) == (y.node_name, y.output_slot)
            with open(x.file_path, "rb") as fx, open(y.file_path, "rb") as fy:
                bx, by = fx.read(), fy.read()
            # Equal but for the 8 bytes of wall_time (field 1, after its key byte).
            assert bx[0] == by[0] == 0x09 and bx[9:] == by[9:], x.node_name
    dump_module.reset_disk_byte_usage()


def test_writer_thread_error_is_raised_by_the_run(tmp_path, monkeypatch):
    """A file the writer thread fails to write makes run() raise, after the run."""
    sess, fetches, feed, _ = _train_graph()
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "root"))

    def fail(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(DumpWriter, "create", fail)
    with pytest.raises(OSError, match="No space left"):
        wrapped.run(fetches, feed)
    monkeypatch.undo()
    wrapped.run(fetches, feed)  # the next run writes again
    assert tf_debug.DebugDumpDir(wrapped.last_run_dir).size > 10
    dump_module.reset_disk_byte_usage()


def test_a_failing_run_raises_its_own_error_not_a_dump_error(tmp_path, monkeypatch, caplog):
    """When the run fails and a file of it also fails to be written, run() raises the run's
    error; the dump error is logged."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        checked = tf.check_numerics(x * 2.0, "doubled x")
    wrapped = tf_debug.DumpingDebugWrapperSession(tf.Session(graph=graph), str(tmp_path / "root"))

    def fail(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(DumpWriter, "create", fail)
    with pytest.raises(tf.errors.InvalidArgumentError, match="doubled x"):
        wrapped.run(checked, {x: np.array([1.0, np.nan, 2.0], np.float32)})
    assert any("No space left" in r.getMessage() for r in caplog.records)
    dump_module.reset_disk_byte_usage()
