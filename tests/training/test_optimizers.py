"""Optimizers: update rules vs hand-written NumPy over several steps, slot names, learning-rate decays."""
import math

import numpy as np
import pytest

import lens as tf

A = np.array([[1.0, 2.0, 0.5], [0.3, 1.5, 3.0]])
C = np.array([[0.5, -1.0, 2.0], [-0.2, 0.1, 1.0]])
W0 = np.array([[0.2, -0.4, 1.0], [0.7, -1.2, 0.3]])


def numpy_grad(w):
    """Gradient of the test loss 0.5 * sum(A * w^2) + sum(C * w)."""
    return A * w + C


# ---------------------------------------------------------------- hand-written NumPy optimizers
# TF1 turns Python hyperparameters into float32 tensors and casts them to the variable's dtype, so a
# float64 variable sees float32-rounded values: the references round the same way.
def h(*values):
    """Hyperparameters rounded through float32, as the optimizers see them."""
    return [float(np.float32(v)) for v in values]


def np_momentum(lr, mu, nesterov=False):
    lr, mu = h(lr, mu)
    acc = np.zeros_like(W0)

    def step(w, g, t):
        acc[...] = mu * acc + g
        return w - (lr * g + lr * mu * acc if nesterov else lr * acc)
    return step


def np_adagrad(lr, init=0.1):
    (lr,) = h(lr)
    acc = np.full_like(W0, init)

    def step(w, g, t):
        acc[...] += g * g
        return w - lr * g / np.sqrt(acc)
    return step


def np_adadelta(lr, rho, eps):
    lr, rho, eps = h(lr, rho, eps)
    acc, upd = np.zeros_like(W0), np.zeros_like(W0)

    def step(w, g, t):
        acc[...] = rho * acc + (1 - rho) * g * g
        delta = np.sqrt(upd + eps) / np.sqrt(acc + eps) * g
        upd[...] = rho * upd + (1 - rho) * delta * delta
        return w - lr * delta
    return step


def np_adam(lr, b1, b2, eps):
    lr, b1, b2, eps = h(lr, b1, b2, eps)
    m, v = np.zeros_like(W0), np.zeros_like(W0)
    # beta1_power / beta2_power are float32 variables whatever the model's dtype (TF1 too).
    powers = [np.float32(b1), np.float32(b2)]

    def step(w, g, t):
        m[...] = b1 * m + (1 - b1) * g
        v[...] = b2 * v + (1 - b2) * g * g
        b1p, b2p = float(powers[0]), float(powers[1])
        powers[0], powers[1] = powers[0] * np.float32(b1), powers[1] * np.float32(b2)
        lr_t = lr * math.sqrt(1 - b2p) / (1 - b1p)
        return w - lr_t * m / (np.sqrt(v) + eps)
    return step


def np_rmsprop(lr, decay, mu, eps, centered=False):
    lr, decay, mu, eps = h(lr, decay, mu, eps)
    ms, mg, mom = np.ones_like(W0), np.zeros_like(W0), np.zeros_like(W0)

    def step(w, g, t):
        ms[...] = decay * ms + (1 - decay) * g * g
        denom = ms + eps
        if centered:
            mg[...] = decay * mg + (1 - decay) * g
            denom = ms - mg * mg + eps
        mom[...] = mu * mom + lr * g / np.sqrt(denom)
        return w - mom
    return step


def np_ftrl(lr, l1, l2, power=-0.5, init=0.1, shrink=0.0):
    lr, l1, l2, power, shrink = h(lr, l1, l2, power, shrink)   # the accumulator starts at the exact init
    n, z = np.full_like(W0, init), np.zeros_like(W0)

    def step(w, g, t):
        n_new = n + g * g
        sigma = (n_new ** -power - n ** -power) / lr
        z[...] = z + g + 2 * shrink * w - sigma * w
        n[...] = n_new
        w_new = -(z - np.sign(z) * l1) / (n_new ** -power / lr + 2 * l2)
        return np.where(np.abs(z) <= l1, 0.0, w_new)
    return step


