"""Bad inputs to TF1 graph programs, written once against a module `tf` (lens or TF's compat.v1).

Each case builds and runs a small program on a fresh default graph. The recorder
(fixtures/record_bad_inputs_tf.py) runs them under TensorFlow, test_bad_inputs.py under lens.
"""
import os
import re
import shutil
import tempfile

import numpy as np

CASES = {}      # name -> (function of tf, candidate culprit names)


def case(*culprits):
    """Register a case; culprits are names TF's message may contain (the first one found counts)."""
    def add(fn):
        CASES[fn.__name__] = (fn, culprits)
        return fn
    return add


def public_class(exc, error_classes):
    """The name of exc's nearest class that users catch: a builtin one or one of tf.errors'.

    (TF 2.x raises some private ValueError subclasses where TF1.15 raised ValueError itself.)
    """
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins" or cls in error_classes:
            return cls.__name__
    return type(exc).__name__


def run_case(tf, name):
    """(outcome, message): the exception's public class name, or 'ok' / 'returned None'."""
    fn, _ = CASES[name]
    errs = {c for c in vars(tf.errors).values() if isinstance(c, type)}
    with tf.Graph().as_default():
        try:
            out = fn(tf)
        except Exception as e:  # noqa: BLE001 - the outcome is the class itself
            return public_class(e, errs), str(e)
    return ("returned None" if out is None else "ok"), ""


def names_culprit(message, culprit):
    """True when message mentions culprit as a whole name (op names may go on with '/' or ':')."""
    # A uniquified scope ('ae_1/Assert') still names the op the user called 'ae'.
    pattern = r"(?<![A-Za-z0-9_.])%s(_\d+)?(?![A-Za-z0-9_])" % re.escape(culprit)
    return re.search(pattern, message) is not None


def culprit_in(name, message):
    """The first candidate culprit of a case that message names, or None."""
    return next((c for c in CASES[name][1] if names_culprit(message, c)), None)


def _run(tf, fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _scratch(tf, build):
    """Run build(tf) in a fresh graph and return its result (for cases that need two graphs)."""
    with tf.Graph().as_default() as g:
        return g, build(tf)


# ------------------------------------------------------------------ feeds
@case("pl_shape")
def feed_wrong_shape(tf):
    x = tf.placeholder(tf.float32, [2], name="pl_shape")
    return _run(tf, x * 2.0, {x: [1.0, 2.0, 3.0]})


@case("pl_rank")
def feed_wrong_rank(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="pl_rank")
    return _run(tf, x + 1.0, {x: np.zeros(3)})


@case("pl_str")
def feed_string_to_float(tf):
    x = tf.placeholder(tf.float32, [], name="pl_str")
    return _run(tf, x + 1.0, {x: "abc"})


@case("pl_big")
def feed_int_too_big_for_int32(tf):
    x = tf.placeholder(tf.int32, [], name="pl_big")
    return _run(tf, x + 1, {x: 2 ** 40})


@case("pl_missing")
def missing_feed(tf):
    x = tf.placeholder(tf.float32, [2], name="pl_missing")
    return _run(tf, tf.reduce_sum(x * 3.0))


@case("nope")
def feed_unknown_name(tf):
    x = tf.placeholder(tf.float32, [], name="pl_known")
    return _run(tf, x + 1.0, {"nope:0": 1.0, x: 1.0})


@case("pl_other")
def feed_tensor_of_other_graph(tf):
    _, other = _scratch(tf, lambda tf: tf.placeholder(tf.float32, [], name="pl_other"))
    x = tf.placeholder(tf.float32, [], name="pl_mine")
    return _run(tf, x + 1.0, {x: 1.0, other: 2.0})


@case("pl_tensor")
def feed_value_is_a_tensor(tf):
    x = tf.placeholder(tf.float32, [], name="pl_tensor")
    return _run(tf, x + 1.0, {x: tf.constant(1.0)})


@case("c_guarded")
def feed_prevented_tensor(tf):
    c = tf.constant(1.0, name="c_guarded")
    tf.get_default_graph().prevent_feeding(c)
    return _run(tf, c * 2.0, {c: 3.0})


@case("c_hidden")
def fetch_prevented_op(tf):
    c = tf.constant(1.0, name="c_hidden")
    tf.get_default_graph().prevent_fetching(c.op)
    return _run(tf, c)


# ------------------------------------------------------------------ fetches and names
@case("missing")
def fetch_missing_tensor_name(tf):
    tf.constant(1.0, name="present")
    return _run(tf, "missing:0")


@case("missing_op")
def fetch_missing_op_name(tf):
    tf.constant(1.0, name="present")
    return _run(tf, "missing_op")


@case()
def fetch_none(tf):
    tf.constant(1.0)
    return _run(tf, [None])


@case()
def fetch_plain_object(tf):
    tf.constant(1.0)
    return _run(tf, object())


@case("c_elsewhere")
def fetch_tensor_of_other_graph(tf):
    _, other = _scratch(tf, lambda tf: tf.constant(1.0, name="c_elsewhere"))
    tf.constant(2.0, name="c_here")
    return _run(tf, other)


@case("nope_t")
def get_tensor_by_unknown_name(tf):
    return tf.get_default_graph().get_tensor_by_name("nope_t:0")


@case("nope_op")
def get_operation_by_unknown_name(tf):
    return tf.get_default_graph().get_operation_by_name("nope_op")


@case("c_named")
def get_tensor_by_op_name(tf):
    tf.constant(1.0, name="c_named")
    return tf.get_default_graph().get_tensor_by_name("c_named")


# ------------------------------------------------------------------ sessions and graphs
@case()
def run_closed_session(tf):
    c = tf.constant(1.0)
    sess = tf.Session()
    sess.close()
    return sess.run(c)


@case()
def modify_finalized_graph(tf):
    tf.constant(1.0)
    tf.get_default_graph().finalize()
    return tf.constant(2.0)


@case("c_g1", "c_g2")
def add_across_graphs(tf):
    _, a = _scratch(tf, lambda tf: tf.constant(1.0, name="c_g1"))
    b = tf.constant(2.0, name="c_g2")
    return tf.add(a, b)


@case()
def eval_without_default_session(tf):
    return tf.constant(1.0).eval()


@case()
def session_on_a_non_graph(tf):
    return tf.Session(graph=object())


# ------------------------------------------------------------------ shapes when building
@case("ad")
def add_dims_mismatch_at_build(tf):
    return tf.add(tf.ones([2, 3]), tf.ones([3, 2]), name="ad")


@case("mm")
def matmul_dims_mismatch_at_build(tf):
    return tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]), name="mm")


