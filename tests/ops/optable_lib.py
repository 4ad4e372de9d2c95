"""The op-table machinery: input specs, rows, and the forward + finite-difference checker."""
import numpy as np

import lens as tf

EPS = 1e-6          # central-difference step (float64 inputs)
GRAD_RTOL = 1e-5
GRAD_ATOL = 1e-6


class Spec:
    """One op input: random floats of the row's dtype, or a fixed array fed as given."""

    def __init__(self, shape=(), lo=-2.0, hi=2.0, away=None, fixed=None):
        self.shape, self.lo, self.hi, self.away, self.fixed = tuple(shape), lo, hi, away, fixed

    @property
    def is_float(self):
        return self.fixed is None

    def make(self, rng, dtype):
        if self.fixed is not None:
            return np.asarray(self.fixed)
        x = rng.uniform(self.lo, self.hi, size=self.shape)
        if self.away is not None:
            # Keep inputs off kinks/poles: push |x - k| >= margin for each kink k.
            for k, margin in self.away:
                d = x - k
                x = np.where(np.abs(d) < margin, k + np.copysign(margin + np.abs(d), d), x)
        return x.astype(dtype)


def F(*shape, lo=-2.0, hi=2.0, away=None):
    """A float input of the row dtype; away=[(kink, margin), ...] keeps values off kinks."""
    return Spec(shape, lo, hi, away)


def FIX(value, dtype=None):
    """A fixed input (indices, bools, ints) fed exactly as given."""
    return Spec(fixed=np.asarray(value, dtype=dtype))


AWAY0 = [(0.0, 0.1)]


class Row:
    """One op type exercised through its public wrapper and checked against NumPy."""

    def __init__(self, op, build, ref, variants, dtypes=("float32", "float64"), grad=True, rtol=None,
                 check=None, label=None):
        self.op, self.build, self.ref, self.variants = op, build, ref, variants
        self.dtypes, self.grad, self.rtol, self.check = dtypes, grad, rtol, check
        self.label = label or op

    def __repr__(self):
        return "Row(%s)" % self.label


def custom(op, check, label=None):
    """A row whose check builds and verifies by itself (stateful or random ops)."""
    return Row(op, None, None, [], check=check, label=label)


def _listify(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _assert_close(got, exp, rtol, what):
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.shape == exp.shape, "%s: shape %s, NumPy says %s" % (what, got.shape, exp.shape)
    if exp.dtype.kind in "fc":
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=rtol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, exp, err_msg=what)


def check_row(row, seed=0):
    """Run every variant and dtype of row: forward vs NumPy, then gradients vs finite differences."""
    if row.check is not None:
        row.check()
        return
    for vi, variant in enumerate(row.variants):
        has_float = any(s.is_float for s in variant)
        for dt in (row.dtypes if has_float else ("float64",)):
            rng = np.random.default_rng(seed + vi)
            vals = [s.make(rng, dt) for s in variant]
            _check_once(row, variant, vals, "%s variant %d %s" % (row.label, vi, dt if has_float else ""))


def _check_once(row, variant, vals, what):
    g = tf.Graph()
    with g.as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), v.shape, name="in%d" % i) for i, v in enumerate(vals)]
        outs = _listify(row.build(*phs))
        types = {o.type for o in g.get_operations()}
        assert row.op in types, "%s: the builder made %s, not a %s op" % (what, sorted(types), row.op)
        feed = dict(zip(phs, vals))
        with tf.Session(graph=g) as sess:
            got = sess.run(outs, feed)
        exp = _listify(row.ref(*vals))
        assert len(got) == len(exp), "%s: %d outputs, NumPy reference has %d" % (what, len(got), len(exp))
        low = any(np.asarray(v).dtype in (np.float32, np.float16) for v in vals)
        rtol = row.rtol or (2e-5 if low else 1e-10)
        for i, (o, gv, ev) in enumerate(zip(outs, got, exp)):
            gv = np.asarray(gv)
            assert gv.dtype == np.dtype(o.dtype.as_numpy_dtype), \
                "%s output %d: kernel gave %s, graph declares %s" % (what, i, gv.dtype, o.dtype.name)
            assert o.shape.is_compatible_with(gv.shape), \
                "%s output %d: static shape %s, run-time shape %s" % (what, i, o.shape, gv.shape)
            _assert_close(gv, ev, rtol, "%s output %d" % (what, i))
        float_idx = [i for i, s in enumerate(variant) if s.is_float]
        if row.grad and float_idx and all(np.asarray(v).dtype == np.float64 for v in vals if v.dtype.kind == "f"):
            _check_grad(g, phs, outs, feed, float_idx, what)


def _check_grad(g, phs, outs, feed, float_idx, what):
    rng = np.random.default_rng(1)
    with g.as_default():
        diff_outs = [o for o in outs if o.dtype.is_floating]
        weights = [rng.uniform(0.5, 1.5, size=o.shape.as_list() if o.shape.is_fully_defined() else ())
                   for o in diff_outs]
        loss = tf.add_n([tf.reduce_sum(o * tf.constant(w, dtype=o.dtype)) for o, w in zip(diff_outs, weights)]) \
            if len(diff_outs) > 1 else tf.reduce_sum(diff_outs[0] * tf.constant(weights[0], dtype=diff_outs[0].dtype))
        xs = [phs[i] for i in float_idx]
        # IndexedSlices gradients (gather) are checked through their dense value.
        grads = [gr if gr is None or isinstance(gr, tf.Tensor) else tf.convert_to_tensor(gr)
                 for gr in tf.gradients(loss, xs)]
        with tf.Session(graph=g) as sess:
            live = [gr for gr in grads if gr is not None]
            analytic = dict(zip([id(gr) for gr in live], sess.run(live, feed)))
            for x, gr in zip(xs, grads):
                base = feed[x]
                numeric = np.zeros_like(base)
                for k in np.ndindex(base.shape):
                    plus, minus = base.copy(), base.copy()
                    plus[k] += EPS
                    minus[k] -= EPS
                    lp = sess.run(loss, {**feed, x: plus})
                    lm = sess.run(loss, {**feed, x: minus})
                    numeric[k] = (lp - lm) / (2 * EPS)
                got = np.zeros_like(base) if gr is None else np.asarray(analytic[id(gr)])
                assert got.shape == base.shape, "%s: gradient shape %s for input shape %s" % (what, got.shape, base.shape)
                np.testing.assert_allclose(got, numeric, rtol=GRAD_RTOL, atol=GRAD_ATOL,
                                           err_msg="%s: d loss / d %s (analytic vs central differences)"
                                           % (what, x.op.name))


def dataset_elements(ds):
    """Every element of a tf.data dataset, read through a one-shot iterator until the end."""
    from lens import errors
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except errors.OutOfRangeError:
                return out
