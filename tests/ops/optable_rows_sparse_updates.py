"""Op-table rows: the in-place sparse updates (Scatter*, ScatterNd*, SparseApply*) against NumPy row by row."""
import numpy as np

import lens as tf
from lens.ops import state_scatter as SS
from lens.training import optimizers_sparse_ops as SA
from optable_lib import custom
from optable_rows_train import ref_adadelta, ref_adagrad, ref_centered_rmsprop, ref_ftrl, ref_momentum, ref_rmsprop

SHAPE = (4, 3)


def _scatter_row(op_type, fn, ref, nd=False):
    def check():
        rng = np.random.default_rng(3)
        start = rng.uniform(1, 2, SHAPE)
        idx = np.array([[1, 2], [3, 0], [1, 2]]) if nd else np.array([2, 0, 2])
        upd = rng.uniform(0.5, 1.5, [3] if nd else [3, SHAPE[1]])
        for dt in (np.float32, np.float64):
            with tf.Graph().as_default():
                v = tf.Variable(start.astype(dt))
                out = fn(v, idx, upd.astype(dt))
                assert out.op.type == op_type and out.dtype.is_ref_dtype and out.shape.as_list() == list(SHAPE)
                with tf.Session() as sess:
                    sess.run(v.initializer)
                    got = sess.run(out)
                    again = sess.run(v)
            exp = start.astype(dt).copy()
            where = tuple(idx.T) if nd else idx
            ref(exp, where, upd.astype(dt))
            np.testing.assert_allclose(got, exp, rtol=1e-6, err_msg=op_type)
            np.testing.assert_allclose(again, exp, rtol=1e-6, err_msg=op_type + " (the variable keeps it)")
    return custom(op_type, check)


def _set(a, i, u):
    for k, row in enumerate(i if not isinstance(i, tuple) else zip(*i)):
        a[row if not isinstance(i, tuple) else tuple(row)] = u[k]


ROWS = [
    _scatter_row("ScatterUpdate", SS.scatter_update, _set),
    _scatter_row("ScatterAdd", SS.scatter_add, np.add.at),
    _scatter_row("ScatterSub", SS.scatter_sub, np.subtract.at),
    _scatter_row("ScatterMul", SS.scatter_mul, np.multiply.at),
    _scatter_row("ScatterDiv", SS.scatter_div, np.divide.at),
    _scatter_row("ScatterMin", SS.scatter_min, np.minimum.at),
    _scatter_row("ScatterMax", SS.scatter_max, np.maximum.at),
    _scatter_row("ScatterNdUpdate", SS.scatter_nd_update, _set, nd=True),
    _scatter_row("ScatterNdAdd", SS.scatter_nd_add, np.add.at, nd=True),
    _scatter_row("ScatterNdSub", SS.scatter_nd_sub, np.subtract.at, nd=True),
]


def _sparse_apply_row(op_type, n_slots, build, ref, slot_scale=None):
    """op_type on rows [2, 0] then on a repeated row [1, 1] (applied one after the other, as TF)."""
    def check():
        rng = np.random.default_rng(5)
        state0 = [rng.uniform(-1, 1, SHAPE)] + [rng.uniform(0.1, 1.0, SHAPE) * (slot_scale or [1] * n_slots)[i]
                                                for i in range(n_slots)]
        for dt in (np.float32, np.float64):
            state = [a.copy() for a in state0]
            with tf.Graph().as_default():
                tv = [tf.Variable(a.astype(dt), name="s%d" % i) for i, a in enumerate(state0)]
                grad = tf.placeholder(dt, [2, SHAPE[1]])
                ind = tf.placeholder(tf.int64, [2])
                upd = build(tv, grad, ind)
                assert upd.op.type == op_type and upd.dtype.is_ref_dtype
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    for rows in ([2, 0], [1, 1]):
                        g = rng.uniform(-1, 1, [2, SHAPE[1]])
                        sess.run(upd, {grad: g.astype(dt), ind: rows})
                        for k, r in enumerate(rows):
                            new = ref(*[a[r] for a in state], g[k])
                            for a, n in zip(state, new):
                                a[r] = n
                        got = sess.run(tv)
                        tol = 2e-5 if dt == np.float32 else 1e-12
                        for i, (a, b) in enumerate(zip(got, state)):
                            np.testing.assert_allclose(a, b, rtol=tol, atol=tol,
                                                       err_msg="%s rows %s, %s" % (op_type, rows, i))
    return custom(op_type, check)


ROWS += [
    _sparse_apply_row("SparseApplyMomentum", 1, lambda v, g, i: SA.sparse_apply_momentum(v[0], v[1], 0.1, g, i, 0.9),
                      ref_momentum),
    _sparse_apply_row("SparseApplyAdagrad", 1, lambda v, g, i: SA.sparse_apply_adagrad(v[0], v[1], 0.1, g, i),
                      ref_adagrad),
    _sparse_apply_row("SparseApplyAdadelta", 2,
                      lambda v, g, i: SA.sparse_apply_adadelta(v[0], v[1], v[2], 1.0, 0.95, 1e-6, g, i), ref_adadelta),
    _sparse_apply_row("SparseApplyRMSProp", 2,
                      lambda v, g, i: SA.sparse_apply_rms_prop(v[0], v[1], v[2], 0.01, 0.9, 0.5, 1e-6, g, i),
                      ref_rmsprop),
    _sparse_apply_row("SparseApplyCenteredRMSProp", 3,
                      lambda v, g, i: SA.sparse_apply_centered_rms_prop(v[0], v[1], v[2], v[3], 0.01, 0.9, 0.5,
                                                                        1e-6, g, i),
                      ref_centered_rmsprop, slot_scale=[0.1, 1.0, 1.0]),   # ms - mg^2 stays positive
    _sparse_apply_row("SparseApplyFtrl", 2,
                      lambda v, g, i: SA.sparse_apply_ftrl(v[0], v[1], v[2], g, i, 0.5, 0.05, 0.1, -0.5), ref_ftrl),
    _sparse_apply_row("SparseApplyFtrlV2", 2,
                      lambda v, g, i: SA.sparse_apply_ftrl_v2(v[0], v[1], v[2], g, i, 0.5, 0.05, 0.1, 0.2, -0.5),
                      lambda var, acc, lin, grad: ref_ftrl(var, acc, lin, grad, shrink=0.2)),
]
