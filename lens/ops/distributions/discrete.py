"""Bernoulli, Categorical, Multinomial and DirichletMultinomial as TF1.15 defines them."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import reduce as R
from lens.ops.distributions.continuous import _c
from lens.ops.distributions.distribution import (NOT_REPARAMETERIZED, Distribution, RegisterKL,
                                                 static_broadcast)


def _logits_and_probs(logits, probs, multidimensional, dtype_hint=None):
    """(logits, probs) from exactly one of them (sigmoid / softmax links)."""
    from lens.ops.nn import softmax
    if (logits is None) == (probs is None):
        raise ValueError("Must pass probs or logits, but not both.")
    if logits is not None:
        logits = convert_to_tensor(logits, dtype=dtype_hint, name="logits")
        probs = softmax(logits) if multidimensional else M.sigmoid(logits)
        return logits, probs
    probs = convert_to_tensor(probs, dtype=dtype_hint, name="probs")
    logits = M.log(probs) if multidimensional else M.subtract(M.log(probs), M.log1p(M.negative(probs)))
    return logits, probs


class _LogitsProbs(Distribution):
    """A distribution given by logits or probs (Bernoulli, Categorical), named after its class."""

    _EVENT_AXIS = False  # True: the last axis of logits/probs holds the classes

    def __init__(self, logits=None, probs=None, dtype=_dt.int32, validate_args=False, allow_nan_stats=True,
                 name=None):
        parameters = dict(logits=logits, probs=probs, dtype=dtype, validate_args=validate_args,
                          allow_nan_stats=allow_nan_stats, name=name or type(self).__name__)
        with name_scope(parameters["name"]) as scope:
            self._logits, self._probs = _logits_and_probs(logits, probs, self._EVENT_AXIS)
        super().__init__(_dt.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters,
                         [self._logits, self._probs], scope)

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs


class Bernoulli(_LogitsProbs):
    """The Bernoulli distribution over {0, 1} with probs (or logits) of a 1."""

    def _batch_shape(self):
        return self._logits.shape

    def _batch_shape_tensor(self):
        return A.shape(self._logits)

    def _sample_n(self, n, seed=None):
        from lens.ops.random import random_uniform
        s = self.batch_shape
        if not s.is_fully_defined():
            raise ValueError("sample needs a static batch shape in lens, got %s" % s)
        u = random_uniform([n] + s.as_list(), dtype=self._probs.dtype.base_dtype, seed=seed)
        return M.cast(_less(u, self._probs), self.dtype)

    def _log_prob(self, x):
        from lens.ops.nn import sigmoid_cross_entropy_with_logits
        x = M.cast(x, self._logits.dtype.base_dtype)
        logits = M.add(self._logits, A.zeros_like(x))
        return M.negative(sigmoid_cross_entropy_with_logits(labels=M.add(x, A.zeros_like(logits)), logits=logits))

    def _entropy(self):
        from lens.ops.nn import sigmoid_cross_entropy_with_logits
        return sigmoid_cross_entropy_with_logits(labels=self._probs, logits=self._logits)

    def _mean(self):
        from lens.ops.core import identity
        return identity(self._probs)

    def _variance(self):
        return M.multiply(self._probs, M.subtract(_c(1.0, self._probs), self._probs))

    def _mode(self):
        return M.cast(_greater(self._probs, 0.5), self.dtype)


def _less(x, y):
    from lens.ops.logic import less
    return less(x, y)


def _greater(x, y):
    from lens.ops.logic import greater
    return greater(x, _c(y, x))


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    from lens.ops.nn import softplus
    with name_scope(name, "kl_bernoulli_bernoulli"):
        delta0 = M.subtract(softplus(M.negative(b.logits)), softplus(M.negative(a.logits)))
        delta1 = M.subtract(softplus(b.logits), softplus(a.logits))
        return M.add(M.multiply(M.sigmoid(a.logits), delta0), M.multiply(M.sigmoid(M.negative(a.logits)), delta1))


class Categorical(_LogitsProbs):
    """The categorical distribution over {0, ..., K - 1} with logits (or probs) [..., K]."""

    _EVENT_AXIS = True

    @property
    def event_size(self):
        d = self._logits.shape.as_list()[-1]
        return d if d is not None else A.shape(self._logits)[-1]

    def _batch_shape(self):
        return self._logits.shape[:-1]

    def _batch_shape_tensor(self):
        return A.shape(self._logits)[:-1]

    def _sample_n(self, n, seed=None):
        from lens.ops.random import multinomial
        s = self.batch_shape
        if not s.is_fully_defined():
            raise ValueError("sample needs a static batch shape in lens, got %s" % s)
        flat = A.reshape(self._logits, [-1, self.event_size])
        draws = multinomial(flat, n, seed=seed, output_dtype=_dt.int64)
        return M.cast(A.reshape(A.transpose(draws), [n] + s.as_list()), self.dtype)

    def _log_prob(self, k):
        from lens.ops.nn import sparse_softmax_cross_entropy_with_logits
        k = M.cast(k, _dt.int32)
        logits = self._logits
        if not k.shape.is_compatible_with(logits.shape[:-1]) or k.shape != logits.shape[:-1]:
            logits = M.add(logits, A.expand_dims(A.zeros_like(M.cast(k, logits.dtype.base_dtype)), -1))
            k = M.add(k, M.cast(A.zeros_like(logits[..., 0]), _dt.int32))
        return M.negative(sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits))

    def _cdf(self, k):
        # TF's Categorical.cdf sums the probabilities of the classes below k: P(X < k)
        from lens.ops.sequence import range as _range
        from lens.ops.logic import less
        k = M.cast(k, _dt.int32)
        probs = M.add(self._probs, A.expand_dims(A.zeros_like(M.cast(k, self._probs.dtype.base_dtype)), -1))
        below = less(_range(A.shape(probs)[-1]), A.expand_dims(M.add(k, M.cast(A.zeros_like(probs[..., 0]),
                                                                                _dt.int32)), -1))
        return R.reduce_sum(M.multiply(probs, M.cast(below, probs.dtype.base_dtype)), -1)

    def _entropy(self):
        from lens.ops.nn import log_softmax, softmax
        return M.negative(R.reduce_sum(M.multiply(log_softmax(self._logits), softmax(self._logits)), -1))

    def _mode(self):
        return M.cast(R.argmax(self._logits, -1), self.dtype)


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    from lens.ops.nn import log_softmax, softmax
    with name_scope(name, "kl_categorical_categorical"):
        return R.reduce_sum(M.multiply(softmax(a.logits), M.subtract(log_softmax(a.logits), log_softmax(b.logits))),
                            -1)


def _lg(x):
    from lens.ops.special_ops import lgamma
    return lgamma(x)


class Multinomial(Distribution):
    """Counts of total_count draws from K classes with logits (or probs) [..., K]."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Multinomial"):
        parameters = dict(locals())
        with name_scope(name) as scope:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            self._logits, self._probs = _logits_and_probs(logits, probs, True,
                                                          self._total_count.dtype.base_dtype)
            self._mean_val = M.multiply(A.expand_dims(self._total_count, -1), self._probs)
        super().__init__(self._probs.dtype.base_dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._total_count, self._logits, self._probs], scope)

    @property
    def total_count(self):
        return self._total_count

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    def _batch_shape(self):
        return self._mean_val.shape[:-1]

    def _batch_shape_tensor(self):
        return A.shape(self._mean_val)[:-1]

    def _event_shape(self):
        return self._mean_val.shape[-1:]

    def _sample_n(self, n, seed=None):
        from lens.ops.indexing import one_hot, sequence_mask
        from lens.ops.random import multinomial
        from lens.ops.shapes import const_value
        counts = const_value(self._total_count)
        s, k = self.batch_shape, self._mean_val.shape.as_list()[-1]
        if counts is None or not s.is_fully_defined() or k is None:
            raise ValueError("Multinomial.sample needs a constant total_count and static shapes in lens")
        import numpy as np
        draws_max = int(np.max(counts))
        counts_flat = np.broadcast_to(counts, s.as_list()).reshape(-1)
        logits = A.reshape(M.add(self._logits, A.zeros_like(self._mean_val)), [-1, k])
        draws = multinomial(logits, n * draws_max, seed=seed)                        # [B, n * draws_max]
        draws = A.reshape(draws, [-1, n, draws_max])
        mask = M.cast(sequence_mask(counts_flat.astype(np.int32), draws_max), self.dtype)   # [B, draws_max]
        hot = M.multiply(one_hot(draws, k, dtype=self.dtype), A.expand_dims(A.expand_dims(mask, 1), -1))
        x = R.reduce_sum(hot, 2)                                                   # [B, n, k]
        return A.reshape(A.transpose(x, [1, 0, 2]), [n] + s.as_list() + [k])

    def _log_prob(self, counts):
        from lens.ops.nn import log_softmax
        n = self._total_count
        norm = M.subtract(_lg(M.add(n, _c(1.0, n))), R.reduce_sum(_lg(M.add(counts, _c(1.0, counts))), -1))
        return M.add(R.reduce_sum(M.multiply(counts, log_softmax(self._logits)), -1), norm)

    def _mean(self):
        from lens.ops.core import identity
        return identity(self._mean_val)

    def _variance(self):
        return M.multiply(self._mean_val, M.subtract(_c(1.0, self._probs), self._probs))

    def _covariance(self):
        from lens.ops.linalg_extra import matrix_set_diag
        p = self._probs
        outer = M.negative(M.multiply(M.multiply(A.expand_dims(A.expand_dims(self._total_count, -1), -1),
                                                 A.expand_dims(p, -1)), A.expand_dims(p, -2)))
        return matrix_set_diag(outer, self._variance())


