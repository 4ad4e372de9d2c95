"""tf.train.Supervisor: managed_session initializes or restores, runs the summary / steps-per-sec / checkpoint
threads and the queue runners, stops them all; exceptions come back out; basic_train_loop."""
import glob
import os
import time

import pytest

import lens as tf
from lens.events.summary_builders import summary_iterator


def _events(logdir):
    return [e for f in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))) for e in summary_iterator(f)]


def _model():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(5.0, name="w")
    loss = tf.square(w)
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return gs, w, train


def test_managed_session_trains_saves_and_writes_events(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default():
        gs, w, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_summaries_secs=0.05, save_model_secs=0.05)
        assert tf.get_default_graph().finalized
        with sv.managed_session() as sess:
            for _ in range(30):
                if sv.should_stop():
                    break
                sess.run(train)
            time.sleep(0.2)      # the 50 ms threads run a few times
        assert sv.should_stop()
    assert tf.train.latest_checkpoint(logdir) is not None
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))
    events = _events(logdir)
    statuses = [e.session_log.status for e in events if e.HasField("session_log")]
    assert statuses[0] == tf.SessionLog.START and statuses[-1] == tf.SessionLog.STOP
    assert tf.SessionLog.CHECKPOINT in statuses
    tags = {v.tag for e in events if e.HasField("summary") for v in e.summary.value}
    assert {"loss", "global_step/sec"} <= tags
    assert any(e.HasField("graph_def") for e in events) and any(e.HasField("meta_graph_def") for e in events)

    # A second supervisor on the same logdir restores the variables instead of initializing them.
    with tf.Graph().as_default():
        gs, w, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            assert sess.run(gs) > 0 and sess.run(w) < 5.0


def test_exception_inside_is_re_raised_and_out_of_range_is_clean(tmp_path):
    with tf.Graph().as_default():
        _model()
        sv = tf.train.Supervisor(logdir=None)
        with pytest.raises(ValueError, match="boom"):
            with sv.managed_session():
                raise ValueError("boom")
    with tf.Graph().as_default():
        _model()
        sv = tf.train.Supervisor(logdir=None)
        with sv.managed_session():
            raise tf.errors.OutOfRangeError(None, None, "input done")
        assert sv.should_stop()


def test_queue_runners_stop_with_the_supervisor_and_basic_train_loop():
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        q = tf.FIFOQueue(4, tf.float32)
        tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue([1.0])]))
        step = tf.assign_add(gs, 1)
        total = tf.Variable(0.0)
        acc = tf.assign_add(total, q.dequeue())
        sv = tf.train.Supervisor(logdir=None)
        seen = []

        def train_step(sess, limit):
            seen.append(sess.run([acc, step])[1])
            if seen[-1] >= limit:
                sv.request_stop()
        tf.train.basic_train_loop(sv, train_step, args=[5])
    assert seen == [1, 2, 3, 4, 5]
    assert sv.coord.joined


def test_non_chief_needs_devices_and_summary_computed_needs_a_writer():
    with tf.Graph().as_default():
        tf.Variable(1.0)
        with pytest.raises(ValueError, match="device"):
            tf.train.Supervisor(is_chief=False)
    with tf.Graph().as_default():
        gs, w, train = _model()
        sv = tf.train.Supervisor(logdir=None)
        with sv.managed_session() as sess:
            with pytest.raises(RuntimeError, match="summary writer"):
                sv.summary_computed(sess, sess.run(sv.summary_op))
        assert sv.is_chief and sv.global_step is gs and sv.saver is not None
