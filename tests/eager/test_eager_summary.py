"""tf.contrib.summary from eager code, read back with TensorBoard's own event loader."""
import glob

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

import lens as tf


def _events(logdir):
    (path,) = glob.glob(str(logdir / "events.out.tfevents.*"))
    return [e for e in LegacyEventFileLoader(path).Load() if e.HasField("summary")]


def test_scalars_and_histograms_with_steps_and_conditions(eager_mode, tmp_path):
    cs = tf.contrib.summary
    writer = cs.create_file_writer(str(tmp_path), flush_millis=10000)
    step = tf.train.get_or_create_global_step()
    with writer.as_default(), cs.record_summaries_every_n_global_steps(2):
        for i in range(5):
            with tf.name_scope("train"):
                cs.scalar("loss", tf.constant(1.0 / (i + 1)))
            cs.histogram("w", np.arange(4.0) * i, family="weights", step=i)
            step.assign_add(1)
        with cs.always_record_summaries():
            assert cs.scalar("final", 7.0, step=100)
        with cs.never_record_summaries():
            assert not cs.scalar("skipped", 1.0, step=101)
    assert not cs.scalar("no_writer", 1.0, step=3)
    writer.flush()
    got = [(e.step, v.tag, v.simple_value if v.HasField("simple_value") else v.histo.sum)
           for e in _events(tmp_path) for v in e.summary.value]
    assert got == [(0, "train/loss", 1.0), (0, "weights/w", 0.0), (2, "train/loss", pytest.approx(1 / 3)),
                   (2, "weights/w", 12.0), (4, "train/loss", pytest.approx(0.2)), (4, "weights/w", 24.0), (100, "final", 7.0)]


def test_contrib_summary_is_for_eager_code():
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match="eager code"):
            tf.contrib.summary.scalar("x", 1.0, step=0)


def test_tf_summary_ops_run_eagerly_into_a_file_writer(eager_mode, tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    step = tf.Variable(3, dtype=tf.int64)
    writer.add_summary(tf.summary.scalar("loss", tf.constant(0.5)), global_step=step)
    writer.add_summary(tf.summary.histogram("w", tf.constant([1.0, 2.0, 3.0])), global_step=4)
    writer.close()
    got = [(e.step, v.tag, v.simple_value if v.HasField("simple_value") else v.histo.num)
           for e in _events(tmp_path) for v in e.summary.value]
    assert got == [(3, "loss", 0.5), (4, "w", 3.0)]
