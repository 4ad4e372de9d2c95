"""Normal, Laplace, Uniform and StudentT as TF1.15 defines them."""
import math

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.distributions.distribution import (FULLY_REPARAMETERIZED, Distribution, RegisterKL,
                                                 broadcast_to_batch, nan_where, static_broadcast)


def _params(names_values, dtype=None):
    """Parameters as tensors of one float dtype (the first's, or dtype)."""
    out = []
    for name, v in names_values:
        t = convert_to_tensor(v, dtype=dtype, name=name)
        dtype = dtype or t.dtype.base_dtype
        out.append(t)
    if not out[0].dtype.base_dtype.is_floating:
        raise TypeError("%s must be a floating point tensor, got %s" % (names_values[0][0], out[0].dtype.name))
    return out


def _c(value, like):
    return convert_to_tensor(value, dtype=like.dtype.base_dtype)


class _LocScale(Distribution):
    """Shared batch-shape and sampling plumbing of location/scale distributions."""

    def _batch_shape(self):
        return static_broadcast(*self._graph_parents)

    def _batch_shape_tensor(self):
        total = A.zeros_like(self._graph_parents[0])
        for p in self._graph_parents[1:]:
            total = M.add(total, A.zeros_like(p))
        return A.shape(total)

    def _sample_shape(self, n):
        s = self.batch_shape
        if not s.is_fully_defined():
            raise ValueError("sample needs a static batch shape in lens, got %s" % s)
        return [n] + s.as_list()


