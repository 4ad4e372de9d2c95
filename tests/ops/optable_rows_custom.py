"""Op-table rows that check themselves: consts, printing, variables, random draws, QR, summaries."""
import numpy as np

import lens as tf
from optable_lib import custom


def _run(fetches, feed=None, init=False):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def _fresh(fn, op_type):
    def check():
        with tf.Graph().as_default() as g:
            fn()
            types = {o.type for o in g.get_operations()}
            assert op_type in types, "the check built %s, no %s op" % (sorted(types), op_type)
    return check


def _const():
    v = np.arange(6, dtype=np.int64).reshape(2, 3)
    got = _run(tf.constant(v))
    assert got.dtype == np.int64 and np.array_equal(got, v)


def _placeholder():
    x = tf.placeholder(tf.float32, [2])
    assert np.array_equal(_run(x * 2.0, {x: [1.0, 3.0]}), np.float32([2.0, 6.0]))


def _noop():
    assert _run(tf.no_op()) is None


def _print(capfd_text):
    def check():
        x = tf.constant([1.0, 2.0])
        y = tf.Print(x, [x], message="vals=")
        assert np.array_equal(_run(y), [1.0, 2.0])
    return check


def _print_v2():
    op = tf.print("value:", tf.constant([3, 4]))
    assert _run(op) is None and op.type == "PrintV2"


def _py_func():
    y = tf.py_func(lambda a: (a * 3).astype(np.float32), [tf.constant([1.0, 2.0])], tf.float32)
    assert np.array_equal(_run(y), np.float32([3.0, 6.0]))


def _variables():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(tf.zeros([2]), name="w")
    with tf.Session() as sess:
        assert sorted(sess.run(tf.report_uninitialized_variables())) == [b"v", b"w"]
        assert not sess.run(tf.is_variable_initialized(v))
        sess.run(tf.global_variables_initializer())
        assert sess.run(tf.is_variable_initialized(v))
        assert np.array_equal(sess.run(v.initialized_value()), [1.0, 2.0])
        assert np.array_equal(sess.run(tf.assign_add(v, [1.0, 1.0])), [2.0, 3.0])
        assert np.array_equal(sess.run(tf.assign_sub(v, [0.5, 0.5])), [1.5, 2.5])
        assert np.array_equal(sess.run(tf.assign(w, v * 2.0)), [3.0, 5.0])
        assert len(sess.run(tf.report_uninitialized_variables())) == 0


def _apply_gd():
    from lens.training.gradient_descent import apply_gradient_descent
    v = tf.Variable([1.0, -1.0])
    upd = apply_gradient_descent(v._ref(), 0.5, tf.constant([2.0, 4.0]))
    assert np.allclose(_run(upd, init=True), [0.0, -3.0])


def _random(build, check_values):
    def check():
        tf.set_random_seed(7)
        a, b = build(), build()
        with tf.Session() as sess:
            x1, y1 = sess.run([a, b])
            x2 = sess.run(a)
        with tf.Session() as sess:
            x3 = sess.run(a)
        assert x1.shape == tuple(a.shape.as_list()), (x1.shape, a.shape)
        assert x1.dtype == np.dtype(a.dtype.as_numpy_dtype)
        assert not np.array_equal(x1, x2), "a stateful random op repeated its draw"
        assert np.array_equal(x1, x3), "the same graph seed must give the same first draw in a new session"
        check_values(np.concatenate([np.ravel(x1), np.ravel(x2), np.ravel(y1)]))
    return check


def _in(lo, hi, mean=None, tol=0.15):
    def check(v):
        assert v.min() >= lo and v.max() < hi, (v.min(), v.max())
        if mean is not None:
            assert abs(v.mean() - mean) < tol, v.mean()
    return check


def _qr():
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float64)
    from lens.ops.init_ops import qr
    q, r = _run(list(qr(tf.constant(x))))
    assert np.allclose(q @ r, x) and np.allclose(q.T @ q, np.eye(3)) and np.allclose(np.tril(r, -1), 0)


