"""ProfilerHook (Chrome traces every N steps, RunMetadata in the event file), GlobalStepWaiterHook,
noisy_linear_cosine_decay, piecewise_constant_decay, assert_global_step, SequenceExample."""
import glob
import json
import os
import threading

import numpy as np
import pytest

import lens as tf
from lens.events.summary_builders import summary_iterator


def _train_graph():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0)
    loss = tf.square(w - 3.0)
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)


def test_profiler_hook_writes_a_trace_every_second_step(tmp_path):
    with tf.Graph().as_default():
        train = _train_graph()
        hook = tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))
        counts = []
        with tf.train.SingularMonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
                counts.append(len(glob.glob(str(tmp_path / "timeline-*.json"))))
        tf.summary.FileWriterCache.get(str(tmp_path)).flush()
    assert counts == [0, 1, 1, 2, 2]
    names = sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "timeline-*.json")))
    assert names == ["timeline-2.json", "timeline-4.json"]
    trace = json.loads((tmp_path / "timeline-2.json").read_text())
    assert any(e.get("ph") == "X" and "ApplyGradientDescent" in json.dumps(e) for e in trace["traceEvents"])
    tags = [e.tagged_run_metadata.tag for f in glob.glob(str(tmp_path / "events.out.tfevents.*"))
            for e in summary_iterator(f) if e.HasField("tagged_run_metadata")]
    assert tags == ["step_2", "step_4"]


def test_profiler_hook_needs_a_global_step(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0)
        with pytest.raises(RuntimeError, match="Global step"):
            tf.train.ProfilerHook(save_steps=1, output_dir=str(tmp_path)).begin()


def test_global_step_waiter_hook_waits_for_the_step():
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        bump = tf.assign_add(gs, 1)
        hook = tf.train.GlobalStepWaiterHook(wait_until_step=3)
        hook.begin()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ctx = tf.train.SessionRunContext(original_args=None, session=sess)
            done = threading.Event()
            t = threading.Thread(target=lambda: (hook.before_run(ctx), done.set()))
            t.start()
            assert not done.wait(0.7)          # step 0: still waiting
            for _ in range(3):
                sess.run(bump)
            assert done.wait(5.0)
            t.join()
            assert hook.before_run(ctx) is None  # started: no more waiting


def test_noisy_linear_cosine_decay_is_centered_on_linear_cosine():
    with tf.Graph().as_default():
        step = tf.placeholder(tf.int64, [])
        lr = tf.train.noisy_linear_cosine_decay(0.5, step, 100, initial_variance=0.01)
        with tf.Session() as sess:
            draws = np.array([sess.run(lr, {step: 30}) for _ in range(400)])
            end = sess.run(lr, {step: 200})
    linear, cosine = 0.7, 0.5 * (1 + np.cos(np.pi * 0.3))
    sd = np.sqrt(0.01 / 31 ** 0.55) * 0.5 * cosine
    assert abs(draws.mean() - 0.5 * (linear * cosine + 0.001)) < 5 * sd / np.sqrt(400)
    assert 0.7 * sd < draws.std() < 1.3 * sd
    assert end == pytest.approx(0.5 * 0.001, abs=1e-6)  # past decay_steps: cosine part 0, beta left


def test_assert_global_step_and_aliases():
    with tf.Graph().as_default():
        tf.train.assert_global_step(tf.train.get_or_create_global_step())
        with pytest.raises(TypeError, match="integer"):
            tf.train.assert_global_step(tf.Variable(1.0))
        with pytest.raises(TypeError, match="Variable or Tensor"):
            tf.train.assert_global_step(3)
    assert tf.train.piecewise_constant_decay is tf.train.piecewise_constant
    ex = tf.train.SequenceExample()
    ex.feature_lists.feature_list["t"].feature.add().int64_list.value.append(4)
    assert isinstance(ex.feature_lists, tf.train.FeatureLists)
    assert isinstance(ex.feature_lists.feature_list["t"], tf.train.FeatureList)
