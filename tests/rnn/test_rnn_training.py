"""RNN gradients against central finite differences, and LSTMs learning toy sequence tasks."""
import numpy as np
import pytest

import lens as tf
from lens.rnn import rnn_cell as rc

EPS = 1e-6


def _numeric_grad(sess, loss, feed, target, base, assign):
    """Central differences of loss with respect to one array fed (placeholder) or loaded (variable)."""
    numeric = np.zeros_like(base)
    for k in np.ndindex(base.shape):
        vals = []
        for delta in (EPS, -EPS):
            moved = base.copy()
            moved[k] += delta
            vals.append(sess.run(loss, assign(target, moved, feed)))
        numeric[k] = (vals[0] - vals[1]) / (2 * EPS)
    return numeric


def _feed_with(ph, value, feed):
    return {**feed, ph: value}


@pytest.mark.parametrize("make_cell", [
    lambda: rc.BasicLSTMCell(3, forget_bias=0.5),
    lambda: rc.LSTMCell(3, use_peepholes=True, num_proj=2),
], ids=["basic_lstm", "lstm_peepholes_projection"])
def test_tiny_lstm_gradients_match_finite_differences(make_cell):
    cell = make_cell()
    b, t, d = 2, 3, 2
    x = tf.placeholder(tf.float64, [b, t, d], name="x")
    m = cell.output_size
    c0 = tf.placeholder(tf.float64, [b, 3], name="c0")
    h0 = tf.placeholder(tf.float64, [b, m], name="h0")
    out, state = rc.dynamic_rnn(cell, x, sequence_length=[3, 2], initial_state=rc.LSTMStateTuple(c0, h0))
    rng = np.random.default_rng(0)
    w_out = tf.constant(rng.uniform(0.5, 1.5, (b, t, m)))
    w_c = tf.constant(rng.uniform(0.5, 1.5, (b, 3)))
    loss = tf.reduce_sum(out * w_out) + tf.reduce_sum(tf.square(state.c) * w_c) + tf.reduce_sum(state.h)
    variables = tf.trainable_variables()
    grads = tf.gradients(loss, [x, c0, h0] + variables)
    assert all(g is not None for g in grads)
    feed = {x: rng.normal(size=(b, t, d)), c0: rng.normal(size=(b, 3)) * 0.5, h0: rng.normal(size=(b, m)) * 0.5}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in variables:   # random biases and peepholes too, so every term is exercised
            v.load(rng.uniform(-0.7, 0.7, v.shape.as_list()), sess)
        analytic = sess.run(grads, feed)
        for ph, got in zip([x, c0, h0], analytic[:3]):
            exp = _numeric_grad(sess, loss, feed, ph, feed[ph], _feed_with)
            np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-7, err_msg="d loss / d %s" % ph.op.name)
        for v, got in zip(variables, analytic[3:]):
            def load(var, value, f):
                var.load(value, sess)
                return f
            base = sess.run(v)
            exp = _numeric_grad(sess, loss, feed, v, base, load)
            v.load(base, sess)
            np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-7, err_msg="d loss / d %s" % v.op.name)
    # Past its length (2), sequence 1 gets no gradient from the masked output of the last step.
    assert np.count_nonzero(analytic[0][1, 2]) == 0


def _classifier(x, sequence_length, units=8):
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(units), x, sequence_length=sequence_length,
                                   dtype=tf.float32)
    w = tf.get_variable("w", [units, 1])
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    return tf.matmul(state.h, w) + b


def _train(steps, lr, batch, feeds_for):
    y = tf.placeholder(tf.float32, [None, 1])
    logits = feeds_for.logits
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(logits > 0, tf.float32), y), tf.float32))
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    held_out = feeds_for(1000, y)
    before = sess.run(accuracy, held_out)
    for _ in range(steps):
        sess.run(train, feeds_for(batch, y))
    return sess, accuracy, held_out, before


def test_lstm_learns_to_echo_the_first_bit_of_a_long_sequence():
    steps_t = 10
    rng = np.random.default_rng(0)
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, steps_t, 1])

    def feeds(n, y):
        bits = rng.integers(0, 2, size=(n, steps_t))
        return {x: (2.0 * bits - 1)[:, :, None], y: bits[:, :1].astype(np.float32)}
    feeds.logits = _classifier(x, None)
    sess, accuracy, held_out, before = _train(steps=300, lr=2.0, batch=64, feeds_for=feeds)
    after = sess.run(accuracy, held_out)
    assert before < 0.7, "the untrained LSTM already solves the task (%.3f): the test proves nothing" % before
    assert after >= 0.97, "after 300 SGD steps the LSTM echoes the first of 10 bits with accuracy %.3f" % after


def test_lstm_learns_the_second_to_last_bit_of_each_sequence():
    # Past each length the inputs are noise: only a correctly masked final state carries the answer.
    steps_t = 8
    rng = np.random.default_rng(1)
    tf.set_random_seed(2)
    x = tf.placeholder(tf.float32, [None, steps_t, 1])
    lengths = tf.placeholder(tf.int32, [None])

    def feeds(n, y):
        bits = rng.integers(0, 2, size=(n, steps_t))
        n_valid = rng.integers(2, steps_t + 1, size=n)
        return {x: (2.0 * bits - 1)[:, :, None], lengths: n_valid,
                y: bits[np.arange(n), n_valid - 2][:, None].astype(np.float32)}
    feeds.logits = _classifier(x, lengths)
    sess, accuracy, held_out, before = _train(steps=150, lr=1.0, batch=64, feeds_for=feeds)
    after = sess.run(accuracy, held_out)
    ignoring_lengths = sess.run(accuracy, {**held_out, lengths: np.full(1000, steps_t)})
    assert before < 0.7
    assert after >= 0.97, "after 150 SGD steps: accuracy %.3f on the second-to-last valid bit" % after
    assert ignoring_lengths < 0.8, "the answer should depend on sequence_length (%.3f)" % ignoring_lengths
