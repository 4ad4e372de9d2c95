"""Debugged runs see the graph as tfdbg does after Grappler, and held reads survive updates."""

import numpy as np
import pytest

from lens.dbg.filters import has_inf_or_nan
from lens.dbg.watch import FilterSink, Watch, WatchOptions

tf = pytest.importorskip("lens")
from lens import dbg as tf_debug  # noqa: E402


def _train_graph():
    """A one-variable regression step: gradients grouped by tuple, an SGD update."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.full((3, 1), 0.5, np.float32), name="W")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w)), name="loss")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    return sess, x, loss, train


def _dump(tmp_path, fetches=None):
    sess, x, loss, train = _train_graph()
    wrapped = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "dumps"))
    wrapped.run([loss, train] if fetches is None else fetches(loss, train),
                {x: np.ones((4, 3), np.float32)})
    return tf_debug.DebugDumpDir(wrapped.last_run_dir)


def _dumped_nodes(tmp_path, fetches):
    return {d.node_name for d in _dump(tmp_path, fetches).dumped_tensor_data}


def test_dead_ops_and_pass_through_identities_are_not_dumped(tmp_path):
    nodes = _dumped_nodes(tmp_path, None)
    # The gradient w.r.t. the placeholder is computed by nobody's request (Grappler: NoOp),
    # and tuple/control_dependency identities are bypassed, as tfdbg shows them.
    assert "gradients/MatMul_grad/MatMul" not in nodes
    assert not any("tuple/control_dependency" in n for n in nodes)
    # Shape-only values folded into constants leave only what other ops read (Grappler's
    # constant folding): the mean's 1/N gradient stays, the shape chain behind it does not.
    assert "gradients/loss_grad/truediv" in nodes     # TF1.15 names the division truediv
    assert not {"gradients/loss_grad/Shape", "gradients/loss_grad/DynamicStitch",
                "gradients/loss_grad/range", "gradients/loss_grad/range/start"} & nodes
    # What the update reads, the variable and its read, and the fetch are all there.
    assert {"W", "W/read", "MatMul", "loss", "gradients/MatMul_grad/MatMul_1",
            "GradientDescent/update_W/ApplyGradientDescent"} <= nodes


def test_a_fetched_identity_is_dumped(tmp_path):
    def fetches(loss, train):
        grad = loss.graph.get_tensor_by_name("gradients/MatMul_grad/tuple/control_dependency_1:0")
        return [loss, train, grad]
    assert "gradients/MatMul_grad/tuple/control_dependency_1" in _dumped_nodes(tmp_path, fetches)


def test_pt_of_a_node_left_undumped_says_why(tmp_path):
    from test_handlers import make_registry, run
    registry = make_registry(_dump(tmp_path))
    screen = run(registry, "pt gradients/MatMul_grad/tuple/control_dependency_1:0", width=200)
    assert screen.lines[0] == ('ERROR: Tensor "gradients/MatMul_grad/tuple/control_dependency_1:0"'
                               ' did not generate any dumps.')
    assert "Fetch the tensor" in screen.lines[1]
    screen = run(registry, "pt no_such_node:0")  # not in the graph: tfdbg's message alone
    assert screen.lines == ['ERROR: Node "no_such_node" does not exist in partition graphs']


class _Recorder(Watch):
    """A watch recording the engine's before_update calls next to the outputs it sees."""

    def __init__(self, variables):
        super().__init__(WatchOptions(), FilterSink(has_inf_or_nan, lambda node: False))
        self.events = []
        self._variables = variables

    def before_update(self, *buffers):
        names = [None if b is None else next(n for n, v in self._variables.items() if v is b)
                 for b in buffers]
        self.events.append(("update", names))

    def on_output(self, op, output_slot, value, timestamp_us):
        self.events.append(("output", op.name))


def test_the_engine_announces_each_in_place_update_before_it_happens():
    sess, x, loss, train = _train_graph()
    watch = _Recorder(sess._ctx.variables)
    sess._run_watched([loss, train], {x: np.ones((2, 3), np.float32)}, None, None, watch)
    update = watch.events.index(("update", ["W"]))
    assert watch.events[update + 1] == ("output", "GradientDescent/update_W/ApplyGradientDescent")
    assert [e for e in watch.events if e[0] == "update"] == [("update", ["W"])]


def test_a_loop_that_may_update_anything_is_announced_as_unknown():
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.zeros(2, np.float32), name="v")

        def body(i):
            with tf.control_dependencies([tf.assign_add(v, np.ones(2, np.float32))]):
                return i + 1
        loop = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    watch = _Recorder(sess._ctx.variables)
    sess._run_watched(loop, None, None, None, watch)
    assert ("update", [None]) in watch.events


def test_filter_run_shows_reads_from_before_an_update_inside_a_loop(monkeypatch, dumped_values):
    """A value held by reference is copied before the loop overwrites its buffer."""
    import io
    import sys
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.zeros(2, np.float32), name="v")
        before = tf.identity(v, name="before")

        def body(i):
            with tf.control_dependencies([tf.assign_add(v, np.ones(2, np.float32))]):
                return i + 1
        with tf.control_dependencies([before]):
            loop = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
        with tf.control_dependencies([loop]):
            after = tf.identity(v.read_value(), name="after")
            bad = tf.math.log(after - 3.0, name="bad")  # log(0) = -inf trips the filter
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    wrapped = tf_debug.LocalCLIDebugWrapperSession(sess, ui_type="readline")
    monkeypatch.setattr(sys, "stdin", io.StringIO("run -f has_inf_or_nan\nrun -n\n"))
    wrapped.run([before, after, bad])
    np.testing.assert_array_equal(dumped_values["v"], np.zeros(2, np.float32))
    np.testing.assert_array_equal(dumped_values["before"], np.zeros(2, np.float32))
    np.testing.assert_array_equal(dumped_values["after"], np.full(2, 3, np.float32))
    assert np.isneginf(dumped_values["bad"]).all()