@case("rs")
def reshape_size_mismatch_at_build(tf):
    return tf.reshape(tf.ones([5]), [2, 2], name="rs")


@case("cc")
def concat_rank_mismatch_at_build(tf):
    return tf.concat([tf.ones([2]), tf.ones([2, 2])], 0, name="cc")


@case("rsum")
def reduce_axis_out_of_range_at_build(tf):
    return tf.reduce_sum(tf.ones([2, 3]), axis=5, name="rsum")


@case("asg", "vs")
def assign_shape_mismatch_at_build(tf):
    v = tf.Variable(tf.zeros([2]), name="vs")
    return tf.assign(v, tf.zeros([3]), name="asg")


@case("oh")
def one_hot_bad_axis(tf):
    return _run(tf, tf.one_hot([0, 1], 3, axis=5, name="oh"))


@case()
def constant_of_wrong_dtype(tf):
    return tf.constant("a", dtype=tf.float32)


@case()
def set_shape_incompatible(tf):
    x = tf.placeholder(tf.float32, [2], name="pl_set")
    x.set_shape([3])
    return x


# ------------------------------------------------------------------ run-time kernel failures
def _two_feeds(tf, build, a, b, dtype=None):
    dtype = dtype or tf.float32
    x = tf.placeholder(dtype, None, name="pl_a")
    y = tf.placeholder(dtype, None, name="pl_b")
    return _run(tf, build(x, y), {x: a, y: b})


@case("ad_rt")
def add_incompatible_at_run(tf):
    return _two_feeds(tf, lambda x, y: tf.add(x, y, name="ad_rt"), np.ones(2), np.ones(3))


@case("mm_rt")
def matmul_incompatible_at_run(tf):
    return _two_feeds(tf, lambda x, y: tf.matmul(x, y, name="mm_rt"), np.ones((2, 3)), np.ones((4, 5)))


@case("fd")
def floordiv_int_by_zero(tf):
    return _two_feeds(tf, lambda x, y: tf.floordiv(x, y, name="fd"), [7, 8], [2, 0], tf.int32)


@case("fm")
def floormod_int_by_zero(tf):
    return _two_feeds(tf, lambda x, y: tf.floormod(x, y, name="fm"), [7, 8], [0, 3], tf.int32)


@case("dv")
def div_int_by_zero(tf):
    return _two_feeds(tf, lambda x, y: tf.div(x, y, name="dv"), [7], [0], tf.int32)


@case("sl")
def slice_past_the_end(tf):
    x = tf.placeholder(tf.int32, None, name="pl_sl")
    return _run(tf, tf.slice(x, [3], [4], name="sl"), {x: np.arange(5)})


@case("gth")
def gather_index_out_of_range(tf):
    x = tf.placeholder(tf.float32, None, name="pl_g")
    return _run(tf, tf.gather(x, [1, 7], name="gth"), {x: np.arange(5.0)})


@case("oh_rt")
def one_hot_negative_depth_at_run(tf):
    d = tf.placeholder(tf.int32, [], name="pl_depth")
    return _run(tf, tf.one_hot([0, 1], d, name="oh_rt"), {d: -1})


@case("ae")
def assert_equal_fails_at_run(tf):
    x = tf.placeholder(tf.int32, [2], name="pl_x")
    check = tf.assert_equal(x, tf.constant([1, 2]), name="ae")
    with tf.control_dependencies([check]):
        out = tf.identity(x)
    return _run(tf, out, {x: [1, 3]})


@case("ae_static")
def assert_equal_of_constants(tf):
    return tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), name="ae_static")


