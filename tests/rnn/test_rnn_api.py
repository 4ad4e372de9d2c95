"""RNN API surface: TF1 variable names, sharing, zero_state, wrappers, namespaces and error messages."""
import numpy as np
import pytest

import lens as tf
from lens import errors
from lens.ops.rnn_ops import reverse_sequence
from lens.rnn import rnn_cell as rc

B, T, D, H = 3, 4, 5, 6


def _x(shape=(B, T, D), dtype=tf.float32, name="x"):
    return tf.placeholder(dtype, list(shape), name=name)


def _names():
    return [(v.op.name, v.shape.as_list()) for v in tf.global_variables()]


@pytest.mark.parametrize("make_cell, expected", [
    (lambda: rc.BasicRNNCell(H), [("rnn/basic_rnn_cell/kernel", [D + H, H]), ("rnn/basic_rnn_cell/bias", [H])]),
    (lambda: rc.BasicLSTMCell(H), [("rnn/basic_lstm_cell/kernel", [D + H, 4 * H]),
                                   ("rnn/basic_lstm_cell/bias", [4 * H])]),
    (lambda: rc.LSTMCell(H, use_peepholes=True, num_proj=2), [
        ("rnn/lstm_cell/kernel", [D + 2, 4 * H]), ("rnn/lstm_cell/bias", [4 * H]),
        ("rnn/lstm_cell/w_f_diag", [H]), ("rnn/lstm_cell/w_i_diag", [H]), ("rnn/lstm_cell/w_o_diag", [H]),
        ("rnn/lstm_cell/projection/kernel", [H, 2])]),
    (lambda: rc.GRUCell(H), [("rnn/gru_cell/gates/kernel", [D + H, 2 * H]), ("rnn/gru_cell/gates/bias", [2 * H]),
                             ("rnn/gru_cell/candidate/kernel", [D + H, H]), ("rnn/gru_cell/candidate/bias", [H])]),
    (lambda: rc.MultiRNNCell([rc.DropoutWrapper(rc.BasicLSTMCell(H), output_keep_prob=0.9), rc.BasicLSTMCell(2)]), [
        ("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel", [D + H, 4 * H]),
        ("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias", [4 * H]),
        ("rnn/multi_rnn_cell/cell_1/basic_lstm_cell/kernel", [H + 2, 8]),
        ("rnn/multi_rnn_cell/cell_1/basic_lstm_cell/bias", [8])]),
], ids=["basic_rnn", "basic_lstm", "lstm_peep_proj", "gru", "multi_dropout"])
def test_dynamic_rnn_variable_names_are_tf1s(make_cell, expected):
    rc.dynamic_rnn(make_cell(), _x(), dtype=tf.float32)
    assert _names() == expected


def test_bidirectional_static_and_scoped_names():
    rc.bidirectional_dynamic_rnn(rc.BasicLSTMCell(H), rc.GRUCell(2), _x(), dtype=tf.float32)
    rc.static_rnn(rc.BasicRNNCell(3), tf.unstack(_x(name="y"), axis=1), dtype=tf.float32, scope="encoder")
    rc.static_bidirectional_rnn(rc.BasicRNNCell(3), rc.BasicRNNCell(3), tf.unstack(_x(name="z"), axis=1),
                                dtype=tf.float32, scope="birnn")
    assert [n for n, _ in _names()] == [
        "bidirectional_rnn/fw/basic_lstm_cell/kernel", "bidirectional_rnn/fw/basic_lstm_cell/bias",
        "bidirectional_rnn/bw/gru_cell/gates/kernel", "bidirectional_rnn/bw/gru_cell/gates/bias",
        "bidirectional_rnn/bw/gru_cell/candidate/kernel", "bidirectional_rnn/bw/gru_cell/candidate/bias",
        "encoder/basic_rnn_cell/kernel", "encoder/basic_rnn_cell/bias",
        "birnn/fw/basic_rnn_cell/kernel", "birnn/fw/basic_rnn_cell/bias",
        "birnn/bw/basic_rnn_cell/kernel", "birnn/bw/basic_rnn_cell/bias"]


