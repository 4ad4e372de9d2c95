"""MonitoredSession and hooks on real lens graphs: call order, stop conditions, clean endings."""
import logging
import os

import numpy as np
import pytest

import lens as tf
from lens.training.hooks import NanLossDuringTrainingError


def _model(n_batches=None):
    """A linear model trained by SGD with a global step; with n_batches, input ends after that."""
    x = tf.placeholder_with_default(np.ones((4, 2), np.float32), [None, 2], name="x")
    w = tf.Variable(np.zeros((2, 1), np.float32), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0), name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    if n_batches is not None:
        calls = []

        def next_batch():
            if len(calls) == n_batches:
                raise tf.errors.OutOfRangeError(None, None, "End of sequence")
            calls.append(1)
            return np.float32(len(calls))
        batch = tf.py_func(next_batch, [], tf.float32, name="next_batch")
        with tf.control_dependencies([batch]):
            train = tf.group(train)
    return x, loss, train, step


class Recorder(tf.train.SessionRunHook):
    """Logs every call it gets; asks for `fetch` and optionally stops after `stop_after` runs."""

    def __init__(self, log, name, fetch=None, stop_after=None):
        self.log, self.name, self.fetch, self.stop_after = log, name, fetch, stop_after
        self.values, self.runs = [], 0

    def begin(self):
        self.log.append((self.name, "begin", tf.get_default_graph().finalized))

    def after_create_session(self, session, coord):
        self.log.append((self.name, "after_create_session", session.graph.finalized))
        assert isinstance(coord, tf.train.Coordinator)

    def before_run(self, run_context):
        self.log.append((self.name, "before_run"))
        assert isinstance(run_context.session, tf.Session)
        return tf.train.SessionRunArgs(self.fetch) if self.fetch is not None else None

    def after_run(self, run_context, run_values):
        self.log.append((self.name, "after_run"))
        self.values.append(run_values.results)
        self.runs += 1
        if self.stop_after and self.runs >= self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.log.append((self.name, "end"))


def test_hook_call_order_and_results():
    x, loss, train, step = _model()
    log = []
    a, b = Recorder(log, "a", fetch=loss), Recorder(log, "b", stop_after=2)
    with tf.train.MonitoredSession(hooks=[a, b]) as sess:
        assert not sess.should_stop()
        while not sess.should_stop():
            out = sess.run({"l": loss, "t": train})
            assert set(out) == {"l", "t"}
    assert sess.should_stop()  # closed
    assert log == [("a", "begin", False), ("b", "begin", False),
                   ("a", "after_create_session", True), ("b", "after_create_session", True),
                   ("a", "before_run"), ("b", "before_run"), ("a", "after_run"), ("b", "after_run"),
                   ("a", "before_run"), ("b", "before_run"), ("a", "after_run"), ("b", "after_run"),
                   ("a", "end"), ("b", "end")]
    assert a.values[0] == pytest.approx(1.0) and a.values[1] < a.values[0]
    assert b.values == [None, None]
    assert not tf.get_default_graph().finalized  # un-finalized again on close, as TF1


def test_stop_at_step_hook_num_and_last_step():
    x, loss, train, step = _model()
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=3)]) as sess:
        runs = 0
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert runs == 3
    set_two = tf.assign(step, 2)
    with tf.train.SingularMonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
        sess.raw_session().run(set_two)
        while not sess.should_stop():
            sess.run(train)
        assert sess.raw_session().run(step) == 5
    with pytest.raises(ValueError, match="One of num_steps or last_step must be specified"):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError, match="Only one of num_steps or last_step"):
        tf.train.StopAtStepHook(num_steps=1, last_step=2)


def test_stop_at_step_needs_global_step():
    tf.Variable(1.0)
    with pytest.raises(RuntimeError, match="Global step should be created to use StopAtStepHook"):
        tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=1)])


def test_out_of_range_ends_training_cleanly_and_calls_end():
    x, loss, train, step = _model(n_batches=4)
    log = []
    with tf.train.MonitoredSession(hooks=[Recorder(log, "r")]) as sess:
        runs = 0
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert runs == 4  # the fifth run raised OutOfRangeError, swallowed by the with block
    assert log[-1] == ("r", "end")
    assert log.count(("r", "after_run")) == 4


def test_other_errors_propagate_without_end():
    x, loss, train, step = _model()
    def boom():
        raise ValueError("boom")
    bad = tf.py_func(boom, [], tf.float32)
    log = []
    with pytest.raises(tf.errors.OpError, match="boom"):
        with tf.train.MonitoredSession(hooks=[Recorder(log, "r")]) as sess:
            sess.run(bad)
    assert ("r", "end") not in log


def test_nan_tensor_hook_raises_or_stops():
    v = tf.Variable(1.0)
    tf.train.get_or_create_global_step()
    loss = tf.log(v - 1.0) - tf.log(v - 1.0)  # -inf - -inf = nan
    with pytest.raises(NanLossDuringTrainingError, match="NaN loss during training"):
        with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
            sess.run(loss)
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
        sess.run(loss)
        assert sess.should_stop()
        with pytest.raises(RuntimeError, match="Run called even after should_stop requested"):
            sess.run(loss)


