"""tf.estimator.Estimator with a custom model_fn: the seed example, model_dir contents, hooks, errors."""
import io
import os
import sys
import warnings

import numpy as np
import pytest

import lens as tf
from lens import dbg as tf_debug
from lens.events.provider import DataProvider


def linear_model_fn(features, labels, mode):
    """The getting-started example: y = W * x + b trained by gradient descent."""
    w = tf.get_variable("W", [1], tf.float64)
    b = tf.get_variable("b", [1], tf.float64)
    y = w * features["x"] + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions={"y": y})
    loss = tf.reduce_sum(tf.square(y - labels))
    step = tf.train.get_global_step()
    train = tf.group(tf.train.GradientDescentOptimizer(0.01).minimize(loss), tf.assign_add(step, 1))
    return tf.estimator.EstimatorSpec(mode=mode, predictions=y, loss=loss, train_op=train)


X_TRAIN, Y_TRAIN = np.array([1., 2., 3., 4.]), np.array([0., -1., -2., -3.])


def _fit(model_dir, steps=1000, config=None):
    est = tf.estimator.Estimator(model_fn=linear_model_fn, model_dir=str(model_dir), config=config)
    est.train(tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, batch_size=4, num_epochs=None,
                                                 shuffle=True), steps=steps)
    return est


def test_custom_estimator_learns_the_line(tmp_path):
    est = _fit(tmp_path)
    train_metrics = est.evaluate(tf.estimator.inputs.numpy_input_fn(
        {"x": X_TRAIN}, Y_TRAIN, batch_size=4, num_epochs=1000, shuffle=False))
    assert sorted(train_metrics) == ["global_step", "loss"]
    assert train_metrics["global_step"] == 1000 and train_metrics["loss"] < 1e-8
    np.testing.assert_allclose(est.get_variable_value("W"), [-1.0], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("b"), [1.0], atol=1e-4)
    preds = list(est.predict(tf.estimator.inputs.numpy_input_fn({"x": np.array([5., 6.])}, shuffle=False)))
    np.testing.assert_allclose([p["y"][0] if p["y"].shape else p["y"] for p in preds], [-4.0, -5.0], atol=1e-3)


def test_model_dir_has_checkpoints_events_graph_and_eval(tmp_path):
    est = _fit(tmp_path, steps=250, config=tf.estimator.RunConfig(save_summary_steps=50,
                                                                 log_step_count_steps=50))
    est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, batch_size=4, shuffle=False))
    names = os.listdir(tmp_path)
    assert "checkpoint" in names and "graph.pbtxt" in names
    assert est.latest_checkpoint().endswith("model.ckpt-250")
    provider = DataProvider(str(tmp_path), reload_interval=0)
    provider.reload()
    assert set(provider.runs()) >= {".", "eval"}
    tags = provider.list_tags("scalars")
    assert {"loss", "global_step/sec"} <= set(tags["."])
    steps, _, values = provider.scalars(".", "loss")
    assert list(steps[:2]) == [1, 51] and values[-1] < values[0]
    assert provider.graph(".") is not None
    eval_steps, _, eval_loss = provider.scalars("eval", "loss")
    assert list(eval_steps) == [250] and eval_loss[0] < 0.1


def test_max_steps_resumes_from_checkpoint_and_skips(tmp_path, caplog):
    est = _fit(tmp_path, steps=10)
    est.train(tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, num_epochs=None, shuffle=True),
              max_steps=15)
    assert int(est.get_variable_value("global_step")) == 15
    with caplog.at_level("INFO", logger="lens"):
        est.train(lambda: ({"x": tf.constant(X_TRAIN)}, tf.constant(Y_TRAIN)), max_steps=15)
    assert "Skipping training since max_steps has already saved." in caplog.text


class CountingHook(tf.train.SessionRunHook):
    def __init__(self):
        self.calls = {"begin": 0, "after_create_session": 0, "before_run": 0, "after_run": 0, "end": 0}

    def begin(self):
        self.calls["begin"] += 1

    def after_create_session(self, session, coord):
        self.calls["after_create_session"] += 1

    def before_run(self, run_context):
        self.calls["before_run"] += 1

    def after_run(self, run_context, run_values):
        self.calls["after_run"] += 1

    def end(self, session):
        self.calls["end"] += 1


