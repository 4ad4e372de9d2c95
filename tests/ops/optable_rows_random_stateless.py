"""Op-table rows for the stateless random ops: uniform / int / full-int / normal / truncated normal draws equal
TF 2.21's for the recorded seeds (fixtures/record_stateless_tf.py); the other samplers are checked for
determinism, support and moments; the gamma gradient in alpha averages to d E[x] / d alpha = 1."""
import json
import pathlib

import numpy as np

import lens as tf
from lens.ops import random_stateless as R
from lens.ops import random_stateless_more as X
from optable_lib import custom

FIX = json.loads((pathlib.Path(__file__).parent / "fixtures" / "stateless_tf.json").read_text())


def _run(build):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(build())


def _tf_case(op_type, key, build, rtol=0.0, convert=None):
    def check():
        for name, case in FIX.items():
            seed = [int(v) for v in name.split("_")]
            got = _run(lambda: build(tf.constant(seed, tf.int64)))
            got = convert(got) if convert else got
            if rtol:
                np.testing.assert_allclose(got, case[key], rtol=rtol, atol=rtol, err_msg="%s %s" % (key, name))
            else:
                assert np.asarray(got).tolist() == case[key], "%s %s: %s vs TF %s" % (key, name, got, case[key])
        with tf.Graph().as_default():
            assert op_type in {o.type for o in [build(tf.constant([1, 2], tf.int64)).op]} | \
                {o.type for o in tf.get_default_graph().get_operations()}
    return custom(op_type, check, label="%s %s" % (op_type, key))


def _same_twice_and(op_type, build, check_values):
    def check():
        a, b = _run(lambda: build([4, 5])), _run(lambda: build([4, 5]))
        c = _run(lambda: build([4, 6]))
        assert np.array_equal(a, b) and not np.array_equal(a, c), "%s: not a function of the seed" % op_type
        check_values(_run(lambda: build([9, 9])))
    return custom(op_type, check, label=op_type + " determinism and moments")


def _gamma_grad_mean():
    with tf.Graph().as_default():
        alpha = tf.constant([0.7, 3.0], tf.float64)
        x = X.stateless_random_gamma([4000, 2], [3, 1], alpha, dtype=tf.float64)
        g = tf.gradients(tf.reduce_sum(x), alpha)[0]
        with tf.Session() as sess:
            xs, gs = sess.run([x, g])
    np.testing.assert_allclose(xs.mean(axis=0), [0.7, 3.0], rtol=0.06)
    np.testing.assert_allclose(gs / 4000, [1.0, 1.0], rtol=0.06)


ROWS = [
    _tf_case("StatelessRandomUniform", "uniform", lambda s: R.stateless_random_uniform([2, 5], s), rtol=1e-7),
    _tf_case("StatelessRandomUniform", "uniform64",
             lambda s: R.stateless_random_uniform([7], s, -2.0, 3.0, dtype=tf.float64), rtol=1e-12),
    _tf_case("StatelessRandomNormal", "normal", lambda s: R.stateless_random_normal([9], s, 1.0, 2.0), rtol=2e-6),
    _tf_case("StatelessRandomNormal", "normal64", lambda s: R.stateless_random_normal([5], s, dtype=tf.float64),
             rtol=1e-12),
    _tf_case("StatelessTruncatedNormal", "truncated", lambda s: R.stateless_truncated_normal([11], s), rtol=5e-6),
    _tf_case("StatelessTruncatedNormal", "truncated64",
             lambda s: R.stateless_truncated_normal([5], s, dtype=tf.float64), rtol=1e-12),
    _tf_case("StatelessRandomUniformInt", "int32",
             lambda s: R.stateless_random_uniform([9], s, -5, 1000, dtype=tf.int32)),
    _tf_case("StatelessRandomUniformInt", "int64",
             lambda s: R.stateless_random_uniform([5], s, -5, 10 ** 12, dtype=tf.int64)),
    _tf_case("StatelessRandomUniformFullInt", "full64",
             lambda s: R.stateless_random_uniform([3], s, None, None, dtype=tf.int64),
             convert=lambda v: [str(x) for x in v.tolist()]),
    _tf_case("StatelessRandomUniformFullInt", "full32",
             lambda s: R.stateless_random_uniform([3], s, None, None, dtype=tf.int32)),
    _tf_case("StatelessRandomUniformFullInt", "split", lambda s: X.stateless_split(s, 3)),
    _tf_case("StatelessRandomUniformFullInt", "fold_in", lambda s: X.stateless_fold_in(s, 17)),
    _same_twice_and("StatelessMultinomial", lambda s: X.stateless_categorical(np.log([[0.2, 0.5, 0.3]]), 6000, s),
                    lambda v: np.testing.assert_allclose(np.bincount(v[0], minlength=3) / 6000, [0.2, 0.5, 0.3],
                                                         atol=0.03)),
    _same_twice_and("StatelessRandomGammaV2", lambda s: X.stateless_random_gamma([5000], s, 2.5, beta=2.0),
                    lambda v: (np.testing.assert_allclose([v.mean(), v.var()], [1.25, 0.625], rtol=0.15),
                               np.testing.assert_array_less(0, v))),
    custom("StatelessRandomGammaV2", _gamma_grad_mean, label="StatelessRandomGammaV2 gradient"),
    _same_twice_and("StatelessRandomPoisson", lambda s: X.stateless_random_poisson([5000], s, 3.5),
                    lambda v: np.testing.assert_allclose([v.mean(), v.var()], [3.5, 3.5], rtol=0.08)),
    _same_twice_and("StatelessRandomBinomial", lambda s: X.stateless_random_binomial([5000], s, 10.0, 0.3),
                    lambda v: (np.testing.assert_allclose([v.mean(), v.var()], [3.0, 2.1], rtol=0.08),
                               np.testing.assert_array_less(v, 11))),
    _same_twice_and("StatelessParameterizedTruncatedNormal",
                    lambda s: X.stateless_parameterized_truncated_normal([5000], s, 1.0, 2.0, 0.0, 6.0),
                    lambda v: (np.testing.assert_array_less(-1e-12, v), np.testing.assert_array_less(v, 6.0 + 1e-12),
                               np.testing.assert_allclose(v.mean(), 1.976, rtol=0.04))),
]