def test_logging_tensor_hook_every_n_iter_and_at_end(caplog):
    x, loss, train, step = _model()
    tf.identity(loss / 2, name="half")
    hook = tf.train.LoggingTensorHook({"loss": loss, "half": "half"}, every_n_iter=2, at_end=True)
    with caplog.at_level(logging.INFO, logger="lens"):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("half = ")]
    assert len(lines) == 4  # iterations 0, 2, 4 and at the end
    assert lines[0] == "half = 0.5, loss = 1.0"  # tags in sorted order, no timing the first time
    assert lines[1].startswith("half = 0.0648, loss = 0.1296 (") and lines[1].endswith(" sec)")
    assert lines[3].startswith("half = 0.0030233")  # at_end: the values after the last run
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.train.LoggingTensorHook([loss])


def test_step_counter_hook_writes_steps_per_sec(tmp_path):
    x, loss, train, step = _model()
    hook = tf.train.StepCounterHook(every_n_steps=2, output_dir=str(tmp_path))
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(6):
            sess.run(train)
    tf.summary.FileWriterCache.get(str(tmp_path)).flush()
    events = [e for f in os.listdir(tmp_path)
              for e in tf.train.summary_iterator(os.path.join(tmp_path, f))]
    rates = [(e.step, v.simple_value) for e in events for v in e.summary.value
             if v.tag == "global_step/sec"]
    assert [s for s, _ in rates] == [3, 5] and all(r > 0 for _, r in rates)


def test_hook_feeds_merge_and_clash():
    p = tf.placeholder(tf.float32, [], name="p")
    q = tf.placeholder(tf.float32, [], name="q")
    out = p * 10 + q
    feeder = tf.train.FeedFnHook(lambda: {q: 3.0})
    with tf.train.MonitoredSession(hooks=[feeder]) as sess:
        assert sess.run(out, {p: 2.0}) == 23.0
        with pytest.raises(RuntimeError, match="Same tensor is fed by a SessionRunHook and user"):
            sess.run(out, {p: 2.0, q: 1.0})
    with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
        with tf.train.MonitoredSession(hooks=[feeder, tf.train.FeedFnHook(lambda: {q: 1.0})]) as sess:
            sess.run(out, {p: 2.0})


def test_run_step_fn_and_request_stop():
    x, loss, train, step = _model()
    log = []
    with tf.train.MonitoredSession(hooks=[Recorder(log, "r")]) as sess:
        def step_fn(step_context):
            raw = step_context.session.run(step)  # no hooks
            step_context.run_with_hooks(train)
            return raw
        assert sess.run_step_fn(step_fn) == 0
        assert log.count(("r", "before_run")) == 1

        def stop_fn(step_context):
            step_context.request_stop()
        assert sess.run_step_fn(stop_fn) is None
        assert sess.should_stop()
        with pytest.raises(ValueError, match="step_fn"):
            sess.run_step_fn(lambda ctx: None)


def test_scaffold_init_fn_ready_op_and_local_variables():
    v = tf.Variable(5.0, name="v")
    counter = tf.Variable(0.0, name="counter", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    seen = []
    scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: seen.append(sess.run(v)))
    with tf.train.MonitoredSession(tf.train.ChiefSessionCreator(scaffold=scaffold)) as sess:
        assert sess.run(counter) == 0.0  # local_init_op ran
    assert seen == [5.0]
    tf.reset_default_graph()
    tf.Variable(1.0, name="never_initialized")
    scaffold = tf.train.Scaffold(init_op=tf.no_op())
    with pytest.raises(RuntimeError, match="never_initialized"):
        tf.train.MonitoredSession(tf.train.ChiefSessionCreator(scaffold=scaffold))


def test_debug_options_from_a_hook_reach_session_run(tmp_path):
    x, loss, train, step = _model()
    from lens.dbg import debug_utils

    class Watch(tf.train.SessionRunHook):
        def before_run(self, run_context):
            options = tf.RunOptions()
            debug_utils.watch_graph(options, run_context.session.graph,
                                    debug_urls=["file://" + str(tmp_path / "dump")])
            return tf.train.SessionRunArgs(None, options=options)
    with tf.train.MonitoredSession(hooks=[Watch()]) as sess:
        sess.run(loss)
    assert os.path.isdir(tmp_path / "dump") and os.listdir(tmp_path / "dump")


def test_monitored_training_session_checkpoints_and_restores(tmp_path):
    pytest.importorskip("lens.training.saver")
    x, loss, train, step = _model()
    d = str(tmp_path)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_summaries_steps=None,
                                           hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert tf.train.latest_checkpoint(d).endswith("model.ckpt-3")
    assert os.path.exists(os.path.join(d, "graph.pbtxt"))
    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_secs=None,
                                           save_summaries_steps=None) as sess:
        assert sess.run(step) == 3  # restored, not re-initialized


def test_closed_session_refuses_runs():
    x, loss, train, step = _model()
    sess = tf.train.MonitoredSession()
    sess.close()
    assert sess.should_stop()
    with pytest.raises(RuntimeError, match="closed"):
        sess.run(loss)


def test_checkpoint_saver_hook_every_n_steps_with_listener(tmp_path):
    pytest.importorskip("lens.training.saver")
    x, loss, train, step = _model()
    saved = []

    class Listener(tf.train.CheckpointSaverListener):
        def after_save(self, session, global_step_value):
            saved.append(global_step_value)
            return global_step_value >= 4  # ask to stop after the save at step 4
    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, listeners=[Listener()])
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        runs = 0
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert saved == [0, 2, 4] and runs == 4  # no extra save at end: step 4 was just saved
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-0", "model.ckpt-2", "model.ckpt-4"]
    with pytest.raises(ValueError, match="You cannot provide both saver and scaffold"):
        tf.train.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=object(),
                                     scaffold=tf.train.Scaffold())
