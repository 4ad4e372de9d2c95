"""RNN cells and drivers against NumPy: outputs and final states for given weights, masking, directions."""
import numpy as np
import pytest

import lens as tf
import rnn_reference as ref
from lens.rnn import rnn_cell as rc

B, T, D, H = 3, 5, 4, 6


def _session_with_random_weights(seed=0, scale=0.6):
    """A session whose trainable variables hold random values (biases too, so they are checked)."""
    rng = np.random.default_rng(seed)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    vals = {}
    for v in tf.trainable_variables():
        val = rng.uniform(-scale, scale, v.shape.as_list())
        v.load(val, sess)
        vals[v.op.name] = val
    return sess, vals


def _inputs(seed=1, shape=(B, T, D)):
    return np.random.default_rng(seed).normal(size=shape)


def _run_dynamic(cell, lengths=None, initial_state=None):
    x = tf.placeholder(tf.float64, [B, T, D], name="x")
    out, state = rc.dynamic_rnn(cell, x, sequence_length=lengths, initial_state=initial_state, dtype=tf.float64)
    sess, w = _session_with_random_weights()
    xs = _inputs()
    got_out, got_state = sess.run([out, state], {x: xs})
    return xs, w, got_out, got_state


def _assert_tree_close(got, exp):
    if isinstance(exp, tuple):
        assert isinstance(got, tuple) and len(got) == len(exp)
        for g, e in zip(got, exp):
            _assert_tree_close(g, e)
    else:
        np.testing.assert_allclose(got, exp, rtol=1e-10, atol=1e-12)


def test_basic_rnn_cell_matches_numpy():
    xs, w, out, state = _run_dynamic(rc.BasicRNNCell(H))
    exp_out, exp_state = ref.run(ref.basic_rnn_step(w["rnn/basic_rnn_cell/kernel"], w["rnn/basic_rnn_cell/bias"]),
                                 xs, np.zeros((B, H)))
    assert out.shape == (B, T, H) and out.dtype == np.float64
    _assert_tree_close(out, exp_out)
    _assert_tree_close(state, exp_state)


@pytest.mark.parametrize("state_is_tuple", [True, False])
def test_basic_lstm_cell_matches_numpy(state_is_tuple):
    cell = rc.BasicLSTMCell(H, forget_bias=0.5, state_is_tuple=state_is_tuple)
    xs, w, out, state = _run_dynamic(cell)
    step = ref.basic_lstm_step(w["rnn/basic_lstm_cell/kernel"], w["rnn/basic_lstm_cell/bias"], forget_bias=0.5)
    exp_out, (c, h) = ref.run(step, xs, (np.zeros((B, H)), np.zeros((B, H))))
    _assert_tree_close(out, exp_out)
    if state_is_tuple:
        assert isinstance(state, rc.LSTMStateTuple)
        _assert_tree_close((state.c, state.h), (c, h))
    else:
        _assert_tree_close(state, np.concatenate([c, h], 1))


def test_lstm_cell_with_peepholes_clipping_and_projection_matches_numpy():
    cell = rc.LSTMCell(H, use_peepholes=True, cell_clip=0.4, num_proj=3, proj_clip=0.3, forget_bias=0.7)
    xs, w, out, state = _run_dynamic(cell)
    p = "rnn/lstm_cell/"
    step = ref.lstm_cell_step(w[p + "kernel"], w[p + "bias"], 0.7,
                              peep=(w[p + "w_f_diag"], w[p + "w_i_diag"], w[p + "w_o_diag"]), cell_clip=0.4,
                              proj=w[p + "projection/kernel"], proj_clip=0.3)
    exp_out, exp_state = ref.run(step, xs, (np.zeros((B, H)), np.zeros((B, 3))))
    assert out.shape == (B, T, 3)
    assert np.abs(state.c).max() <= 0.4 + 1e-12 and np.isclose(np.abs(state.c).max(), 0.4)  # clipping bites
    _assert_tree_close(out, exp_out)
    _assert_tree_close(tuple(state), exp_state)


