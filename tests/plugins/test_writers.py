"""The plugin writers: what they write is read back with the tensorboard package's protos and
readers, and compared with TensorBoard's own writers where those run without TensorFlow."""

import numpy as np
import pytest

import lens as tf
from lens.plugins import custom_scalar, hparams as hp, pr_curve

from tensorboard.compat.proto import summary_pb2 as tb_summary
from tensorboard.util import tensor_util as tb_tensor_util


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    tf.summary.FileWriterCache.clear()
    yield
    tf.reset_default_graph()


def _tb(summary):
    """Our Summary (proto or bytes) parsed by TensorBoard's Summary."""
    data = summary if isinstance(summary, bytes) else summary.SerializeToString()
    return tb_summary.Summary.FromString(data)


def _brute_force_curve(labels, predictions, num_thresholds, weights):
    """Counts by looping over thresholds: an example counts at threshold i when its bucket
    floor(p * (T - 1)) is >= i."""
    buckets = np.floor(predictions * (num_thresholds - 1)).astype(int)
    rows = np.zeros((6, num_thresholds))
    for i in range(num_thresholds):
        above = buckets >= i
        rows[0, i] = np.sum(weights * (labels & above))
        rows[1, i] = np.sum(weights * (~labels & above))
        rows[2, i] = np.sum(weights * (~labels & ~above))
        rows[3, i] = np.sum(weights * (labels & ~above))
        rows[4, i] = rows[0, i] / max(1e-7, rows[0, i] + rows[1, i])
        rows[5, i] = rows[0, i] / max(1e-7, rows[0, i] + rows[3, i])
    return rows.astype(np.float32)


def _data(n=80, seed=0):
    rng = np.random.RandomState(seed)
    labels = rng.rand(n) > 0.4
    predictions = np.clip(labels * 0.35 + rng.rand(n) * 0.65, 0.0, 1.0)
    return labels, predictions


def test_pr_pb_tag_metadata_and_counts():
    labels, predictions = _data()
    weights = np.random.RandomState(1).rand(len(labels))
    value = _tb(pr_curve.pb("classifier", labels, predictions, num_thresholds=13,
                            weights=weights, description="*md*")).value[0]
    assert value.tag == "classifier/pr_curves"
    assert value.metadata.plugin_data.plugin_name == "pr_curves"
    assert value.metadata.display_name == "classifier"
    assert value.metadata.summary_description == "*md*"
    from tensorboard.plugins.pr_curve import plugin_data_pb2 as tb_pr

    content = tb_pr.PrCurvePluginData.FromString(value.metadata.plugin_data.content)
    assert (content.version, content.num_thresholds) == (0, 13)
    got = tb_tensor_util.make_ndarray(value.tensor)
    assert got.dtype == np.float32 and got.shape == (6, 13)
    np.testing.assert_allclose(got, _brute_force_curve(labels, predictions, 13, weights),
                               rtol=1e-6, atol=1e-6)


def test_pr_op_equals_pb_and_streaming_accumulates():
    labels, predictions = _data(60, seed=3)
    l_in = tf.placeholder(tf.bool, [None])
    p_in = tf.placeholder(tf.float32, [None])
    with tf.name_scope("eval"):
        summary = pr_curve.op("clf", l_in, p_in, num_thresholds=9)
    stream, update = pr_curve.streaming_op("stream", l_in, p_in, num_thresholds=9)
    assert summary in tf.get_collection(tf.GraphKeys.SUMMARIES)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        out = _tb(sess.run(summary, {l_in: labels, p_in: predictions})).value[0]
        for half in (slice(0, 30), slice(30, 60)):
            sess.run(update, {l_in: labels[half], p_in: predictions[half]})
        streamed = _tb(sess.run(stream)).value[0]
    assert out.tag == "eval/clf/pr_curves"
    expected = _tb(pr_curve.pb("clf", labels, predictions, num_thresholds=9)).value[0]
    np.testing.assert_allclose(tb_tensor_util.make_ndarray(out.tensor),
                               tb_tensor_util.make_ndarray(expected.tensor), rtol=1e-6)
    # streaming: strictly greater than threshold i / (T - 1), summed over both batches
    rows = tb_tensor_util.make_ndarray(streamed.tensor)
    thresholds = np.arange(9) / 8.0
    positive = predictions[None, :] > thresholds[:, None]
    np.testing.assert_array_equal(rows[0], (positive & labels).sum(1))
    np.testing.assert_array_equal(rows[1], (positive & ~labels).sum(1))
    np.testing.assert_array_equal(rows[2], (~positive & ~labels).sum(1))
    np.testing.assert_array_equal(rows[3], (~positive & labels).sum(1))
    assert streamed.tag == "stream/pr_curves"


