"""tf.distributions against TensorFlow's values (recorded by fixtures/record_dist_tf.py), samples by
their moments, and the reparameterized samples' gradients."""
import pathlib
import sys

import numpy as np
import pytest

import lens as tf

FIX = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIX))
from dist_cases import DISTS, cases  # noqa: E402

RECORDED = np.load(FIX / "dist_tf.npz")
CASES = cases()
NAMES = sorted(n for n in CASES if n in RECORDED.files)


@pytest.mark.parametrize("name", NAMES)
def test_matches_tensorflow(name):
    with tf.Session() as sess:
        got = sess.run(CASES[name](tf))
    exp = RECORDED[name]
    assert got.shape == exp.shape and got.dtype == exp.dtype, (got.shape, got.dtype, exp.shape, exp.dtype)
    np.testing.assert_allclose(got, exp, rtol=2e-5, atol=2e-6)


def test_every_tf_method_is_covered_and_unimplemented_ones_raise():
    assert len(NAMES) > 100
    for name in ("categorical.mean", "multinomial.entropy", "uniform.mode"):
        with pytest.raises(NotImplementedError):
            CASES[name](tf)


@pytest.mark.parametrize("name", sorted(DISTS))
def test_sample_moments(name):
    d = DISTS[name][0](tf.distributions)
    x = d.sample(4000, seed=7)
    assert x.shape.as_list() == [4000] + d.batch_shape.as_list() + d.event_shape.as_list()
    assert x.dtype == d.dtype
    with tf.Session() as sess:
        samples = sess.run(x)
        try:
            mean, std = sess.run([d.mean(), d.stddev()])
        except NotImplementedError:   # Categorical: compare frequencies with probs instead
            probs = sess.run(d.probs)
            k = probs.shape[-1]
            freq = (samples[..., None] == np.arange(k)).mean(0)
            np.testing.assert_allclose(freq, probs * np.ones_like(freq), atol=0.03)
            return
    est = samples.astype(np.float64).mean(0)
    tol = 5 * np.broadcast_to(std, est.shape) / np.sqrt(4000) + 1e-6
    assert (np.abs(est - mean) <= tol).all(), (name, est, mean, tol)


def test_kl_registry_and_reparameterization():
    d = tf.distributions
    assert d.Normal(0., 1.).reparameterization_type is d.FULLY_REPARAMETERIZED
    assert d.Gamma(1., 1.).reparameterization_type is d.NOT_REPARAMETERIZED
    with pytest.raises(NotImplementedError, match="No KL"):
        d.kl_divergence(d.Normal(0., 1.), d.Gamma(1., 1.))

    class Mine(d.Normal):
        pass

    @d.RegisterKL(Mine, d.Gamma)
    def _kl(a, b, name=None):
        return tf.constant(42.0)
    with tf.Session() as sess:
        assert sess.run(d.kl_divergence(Mine(0., 1.), d.Exponential(1.))) == 42.0
        assert sess.run(d.kl_divergence(Mine(0., 1.), d.Normal(0., 1.))) == 0.0   # falls back to Normal's
    with pytest.raises(ValueError, match="already been registered"):
        d.RegisterKL(Mine, d.Gamma)(_kl)


def test_reparameterized_sample_gradients():
    loc = tf.constant([0.5, -1.0])
    scale = tf.constant([1.5, 0.7])
    x = tf.distributions.Normal(loc, scale).sample(5, seed=2)
    g_loc, g_scale = tf.gradients(tf.reduce_sum(x), [loc, scale])
    with tf.Session() as sess:
        xs, gl, gs = sess.run([x, g_loc, g_scale])
    np.testing.assert_allclose(gl, [5.0, 5.0])
    np.testing.assert_allclose(gs, ((xs - [0.5, -1.0]) / [1.5, 0.7]).sum(0), rtol=1e-5)


def test_bad_parameters():
    with pytest.raises(ValueError, match="probs or logits"):
        tf.distributions.Bernoulli()
    with pytest.raises(TypeError, match="floating"):
        tf.distributions.Normal(0, 1)