def test_lstm_cell_plain_matches_basic_lstm_equations():
    xs, w, out, state = _run_dynamic(rc.LSTMCell(H))
    step = ref.lstm_cell_step(w["rnn/lstm_cell/kernel"], w["rnn/lstm_cell/bias"])
    exp_out, exp_state = ref.run(step, xs, (np.zeros((B, H)), np.zeros((B, H))))
    _assert_tree_close(out, exp_out)
    _assert_tree_close(tuple(state), exp_state)


def test_gru_cell_matches_numpy():
    xs, w, out, state = _run_dynamic(rc.GRUCell(H))
    p = "rnn/gru_cell/"
    step = ref.gru_step(w[p + "gates/kernel"], w[p + "gates/bias"], w[p + "candidate/kernel"], w[p + "candidate/bias"])
    exp_out, exp_state = ref.run(step, xs, np.zeros((B, H)))
    _assert_tree_close(out, exp_out)
    _assert_tree_close(state, exp_state)


def test_multi_rnn_cell_stacks_cells_in_order():
    cell = rc.MultiRNNCell([rc.BasicLSTMCell(H), rc.GRUCell(2)])
    xs, w, out, state = _run_dynamic(cell)
    p0, p1 = "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/", "rnn/multi_rnn_cell/cell_1/gru_cell/"
    step = ref.multi_step([ref.basic_lstm_step(w[p0 + "kernel"], w[p0 + "bias"]),
                           ref.gru_step(w[p1 + "gates/kernel"], w[p1 + "gates/bias"], w[p1 + "candidate/kernel"],
                                        w[p1 + "candidate/bias"])])
    exp_out, exp_state = ref.run(step, xs, ((np.zeros((B, H)), np.zeros((B, H))), np.zeros((B, 2))))
    assert out.shape == (B, T, 2)
    _assert_tree_close(out, exp_out)
    _assert_tree_close((tuple(state[0]), state[1]), exp_state)


@pytest.mark.parametrize("make_cell", [lambda: rc.BasicLSTMCell(H), lambda: rc.GRUCell(H)], ids=["lstm", "gru"])
def test_sequence_length_zeroes_outputs_and_freezes_state(make_cell):
    lengths = [5, 2, 0]
    xs, w, out, state = _run_dynamic(make_cell(), lengths=lengths)
    np.testing.assert_array_equal(out[1, 2:], 0.0)
    np.testing.assert_array_equal(out[2], 0.0)
    assert np.abs(out[0]).min() > 0 and np.abs(out[1, :2]).min() > 0
    # The frozen state equals the state of a run over the first `length` steps only.
    if isinstance(state, rc.LSTMStateTuple):
        p = "rnn/basic_lstm_cell/"
        step = ref.basic_lstm_step(w[p + "kernel"], w[p + "bias"])
        zero = (np.zeros((B, H)), np.zeros((B, H)))
        state = tuple(state)
    else:
        p = "rnn/gru_cell/"
        step = ref.gru_step(w[p + "gates/kernel"], w[p + "gates/bias"], w[p + "candidate/kernel"],
                            w[p + "candidate/bias"])
        zero = np.zeros((B, H))
    exp_out, exp_state = ref.run(step, xs, zero, lengths)
    _assert_tree_close(out, exp_out)
    _assert_tree_close(state, exp_state)
    _, short_state = ref.run(step, xs[1:2, :2], ref._map(lambda z: z[1:2], zero))
    _assert_tree_close(ref._map(lambda s: s[1:2], state), short_state)
    _assert_tree_close(ref._map(lambda s: s[2], state), ref._map(lambda z: z[2], zero))