def _summary(kind):
    def check():
        from lens.events import summary_ops as S
        from lens.proto import summary_pb2
        if kind == "scalar":
            op = S.scalar("loss", tf.constant(2.5))
        elif kind == "histogram":
            op = S.histogram("h", tf.constant([1.0, 2.0, 2.0]))
        elif kind == "image":
            op = S.image("img", tf.zeros([1, 2, 2, 3], tf.uint8))
        elif kind == "audio":
            op = S.audio("snd", tf.zeros([1, 8, 1]), 8000)
        elif kind == "text":
            op = S.text("note", tf.constant("hello"))
        else:
            op = S.merge([S.scalar("a", tf.constant(1.0)), S.scalar("b", tf.constant(2.0))])
        summ = summary_pb2.Summary.FromString(_run(op))
        tags = [v.tag for v in summ.value]
        if kind == "scalar":
            assert tags == ["loss"] and summ.value[0].simple_value == 2.5
        elif kind == "histogram":
            assert summ.value[0].histo.num == 3 and summ.value[0].histo.sum == 5.0
        elif kind == "image":
            assert summ.value[0].image.width == 2 and summ.value[0].image.height == 2
        elif kind == "audio":
            assert summ.value[0].audio.sample_rate == 8000
        elif kind == "text":
            assert summ.value[0].tensor.string_val == [b"hello"]
        else:
            assert tags == ["a", "b"]
    return check


def _cast_grad():
    x = tf.placeholder(tf.float32, [3])
    w = np.float64([0.5, -2.0, 3.0])
    g = tf.gradients(tf.reduce_sum(tf.cast(x, tf.float64) * w), x)[0]
    got = _run(g, {x: [1.0, 2.0, 3.0]})
    assert got.dtype == np.float32 and np.allclose(got, w)


ROWS = [custom(op, _fresh(fn, op), label=label or op) for op, fn, label in [
    ("Const", _const, None), ("Placeholder", _placeholder, None), ("NoOp", _noop, None),
    ("Print", _print(None), None), ("PrintV2", _print_v2, None), ("PyFunc", _py_func, None),
    ("VariableV2", _variables, None), ("Assign", _variables, None), ("AssignAdd", _variables, None),
    ("AssignSub", _variables, None), ("IsVariableInitialized", _variables, None),
    ("InitializedValue", _variables, None), ("ReportUninitialized", _variables, None),
    ("ApplyGradientDescent", _apply_gd, None), ("Qr", _qr, None), ("Cast", _cast_grad, "Cast-gradient"),
    ("RandomUniform", _random(lambda: tf.random_uniform([200]), _in(0, 1, 0.5)), None),
    ("RandomUniformInt", _random(lambda: tf.random_uniform([200], 3, 9, dtype=tf.int32), _in(3, 9, 6.0, 0.5)), None),
    ("RandomStandardNormal", _random(lambda: tf.random_normal([300], 2.0, 0.5), _in(-1, 5, 2.0)), None),
    ("TruncatedNormal", _random(lambda: tf.truncated_normal([300]), _in(-2.0001, 2.0001, 0.0)), None),
    ("RandomShuffle", _random(lambda: tf.random_shuffle(tf.range(50)),
                              lambda v: np.array_equal(np.sort(v[:50]), np.arange(50)) or _fail("not a permutation")), None),
    ("Multinomial", _random(lambda: tf.multinomial(tf.log([[0.1, 0.9]]), 300), _in(0, 2, 0.9, 0.1)), None),
    ("RandomGamma", _random(lambda: tf.random_gamma([300], 2.0), _in(0, 50, 2.0, 0.4)), None),
    ("RandomPoissonV2", _random(lambda: tf.random_poisson(3.0, [300]), _in(0, 50, 3.0, 0.5)), None),
    ("ScalarSummary", _summary("scalar"), None), ("HistogramSummary", _summary("histogram"), None),
    ("ImageSummary", _summary("image"), None), ("AudioSummaryV2", _summary("audio"), None),
    ("TensorSummaryV2", _summary("text"), None), ("MergeSummary", _summary("merge"), None),
]]


def _fail(msg):
    raise AssertionError(msg)