class _LocScaleParams(_LocScale):
    """A distribution given by loc and scale tensors (Normal, Laplace), named after its class."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name=None):
        parameters = dict(loc=loc, scale=scale, validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                          name=name or type(self).__name__)
        with name_scope(parameters["name"], values=[loc, scale]) as scope:
            self._loc, self._scale = _params([("loc", loc), ("scale", scale)])
        super().__init__(self._loc.dtype.base_dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._loc, self._scale], scope)

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale


class Normal(_LocScaleParams):
    """The normal distribution with mean loc and standard deviation scale."""

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_normal
        z = random_normal(self._sample_shape(n), dtype=self.dtype, seed=seed)
        return M.add(M.multiply(z, self._scale), self._loc)

    def _z(self, x):
        return M.truediv(M.subtract(x, self._loc), self._scale)

    def _log_prob(self, x):
        z = self._z(x)
        return M.subtract(M.multiply(_c(-0.5, z), M.square(z)),
                          M.add(_c(0.5 * math.log(2 * math.pi), z), M.log(self._scale)))

    def _cdf(self, x):
        from lens.ops.math_special import erfc
        z = self._z(x)
        return M.multiply(_c(0.5, z), erfc(M.multiply(z, _c(-1 / math.sqrt(2), z))))

    def _quantile(self, p):
        from lens.ops.special_fns import ndtri
        return M.add(M.multiply(ndtri(p), self._scale), self._loc)

    def _entropy(self):
        return broadcast_to_batch(M.add(_c(0.5 * math.log(2 * math.pi * math.e), self._scale),
                                        M.log(self._scale)), self)

    def _mean(self):
        return broadcast_to_batch(self._loc, self)

    _mode = _mean

    def _stddev(self):
        return broadcast_to_batch(self._scale, self)


@RegisterKL(Normal, Normal)
def _kl_normal_normal(a, b, name=None):
    with name_scope(name, "kl_normal_normal", [a.loc, b.loc]):
        ratio = M.square(M.truediv(a.scale, b.scale))
        diff = M.square(M.truediv(M.subtract(a.loc, b.loc), b.scale))
        one = _c(1.0, ratio)
        return M.multiply(_c(0.5, ratio), M.subtract(M.add(diff, ratio), M.add(one, M.log(ratio))))


class Laplace(_LocScaleParams):
    """The Laplace distribution: density exp(-|x - loc| / scale) / (2 scale)."""

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_uniform
        np_dt = self.dtype.as_numpy_dtype
        lo = np.nextafter(np_dt(-1.0), np_dt(1.0))   # the open interval (-1, 1), as TF's
        u = random_uniform(self._sample_shape(n), lo, 1.0, dtype=self.dtype, seed=seed)
        return M.subtract(self._loc, M.multiply(M.multiply(self._scale, M.sign(u)), M.log1p(M.negative(M.abs(u)))))

    def _log_prob(self, x):
        return M.subtract(M.negative(M.truediv(M.abs(M.subtract(x, self._loc)), self._scale)),
                          M.log(M.multiply(_c(2.0, x), self._scale)))

    def _cdf(self, x):
        from lens.ops.math_special import expm1
        z = M.truediv(M.subtract(x, self._loc), self._scale)
        return M.subtract(_c(0.5, z), M.multiply(M.multiply(_c(0.5, z), M.sign(z)), expm1(M.negative(M.abs(z)))))

    def _entropy(self):
        return broadcast_to_batch(M.add(_c(math.log(2.0) + 1.0, self._scale), M.log(self._scale)), self)

    def _mean(self):
        return broadcast_to_batch(self._loc, self)

    _mode = _mean

    def _stddev(self):
        return broadcast_to_batch(M.multiply(_c(math.sqrt(2.0), self._scale), self._scale), self)


class Uniform(_LocScale):
    """The uniform distribution on [low, high)."""

    def __init__(self, low=0., high=1., validate_args=False, allow_nan_stats=True, name="Uniform"):
        parameters = dict(locals())
        with name_scope(name, values=[low, high]) as scope:
            self._low, self._high = _params([("low", low), ("high", high)])
        super().__init__(self._low.dtype.base_dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._low, self._high], scope)

    @property
    def low(self):
        return self._low

    @property
    def high(self):
        return self._high

    def range(self, name="range"):
        with self._scope(name):
            return M.subtract(self._high, self._low)

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_uniform
        u = random_uniform(self._sample_shape(n), dtype=self.dtype, seed=seed)
        return M.add(self._low, M.multiply(self.range(), u))

    def _prob(self, x):
        from lens.ops.logic import greater_equal, less, logical_or, where
        inv = M.reciprocal(self.range())
        out = M.add(M.add(A.zeros_like(x), inv), A.zeros_like(self._low))
        zeros = A.zeros_like(out)
        x = M.add(x, zeros)
        return where(logical_or(less(x, M.add(self._low, zeros)), greater_equal(x, M.add(self._high, zeros))),
                     zeros, out)

    def _log_prob(self, x):
        return M.log(self._prob(x))

    def _cdf(self, x):
        from lens.ops.indexing import clip_by_value
        z = M.truediv(M.subtract(x, self._low), self.range())
        return clip_by_value(z, _c(0.0, z), _c(1.0, z))

    def _entropy(self):
        return broadcast_to_batch(M.log(self.range()), self)

    def _mean(self):
        return broadcast_to_batch(M.multiply(_c(0.5, self._low), M.add(self._low, self._high)), self)

    def _variance(self):
        return broadcast_to_batch(M.truediv(M.square(self.range()), _c(12.0, self._low)), self)

    def _stddev(self):
        return M.sqrt(self._variance())


class StudentT(_LocScale):
    """Student's t distribution with df degrees of freedom, location loc and scale."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True, name="StudentT"):
        parameters = dict(locals())
        with name_scope(name, values=[df, loc, scale]) as scope:
            self._df, self._loc, self._scale = _params([("df", df), ("loc", loc), ("scale", scale)])
        super().__init__(self._df.dtype.base_dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._df, self._loc, self._scale], scope)

    @property
    def df(self):
        return self._df

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_gamma, random_normal
        shape = self._sample_shape(n)
        normal = random_normal(shape, dtype=self.dtype, seed=seed)
        half_df = M.multiply(_c(0.5, self._df), broadcast_to_batch(self._df, self))
        gamma = random_gamma([n], half_df, beta=half_df, dtype=self.dtype, seed=seed)
        return M.add(M.multiply(M.multiply(normal, M.rsqrt(M.truediv(gamma, half_df))), self._scale), self._loc)

    def _log_prob(self, x):
        from lens.ops.special_ops import lgamma
        y = M.truediv(M.subtract(x, self._loc), self._scale)
        half = _c(0.5, y)
        log_unnorm = M.multiply(M.multiply(M.negative(half), M.add(self._df, _c(1.0, y))),
                                M.log1p(M.truediv(M.square(y), self._df)))
        log_norm = M.add(M.add(M.log(M.abs(self._scale)), M.multiply(half, M.log(self._df))),
                         M.add(_c(0.5 * math.log(math.pi), y),
                               M.subtract(lgamma(M.multiply(half, self._df)),
                                          lgamma(M.multiply(half, M.add(self._df, _c(1.0, y)))))))
        return M.subtract(log_unnorm, log_norm)

    def _cdf(self, x):
        from lens.ops.logic import less, where
        from lens.ops.special_fns import betainc
        y = M.truediv(M.subtract(x, self._loc), self._scale)
        x_t = M.truediv(self._df, M.add(M.square(y), self._df))
        neg = M.multiply(_c(0.5, y), betainc(M.multiply(_c(0.5, y), self._df), _c(0.5, x_t) + A.zeros_like(x_t), x_t))
        return where(less(y, A.zeros_like(y)), neg, M.subtract(_c(1.0, neg), neg))

    def _entropy(self):
        from lens.ops.special_ops import digamma
        from lens.ops.special_fns import lbeta
        df = broadcast_to_batch(self._df, self)
        half = _c(0.5, df)
        u = A.stack([M.multiply(half, df), M.add(A.zeros_like(df), half)], -1)
        return M.add(M.add(M.multiply(M.multiply(half, M.add(df, _c(1.0, df))),
                                      M.subtract(digamma(M.multiply(half, M.add(df, _c(1.0, df)))),
                                                 digamma(M.multiply(half, df)))),
                           M.add(M.multiply(half, M.log(df)), lbeta(u))),
                     M.log(M.abs(broadcast_to_batch(self._scale, self))))

    def _mean(self):
        from lens.ops.logic import less_equal
        mean = broadcast_to_batch(self._loc, self)
        return nan_where(less_equal(broadcast_to_batch(self._df, self), _c(1.0, mean)), mean, self.allow_nan_stats,
                         "mean not defined for components of df <= 1")

    def _mode(self):
        return broadcast_to_batch(self._loc, self)

    def _variance(self):
        from lens.ops.logic import greater, less_equal, where
        df = broadcast_to_batch(self._df, self)
        scale = broadcast_to_batch(self._scale, self)
        var = M.truediv(M.multiply(M.square(scale), df), M.subtract(df, _c(2.0, df)))
        inf = M.add(A.zeros_like(var), _c(np.inf, var))
        var = where(greater(df, _c(2.0, df)), var, inf)
        return nan_where(less_equal(df, _c(1.0, df)), var, self.allow_nan_stats,
                         "variance not defined for components of df <= 1")