def test_a_cell_shares_its_variables_across_calls_and_reuse_true_finds_them():
    x = _x()
    cell = rc.BasicLSTMCell(H)
    out1, _ = rc.dynamic_rnn(cell, x, dtype=tf.float32)
    out2, _ = rc.dynamic_rnn(cell, x, dtype=tf.float32, scope="other")   # same cell: same variables
    out3, _ = rc.dynamic_rnn(rc.BasicLSTMCell(H, reuse=True), x, dtype=tf.float32)
    assert len(tf.global_variables()) == 2
    assert {v.op.name for v in cell.variables} == {"rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias"}
    assert cell.trainable_variables == cell.variables
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b, c = sess.run([out1, out2, out3], {x: np.random.default_rng(0).normal(size=(B, T, D))})
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_zero_state_static_and_fed_batch():
    lstm = rc.BasicLSTMCell(H)
    z = lstm.zero_state(4, tf.float64)
    assert isinstance(z, rc.LSTMStateTuple) and z.c.shape.as_list() == [4, H] and z.dtype == tf.float64
    assert z.c.op.name.startswith("BasicLSTMCellZeroState/")
    batch = tf.placeholder(tf.int32, [])
    multi = rc.MultiRNNCell([rc.GRUCell(2), rc.LSTMCell(3, num_proj=1)])
    zs = multi.zero_state(batch, tf.float32)
    assert zs[0].shape.as_list() == [None, 2] and zs[1].h.shape.as_list() == [None, 1]
    with tf.Session() as sess:
        got = sess.run(zs, {batch: 7})
    assert got[0].shape == (7, 2) and got[1].c.shape == (7, 3) and got[1].h.shape == (7, 1)
    assert got[0].dtype == np.float32 and not got[1].c.any()
    assert multi.state_size == (2, rc.LSTMStateTuple(3, 1)) and multi.output_size == 1


def _run(fetches, feed):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_dropout_wrapper_with_keep_prob_one_adds_nothing():
    def op_types(wrap):
        with tf.Graph().as_default() as g:
            cell = rc.GRUCell(H)
            rc.dynamic_rnn(rc.DropoutWrapper(cell) if wrap else cell, _x(), dtype=tf.float32)
            return sorted(op.type for op in g.get_operations())
    assert op_types(True) == op_types(False)


def test_dropout_wrapper_drops_outputs_and_scales_the_rest():
    x = _x()
    cell = rc.BasicRNNCell(H)
    plain, plain_state = rc.dynamic_rnn(cell, x, dtype=tf.float32)
    dropped, dropped_state = rc.dynamic_rnn(rc.DropoutWrapper(cell, output_keep_prob=0.5, seed=3), x,
                                            dtype=tf.float32)
    p, ps, d, ds = _run([plain, plain_state, dropped, dropped_state],
                        {x: np.random.default_rng(1).normal(size=(B, T, D))})
    kept = d != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(d[kept], 2 * p[kept], rtol=1e-5)
    np.testing.assert_array_equal(ds, ps)   # output dropout leaves the state alone


def test_state_dropout_spares_the_lstm_memory_cell():
    x = _x((B, 1, D))
    cell = rc.BasicLSTMCell(H)
    _, plain = rc.dynamic_rnn(cell, x, dtype=tf.float32)
    _, dropped = rc.dynamic_rnn(rc.DropoutWrapper(cell, state_keep_prob=0.5, seed=1), x, dtype=tf.float32)
    p, d = _run([plain, dropped], {x: np.random.default_rng(2).normal(size=(B, 1, D))})
    np.testing.assert_array_equal(d.c, p.c)
    kept = d.h != 0
    assert 0.1 < kept.mean() < 0.9
    np.testing.assert_allclose(d.h[kept], 2 * p.h[kept], rtol=1e-5)


@pytest.mark.parametrize("variational", [True, False])
def test_variational_dropout_uses_one_mask_for_every_step(variational):
    x = _x((2, 8, D))
    kwargs = {"variational_recurrent": True, "dtype": tf.float32} if variational else {}
    out, _ = rc.dynamic_rnn(rc.DropoutWrapper(rc.BasicRNNCell(16), output_keep_prob=0.5, seed=5, **kwargs),
                            x, dtype=tf.float32)
    got = _run(out, {x: np.random.default_rng(3).normal(size=(2, 8, D))})
    patterns = {tuple(row) for row in (got != 0).reshape(-1, 16)}
    if variational:
        assert len(patterns) == 1 and 0 < sum(next(iter(patterns))) < 16
    else:
        assert len(patterns) > 4


