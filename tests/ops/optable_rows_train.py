"""Op-table rows for the in-place training ops (ApplyMomentum, ApplyAdam, ...): several steps vs NumPy."""
import numpy as np

import lens as tf
from lens.training import optimizers_ops as raw
from optable_lib import custom

SHAPE = (2, 3)


# Reference rules: pure functions returning the new (var, *slots), written apart from the kernels.
def ref_momentum(var, accum, grad, lr=0.1, momentum=0.9, nesterov=False):
    accum = momentum * accum + grad
    step = lr * grad + lr * momentum * accum if nesterov else lr * accum
    return var - step, accum


def ref_adagrad(var, accum, grad, lr=0.1):
    accum = accum + grad ** 2
    return var - lr * grad / np.sqrt(accum), accum


def ref_adadelta(var, accum, accum_update, grad, lr=1.0, rho=0.95, eps=1e-6):
    accum = rho * accum + (1 - rho) * grad ** 2
    update = np.sqrt(accum_update + eps) / np.sqrt(accum + eps) * grad
    accum_update = rho * accum_update + (1 - rho) * update ** 2
    return var - lr * update, accum, accum_update


def ref_adam(var, m, v, grad, b1p, b2p, lr=0.01, b1=0.9, b2=0.999, eps=1e-8, nesterov=False):
    m = b1 * m + (1 - b1) * grad
    v = b2 * v + (1 - b2) * grad ** 2
    alpha = lr * np.sqrt(1 - b2p) / (1 - b1p)
    num = (b1 * m + (1 - b1) * grad) if nesterov else m
    return var - alpha * num / (np.sqrt(v) + eps), m, v


def ref_rmsprop(var, ms, mom, grad, lr=0.01, rho=0.9, momentum=0.5, eps=1e-6):
    ms = rho * ms + (1 - rho) * grad ** 2
    mom = momentum * mom + lr * grad / np.sqrt(ms + eps)
    return var - mom, ms, mom


def ref_centered_rmsprop(var, mg, ms, mom, grad, lr=0.01, rho=0.9, momentum=0.5, eps=1e-6):
    ms = rho * ms + (1 - rho) * grad ** 2
    mg = rho * mg + (1 - rho) * grad
    mom = momentum * mom + lr * grad / np.sqrt(ms - mg ** 2 + eps)
    return var - mom, mg, ms, mom


def ref_ftrl(var, accum, linear, grad, lr=0.5, l1=0.05, l2=0.1, power=-0.5, shrink=0.0):
    new_accum = accum + grad ** 2
    sigma = (new_accum ** -power - accum ** -power) / lr
    linear = linear + grad + 2 * shrink * var - sigma * var
    quad = new_accum ** -power / lr + 2 * l2
    var = np.where(np.abs(linear) > l1, (l1 * np.sign(linear) - linear) / quad, 0.0)
    return var, new_accum, linear


def _slot_inits(rng, n_slots, positive):
    return [rng.uniform(0.1, 1.0, SHAPE) if positive else rng.uniform(-1, 1, SHAPE) for _ in range(n_slots)]


def _stateful_row(op_type, n_slots, build, ref, positive=False, steps=3, slot_scale=None):
    """Run op_type `steps` times on variables and compare var and slots after each step."""
    def check():
        for dt in (np.float32, np.float64):
            rng = np.random.default_rng(7)
            var0 = rng.uniform(-1, 1, SHAPE)
            slots0 = _slot_inits(rng, n_slots, positive)
            if slot_scale is not None:
                slots0 = [a * f for a, f in zip(slots0, slot_scale)]
            grads = [rng.uniform(-1, 1, SHAPE) for _ in range(steps)]
            with tf.Graph().as_default() as g:
                tvars = [tf.Variable(a.astype(dt), name="s%d" % i) for i, a in enumerate([var0] + slots0)]
                grad = tf.placeholder(dt, SHAPE, name="grad")
                step_ph = tf.placeholder(tf.int32, [], name="step")
                upd = build(tvars, grad, step_ph, dt)
                assert upd.op.type == op_type, "built %s, expected %s" % (upd.op.type, op_type)
                assert upd.dtype.base_dtype == tf.as_dtype(dt) and upd.dtype.is_ref_dtype
                assert upd.shape.as_list() == list(SHAPE)
                state = [var0] + slots0
                with tf.Session(graph=g) as sess:
                    sess.run(tf.global_variables_initializer())
                    for k, gv in enumerate(grads):
                        got_var = sess.run(upd, {grad: gv.astype(dt), step_ph: k + 1})
                        state = list(ref(*state, gv, k + 1))
                        got = [got_var] + sess.run(tvars[1:])
                        assert got_var.dtype == dt, "%s: output dtype %s, expected %s" % (op_type, got_var.dtype, dt)
                        tol = 2e-5 if dt == np.float32 else 1e-12
                        for i, (a, b) in enumerate(zip(got, state)):
                            np.testing.assert_allclose(a, b, rtol=tol, atol=tol,
                                                       err_msg="%s %s step %d, %s" % (op_type, dt.__name__, k + 1,
                                                                                     "var" if i == 0 else "slot %d" % i))
    return custom(op_type, check)