def test_pr_raw_data_and_bad_input():
    counts = [np.arange(5, dtype=float)] * 4 + [np.linspace(0, 1, 5)] * 2
    value = _tb(pr_curve.raw_data_pb("raw", *counts, display_name="Raw")).value[0]
    assert value.metadata.display_name == "Raw"
    np.testing.assert_allclose(tb_tensor_util.make_ndarray(value.tensor), np.stack(counts))
    with pytest.raises(ValueError, match="true_positive_counts holds 5 values but num_thresholds is 7"):
        pr_curve.raw_data_pb("raw", *counts, num_thresholds=7)
    with pytest.raises(ValueError, match="num_thresholds must be >= 2"):
        pr_curve.pb("x", np.array([True]), np.array([0.5]), num_thresholds=1)
    with pytest.raises(TypeError, match="labels must be a bool tensor"):
        pr_curve.op("x", tf.constant([1, 0]), tf.constant([0.5, 0.2]))
    tensors = [tf.constant(c, dtype=tf.float32) for c in counts]
    with tf.Session() as sess:
        out = _tb(sess.run(pr_curve.raw_data_op("raw", *tensors, num_thresholds=5))).value[0]
    assert out.tag == "raw/pr_curves"
    np.testing.assert_allclose(tb_tensor_util.make_ndarray(out.tensor), np.stack(counts))


def _layout():
    L = custom_scalar.layout_pb2
    return L.Layout(category=[
        L.Category(title="losses", chart=[
            L.Chart(title="all", multiline=L.MultilineChartContent(tag=[r"loss/.*"])),
            L.Chart(title="band", margin=L.MarginChartContent(series=[
                L.MarginChartContent.Series(value="m", lower="lo", upper="hi")]))])])


def test_custom_scalar_pb_and_op_read_by_tensorboard():
    from tensorboard.plugins.custom_scalar import layout_pb2 as tb_layout

    for summary in (custom_scalar.pb(_layout()), tf.Session().run(custom_scalar.op(_layout()))):
        value = _tb(summary).value[0]
        assert value.tag == "custom_scalars__config__"
        assert value.metadata.plugin_data.plugin_name == "custom_scalars"
        layout = tb_layout.Layout.FromString(tb_tensor_util.make_ndarray(value.tensor).item())
        assert layout.category[0].chart[0].multiline.tag == ["loss/.*"]
        assert layout.category[0].chart[1].margin.series[0].upper == "hi"
    with pytest.raises(TypeError, match="must be a Layout proto"):
        custom_scalar.pb({"category": []})


def test_hparams_bytes_equal_tensorboard_summary_v2():
    tb = pytest.importorskip("tensorboard.plugins.hparams.summary_v2")
    ours = [hp.HParam("lr", hp.RealInterval(1e-3, 1e-1), display_name="LR"),
            hp.HParam("opt", hp.Discrete(["sgd", "adam"])), hp.HParam("units", hp.IntInterval(2, 9)),
            hp.HParam("bn", hp.Discrete([True, False]))]
    theirs = [tb.HParam("lr", tb.RealInterval(1e-3, 1e-1), display_name="LR"),
              tb.HParam("opt", tb.Discrete(["sgd", "adam"])), tb.HParam("units", tb.IntInterval(2, 9)),
              tb.HParam("bn", tb.Discrete([True, False]))]
    metrics = [hp.Metric("loss", group="train", dataset_type=hp.Metric.TRAINING)]
    tb_metrics = [tb.Metric("loss", group="train", dataset_type=tb.Metric.TRAINING)]
    assert hp.hparams_config_pb(ours, metrics, time_created_secs=1.5).SerializeToString() == \
        tb.hparams_config_pb(theirs, tb_metrics, time_created_secs=1.5).SerializeToString()
    values = {ours[0]: np.float32(0.5), "opt": "adam", "units": 4, "bn": True}
    tb_values = {theirs[0]: np.float32(0.5), "opt": "adam", "units": 4, "bn": True}
    for trial in (None, "trial-7"):
        assert hp.hparams_pb(values, trial, start_time_secs=9.0).SerializeToString() == \
            tb.hparams_pb(tb_values, trial, start_time_secs=9.0).SerializeToString()