def test_fed_sequence_length_and_unknown_batch():
    x = tf.placeholder(tf.float64, [None, T, D])
    n = tf.placeholder(tf.int64, [None])
    out, state = rc.dynamic_rnn(rc.BasicRNNCell(H), x, sequence_length=n, dtype=tf.float64)
    assert out.shape.as_list() == [None, T, H]
    sess, w = _session_with_random_weights()
    xs = _inputs()
    got_out, got_state = sess.run([out, state], {x: xs, n: [1, 4, 5]})
    exp_out, exp_state = ref.run(ref.basic_rnn_step(w["rnn/basic_rnn_cell/kernel"], w["rnn/basic_rnn_cell/bias"]),
                                 xs, np.zeros((B, H)), [1, 4, 5])
    _assert_tree_close(got_out, exp_out)
    _assert_tree_close(got_state, exp_state)


def test_time_major_and_initial_state():
    x = tf.placeholder(tf.float64, [T, B, D])
    c0 = tf.placeholder(tf.float64, [B, H])
    h0 = tf.placeholder(tf.float64, [B, H])
    cell = rc.BasicLSTMCell(H)
    out, state = rc.dynamic_rnn(cell, x, initial_state=rc.LSTMStateTuple(c0, h0), time_major=True)
    sess, w = _session_with_random_weights()
    xs = _inputs()
    init = (np.full((B, H), 0.3), np.full((B, H), -0.2))
    got_out, got_state = sess.run([out, state], {x: xs.transpose(1, 0, 2), c0: init[0], h0: init[1]})
    exp_out, exp_state = ref.run(ref.basic_lstm_step(w["rnn/basic_lstm_cell/kernel"], w["rnn/basic_lstm_cell/bias"]),
                                 xs, init)
    assert got_out.shape == (T, B, H)
    _assert_tree_close(got_out.transpose(1, 0, 2), exp_out)
    _assert_tree_close(tuple(got_state), exp_state)


def test_static_rnn_matches_dynamic_rnn_with_the_same_weights():
    x = tf.placeholder(tf.float64, [B, T, D])
    cell = rc.GRUCell(H)
    lengths = [3, 5, 1]
    dyn_out, dyn_state = rc.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float64)
    st_out, st_state = rc.static_rnn(cell, tf.unstack(x, axis=1), sequence_length=lengths, dtype=tf.float64)
    assert len(tf.trainable_variables()) == 4    # the cell object shares its variables across both calls
    assert isinstance(st_out, list) and len(st_out) == T
    sess, _ = _session_with_random_weights()
    feed = {x: _inputs()}
    a, b, c, d = sess.run([dyn_out, dyn_state, st_out, st_state], feed)
    _assert_tree_close(np.stack(c, 1), a)
    _assert_tree_close(d, b)


@pytest.mark.parametrize("lengths", [None, [5, 3, 1]], ids=["full", "lengths"])
def test_bidirectional_dynamic_rnn_runs_backward_over_each_sequence(lengths):
    x = tf.placeholder(tf.float64, [B, T, D])
    (out_fw, out_bw), (st_fw, st_bw) = rc.bidirectional_dynamic_rnn(
        rc.BasicRNNCell(H), rc.BasicRNNCell(2), x, sequence_length=lengths, dtype=tf.float64)
    sess, w = _session_with_random_weights()
    xs = _inputs()
    got = sess.run([out_fw, out_bw, st_fw, st_bw], {x: xs})
    fw = ref.basic_rnn_step(w["bidirectional_rnn/fw/basic_rnn_cell/kernel"], w["bidirectional_rnn/fw/basic_rnn_cell/bias"])
    bw = ref.basic_rnn_step(w["bidirectional_rnn/bw/basic_rnn_cell/kernel"], w["bidirectional_rnn/bw/basic_rnn_cell/bias"])
    exp_fw, exp_st_fw = ref.run(fw, xs, np.zeros((B, H)), lengths)
    n = [T] * B if lengths is None else lengths
    rev = np.stack([np.concatenate([xs[b, :n[b]][::-1], xs[b, n[b]:]]) for b in range(B)])
    out_rev, exp_st_bw = ref.run(bw, rev, np.zeros((B, 2)), lengths)
    exp_bw = np.stack([np.concatenate([out_rev[b, :n[b]][::-1], out_rev[b, n[b]:]]) for b in range(B)])
    for g, e in zip(got, [exp_fw, exp_bw, exp_st_fw, exp_st_bw]):
        _assert_tree_close(g, e)


