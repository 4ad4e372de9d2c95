"""Scans, segments, unique and roll beyond the op table: TF1 names, errors, zeros and ties in
gradients, dtypes and empty inputs."""
import numpy as np
import pytest

import lens as tf
from lens import errors
from lens.ops import scan_ops as S


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed)


def _numeric_grad(build, x, w, eps=1e-6):
    """d sum(w * build(x)) / dx by central differences, computed in NumPy-fed sessions."""
    ph = tf.placeholder(tf.float64, x.shape)
    loss = tf.reduce_sum(build(ph) * w)
    out = np.zeros_like(x)
    with tf.Session() as sess:
        for k in np.ndindex(x.shape):
            plus, minus = x.copy(), x.copy()
            plus[k] += eps
            minus[k] -= eps
            out[k] = (sess.run(loss, {ph: plus}) - sess.run(loss, {ph: minus})) / (2 * eps)
    return out


def _analytic_grad(build, x, w):
    t = tf.constant(x)
    return _run(tf.gradients(tf.reduce_sum(build(t) * w), t)[0])[0]


# ---- names and graph shape ---------------------------------------------------------------------
def test_ops_carry_tf1_types_default_names_and_input_names():
    x = tf.placeholder(tf.float32, [2, 4], name="x")
    c = S.cumsum(x, axis=1)
    S.cumsum(x)
    p = S.cumprod(x, exclusive=True, reverse=True)
    s = S.segment_sum(x, [0, 0])
    m = S.unsorted_segment_max(x, [0, 1], 3)
    u = S.unique([1, 2, 1])
    r = S.roll(x, 1, 1)
    names = [(o.type, o.name) for o in tf.get_default_graph().get_operations() if o.type != "Const"]
    assert names == [("Placeholder", "x"), ("Cumsum", "Cumsum"), ("Cumsum", "Cumsum_1"), ("Cumprod", "Cumprod"),
                     ("SegmentSum", "SegmentSum"), ("UnsortedSegmentMax", "UnsortedSegmentMax"),
                     ("Unique", "Unique"), ("Roll", "Roll")]
    assert [i.name for i in c.op.inputs] == ["x:0", "Cumsum/axis:0"]
    assert [i.name for i in s.op.inputs] == ["x:0", "SegmentSum/segment_ids:0"]
    assert [i.name for i in m.op.inputs][1:] == ["UnsortedSegmentMax/segment_ids:0",
                                                 "UnsortedSegmentMax/num_segments:0"]
    assert [i.name for i in r.op.inputs][1:] == ["Roll/shift:0", "Roll/axis:0"]
    assert p.op.get_attr("exclusive") is True and p.op.get_attr("reverse") is True
    assert type(u).__name__ == "Unique" and u._fields == ("y", "idx")
    assert (u.y.name, u.idx.name, u.idx.dtype) == ("Unique:0", "Unique:1", tf.int32)
    # static shapes as TF infers them
    assert c.shape.as_list() == [2, 4] and r.shape.as_list() == [2, 4]
    assert s.shape.as_list() == [None, 4] and m.shape.as_list() == [3, 4]
    assert u.y.shape.as_list() == [None] and u.idx.shape.as_list() == [3]


def test_graph_def_keeps_scan_attrs():
    S.cumsum(tf.constant([1.0, 2.0]), exclusive=True, name="scan")
    node = [n for n in tf.get_default_graph().as_graph_def().node if n.name == "scan"][0]
    assert node.op == "Cumsum" and node.attr["exclusive"].b and not node.attr["reverse"].b


# ---- values ------------------------------------------------------------------------------------
def test_integer_scans_keep_dtype_and_wrap_like_int32():
    big = np.array([2**31 - 1, 1], np.int32)
    got = _run(S.cumsum(big), S.cumprod(tf.constant([3, -2, 4], tf.int64), exclusive=True, reverse=True))
    assert got[0].dtype == np.int32 and got[0].tolist() == [2**31 - 1, -2**31]
    assert got[1].dtype == np.int64 and got[1].tolist() == [-8, 4, 1]


def test_sorted_segments_fill_gaps_like_tf():
    d = tf.constant([1.0, 2.0, 3.0])
    got = _run(S.segment_max(d, [0, 2, 2]), S.segment_min(d, [0, 2, 2]), S.segment_prod(d, [0, 2, 2]),
               S.segment_mean(d, [0, 2, 2]), S.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32)))
    assert [g.tolist() for g in got[:4]] == [[1, 0, 3], [1, 0, 2], [1, 1, 6], [1, 0, 2.5]]
    assert got[4].shape == (0, 2)


