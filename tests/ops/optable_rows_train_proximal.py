"""Op-table rows for the proximal and dual-averaging training ops: 3 steps of each vs NumPy (dense and rows)."""
import numpy as np

import lens as tf
from lens.training import optimizers_proximal as P
from optable_lib import custom

LR, L1, L2 = 0.3, 0.05, 0.2


def _prox(p, lr):
    return np.sign(p) * np.maximum(np.abs(p) - lr * L1, 0) / (1 + lr * L2)


def ref_pgd(var, slots, grad, step):
    return _prox(var - LR * grad, LR), slots


def ref_padagrad(var, slots, grad, step):
    acc = slots[0] + grad ** 2
    lr = LR / np.sqrt(acc)
    return _prox(var - lr * grad, lr), [acc]


def ref_da(var, slots, grad, step):
    g, gg = slots[0] + grad, slots[1] + grad ** 2
    kept = np.sign(g) * np.maximum(np.abs(g) - L1 * step, 0)
    return -LR * kept / (L2 * step * LR + np.sqrt(gg)), [g, gg]


def _check(op_type, n_slots, build, ref, rows=None):
    def check():
        rng = np.random.default_rng(5)
        var0 = rng.uniform(-2, 2, size=(4, 3))
        slots0 = [rng.uniform(0.5, 1.5, size=(4, 3)) for _ in range(n_slots)]
        with tf.Graph().as_default():
            vs = [tf.Variable(a) for a in [var0] + slots0]
            g = tf.placeholder(tf.float64, [None, 3])
            step = tf.placeholder(tf.int64, [])
            out = build(vs, g, step)
            assert out.op.type == op_type
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                var, slots = var0.copy(), [s.copy() for s in slots0]
                for k in range(1, 4):
                    grad = rng.uniform(-1, 1, size=(len(rows) if rows else 4, 3))
                    sess.run(out, {g: grad, step: k})
                    if rows is None:
                        var, slots = ref(var, slots, grad, k)
                    else:
                        nv, ns = ref(var[rows], [s[rows] for s in slots], grad, k)
                        var[rows] = nv
                        for s, n in zip(slots, ns):
                            s[rows] = n
                    got = sess.run(vs)
                    np.testing.assert_allclose(got[0], var, rtol=1e-12, err_msg="%s step %d" % (op_type, k))
                    for gs, ws in zip(got[1:], slots):
                        np.testing.assert_allclose(gs, ws, rtol=1e-12)
    return custom(op_type, check, label=op_type + (" rows" if rows else ""))


ROWS = [
    _check("ApplyProximalGradientDescent", 0,
           lambda v, g, k: P.apply_proximal_gradient_descent(v[0], LR, L1, L2, g), ref_pgd),
    _check("ApplyProximalAdagrad", 1, lambda v, g, k: P.apply_proximal_adagrad(v[0], v[1], LR, L1, L2, g),
           ref_padagrad),
    _check("ApplyAdagradDA", 2, lambda v, g, k: P.apply_adagrad_da(v[0], v[1], v[2], g, LR, L1, L2, k), ref_da),
    _check("SparseApplyProximalGradientDescent", 0,
           lambda v, g, k: P.sparse_apply_proximal_gradient_descent(v[0], LR, L1, L2, g, [3, 1]), ref_pgd,
           rows=[3, 1]),
    _check("SparseApplyProximalAdagrad", 1,
           lambda v, g, k: P.sparse_apply_proximal_adagrad(v[0], v[1], LR, L1, L2, g, [0, 2]), ref_padagrad,
           rows=[0, 2]),
    _check("SparseApplyAdagradDA", 2,
           lambda v, g, k: P.sparse_apply_adagrad_da(v[0], v[1], v[2], g, [1, 3], LR, L1, L2, k), ref_da,
           rows=[1, 3]),
]