def test_hooks_run_in_train_evaluate_and_predict(tmp_path):
    est = tf.estimator.Estimator(model_fn=linear_model_fn, model_dir=str(tmp_path))
    train_hook, eval_hook, pred_hook = CountingHook(), CountingHook(), CountingHook()
    est.train(tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, batch_size=2, num_epochs=None,
                                                 shuffle=False), steps=7, hooks=[train_hook])
    est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, batch_size=2, num_epochs=None,
                                                    shuffle=False), steps=3, hooks=[eval_hook])
    list(est.predict(tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, batch_size=2, shuffle=False),
                     hooks=[pred_hook]))
    assert train_hook.calls == {"begin": 1, "after_create_session": 1, "before_run": 7, "after_run": 7, "end": 1}
    assert eval_hook.calls == {"begin": 1, "after_create_session": 1, "before_run": 3, "after_run": 3, "end": 1}
    # two batches, then the run that meets the end of the input (no after_run for it)
    assert pred_hook.calls == {"begin": 1, "after_create_session": 1, "before_run": 3, "after_run": 2, "end": 1}


def test_debugger_hooks_in_estimator(tmp_path, monkeypatch, capsys):
    est = tf.estimator.Estimator(model_fn=linear_model_fn, model_dir=str(tmp_path / "m"))
    input_fn = tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, num_epochs=None, shuffle=False)
    dump_root = tmp_path / "dumps"
    est.train(input_fn, steps=2, hooks=[tf_debug.DumpingDebugHook(str(dump_root))])
    runs = sorted(os.listdir(dump_root))
    assert len(runs) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every dumped tensor's node is in the run's graphs
        dump = tf_debug.DebugDumpDir(str(dump_root / runs[0]))
    assert "W" in dump.nodes() and any(n.startswith("gradients") for n in dump.nodes())
    # the other hooks' fetches (the global step read, the summaries) ran and were dumped too
    assert "global_step/add" in dump.nodes()
    monkeypatch.setattr(sys, "stdin", io.StringIO("run\npt W\nrun -n\n"))
    metrics = est.evaluate(input_fn, steps=2, hooks=[tf_debug.LocalCLIDebugHook(ui_type="readline")])
    out = capsys.readouterr().out
    assert out.count("run-end") == 1 and 'Tensor "W:0:DebugIdentity":' in out
    assert metrics["global_step"] == 2


def test_estimator_spec_validation():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        with pytest.raises(ValueError, match="^Missing loss.$"):
            tf.estimator.EstimatorSpec(mode=tf.estimator.ModeKeys.TRAIN, train_op=tf.no_op())
        with pytest.raises(ValueError, match="^Missing train_op.$"):
            tf.estimator.EstimatorSpec(mode=tf.estimator.ModeKeys.TRAIN, loss=loss)
        with pytest.raises(ValueError, match="^Missing predictions.$"):
            tf.estimator.EstimatorSpec(mode=tf.estimator.ModeKeys.PREDICT)
        with pytest.raises(ValueError, match="Loss must be scalar"):
            tf.estimator.EstimatorSpec(mode="eval", loss=tf.constant([1.0, 2.0]))
        with pytest.raises(TypeError, match="eval_metric_ops must be a dict"):
            tf.estimator.EstimatorSpec(mode="eval", loss=loss, eval_metric_ops=[1])
        with pytest.raises(TypeError, match=r"Values of eval_metric_ops must be \(metric_value, update_op\)"):
            tf.estimator.EstimatorSpec(mode="eval", loss=loss, eval_metric_ops={"m": loss})
        with pytest.raises(TypeError, match="predictions\\[p\\] must be Tensor"):
            tf.estimator.EstimatorSpec(mode="infer", predictions={"p": 3})
        spec = tf.estimator.EstimatorSpec(mode="eval", loss=tf.constant([2.0]))
        assert spec.loss.shape.ndims == 0
    other = tf.Graph()
    with other.as_default():
        foreign = tf.constant(1.0)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="loss must be from the default graph"):
        tf.estimator.EstimatorSpec(mode="eval", loss=foreign)


def test_estimator_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="model_fn must be provided"):
        tf.estimator.Estimator(model_fn=None)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(model_fn=linear_model_fn, params={"a": 1})
    with pytest.raises(ValueError, match="set both in constructor and `RunConfig`"):
        tf.estimator.Estimator(model_fn=linear_model_fn, model_dir=str(tmp_path / "a"),
                               config=tf.estimator.RunConfig(model_dir=str(tmp_path / "b")))
    with pytest.raises(ValueError, match="cannot be both set"):
        tf.estimator.RunConfig(save_checkpoints_steps=10, save_checkpoints_secs=10)
    est = tf.estimator.Estimator(model_fn=linear_model_fn, model_dir=str(tmp_path))
    input_fn = tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, shuffle=False)
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps."):
        est.train(input_fn, steps=1, max_steps=1)
    with pytest.raises(ValueError, match="Must specify steps > 0, given: 0"):
        est.train(input_fn, steps=0)
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        est.get_variable_names()
    with pytest.raises(ValueError, match="shuffle must be provided and explicitly set as boolean"):
        tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN)

    def bad_model_fn(features, labels, mode):
        return {"loss": tf.constant(1.0)}
    with pytest.raises(ValueError, match="model_fn should return an EstimatorSpec."):
        tf.estimator.Estimator(model_fn=bad_model_fn, model_dir=str(tmp_path / "c")).train(input_fn, steps=1)
    nothing_written = not os.path.exists(tmp_path / "c") or not any(
        n.startswith("model.ckpt") for n in os.listdir(tmp_path / "c"))
    assert nothing_written