@case("chk")
def assert_op_fails(tf):
    x = tf.placeholder(tf.float32, [], name="pl_chk")
    return _run(tf, tf.Assert(x > 0.0, [x], name="chk"), {x: -1.0})


@case("cn")
def check_numerics_finds_nan(tf):
    x = tf.placeholder(tf.float32, [2], name="pl_cn")
    return _run(tf, tf.check_numerics(x, "bad values", name="cn"), {x: [1.0, np.nan]})


@case("cs")
def cast_from_string(tf):
    x = tf.placeholder(tf.string, [], name="pl_cs")
    return _run(tf, tf.cast(x, tf.float32, name="cs"), {x: "1.5"})


@case("s2n")
def string_to_number_of_text(tf):
    x = tf.placeholder(tf.string, [], name="pl_s2n")
    return _run(tf, tf.string_to_number(x, name="s2n"), {x: "abc"})


# ------------------------------------------------------------------ variables
@case("v_uninit")
def fetch_uninitialized_variable(tf):
    v = tf.Variable(1.0, name="v_uninit")
    return _run(tf, v)


@case("v_uninit2")
def use_uninitialized_variable_in_op(tf):
    v = tf.Variable([1.0, 2.0], name="v_uninit2")
    return _run(tf, tf.reduce_sum(v * 2.0))


@case("w_dup")
def get_variable_twice(tf):
    tf.get_variable("w_dup", [2])
    return tf.get_variable("w_dup", [2])


@case("w_absent")
def get_variable_reuse_missing(tf):
    with tf.variable_scope("scope_r", reuse=True):
        return tf.get_variable("w_absent", [2])


@case("w_shape")
def get_variable_reuse_other_shape(tf):
    tf.get_variable("w_shape", [2])
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        return tf.get_variable("w_shape", [3])


@case("w_noshape")
def get_variable_without_shape(tf):
    return tf.get_variable("w_noshape")


# ------------------------------------------------------------------ checkpoints
def _saved_checkpoint(tf, name, value):
    """A checkpoint holding one variable, written from its own graph; returns (dir, prefix)."""
    d = tempfile.mkdtemp(prefix="lens_bad_ckpt_")
    with tf.Graph().as_default():
        v = tf.Variable(value, name=name)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(v.initializer)
            prefix = saver.save(sess, os.path.join(d, "model"))
    return d, prefix


def _restore(tf, build, name, value):
    d, prefix = _saved_checkpoint(tf, name, value)
    try:
        build(tf)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, prefix)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@case("v_other")
def restore_missing_variable(tf):
    return _restore(tf, lambda tf: tf.Variable(1.0, name="v_other"), "v_saved", 2.0)


@case("v_shape")
def restore_wrong_shape(tf):
    return _restore(tf, lambda tf: tf.Variable(np.zeros(3, np.float32), name="v_shape"),
                    "v_shape", np.zeros(2, np.float32))


@case()
def restore_from_missing_path(tf):
    tf.Variable(1.0, name="v_any")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(tempfile.gettempdir(), "lens_no_such_ckpt", "model"))


@case()
def saver_without_variables(tf):
    return tf.train.Saver()


# ------------------------------------------------------------------ iterators
@case("nx")
def exhausted_iterator(tf):
    it = tf.data.make_one_shot_iterator(tf.data.Dataset.range(2))
    nxt = it.get_next(name="nx")
    with tf.Session() as sess:
        for _ in range(3):
            sess.run(nxt)


@case()
def uninitialized_iterator(tf):
    it = tf.data.make_initializable_iterator(tf.data.Dataset.range(2))
    return _run(tf, it.get_next(name="nx_init"))


# ------------------------------------------------------------------ gradients and optimizers
@case()
def gradients_of_a_non_tensor(tf):
    x = tf.constant(2.0)
    return tf.gradients(x * x, [object()])


@case()
def gradients_of_integer_tensors(tf):
    x = tf.constant(3)
    return tf.gradients(x * x, x)[0]


@case()
def gradients_of_unconnected_tensor(tf):
    x, z = tf.constant(3.0), tf.constant(4.0)
    return tf.gradients(x * x, z)[0]


@case()
def gradients_bad_unconnected_option(tf):
    x = tf.constant(3.0)
    return tf.gradients(x * x, x, unconnected_gradients="sometimes")


@case()
def gradients_grad_ys_wrong_length(tf):
    x = tf.constant([3.0, 4.0])
    return tf.gradients([x * x, x + 1.0], x, grad_ys=[tf.ones([2])])


@case()
def minimize_without_variables(tf):
    loss = tf.reduce_sum(tf.constant([1.0, 2.0]) ** 2)
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss)


@case("w_unused")
def minimize_loss_not_using_variables(tf):
    tf.Variable(1.0, name="w_unused")
    loss = tf.reduce_sum(tf.constant([1.0, 2.0]) ** 2)
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss)


@case()
def apply_no_gradients(tf):
    return tf.train.GradientDescentOptimizer(0.1).apply_gradients([])


@case("w_nograd")
def apply_only_none_gradients(tf):
    v = tf.Variable(1.0, name="w_nograd")
    return tf.train.GradientDescentOptimizer(0.1).apply_gradients([(None, v)])