def test_unique_keeps_first_occurrence_order_and_every_nan_apart():
    y, idx = _run(*S.unique(tf.constant([np.nan, 1.0, np.nan, 1.0, -3.0])))
    assert np.isnan(y[0]) and np.isnan(y[2]) and y[[1, 3]].tolist() == [1.0, -3.0]
    assert idx.tolist() == [0, 1, 2, 1, 3]
    y, idx = _run(*S.unique(tf.zeros([0], tf.int32)))
    assert y.shape == (0,) and idx.shape == (0,)


def test_roll_adds_shifts_on_a_repeated_axis_and_passes_empty_tensors():
    got = _run(S.roll([[1, 2, 3], [4, 5, 6]], [1, -1, 1], [0, 1, 1]), S.roll(tf.zeros([0, 3]), 1, 0),
               S.roll([[1, 2, 3]], tf.constant(-1, tf.int64), -1))
    assert got[0].tolist() == [[4, 5, 6], [1, 2, 3]]
    assert got[1].shape == (0, 3) and got[2].tolist() == [[2, 3, 1]]


# ---- gradients at zeros and ties ---------------------------------------------------------------
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_gradient_is_exact_off_zeros_and_zero_on_them_as_in_tf(exclusive, reverse):
    x = np.array([[1.5, 0.0, 2.0, -1.0], [0.5, 2.0, 3.0, 0.0]])
    w = np.arange(1.0, 9.0).reshape(2, 4)

    def build(t):
        return S.cumprod(t, axis=1, exclusive=exclusive, reverse=reverse)
    numeric = _numeric_grad(build, x, w)
    # TF divides by x (div_no_nan): the true gradient where x != 0, and 0 where x == 0
    np.testing.assert_allclose(_analytic_grad(build, x, w), np.where(x == 0, 0.0, numeric), atol=1e-6)


def test_segment_prod_gradient_with_zero_and_two_zero_segments():
    x = np.array([2.0, 0.0, 3.0, 0.0, 0.0, 5.0, 1.5, -2.0])
    ids = [0, 0, 0, 1, 1, 1, 2, 2]
    w = np.array([1.0, 2.0, 3.0])

    def build(t):
        return S.segment_prod(t, ids)
    np.testing.assert_allclose(_analytic_grad(build, x, w), _numeric_grad(build, x, w), atol=1e-6)


def test_max_and_min_gradients_split_ties_evenly():
    d = tf.constant([3.0, 1.0, 3.0, 2.0, 2.0], tf.float64)
    wts = tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)
    sorted_max = S.segment_max(d, [0, 0, 0, 1, 1])
    sorted_min = S.segment_min(d, [0, 0, 2, 2, 2])
    unsorted = S.unsorted_segment_max(d, [0, -1, 0, 2, 2], 4)
    got = _run(tf.gradients(tf.reduce_sum(sorted_max * wts[:2]), d)[0],
               tf.gradients(tf.reduce_sum(sorted_min * wts[:3]), d)[0],
               tf.gradients(tf.reduce_sum(unsorted * wts), d)[0])
    assert [g.tolist() for g in got] == [[0.5, 0, 0.5, 1, 1], [0, 1, 0, 1.5, 1.5], [0.5, 0, 0.5, 1.5, 1.5]]


def test_segment_mean_and_roll_gradients_route_back():
    d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], tf.float64)
    g_mean = tf.gradients(S.segment_mean(d, [0, 0, 1]), d)[0]
    g_roll = tf.gradients(tf.reduce_sum(S.roll(d, 1, 0) * tf.constant([[1.0], [2.0], [3.0]], tf.float64)), d)[0]
    got = _run(g_mean, g_roll)
    assert got[0].tolist() == [[0.5, 0.5], [0.5, 0.5], [1, 1]]
    assert got[1].tolist() == [[2, 2], [3, 3], [1, 1]]


