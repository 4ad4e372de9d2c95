"""Structured values: map_fn/scan on TensorArrays vs a concatenating accumulator (lens's former
formulation), and a sparse embedding step (IndexedSlices + scatter updates) vs the dense step."""
import numpy as np

from bench.timing import best_of


def _concat_map(tf, x, fn):
    """map_fn as lens built it before TensorArrays: a while_loop concatenating every result (O(n^2))."""
    n = tf.shape(x)[0]
    acc0 = tf.zeros([0, x.shape[1].value], x.dtype)

    def body(i, acc):
        return i + 1, tf.concat([acc, tf.expand_dims(fn(tf.gather(x, i)), 0)], 0)
    _, acc = tf.while_loop(lambda i, acc: i < n, body, (0, acc0),
                           shape_invariants=(tf.TensorShape([]), tf.TensorShape([None, x.shape[1]])))
    return acc


def _map_scan(tf, n, d, concat, repeat):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [n, d])
        if concat:
            y = _concat_map(tf, x, lambda r: r * 2.0 + 1.0)
        else:
            y = tf.map_fn(lambda r: r * 2.0 + 1.0, x)
        g = tf.gradients(tf.reduce_sum(y * y), x)[0]
        with tf.Session() as sess:
            v = np.random.default_rng(0).random((n, d), dtype=np.float32)
            out = sess.run([y, g], {x: v})
            t = best_of(lambda: sess.run([y, g], {x: v}), repeat, 1)
    return t, out


def _embedding_step(tf, rows, dim, batch, sparse, number):
    with tf.Graph().as_default():
        table = tf.Variable(np.zeros((rows, dim), np.float32))
        ids = tf.placeholder(tf.int32, [batch])
        source = table if sparse else table * 1.0     # `* 1.0`: the gradient reaches the table dense
        loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(source, ids) - 1.0))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {ids: np.random.default_rng(1).integers(0, rows, batch)}
            t = best_of(lambda: sess.run(train, feed), 3, number)
            return t, sess.run(table)


def run(quick=False):
    """Rows for the bench table."""
    import lens as tf
    n, d, repeat = (200, 64, 1) if quick else (2000, 512, 3)
    ta, out_ta = _map_scan(tf, n, d, False, repeat)
    cat, out_cat = _map_scan(tf, n, d, True, repeat)
    same = all(np.allclose(a, b) for a, b in zip(out_ta, out_cat))
    rows, dim, batch, number = (2000, 16, 64, 3) if quick else (100000, 64, 256, 10)
    sp, table_sp = _embedding_step(tf, rows, dim, batch, True, number)
    dn, table_dn = _embedding_step(tf, rows, dim, batch, False, number)
    return [
        {"name": "map_fn + gradient, %dx%d elements" % (n, d), "lens": ta * 1e3, "other": cat * 1e3,
         "other_name": "concat accumulator", "unit": "ms/run",
         "note": "TensorArrays: linear in the length; same values=%s" % same},
        {"name": "embedding SGD step, %dx%d table, %d ids" % (rows, dim, batch), "lens": sp * 1e3, "other": dn * 1e3,
         "other_name": "dense gradient", "unit": "ms/step",
         "note": "IndexedSlices + ScatterSub; same table=%s" % np.allclose(table_sp, table_dn, atol=1e-6)},
    ]


if __name__ == "__main__":
    from bench.run import format_table
    print(format_table(run()))
