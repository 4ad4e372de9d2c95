"""The `run -f` per-output hook (filter_fast) holds, copies and checks exactly as add_watched."""

import numpy as np
import pytest

from lens.dbg.filters import has_inf_or_nan
from lens.dbg.watch import FilterSink, Watch, WatchOptions

tf = pytest.importorskip("lens")


def _graph():
    """y = relu(x @ W) * c with W updated in place; x feeds a nan into one row."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.full((3, 2), 2.0, np.float32), name="W")
        c = tf.constant(np.array([1.0, 3.0], np.float32), name="c")
        y = tf.multiply(tf.nn.relu(tf.matmul(x, w)), c, name="y")
        count = tf.cast(tf.shape(x)[0], tf.float32, name="count")
        with tf.control_dependencies([y]):
            update = tf.assign_add(w, tf.ones((3, 2)), name="update")
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    return sess, x, [y, count, update], c


def _filtered_run(sess, fetches, feed, pool, allowed=(), options=None, fn=has_inf_or_nan):
    sink = FilterSink(fn, lambda node: node in allowed, allow_key=tuple(allowed), pool=pool)
    watch = Watch(options or WatchOptions(), sink)
    sess._run_watched(fetches, feed, None, None, watch)
    return sink, watch


def test_the_hook_replaces_on_output_and_trips_where_plain_values_say():
    sess, x, fetches, _ = _graph()
    bad = np.ones((2, 3), np.float32)
    bad[1, 0] = np.nan
    pool = {}
    sink, watch = _filtered_run(sess, fetches, {x: bad}, pool)
    assert "on_output" in vars(watch)  # the instance hook, not the method
    tripped = [d.tensor_name for d in sink.tripped]
    # Every held float value with a nan, and nothing else, passed the filter.
    expected = [d.tensor_name for d in sink.data
                if isinstance(d.value, np.ndarray) and d.value.dtype.kind == "f"
                and not np.isfinite(d.value).all()]
    assert tripped == expected and "MatMul:0" in tripped and "y:0" in tripped
    assert "W:0" not in tripped and "count:0" not in tripped
    stamps = [d.timestamp for d in sink.data]
    assert stamps == sorted(set(stamps))  # strictly increasing: dump order = run order
    # Exempt nodes are held but never trip; the per-op entries are cached in the pool.
    sink, _ = _filtered_run(sess, fetches, {x: bad}, pool, allowed=("MatMul", "Relu", "y"))
    assert [d.tensor_name for d in sink.tripped] == []
    assert "MatMul:0" in [d.tensor_name for d in sink.data]
    assert any(k[0] == "entries" for k in pool if isinstance(k, tuple))


def test_variables_are_copied_and_constants_are_not():
    sess, x, fetches, c = _graph()
    before = sess.run("W:0")
    sink, _ = _filtered_run(sess, fetches, {x: np.ones((2, 3), np.float32)}, {})
    held = {d.tensor_name: d.value for d in sink.data}
    np.testing.assert_array_equal(held["W:0"], before)  # the value before the update
    np.testing.assert_array_equal(held["update:0"], before + 1)
    live = sess._ctx.variables["W"]
    assert not np.shares_memory(held["W:0"], live) and not np.shares_memory(held["update:0"],
                                                                           live)
    # A constant can't change: held by reference, no copy.
    assert held["c:0"] is c.op.get_attr("value")


def test_custom_filter_and_dtype_regex_use_the_hook_too():
    sess, x, fetches, _ = _graph()
    calls = []

    def big(datum, tensor):
        calls.append(datum.tensor_name)
        return isinstance(tensor, np.ndarray) and tensor.size > 0 and float(tensor.max()) > 10
    options = WatchOptions(tensor_dtype_regex_allowlist="float32")
    sink, _ = _filtered_run(sess, fetches, {x: np.full((2, 3), 2.0, np.float32)}, {},
                            options=options, fn=big)
    assert "x:0" not in calls and calls  # fed tensors are not watched
    assert all(d.value.dtype == np.float32 for d in sink.data if hasattr(d.value, "dtype"))
    assert [d.tensor_name for d in sink.tripped] == ["MatMul:0", "Relu:0", "y:0"]


def test_numpy_scalar_outputs_are_checked_as_their_dump_will_be():
    """A ufunc on a 0-d array returns a NumPy scalar; the dump stores a 0-d tensor."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        neg = tf.negative(tf.reduce_sum(x), name="neg")
    sess = tf.Session(graph=graph)
    feed = {x: np.array([1.0, np.inf], np.float32)}
    sink, _ = _filtered_run(sess, [neg], feed, {})
    assert type(next(d.value for d in sink.data if d.node_name == "neg")) is np.float32
    assert [d.tensor_name for d in sink.tripped] == ["Sum:0", "neg:0"]
    seen = {}

    def spy(datum, tensor):
        seen[datum.tensor_name] = type(tensor)
        return False
    _filtered_run(sess, [neg], feed, {}, fn=spy)
    assert seen["neg:0"] is np.ndarray  # what `lt -f` hands the same filter after loading
    assert has_inf_or_nan(None, float("nan")) and has_inf_or_nan(None, np.complex64(np.inf))
    assert not has_inf_or_nan(None, np.float64(1.0)) and not has_inf_or_nan(None, 3)


def test_a_filtered_run_frees_its_held_values_without_the_garbage_collector(monkeypatch):
    # The hook refers back to its watch; a cycle left in place would keep a run's held
    # values alive until the next collection, and every run would take fresh memory.
    import gc
    import weakref

    from lens import dbg as tf_debug
    from lens.dbg import watch as watch_module
    from lens.dbg.run_screens import run_parser
    sess, x, fetches, _ = _graph()
    sinks = []
    init = watch_module.FilterSink.__init__

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        sinks.append(weakref.ref(self))
    monkeypatch.setattr(watch_module.FilterSink, "__init__", recording_init)
    wrapper = tf_debug.LocalCLIDebugWrapperSession(sess, ui_type="readline")
    wrapper._pending = run_parser().parse_args(["-f", "has_inf_or_nan"])
    feed = {x: np.ones((2, 3), np.float32)}
    gc.disable()
    try:
        for _ in range(2):
            wrapper.run(fetches, feed)
        assert len(sinks) == 2 and all(ref() is None for ref in sinks)
    finally:
        gc.enable()


def test_a_whole_view_shares_its_arrays_verdict_and_a_partial_view_does_not():
    """A reshape of an array holds the same numbers (one check serves both); a slice or a
    strided view of it may not hold the inf, so it is checked on its own."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        names = ["whole", "reshaped", "transposed", "tail", "strided", "later"]
        ops = [tf.identity(x, name=n).op for n in names]
    sink = FilterSink(has_inf_or_nan, lambda node: False)
    watch = Watch(WatchOptions(), sink)
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    base[0, 0] = np.inf
    fine = np.ones((3, 4), np.float32)
    values = [base, base.reshape(12), base.T, base[1:], base[:, 1::2], fine.reshape(4, 3)]
    for ts, (op, value) in enumerate(zip(ops, values), 1):
        watch.on_output(op, 0, value, ts)
    assert [d.node_name for d in sink.tripped] == ["whole", "reshaped", "transposed"]
    # The other order: the view is checked first and the whole array reuses its verdict.
    sink = FilterSink(has_inf_or_nan, lambda node: False)
    watch = Watch(WatchOptions(), sink)
    for ts, (op, value) in enumerate(zip(ops[:2], [base.reshape(12), base]), 1):
        watch.on_output(op, 0, value, ts)
    assert [d.node_name for d in sink.tripped] == ["whole", "reshaped"]
