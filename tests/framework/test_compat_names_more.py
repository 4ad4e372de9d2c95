"""tf.dtypes' cast helpers, tf.version / tf.VERSION, tf.graph_util's helpers, approx top-k, and
tf.losses.mean_pairwise_squared_error against TF 2.21's values (tests/losses/fixtures/record_pairwise_tf.py)."""
import json
import pathlib

import numpy as np
import pytest

import lens as tf

PAIRWISE = json.loads((pathlib.Path(__file__).parents[1] / "losses" / "fixtures" / "pairwise_tf.json").read_text())


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


@pytest.mark.parametrize("case", sorted(PAIRWISE["loss"]))
def test_mean_pairwise_squared_error_matches_tensorflow(case):
    loss = tf.losses.mean_pairwise_squared_error(PAIRWISE["labels"], PAIRWISE["predictions"],
                                                 weights=PAIRWISE["weights"][case])
    assert _run(loss) == pytest.approx(PAIRWISE["loss"][case], rel=1e-6)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]


def test_dtypes_namespace_and_versions():
    assert tf.dtypes.float32 is tf.float32 and tf.dtypes.as_dtype("int64") is tf.int64
    assert tf.dtypes.cast is tf.cast and tf.dtypes.saturate_cast is tf.saturate_cast
    assert _run(tf.dtypes.as_string(tf.constant([1, 2]))).tolist() == [b"1", b"2"]
    assert tf.VERSION == tf.version.VERSION == "1.15.0"
    assert tf.GRAPH_DEF_VERSION == tf.get_default_graph().as_graph_def().versions.producer
    assert tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER == 0


def test_graph_util_helpers():
    c = tf.constant([1, 2], name="c")
    f = tf.constant(1.0, name="f")
    s = tf.cast(c, tf.float32, name="s")
    v = tf.Variable(1.0, name="v")
    assert tf.graph_util.must_run_on_cpu(c.op) and not tf.graph_util.must_run_on_cpu(f.op)
    assert tf.graph_util.must_run_on_cpu(s.op.node_def)
    assert tf.graph_util.must_run_on_cpu(v.op, pin_variables_on_cpu=True) and not tf.graph_util.must_run_on_cpu(v.op)
    assert tf.graph_util.tensor_shape_from_node_def_name(tf.get_default_graph(), "c").as_list() == [2]
    assert tf.graph_util.import_graph_def is tf.import_graph_def


def test_approx_top_k_is_exact_top_k():
    x = np.array([[3.0, 1.0, 4.0, 1.5], [2.0, 7.0, 1.0, 8.0]], np.float32)
    vals, idx = _run(tf.math.approx_max_k(x, 2))
    np.testing.assert_array_equal(idx, [[2, 0], [3, 1]])
    np.testing.assert_array_equal(vals, [[4.0, 3.0], [8.0, 7.0]])
    vals, idx = _run(tf.nn.approx_min_k(x, 1, reduction_dimension=0))
    np.testing.assert_array_equal(idx, [[1, 0, 1, 0]]) and np.testing.assert_array_equal(vals, [[2, 1, 1, 1.5]])
    assert _run(tf.approx_top_k(x, 1, is_max_k=False)[1]).tolist() == [[1], [2]]
    with pytest.raises(ValueError, match="recall_target"):
        tf.math.approx_max_k(x, 1, recall_target=0.0)