def test_unique_is_not_differentiable():
    x = tf.constant([1.0, 2.0, 1.0])
    assert tf.gradients(S.unique(x).y, x) == [None]


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("build, message", [
    (lambda: S.segment_sum([1.0, 2.0, 3.0], [1, 0, 0]), "segment ids are not increasing"),
    (lambda: S.segment_sum([1.0, 2.0, 3.0], [-1, 0, 0]),
     r"Segment id -1 out of range \[0, 1\), possibly because 'segment_ids' input is not sorted."),
    (lambda: S.segment_sum([1.0, 2.0], [-3, -2]), "segment ids must be >= 0"),
    (lambda: S.segment_mean([1.0, 2.0, 3.0], [0, 0]), "segment_ids should be the same size as dimension 0"),
    (lambda: S.unsorted_segment_max([1.0, 2.0, 3.0], [0, 5, 2], 4), r"segment_ids\[1\] = 5 is out of range \[0, 4\)"),
    (lambda: S.cumsum([[1.0, 2.0]], axis=2), r"Expected scan axis in the range \[-2, 2\), but got 2"),
    (lambda: S.cumsum(3.0), r"Expected scan axis in the range \[0, 0\), but got 0"),
    (lambda: S.cumsum([1.0], axis=[0]), r"axis must be a scalar, not \[1\]"),
    (lambda: S.roll([[1, 2, 3]], 1, 2), "axis 2 is out of range"),
])
def test_bad_values_raise_tf_invalid_argument_errors(build, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _run(build())


def test_run_time_shapes_are_checked_when_static_shapes_are_unknown():
    ids = tf.placeholder(tf.int32)
    data = tf.placeholder(tf.float32)
    with pytest.raises(errors.InvalidArgumentError, match="segment_ids should be a vector"):
        _run(S.segment_mean(data, ids), feed={data: [[1.0, 2.0]], ids: [[0, 0]]})
    with pytest.raises(errors.InvalidArgumentError, match=r"data.shape = \[2,2\] does not start with "
                                                          r"segment_ids.shape = \[3\]"):
        _run(S.unsorted_segment_min(data, ids, 2), feed={data: np.ones((2, 2)), ids: [0, 1, 1]})
    with pytest.raises(errors.InvalidArgumentError, match="unique expects a 1D vector"):
        _run(S.unique(data).y, feed={data: [[1.0, 2.0]]})


@pytest.mark.parametrize("build, exc, message", [
    (lambda: S.segment_sum([[1.0, 2.0]], [[0, 0]]), ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: S.unique([[1, 2]]), ValueError, "Shape must be rank 1 but is rank 2"),
    (lambda: S.roll(5, 1, 0), ValueError, "Shape must be at least rank 1 but is rank 0"),
    (lambda: S.roll([[1, 2]], [[1]], [[1]]), ValueError, "Shape must be at most rank 1"),
    (lambda: S.roll([[1, 2]], [1, 2], [0]), ValueError, "shift .* and axis .* must be equal"),
    (lambda: S.unsorted_segment_max([[1.0, 2.0]], [0, 1, 1], 2), ValueError, "must start with segment_ids"),
    (lambda: S.unsorted_segment_max([1.0, 2.0], [0, 1], [2]), ValueError, "Shape must be rank 0"),
    (lambda: S.cumsum([True]), TypeError, "parameter 'x' has DataType bool"),
    (lambda: S.cumsum([1.0], axis=0.0), TypeError, "parameter 'axis' has DataType float32"),
    (lambda: S.segment_max([1j], [0]), TypeError, "parameter 'data' has DataType complex128"),
    (lambda: S.segment_sum([1.0], [0.0]), TypeError, "parameter 'segment_ids' has DataType float32"),
    (lambda: S.roll([1.0], 1.0, 0), TypeError, "parameter 'shift' has DataType float32"),
    (lambda: S.unique([1], out_idx=tf.float32), TypeError, "parameter 'out_idx' has DataType float32"),
])
def test_bad_graphs_fail_at_build_time_like_tf(build, exc, message):
    with pytest.raises(exc, match=message):
        build()


def test_unique_survives_a_graph_def_round_trip():
    import lens as tf
    with tf.Graph().as_default() as g:
        tf.unique(tf.constant([3, 1, 3, 2]), name="u")
        graph_def = g.as_graph_def()
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(graph_def, name="")
        y, idx = g2.get_tensor_by_name("u:0"), g2.get_tensor_by_name("u:1")
        assert (y.dtype, idx.dtype) == (tf.int32, tf.int32)
        with tf.Session() as sess:
            got_y, got_idx = sess.run([y, idx])
    assert got_y.tolist() == [3, 1, 2] and got_idx.tolist() == [0, 1, 0, 2]