def test_numpy_input_fn_batches_and_errors():
    with tf.Graph().as_default():
        features, target = tf.estimator.inputs.numpy_input_fn(
            {"a": np.arange(5), "b": np.arange(5) * 10}, np.arange(5) * 100, batch_size=2, num_epochs=1,
            shuffle=False)()
        with tf.train.MonitoredSession() as sess:
            batches = []
            while not sess.should_stop():
                batches.append(sess.run([features, target]))
    assert [b[1].tolist() for b in batches] == [[0, 100], [200, 300], [400]]
    assert batches[2][0]["b"].tolist() == [40]
    with pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
        with tf.Graph().as_default():
            tf.estimator.inputs.numpy_input_fn({"a": np.arange(5)}, np.arange(4), shuffle=False)()
    with pytest.raises(ValueError, match="1 duplicate keys are found in both x and y"):
        with tf.Graph().as_default():
            tf.estimator.inputs.numpy_input_fn({"a": np.arange(5)}, {"a": np.arange(5)}, shuffle=False)()
    assert tf.compat.v1.estimator.inputs.numpy_input_fn is tf.estimator.inputs.numpy_input_fn


def test_pandas_input_fn():
    pd = pytest.importorskip("pandas")
    x = pd.DataFrame({"a": np.arange(4.0), "b": np.arange(4.0) * 2})
    y = pd.Series(np.arange(4.0) * 3)
    with tf.Graph().as_default():
        features, target = tf.estimator.inputs.pandas_input_fn(x, y, batch_size=4, shuffle=False)()
        with tf.train.MonitoredSession() as sess:
            f, t = sess.run([features, target])
    assert f["b"].tolist() == [0, 2, 4, 6] and t.tolist() == [0, 3, 6, 9]


def test_train_and_evaluate_evaluates_each_checkpoint(tmp_path):
    est = tf.estimator.Estimator(model_fn=linear_model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(save_checkpoints_steps=40))
    train_spec = tf.estimator.TrainSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": X_TRAIN}, Y_TRAIN, num_epochs=None, shuffle=True), max_steps=100)
    eval_spec = tf.estimator.EvalSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": X_TRAIN}, Y_TRAIN, num_epochs=None, shuffle=False), steps=2, throttle_secs=0)
    metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    assert metrics["global_step"] == 100 and exports == []
    provider = DataProvider(str(tmp_path), reload_interval=0)
    provider.reload()
    steps, _, _ = provider.scalars("eval", "loss")
    assert list(steps) == [40, 80, 100]
    with pytest.raises(TypeError, match="`estimator` must have type `tf.estimator.Estimator`"):
        tf.estimator.train_and_evaluate(object(), train_spec, eval_spec)
    with pytest.raises(ValueError, match="Must specify max_steps > 0, given: 0"):
        tf.estimator.TrainSpec(train_spec.input_fn, max_steps=0)


def test_checkpoint_cadence_keep_max_named_eval_and_predict_keys(tmp_path):
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, keep_checkpoint_max=2)
    est = _fit(tmp_path, steps=45, config=config)
    kept = sorted(n[:-len(".index")] for n in os.listdir(tmp_path) if n.endswith(".index"))
    assert kept == ["model.ckpt-40", "model.ckpt-45"]
    est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN}, Y_TRAIN, shuffle=False), name="holdout")
    assert os.path.isdir(tmp_path / "eval_holdout") and est.eval_dir("holdout") == str(tmp_path / "eval_holdout")

    def two_outputs(features, labels, mode):
        w = tf.get_variable("W", [1], tf.float64)
        y = w * features["x"]
        return tf.estimator.EstimatorSpec(mode, predictions={"y": y, "double": 2 * y})
    est2 = tf.estimator.Estimator(two_outputs, model_dir=str(tmp_path))
    input_fn = tf.estimator.inputs.numpy_input_fn({"x": X_TRAIN[:2]}, shuffle=False)
    preds = list(est2.predict(input_fn, predict_keys=["double"]))
    assert [sorted(p) for p in preds] == [["double"], ["double"]]
    with pytest.raises(ValueError, match="Expected to run at least one output from"):
        list(est2.predict(input_fn, predict_keys=["nope"]))
    batches = list(est2.predict(input_fn, yield_single_examples=False))
    assert len(batches) == 1 and batches[0]["y"].shape == (2,)
