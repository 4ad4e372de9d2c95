"""Gamma, Exponential, Beta and Dirichlet as TF1.15 defines them."""
import numpy as np

from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import reduce as R
from lens.ops.distributions.continuous import _LocScale, _c, _params
from lens.ops.distributions.distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED, RegisterKL,
                                                 broadcast_to_batch, nan_where)


def _lg(x):
    from lens.ops.special_ops import lgamma
    return lgamma(x)


def _dg(x):
    from lens.ops.special_ops import digamma
    return digamma(x)


class Gamma(_LocScale):
    """The gamma distribution with shape concentration and inverse scale rate."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True, name="Gamma"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration, rate]) as scope:
            self._concentration, self._rate = _params([("concentration", concentration), ("rate", rate)])
        super().__init__(self._concentration.dtype.base_dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._concentration, self._rate], scope)

    @property
    def concentration(self):
        return self._concentration

    @property
    def rate(self):
        return self._rate

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_gamma
        return random_gamma([n], broadcast_to_batch(self._concentration, self), beta=broadcast_to_batch(self._rate, self),
                            dtype=self.dtype, seed=seed)

    def _log_prob(self, x):
        a, b = self._concentration, self._rate
        return M.subtract(M.add(M.subtract(M.multiply(M.subtract(a, _c(1.0, a)), M.log(x)), M.multiply(b, x)),
                                M.multiply(a, M.log(b))), _lg(a))

    def _cdf(self, x):
        from lens.ops.special_fns import igamma
        return igamma(broadcast_to_batch(self._concentration, self) + A.zeros_like(x),
                      M.multiply(self._rate, x))

    def _entropy(self):
        a, b = self._concentration, self._rate
        return broadcast_to_batch(M.add(M.add(M.subtract(a, M.log(b)), _lg(a)),
                                        M.multiply(M.subtract(_c(1.0, a), a), _dg(a))), self)

    def _mean(self):
        return broadcast_to_batch(M.truediv(self._concentration, self._rate), self)

    def _variance(self):
        return broadcast_to_batch(M.truediv(self._concentration, M.square(self._rate)), self)

    def _stddev(self):
        return broadcast_to_batch(M.truediv(M.sqrt(self._concentration), self._rate), self)

    def _mode(self):
        from lens.ops.logic import less_equal
        a = broadcast_to_batch(self._concentration, self)
        mode = M.truediv(M.subtract(a, _c(1.0, a)), broadcast_to_batch(self._rate, self))
        return nan_where(less_equal(a, _c(1.0, a)), mode, self.allow_nan_stats,
                         "mode not defined when any concentration <= 1")


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    with name_scope(name, "kl_gamma_gamma"):
        a0, b0, a1, b1 = g0.concentration, g0.rate, g1.concentration, g1.rate
        return M.add(M.add(M.add(M.multiply(M.subtract(a0, a1), _dg(a0)), M.subtract(_lg(a1), _lg(a0))),
                           M.multiply(a1, M.subtract(M.log(b0), M.log(b1)))),
                     M.multiply(a0, M.subtract(M.truediv(b1, b0), _c(1.0, b0))))


class Exponential(Gamma):
    """The exponential distribution with rate: Gamma(1, rate)."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with name_scope(name, values=[rate]) as scope:
            self._rate, = _params([("rate", rate)])
        super().__init__(A.ones_like(self._rate), self._rate, validate_args, allow_nan_stats, name=scope)
        self._parameters = {k: v for k, v in parameters.items() if k != "self"}
        self._reparameterization_type = FULLY_REPARAMETERIZED

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_uniform
        np_dt = self.dtype.as_numpy_dtype
        shape = self._sample_shape(n)
        u = random_uniform(shape, np.finfo(np_dt).tiny, 1.0, dtype=self.dtype, seed=seed)
        return M.truediv(M.negative(M.log(u)), self._rate)


