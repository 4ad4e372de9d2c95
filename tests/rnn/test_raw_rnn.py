"""tf.nn.raw_rnn: the TF1.15 docstring's loop_fn reproduces dynamic_rnn (outputs, final state, gradients);
loop_state is threaded through; finished entries emit zeros and keep their state."""
import numpy as np

import lens as tf

T, B, D, H = 5, 3, 2, 4
X = np.random.default_rng(0).standard_normal((T, B, D)).astype(np.float32)
LENGTHS = np.array([5, 2, 3], np.int32)


def _loop_fn(cell, inputs_ta, with_state):
    def loop_fn(time, cell_output, cell_state, loop_state):
        next_cell_state = cell.zero_state(B, tf.float32) if cell_output is None else cell_state
        elements_finished = time >= LENGTHS
        next_input = tf.cond(tf.reduce_all(elements_finished), lambda: tf.zeros([B, D], dtype=tf.float32),
                             lambda: inputs_ta.read(time))
        if with_state:   # count the steps in the loop state
            loop_state = tf.constant(0) if cell_output is None else loop_state + 1
        return elements_finished, next_input, next_cell_state, cell_output, loop_state
    return loop_fn


def test_raw_rnn_matches_dynamic_rnn_with_gradients():
    inputs = tf.constant(X)
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=T).unstack(inputs)
    cell = tf.nn.rnn_cell.BasicRNNCell(H)
    outputs_ta, final_state, loop_state = tf.nn.raw_rnn(cell, _loop_fn(cell, inputs_ta, True))
    outputs = outputs_ta.stack()
    ref, ref_state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=LENGTHS, time_major=True, dtype=tf.float32)
    grads = tf.gradients(tf.reduce_sum(outputs * outputs) + tf.reduce_sum(final_state), [inputs, cell.weights[0]])
    ref_grads = tf.gradients(tf.reduce_sum(ref * ref) + tf.reduce_sum(ref_state), [inputs, cell.weights[0]])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([outputs, final_state, loop_state] + grads)
        exp = sess.run([ref, ref_state] + ref_grads)
    np.testing.assert_allclose(got[0], exp[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[1], exp[1], rtol=1e-6, atol=1e-6)
    assert got[2] == T   # the loop ran T steps: the longest sequence
    assert not got[0][2:, 1].any() and not got[0][3:, 2].any()   # finished entries emit zeros
    np.testing.assert_allclose(got[3], exp[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[4], exp[3], rtol=1e-5, atol=1e-6)