def test_hparams_bad_input():
    with pytest.raises(TypeError, match="min_value must be a float"):
        hp.RealInterval(1, 2.0)
    with pytest.raises(TypeError, match="dtype mismatch"):
        hp.Discrete([1, "a"])
    with pytest.raises(TypeError, match="unsupported type"):
        hp.hparams_pb({"x": [1, 2]})
    with pytest.raises(ValueError, match="multiple values specified for hparam 'lr'"):
        hp.hparams_pb({hp.HParam("lr"): 1.0, "lr": 2.0})


def test_session_hook_writes_start_and_end_for_tensorboard(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.plugins.hparams import plugin_data_pb2 as tb_hp

    w = tf.Variable(np.float32(3.0), name="w")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=step)
    hook = hp.HParamsHook(str(tmp_path), {"lr": 0.1, "opt": "sgd"}, trial_id="t1")
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(3):
            sess.run(train)
    tf.summary.FileWriterCache.clear()
    acc = event_accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    meta = {tag: acc.SummaryMetadata(tag) for tag in acc.Tags()["tensors"]}
    start = tb_hp.HParamsPluginData.FromString(
        meta["_hparams_/session_start_info"].plugin_data.content).session_start_info
    end = tb_hp.HParamsPluginData.FromString(
        meta["_hparams_/session_end_info"].plugin_data.content).session_end_info
    assert start.group_name == "t1" and start.hparams["opt"].string_value == "sgd"
    assert start.hparams["lr"].number_value == 0.1
    assert end.status == 1 and end.end_time_secs >= start.start_time_secs > 0
    with pytest.raises(TypeError, match="unsupported type"):
        hp.HParamsHook(str(tmp_path), {"bad": object()})


def test_tensorboard_module_paths():
    import lens.plugins.custom_scalar.layout_pb2 as layout_pb2
    import lens.plugins.hparams.api as api
    import lens.plugins.hparams.summary as summary
    import lens.plugins.pr_curve.summary as pr_summary

    assert pr_summary.streaming_op is pr_curve.streaming_op
    assert api.HParam is hp.HParam and api.hparams_config_pb is hp.hparams_config_pb
    assert summary.session_end_pb(summary.STATUS_SUCCESS, 1.0).value[0].tag == \
        "_hparams_/session_end_info"
    assert layout_pb2.Layout is custom_scalar.Layout


def test_summary_v1_names():
    from lens.plugins import summary_v1

    assert summary_v1.pr_curve_pb is pr_curve.pb and summary_v1.custom_scalar_pb is custom_scalar.pb
    assert summary_v1.pr_curve_streaming_op is pr_curve.streaming_op


def test_hparams_graph_versions_hold_the_same_summaries():
    config = [hp.HParam("lr", hp.RealInterval(0.1, 0.5))]
    with tf.Session() as sess:
        start, exp = sess.run([hp.hparams({"lr": 0.2}, "t", start_time_secs=2.0),
                               hp.hparams_config(config, [hp.Metric("loss")], 3.0)])
    assert start == hp.hparams_pb({"lr": 0.2}, "t", start_time_secs=2.0).SerializeToString()
    assert exp == hp.hparams_config_pb(config, [hp.Metric("loss")], 3.0).SerializeToString()
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == []  # written once, not every step