def _powers(step_ph, dt, b1=0.9, b2=0.999):
    s = tf.cast(step_ph, dt)
    return tf.pow(tf.constant(b1, dt), s), tf.pow(tf.constant(b2, dt), s)


def _build_adam(nesterov):
    def build(v, g, k, dt):
        b1p, b2p = _powers(k, dt)
        return raw.apply_adam(v[0], v[1], v[2], b1p, b2p, 0.01, 0.9, 0.999, 1e-8, g, use_nesterov=nesterov)
    return build


def _ref_adam(nesterov):
    def ref(var, m, v, grad, k):
        return ref_adam(var, m, v, grad, 0.9 ** k, 0.999 ** k, nesterov=nesterov)
    return ref


def _shape_errors():
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros((2, 3), np.float32))
        acc = tf.Variable(np.zeros((2, 3), np.float32))
        bad = tf.Variable(np.zeros((3,), np.float32))
        try:
            raw.apply_momentum(w, bad, 0.1, tf.zeros([2, 3]), 0.9)
        except ValueError as e:
            assert "accum" in str(e), e
        else:
            raise AssertionError("a slot of the wrong shape was accepted")
        try:
            raw.apply_momentum(w, acc, [0.1, 0.2], tf.zeros([2, 3]), 0.9)
        except ValueError as e:
            assert "rank 0" in str(e) and "lr" in str(e), e
        else:
            raise AssertionError("a non-scalar learning rate was accepted")
        try:
            raw.apply_adagrad(w, acc, 0.1, tf.zeros([3, 2]))
        except ValueError as e:
            assert "grad" in str(e), e
        else:
            raise AssertionError("a gradient of the wrong shape was accepted")


ROWS = [
    _stateful_row("ApplyMomentum", 1, lambda v, g, k, dt: raw.apply_momentum(v[0], v[1], 0.1, g, 0.9),
                  lambda var, acc, grad, k: ref_momentum(var, acc, grad)),
    _stateful_row("ApplyAdagrad", 1, lambda v, g, k, dt: raw.apply_adagrad(v[0], v[1], 0.1, g),
                  lambda var, acc, grad, k: ref_adagrad(var, acc, grad), positive=True),
    _stateful_row("ApplyAdadelta", 2, lambda v, g, k, dt: raw.apply_adadelta(v[0], v[1], v[2], 1.0, 0.95, 1e-6, g),
                  lambda var, a, u, grad, k: ref_adadelta(var, a, u, grad), positive=True),
    _stateful_row("ApplyAdam", 2, _build_adam(False), _ref_adam(False), positive=True),
    _stateful_row("ApplyRMSProp", 2,
                  lambda v, g, k, dt: raw.apply_rms_prop(v[0], v[1], v[2], 0.01, 0.9, 0.5, 1e-6, g),
                  lambda var, ms, mom, grad, k: ref_rmsprop(var, ms, mom, grad), positive=True),
    _stateful_row("ApplyCenteredRMSProp", 3,
                  lambda v, g, k, dt: raw.apply_centered_rms_prop(v[0], v[1], v[2], v[3], 0.01, 0.9, 0.5, 1e-6, g),
                  lambda var, mg, ms, mom, grad, k: ref_centered_rmsprop(var, mg, ms, mom, grad), positive=True,
                  # mg starts small next to ms so ms - mg^2 stays positive, as it does in training.
                  slot_scale=(0.1, 1.0, 1.0)),
    _stateful_row("ApplyFtrl", 2, lambda v, g, k, dt: raw.apply_ftrl(v[0], v[1], v[2], g, 0.5, 0.05, 0.1, -0.5),
                  lambda var, acc, lin, grad, k: ref_ftrl(var, acc, lin, grad), positive=True),
    _stateful_row("ApplyFtrlV2", 2,
                  lambda v, g, k, dt: raw.apply_ftrl_v2(v[0], v[1], v[2], g, 0.5, 0.05, 0.1, 0.2, -0.7),
                  lambda var, acc, lin, grad, k: ref_ftrl(var, acc, lin, grad, power=-0.7, shrink=0.2), positive=True),
    custom("ApplyAdam", _stateful_row("ApplyAdam", 2, _build_adam(True), _ref_adam(True), positive=True).check,
           label="ApplyAdam-nesterov"),
    custom("ApplyMomentum", _stateful_row(
        "ApplyMomentum", 1, lambda v, g, k, dt: raw.apply_momentum(v[0], v[1], 0.1, g, 0.9, use_nesterov=True),
        lambda var, acc, grad, k: ref_momentum(var, acc, grad, nesterov=True)).check, label="ApplyMomentum-nesterov"),
    custom("ApplyMomentum", _shape_errors, label="Apply-shape-errors"),
]