CASES = [
    ("momentum", lambda: tf.train.MomentumOptimizer(0.1, 0.9), lambda: np_momentum(0.1, 0.9)),
    ("nesterov", lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
     lambda: np_momentum(0.1, 0.9, nesterov=True)),
    ("adagrad", lambda: tf.train.AdagradOptimizer(0.3), lambda: np_adagrad(0.3)),
    ("adadelta", lambda: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6), lambda: np_adadelta(1.0, 0.9, 1e-6)),
    ("adam", lambda: tf.train.AdamOptimizer(0.05), lambda: np_adam(0.05, 0.9, 0.999, 1e-8)),
    ("rmsprop", lambda: tf.train.RMSPropOptimizer(0.01), lambda: np_rmsprop(0.01, 0.9, 0.0, 1e-10)),
    ("rmsprop-momentum", lambda: tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-6),
     lambda: np_rmsprop(0.01, 0.8, 0.5, 1e-6)),
    ("rmsprop-centered", lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.3, centered=True),
     lambda: np_rmsprop(0.01, 0.9, 0.3, 1e-10, centered=True)),
    ("ftrl", lambda: tf.train.FtrlOptimizer(0.5, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
     lambda: np_ftrl(0.5, 0.05, 0.1)),
    ("ftrl-power-shrinkage", lambda: tf.train.FtrlOptimizer(0.5, learning_rate_power=-0.7, l1_regularization_strength=0.01,
                                                            l2_shrinkage_regularization_strength=0.2),
     lambda: np_ftrl(0.5, 0.01, 0.0, power=-0.7, shrink=0.2)),
    ("ftrl-beta", lambda: tf.train.FtrlOptimizer(0.5, l2_regularization_strength=0.1, beta=0.4),
     lambda: np_ftrl(0.5, 0.0, np.float32(0.1) + np.float32(0.4) / np.float32(2 * 0.5))),
]


def _run_steps(make_opt, dtype, steps=5):
    with tf.Graph().as_default():
        w = tf.Variable(W0.astype(dtype), name="w")
        loss = 0.5 * tf.reduce_sum(tf.constant(A, dtype) * tf.square(w)) + tf.reduce_sum(tf.constant(C, dtype) * w)
        gstep = tf.train.get_or_create_global_step()
        train = make_opt().minimize(loss, global_step=gstep)
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
                out.append(sess.run(w))
            assert sess.run(gstep) == steps
    return out


@pytest.mark.parametrize("label,make_opt,make_ref", CASES, ids=[c[0] for c in CASES])
def test_update_rule_matches_numpy_for_several_steps(label, make_opt, make_ref):
    ref_step = make_ref()
    w = W0.copy()
    expected = []
    for t in range(1, 6):
        w = ref_step(w, numpy_grad(w), t)
        expected.append(w)
    assert not np.allclose(expected[-1], W0), "the reference must move the variable"
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 2e-5)):
        got = _run_steps(make_opt, dtype)
        for t, (g, e) in enumerate(zip(got, expected), 1):
            assert g.dtype == dtype
            np.testing.assert_allclose(g, e, rtol=tol, atol=tol, err_msg="%s %s step %d" % (label, dtype.__name__, t))


SLOTS = [
    (lambda: tf.train.MomentumOptimizer(0.1, 0.9), {"momentum": "w/Momentum"}, []),
    (lambda: tf.train.AdagradOptimizer(0.1), {"accumulator": "w/Adagrad"}, []),
    (lambda: tf.train.AdadeltaOptimizer(), {"accum": "w/Adadelta", "accum_update": "w/Adadelta_1"}, []),
    (lambda: tf.train.AdamOptimizer(), {"m": "w/Adam", "v": "w/Adam_1"}, ["beta1_power", "beta2_power"]),
    (lambda: tf.train.RMSPropOptimizer(0.1), {"rms": "w/RMSProp", "momentum": "w/RMSProp_1"}, []),
    (lambda: tf.train.RMSPropOptimizer(0.1, centered=True),
     {"rms": "w/RMSProp", "mg": "w/RMSProp_1", "momentum": "w/RMSProp_2"}, []),
    (lambda: tf.train.FtrlOptimizer(0.1), {"accum": "w/Ftrl", "linear": "w/Ftrl_1"}, []),
]