def test_static_bidirectional_rnn_concatenates_directions():
    x = tf.placeholder(tf.float64, [B, T, D])
    lengths = [4, 5, 2]
    outs, st_fw, st_bw = rc.static_bidirectional_rnn(rc.BasicRNNCell(H), rc.BasicRNNCell(2), tf.unstack(x, axis=1),
                                                     dtype=tf.float64, sequence_length=lengths)
    assert len(outs) == T and outs[0].shape.as_list() == [B, H + 2]
    sess, w = _session_with_random_weights()
    xs = _inputs()
    got, got_fw, got_bw = sess.run([outs, st_fw, st_bw], {x: xs})
    fw = ref.basic_rnn_step(w["bidirectional_rnn/fw/basic_rnn_cell/kernel"], w["bidirectional_rnn/fw/basic_rnn_cell/bias"])
    bw = ref.basic_rnn_step(w["bidirectional_rnn/bw/basic_rnn_cell/kernel"], w["bidirectional_rnn/bw/basic_rnn_cell/bias"])
    exp_fw, exp_st_fw = ref.run(fw, xs, np.zeros((B, H)), lengths)
    rev = np.stack([np.concatenate([xs[b, :n][::-1], xs[b, n:]]) for b, n in enumerate(lengths)])
    out_rev, exp_st_bw = ref.run(bw, rev, np.zeros((B, 2)), lengths)
    exp_bw = np.stack([np.concatenate([out_rev[b, :n][::-1], out_rev[b, n:]]) for b, n in enumerate(lengths)])
    _assert_tree_close(np.stack(got, 1), np.concatenate([exp_fw, exp_bw], 2))
    _assert_tree_close(got_fw, exp_st_fw)
    _assert_tree_close(got_bw, exp_st_bw)


def test_float32_inputs_stay_float32():
    x = tf.placeholder(tf.float32, [B, T, D])
    out, state = rc.dynamic_rnn(rc.MultiRNNCell([rc.LSTMCell(H, use_peepholes=True), rc.GRUCell(H)]), x,
                                sequence_length=[1, 2, 3], dtype=tf.float32)
    assert all(v.dtype.base_dtype == tf.float32 for v in tf.trainable_variables())
    sess, _ = _session_with_random_weights()
    got = sess.run([out] + [t for t in (state[0].c, state[0].h, state[1])], {x: _inputs().astype(np.float32)})
    assert all(g.dtype == np.float32 for g in got)


def _np_bidirectional(fw, bw, xs, lengths, h_fw, h_bw):
    n = [xs.shape[1]] * xs.shape[0] if lengths is None else lengths
    out_fw, st_fw = ref.run(fw, xs, np.zeros((xs.shape[0], h_fw)), lengths)
    rev = np.stack([np.concatenate([xs[b, :k][::-1], xs[b, k:]]) for b, k in enumerate(n)])
    out_rev, st_bw = ref.run(bw, rev, np.zeros((xs.shape[0], h_bw)), lengths)
    out_bw = np.stack([np.concatenate([out_rev[b, :k][::-1], out_rev[b, k:]]) for b, k in enumerate(n)])
    return np.concatenate([out_fw, out_bw], 2), st_fw, st_bw


