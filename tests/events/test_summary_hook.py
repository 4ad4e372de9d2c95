"""SummarySaverHook in MonitoredSession: what lands in the event file, read by lens and TensorBoard."""
import os

import numpy as np
import pytest

import lens as tf
from lens.training.summary_hook import SummarySaverHook


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    tf.summary.FileWriterCache.clear()
    yield
    tf.reset_default_graph()


def _model():
    w = tf.Variable(np.float32(4.0), name="w")
    loss = tf.square(w, name="square")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)
    summary = tf.summary.scalar("loss", loss)
    return loss, train, summary


def _events(logdir):
    files = [os.path.join(logdir, f) for f in sorted(os.listdir(logdir)) if "tfevents" in f]
    assert len(files) == 1, files
    return list(tf.train.summary_iterator(files[0]))


def _scalars(events, tag="loss"):
    return [(e.step, v.simple_value) for e in events for v in e.summary.value if v.tag == tag]


def test_save_steps_with_summary_op(tmp_path):
    loss, train, summary = _model()
    hook = SummarySaverHook(save_steps=3, output_dir=str(tmp_path), summary_op=summary)
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(7):
            sess.run(train)
    events = _events(str(tmp_path))
    logs = [(e.step, e.session_log.status) for e in events if e.HasField("session_log")]
    assert logs == [(1, tf.SessionLog.START)]
    # loss = w^2 with w halving each step: 16, 4, 1, 0.25, ... read before each update;
    # written at the global step after the run (1, 4, 7)
    assert _scalars(events) == [(1, 16.0), (4, 0.25), (7, 16.0 / 4 ** 6)]


def test_scaffold_summary_op_and_tensorboard_reads_it(tmp_path):
    ea_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    loss, train, summary = _model()
    scaffold = tf.train.Scaffold()
    hook = SummarySaverHook(save_steps=2, output_dir=str(tmp_path), scaffold=scaffold)
    with tf.train.MonitoredSession(tf.train.ChiefSessionCreator(scaffold=scaffold), hooks=[hook]) as sess:
        for _ in range(4):
            sess.run(train)
    assert scaffold.summary_op is not None  # merge_all of the graph's summaries
    acc = ea_mod.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [(s.step, s.value) for s in acc.Scalars("loss")] == [(1, 16.0), (3, 1.0)]


def test_summary_writer_argument_and_secs(tmp_path):
    loss, train, summary = _model()
    writer = tf.summary.FileWriter(str(tmp_path))
    hook = SummarySaverHook(save_secs=3600, summary_writer=writer, summary_op=[summary])
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(3):
            sess.run(train)
    writer.close()
    assert _scalars(_events(str(tmp_path))) == [(1, 16.0)]  # only the first run within the hour


def test_monitored_training_session_adds_the_hook(tmp_path):
    loss, train, summary = _model()
    with tf.train.MonitoredTrainingSession(summary_dir=str(tmp_path), save_summaries_steps=2,
                                           log_step_count_steps=None,
                                           hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert [s for s, _ in _scalars(_events(str(tmp_path)))] == [1, 3, 5]


def test_bad_arguments_are_clear():
    loss, train, summary = _model()
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op must be provided"):
        SummarySaverHook(save_steps=1, summary_op=summary, scaffold=tf.train.Scaffold())
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op must be provided"):
        SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError, match="Either every_secs or every_steps should be provided"):
        SummarySaverHook(summary_op=summary)
    tf.reset_default_graph()
    summary = tf.summary.scalar("c", tf.constant(1.0))
    with pytest.raises(RuntimeError, match="Global step should be created to use SummarySaverHook"):
        tf.train.MonitoredSession(hooks=[SummarySaverHook(save_steps=1, summary_op=summary)])


def test_facade_name():
    assert tf.train.SummarySaverHook is SummarySaverHook