@pytest.mark.parametrize("make_opt,slots,non_slot", SLOTS)
def test_slot_variables_have_tf1_names(make_opt, slots, non_slot):
    with tf.Graph().as_default():
        w = tf.Variable(W0.astype(np.float32), name="w")
        b = tf.Variable([1.0, 2.0], name="b")
        opt = make_opt()
        opt.minimize(tf.reduce_sum(w * w) + tf.reduce_sum(b))
        assert opt.get_slot_names() == sorted(slots)
        for slot_name, var_name in slots.items():
            slot = opt.get_slot(w, slot_name)
            assert slot.op.name == var_name
            assert slot.shape.as_list() == [2, 3] and not slot.trainable
            assert opt.get_slot(b, slot_name).op.name.startswith("b/")
        assert opt.get_slot(w, "nope") is None
        names = [v.op.name for v in opt.variables()]
        assert names == sorted(names)
        assert set(names) == set(slots.values()) | {n.replace("w/", "b/") for n in slots.values()} | set(non_slot)
        assert {v.op.name for v in tf.trainable_variables()} == {"w", "b"}


def test_adam_beta_powers_advance_once_per_step_after_the_update():
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        v = tf.Variable([3.0], name="v")
        opt = tf.train.AdamOptimizer(0.1, beta1=0.8, beta2=0.9)
        train = opt.minimize(tf.reduce_sum(w * w) + tf.reduce_sum(v))
        b1p, b2p = opt._get_beta_accumulators()
        assert (b1p.op.name, b2p.op.name) == ("beta1_power", "beta2_power")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            np.testing.assert_allclose(sess.run([b1p, b2p]), [0.8 ** 4, 0.9 ** 4], rtol=1e-6)


def test_second_optimizer_gets_uniquified_slots_and_hyperparameters_may_be_tensors():
    with tf.Graph().as_default():
        w = tf.Variable([1.0, -1.0], name="w")
        lr = tf.placeholder(tf.float32, [], name="lr")
        loss = tf.reduce_sum(w * w)
        t1 = tf.train.MomentumOptimizer(lr, 0.5).minimize(loss)
        opt2 = tf.train.MomentumOptimizer(lambda: 0.1, 0.5)
        opt2.minimize(loss)
        assert opt2.get_slot(w, "momentum").op.name == "w/Momentum_1"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(t1, {lr: 0.25})   # grad 2w, accum = 2w, w -= 0.25 * 2w
            np.testing.assert_allclose(sess.run(w), [0.5, -0.5])


def test_optimizer_argument_errors_name_the_problem():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0)
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        x = tf.Variable([1.0], name="x")
        with pytest.raises(ValueError, match="No gradients provided"):
            tf.train.AdamOptimizer().minimize(tf.reduce_sum(w), var_list=[x])


def test_uninitialized_slot_reports_the_slot_name():
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        train = tf.train.AdamOptimizer().minimize(tf.reduce_sum(w * w))
        with tf.Session() as sess:
            sess.run(w.initializer)
            with pytest.raises(tf.errors.FailedPreconditionError, match="w/Adam|beta1_power"):
                sess.run(train)