def test_stack_bidirectional_dynamic_rnn_feeds_each_layer_the_previous_outputs():
    x = tf.placeholder(tf.float64, [B, T, D])
    lengths = [5, 2, 4]
    out, states_fw, states_bw = tf.contrib.rnn.stack_bidirectional_dynamic_rnn(
        [rc.BasicRNNCell(H), rc.BasicRNNCell(2)], [rc.BasicRNNCell(3), rc.BasicRNNCell(2)], x,
        sequence_length=lengths, dtype=tf.float64)
    assert out.shape.as_list() == [B, T, 4] and len(states_fw) == 2
    sess, w = _session_with_random_weights()
    xs = _inputs()
    got = sess.run([out, states_fw, states_bw], {x: xs})

    def step(layer, direction):
        p = "stack_bidirectional_rnn/cell_%d/bidirectional_rnn/%s/basic_rnn_cell/" % (layer, direction)
        return ref.basic_rnn_step(w[p + "kernel"], w[p + "bias"])
    mid, fw0, bw0 = _np_bidirectional(step(0, "fw"), step(0, "bw"), xs, lengths, H, 3)
    top, fw1, bw1 = _np_bidirectional(step(1, "fw"), step(1, "bw"), mid, lengths, 2, 2)
    _assert_tree_close(got[0], top)
    _assert_tree_close(tuple(got[1]), (fw0, fw1))
    _assert_tree_close(tuple(got[2]), (bw0, bw1))


def test_residual_wrapper_adds_inputs_to_outputs():
    x = tf.placeholder(tf.float64, [B, T, H])
    out, state = rc.dynamic_rnn(rc.ResidualWrapper(rc.GRUCell(H)), x, dtype=tf.float64)
    sess, w = _session_with_random_weights()
    xs = _inputs(shape=(B, T, H))
    got_out, got_state = sess.run([out, state], {x: xs})
    p = "rnn/gru_cell/"
    step = ref.gru_step(w[p + "gates/kernel"], w[p + "gates/bias"], w[p + "candidate/kernel"], w[p + "candidate/bias"])
    exp_out, exp_state = ref.run(step, xs, np.zeros((B, H)))
    _assert_tree_close(got_out, exp_out + xs)
    _assert_tree_close(got_state, exp_state)


def _flat(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _flat(item)]
    return [np.asarray(tree)]


def test_unknown_time_runs_a_while_loop_that_matches_the_unrolled_graph():
    cell = rc.MultiRNNCell([rc.BasicLSTMCell(H), rc.GRUCell(2)])
    lengths = tf.placeholder(tf.int32, [None])
    x_any = tf.placeholder(tf.float64, [None, None, D])
    x_fixed = tf.placeholder(tf.float64, [B, T, D])
    out_any, st_any = rc.dynamic_rnn(cell, x_any, sequence_length=lengths, dtype=tf.float64)
    out_fixed, st_fixed = rc.dynamic_rnn(cell, x_fixed, sequence_length=lengths, dtype=tf.float64)
    assert "While" in {op.type for op in tf.get_default_graph().get_operations()}
    assert out_any.shape.as_list() == [None, None, 2]
    variables = tf.trainable_variables()
    assert len(variables) == 6 and variables[0].op.name == "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel"

    def grads(x, out, st):
        return tf.gradients(tf.reduce_sum(tf.square(out)) + tf.reduce_sum(st[0].c) + tf.reduce_sum(st[1]),
                            [x] + variables)
    g_any, g_fixed = grads(x_any, out_any, st_any), grads(x_fixed, out_fixed, st_fixed)
    sess, _ = _session_with_random_weights()
    xs, n = _inputs(), [T, 2, 0]
    got = sess.run([out_any, st_any, g_any], {x_any: xs, lengths: n})
    exp = sess.run([out_fixed, st_fixed, g_fixed], {x_fixed: xs, lengths: n})
    for a, b in zip(_flat(got), _flat(exp)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    empty = sess.run(out_any, {x_any: np.zeros((2, 0, D)), lengths: [0, 0]})
    assert empty.shape == (2, 0, 2)