def test_names_are_reachable_through_tf_nn_and_tf_contrib_rnn():
    for name in ["BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "DropoutWrapper",
                 "LSTMStateTuple", "RNNCell"]:
        assert getattr(tf.nn.rnn_cell, name) is getattr(rc, name)
        assert getattr(tf.contrib.rnn, name) is getattr(rc, name)
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn is rc.static_rnn
    assert tf.contrib.rnn.static_bidirectional_rnn is rc.static_bidirectional_rnn
    assert tf.nn.dynamic_rnn is rc.dynamic_rnn
    assert tf.nn.bidirectional_dynamic_rnn is rc.bidirectional_dynamic_rnn


@pytest.mark.parametrize("build, exc, match", [
    (lambda: rc.dynamic_rnn(rc.GRUCell(H), _x()), ValueError, "If there is no initial_state, you must give a dtype"),
    (lambda: rc.dynamic_rnn(rc.GRUCell(H), _x(), sequence_length=[[1, 2, 3]], dtype=tf.float32), ValueError,
     "sequence_length must be a vector of length batch_size"),
    (lambda: rc.dynamic_rnn(rc.GRUCell(H), _x(), sequence_length=[1, 2], dtype=tf.float32), ValueError,
     "2 entries but the batch size is 3"),
    (lambda: rc.dynamic_rnn(rc.GRUCell(H), _x(), sequence_length=[1., 2., 3.], dtype=tf.float32), TypeError,
     "sequence_length must be an integer vector"),
    (lambda: rc.dynamic_rnn(lambda x, s: (x, s), _x(), dtype=tf.float32), TypeError,
     "not an RNNCell: 'output_size' property is missing"),
    (lambda: rc.dynamic_rnn(rc.GRUCell(H), _x((B, T, None)), dtype=tf.float32), ValueError,
     r"Input size \(depth of inputs\) must be accessible"),
    (lambda: rc.dynamic_rnn(rc.GRUCell(H), _x((B, D)), dtype=tf.float32), ValueError, r"\[batch, time, depth\]"),
    (lambda: rc.dynamic_rnn(rc.BasicLSTMCell(H), _x(), initial_state=tf.zeros([B, H])), ValueError,
     "initial_state must be nested like the cell's state_size"),
    (lambda: rc.static_rnn(rc.GRUCell(H), _x((B, D))), TypeError, "inputs must be a sequence"),
    (lambda: rc.static_rnn(rc.GRUCell(H), [], dtype=tf.float32), ValueError, "inputs must not be empty"),
    (lambda: rc.DropoutWrapper(rc.GRUCell(H), output_keep_prob=1.5), ValueError,
     "output_keep_prob must be between 0 and 1"),
    (lambda: rc.DropoutWrapper(rc.GRUCell(H), variational_recurrent=True), ValueError, "dtype must be provided"),
    (lambda: rc.MultiRNNCell([]), ValueError, "at least one cell"),
    (lambda: rc.MultiRNNCell([rc.BasicLSTMCell(2)], state_is_tuple=False), ValueError,
     "state_is_tuple is not set"),
    (lambda: rc.BasicRNNCell(2, activation="swishy"), ValueError, "Unknown activation 'swishy'"),
    (lambda: reverse_sequence(_x(), [1, 2, 3], seq_axis=1, batch_axis=1), ValueError, "must differ"),
    (lambda: reverse_sequence(_x(), [1, 2], seq_axis=1), ValueError, "Dimensions must be equal"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_gets_a_clear_error(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def test_reverse_sequence_rejects_lengths_past_the_end_at_run_time():
    x = _x()
    n = tf.placeholder(tf.int32, [None])
    y = reverse_sequence(x, n, seq_axis=1)
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match=r"seq_lengths\[1\] = 9 is not in \[0, 4\]"):
            sess.run(y, {x: np.zeros((B, T, D)), n: [1, 9, 2]})