def test_adam_learns_a_linear_regression():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    ys = xs @ np.float32([[1.5], [-2.0], [0.5]]) + 0.3
    with tf.Graph().as_default():
        x, y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable(tf.zeros([3, 1]))
        b = tf.Variable(tf.zeros([1]))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss, {x: xs, y: ys})
            for _ in range(300):
                sess.run(train, {x: xs, y: ys})
            last = sess.run(loss, {x: xs, y: ys})
    assert last < 1e-3 * first, (first, last)


# ---------------------------------------------------------------- decays
def _decay_values(build, steps=(0, 1, 5, 10, 15, 25, 40)):
    with tf.Graph().as_default():
        gs = tf.placeholder(tf.int64, [], name="global_step")
        lr = build(gs)
        with tf.Session() as sess:
            return lr, [float(sess.run(lr, {gs: s})) for s in steps], steps


DECAYS = [
    ("exponential", lambda g: tf.train.exponential_decay(0.1, g, 10, 0.5), lambda s: 0.1 * 0.5 ** (s / 10)),
    ("exponential-staircase", lambda g: tf.train.exponential_decay(0.1, g, 10, 0.5, staircase=True),
     lambda s: 0.1 * 0.5 ** (s // 10)),
    ("natural_exp", lambda g: tf.train.natural_exp_decay(0.1, g, 10, 0.5), lambda s: 0.1 * math.exp(-0.5 * s / 10)),
    ("inverse_time", lambda g: tf.train.inverse_time_decay(0.1, g, 10, 0.5), lambda s: 0.1 / (1 + 0.5 * s / 10)),
    ("inverse_time-staircase", lambda g: tf.train.inverse_time_decay(0.1, g, 10, 0.5, staircase=True),
     lambda s: 0.1 / (1 + 0.5 * (s // 10))),
    ("polynomial", lambda g: tf.train.polynomial_decay(0.1, g, 20, 0.01, power=2.0),
     lambda s: (0.1 - 0.01) * (1 - min(s, 20) / 20) ** 2 + 0.01),
    ("polynomial-cycle", lambda g: tf.train.polynomial_decay(0.1, g, 10, 0.01, cycle=True),
     lambda s: (0.1 - 0.01) * (1 - s / (10 * max(1, math.ceil(s / 10)))) + 0.01),
    ("cosine", lambda g: tf.train.cosine_decay(0.1, g, 20, alpha=0.1),
     lambda s: 0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 20) / 20)) + 0.1)),
    ("piecewise", lambda g: tf.train.piecewise_constant(g, [np.int64(5), np.int64(15)], [1.0, 0.5, 0.1]),
     lambda s: 1.0 if s <= 5 else 0.5 if s <= 15 else 0.1),
]


@pytest.mark.parametrize("label,build,formula", DECAYS, ids=[d[0] for d in DECAYS])
def test_decay_follows_its_formula(label, build, formula):
    lr, got, steps = _decay_values(build)
    np.testing.assert_allclose(got, [formula(s) for s in steps], rtol=1e-6, err_msg=label)
    assert lr.dtype == tf.float32


def test_decay_names_and_errors():
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        assert tf.train.exponential_decay(0.1, step, 10, 0.9).op.name == "ExponentialDecay"
        assert tf.train.cosine_decay(0.1, step, 10, name="lr").op.name == "lr"
        with pytest.raises(ValueError, match="global_step is required for exponential_decay"):
            tf.train.exponential_decay(0.1, None, 10, 0.9)
        with pytest.raises(ValueError, match="1 less than the length of values"):
            tf.train.piecewise_constant(step, [5, 10], [1.0, 0.5])
        with pytest.raises(ValueError, match="same dtype"):
            tf.train.piecewise_constant(step, [5.0], [1.0, 0.5])


def test_decayed_rate_drives_an_optimizer_with_the_global_step():
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        step = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(0.5, step, 1, 0.5, staircase=True)
        train = tf.train.GradientDescentOptimizer(lr).minimize(tf.reduce_sum(w), global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            np.testing.assert_allclose(sess.run(w), [1.0 - 0.5 - 0.25 - 0.125])