class DirichletMultinomial(Distribution):
    """Counts of total_count draws whose class probabilities are Dirichlet(concentration) distributed."""

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        parameters = dict(locals())
        with name_scope(name) as scope:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            self._concentration = convert_to_tensor(concentration, dtype=self._total_count.dtype.base_dtype,
                                                    name="concentration")
            self._total_concentration = R.reduce_sum(self._concentration, -1)
        super().__init__(self._concentration.dtype.base_dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._total_count, self._concentration], scope)

    @property
    def total_count(self):
        return self._total_count

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total_concentration

    def _batch_shape(self):
        return static_broadcast(self._total_count, self._total_concentration)

    def _event_shape(self):
        return self._concentration.shape[-1:]

    def _sample_n(self, n, seed=None):
        from lens.ops.distributions.gamma_family import Dirichlet
        probs = Dirichlet(self._concentration).sample(n, seed=seed)
        return Multinomial(self._total_count, probs=probs)._sample_n(1, seed=seed)[0]

    def _log_prob(self, counts):
        a, a0, n = self._concentration, self._total_concentration, self._total_count
        one = _c(1.0, a)
        return M.add(M.add(M.subtract(_lg(M.add(n, one)), _lg(M.add(n, a0))), _lg(a0)),
                     R.reduce_sum(M.subtract(M.subtract(_lg(M.add(counts, a)), _lg(a)),
                                             _lg(M.add(counts, one))), -1))

    def _mean(self):
        return M.multiply(A.expand_dims(self._total_count, -1),
                          M.truediv(self._concentration, A.expand_dims(self._total_concentration, -1)))

    def _variance(self):
        p = M.truediv(self._concentration, A.expand_dims(self._total_concentration, -1))
        n = A.expand_dims(self._total_count, -1)
        a0 = A.expand_dims(self._total_concentration, -1)
        return M.multiply(M.multiply(M.multiply(n, p), M.subtract(_c(1.0, p), p)),
                          M.truediv(M.add(n, a0), M.add(_c(1.0, a0), a0)))