class Beta(_LocScale):
    """The beta distribution on (0, 1) with concentration1 (alpha) and concentration0 (beta)."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False, allow_nan_stats=True,
                 name="Beta"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration1, concentration0]) as scope:
            self._c1, self._c0 = _params([("concentration1", concentration1), ("concentration0", concentration0)])
            self._total = M.add(self._c1, self._c0)
        super().__init__(self._c1.dtype.base_dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters,
                         [self._c1, self._c0], scope)

    @property
    def concentration1(self):
        return self._c1

    @property
    def concentration0(self):
        return self._c0

    @property
    def total_concentration(self):
        return self._total

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_gamma
        g1 = random_gamma([n], broadcast_to_batch(self._c1, self), dtype=self.dtype, seed=seed)
        g0 = random_gamma([n], broadcast_to_batch(self._c0, self), dtype=self.dtype,
                          seed=None if seed is None else seed + 1)
        return M.truediv(g1, M.add(g1, g0))

    def _lbeta(self):
        return M.subtract(M.add(_lg(self._c1), _lg(self._c0)), _lg(self._total))

    def _log_prob(self, x):
        one = _c(1.0, x)
        return M.subtract(M.add(M.multiply(M.subtract(self._c1, one), M.log(x)),
                                M.multiply(M.subtract(self._c0, one), M.log1p(M.negative(x)))), self._lbeta())

    def _cdf(self, x):
        from lens.ops.special_fns import betainc
        zeros = A.zeros_like(x)
        return betainc(M.add(self._c1, zeros), M.add(self._c0, zeros), M.add(x, A.zeros_like(self._c1)))

    def _entropy(self):
        one, two = _c(1.0, self._c1), _c(2.0, self._c1)
        return broadcast_to_batch(M.add(M.subtract(M.subtract(self._lbeta(), M.multiply(M.subtract(self._c1, one),
                                                                                         _dg(self._c1))),
                                                   M.multiply(M.subtract(self._c0, one), _dg(self._c0))),
                                        M.multiply(M.subtract(self._total, two), _dg(self._total))), self)

    def _mean(self):
        return broadcast_to_batch(M.truediv(self._c1, self._total), self)

    def _variance(self):
        t = self._total
        return broadcast_to_batch(M.truediv(M.multiply(self._c1, self._c0),
                                            M.multiply(M.square(t), M.add(t, _c(1.0, t)))), self)

    def _mode(self):
        from lens.ops.logic import less_equal, logical_or
        c1, c0 = broadcast_to_batch(self._c1, self), broadcast_to_batch(self._c0, self)
        mode = M.truediv(M.subtract(c1, _c(1.0, c1)), M.subtract(M.add(c1, c0), _c(2.0, c1)))
        return nan_where(logical_or(less_equal(c1, _c(1.0, c1)), less_equal(c0, _c(1.0, c0))), mode,
                         self.allow_nan_stats, "Mode undefined for concentration1 <= 1 or concentration0 <= 1.")


@RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    with name_scope(name, "kl_beta_beta"):
        return M.add(M.add(M.add(M.subtract(d2._lbeta(), d1._lbeta()),
                                 M.multiply(M.subtract(d1._c1, d2._c1), _dg(d1._c1))),
                           M.multiply(M.subtract(d1._c0, d2._c0), _dg(d1._c0))),
                     M.multiply(M.subtract(d2._total, d1._total), _dg(d1._total)))


class Dirichlet(_LocScale):
    """The Dirichlet distribution over the simplex, with concentration [..., k]."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True, name="Dirichlet"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration]) as scope:
            self._concentration, = _params([("concentration", concentration)])
            self._total = R.reduce_sum(self._concentration, -1)
        super().__init__(self._concentration.dtype.base_dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._concentration], scope)

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total

    def _batch_shape(self):
        return self._concentration.shape[:-1]

    def _event_shape(self):
        return self._concentration.shape[-1:]

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_gamma
        g = random_gamma([n], self._concentration, dtype=self.dtype, seed=seed)
        return M.truediv(g, R.reduce_sum(g, -1, keepdims=True))

    def _lbeta(self):
        return M.subtract(R.reduce_sum(_lg(self._concentration), -1), _lg(self._total))

    def _log_prob(self, x):
        from lens.ops.math_special import xlogy
        return M.subtract(R.reduce_sum(xlogy(M.subtract(self._concentration, _c(1.0, x)), x), -1), self._lbeta())

    def _entropy(self):
        k = M.cast(A.shape(self._concentration)[-1], self.dtype)
        return M.subtract(M.add(self._lbeta(), M.multiply(M.subtract(self._total, k), _dg(self._total))),
                          R.reduce_sum(M.multiply(M.subtract(self._concentration, _c(1.0, self._total)),
                                                  _dg(self._concentration)), -1))

    def _mean(self):
        return M.truediv(self._concentration, A.expand_dims(self._total, -1))

    def _variance(self):
        return M.truediv(M.multiply(self._mean(), M.subtract(_c(1.0, self._total), self._mean())),
                      A.expand_dims(M.add(self._total, _c(1.0, self._total)), -1))

    def _covariance(self):
        from lens.ops.linalg_extra import matrix_diag
        m = self._mean()
        denom = A.expand_dims(A.expand_dims(M.add(self._total, _c(1.0, self._total)), -1), -1)
        outer = M.multiply(A.expand_dims(m, -1), A.expand_dims(m, -2))
        return M.truediv(M.subtract(matrix_diag(m), outer), denom)

    def _mode(self):
        k = M.cast(A.shape(self._concentration)[-1], self.dtype)
        mode = M.truediv(M.subtract(self._concentration, _c(1.0, k)),
                         A.expand_dims(M.subtract(self._total, k), -1))
        from lens.ops.logic import less_equal
        return nan_where(less_equal(self._concentration, _c(1.0, k)), mode, self.allow_nan_stats,
                         "Mode undefined when any concentration <= 1")


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1, d2, name=None):
    with name_scope(name, "kl_dirichlet_dirichlet"):
        digamma_diff = M.subtract(_dg(d1.concentration), A.expand_dims(_dg(d1.total_concentration), -1))
        concentration_diff = M.subtract(d1.concentration, d2.concentration)
        return M.add(R.reduce_sum(M.multiply(concentration_diff, digamma_diff), -1),
                     M.subtract(d2._lbeta(), d1._lbeta()))

