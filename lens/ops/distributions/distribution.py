"""The Distribution base class (sample / log_prob / prob / cdf / entropy / moments as graph ops, with
TF1.15's names and shape rules), ReparameterizationType and the KL-divergence registry."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M


class ReparameterizationType:
    """How a distribution's samples depend on its parameters (FULLY_ or NOT_REPARAMETERIZED)."""

    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return "<Reparameteriation Type: %s>" % self._rep_type

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def static_broadcast(*tensors):
    """The broadcast static shape of tensors."""
    from lens.ops.shapes import broadcast_shapes
    shape = TensorShape([])
    for t in tensors:
        shape = broadcast_shapes(shape, t.shape)
    return shape


class Distribution:
    """A batch of probability distributions; subclasses supply the _methods, this class the public API."""

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats, parameters=None,
                 graph_parents=None, name=None):
        if not name or name[-1] != "/":
            with name_scope(name or type(self).__name__) as scope:
                name = scope
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = dict(parameters or {})
        self._parameters.pop("self", None)
        self._graph_parents = list(graph_parents or [])
        self._name = name

    # ---- properties ----
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def parameters(self):
        return {k: v for k, v in self._parameters.items() if not k.startswith("__")}

    @property
    def reparameterization_type(self):
        return self._reparameterization_type

    @property
    def allow_nan_stats(self):
        return self._allow_nan_stats

    @property
    def validate_args(self):
        return self._validate_args

    @property
    def batch_shape(self):
        return TensorShape(self._batch_shape())

    @property
    def event_shape(self):
        return TensorShape(self._event_shape())

    def _event_shape(self):
        return TensorShape([])

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._scope(name):
            s = self.batch_shape
            return convert_to_tensor(s.as_list(), dtype=_dt.int32) if s.is_fully_defined() else \
                self._batch_shape_tensor()

    def event_shape_tensor(self, name="event_shape_tensor"):
        with self._scope(name):
            s = self.event_shape
            return convert_to_tensor(s.as_list(), dtype=_dt.int32) if s.is_fully_defined() else \
                self._event_shape_tensor()

    def is_scalar_batch(self, name="is_scalar_batch"):
        return self.batch_shape.ndims == 0

    def is_scalar_event(self, name="is_scalar_event"):
        return self.event_shape.ndims == 0

    def copy(self, **override_parameters_kwargs):
        """A new instance with the same parameters, some overridden."""
        params = dict(self.parameters, **override_parameters_kwargs)
        return type(self)(**params)

    def _scope(self, name):
        return name_scope(self.name + name if self.name.endswith("/") else name)

    # ---- sampling ----
    def sample(self, sample_shape=(), seed=None, name="sample"):
        """Samples of shape sample_shape + batch_shape + event_shape."""
        with self._scope(name):
            shape = [int(v) for v in np.ravel(sample_shape)] if not hasattr(sample_shape, "op") else None
            if shape is None:
                raise ValueError("sample: lens takes a Python sample_shape, got a tensor")
            n = int(np.prod(shape)) if shape else 1
            samples = self._sample_n(n, seed)
            tail = self.batch_shape.concatenate(self.event_shape)
            if tail.is_fully_defined():
                return A.reshape(samples, shape + tail.as_list())
            return A.reshape(samples, A.concat([shape, A.shape(samples)[1:]], 0))

    # ---- public methods by name, each defaulting as TF's does ----
    def _call(self, method, value, name):
        with self._scope(name):
            if value is None:
                return getattr(self, method)()
            return getattr(self, method)(convert_to_tensor(value, dtype=self.dtype, name="value"))

    def log_prob(self, value, name="log_prob"):
        if type(self)._log_prob is Distribution._log_prob:
            return self._call("_fallback_log_prob", value, name)
        return self._call("_log_prob", value, name)

    def prob(self, value, name="prob"):
        if type(self)._prob is Distribution._prob:
            return M.exp(self.log_prob(value, name))
        return self._call("_prob", value, name)

    def cdf(self, value, name="cdf"):
        if type(self)._cdf is Distribution._cdf and type(self)._log_cdf is not Distribution._log_cdf:
            return M.exp(self.log_cdf(value, name))
        return self._call("_cdf", value, name)

    def log_cdf(self, value, name="log_cdf"):
        if type(self)._log_cdf is Distribution._log_cdf:
            return M.log(self.cdf(value, name))
        return self._call("_log_cdf", value, name)

    def survival_function(self, value, name="survival_function"):
        cdf = self.cdf(value, name)
        return M.subtract(convert_to_tensor(1.0, dtype=cdf.dtype.base_dtype), cdf)

    def log_survival_function(self, value, name="log_survival_function"):
        return M.log(self.survival_function(value, name))

    def quantile(self, value, name="quantile"):
        return self._call("_quantile", value, name)

    def entropy(self, name="entropy"):
        return self._call("_entropy", None, name)

    def mean(self, name="mean"):
        return self._call("_mean", None, name)

    def mode(self, name="mode"):
        return self._call("_mode", None, name)

    def variance(self, name="variance"):
        if type(self)._variance is Distribution._variance and type(self)._stddev is not Distribution._stddev:
            return M.square(self.stddev(name))
        return self._call("_variance", None, name)

    def stddev(self, name="stddev"):
        if type(self)._stddev is Distribution._stddev and type(self)._variance is not Distribution._variance:
            return M.sqrt(self.variance(name))
        return self._call("_stddev", None, name)

    def covariance(self, name="covariance"):
        return self._call("_covariance", None, name)

    def cross_entropy(self, other, name="cross_entropy"):
        """H[self, other] = H[self] + KL(self || other)."""
        with self._scope(name):
            return M.add(self.entropy(), kl_divergence(self, other))

    def kl_divergence(self, other, name="kl_divergence"):
        with self._scope(name):
            return kl_divergence(self, other)

    def _fallback_log_prob(self, x):
        return M.log(self._prob(x))

    def _not_implemented(self, what):
        raise NotImplementedError("%s is not implemented: %s" % (what, type(self).__name__))

    def _log_prob(self, x):
        return self._not_implemented("log_prob")

    def _prob(self, x):
        return self._not_implemented("prob")

    def _cdf(self, x):
        return self._not_implemented("cdf")

    def _log_cdf(self, x):
        return self._not_implemented("log_cdf")

    def _quantile(self, x):
        return self._not_implemented("quantile")

    def _entropy(self):
        return self._not_implemented("entropy")

    def _mean(self):
        return self._not_implemented("mean")

    def _sample_n(self, n, seed=None):
        return self._not_implemented("sample_n")

    def _mode(self):
        return self._not_implemented("mode")

    def _variance(self):
        return self._not_implemented("variance")

    def _stddev(self):
        return self._not_implemented("stddev")

    def _covariance(self):
        return self._not_implemented("covariance")

    def __repr__(self):
        return "<tf.distributions.%s '%s' batch_shape=%s event_shape=%s dtype=%s>" % (
            type(self).__name__, self.name, self.batch_shape, self.event_shape, self.dtype.name)


def broadcast_to_batch(t, dist):
    """t broadcast against the distribution's batch shape (static when known)."""
    s = dist.batch_shape
    if s.is_fully_defined():
        return M.add(t, A.zeros(s.as_list(), dtype=t.dtype.base_dtype))
    return M.add(t, A.zeros(dist._batch_shape_tensor(), dtype=t.dtype.base_dtype))


def nan_where(cond, value, allow_nan, message):
    """value with NaN where cond holds (allow_nan_stats) or an Assert that cond never holds."""
    from lens.ops.logic import where
    from lens.ops.reduce import reduce_any
    if allow_nan:
        nan = M.add(A.zeros_like(value), convert_to_tensor(np.nan, dtype=value.dtype.base_dtype))
        return where(cond, nan, value)
    from lens.ops.control_flow_assert import Assert
    from lens.ops.core import _with_dependencies
    from lens.ops.logic import logical_not
    return _with_dependencies([Assert(logical_not(reduce_any(cond)), [message])], value)


# ---- KL registry ------------------------------------------------------------------------------
_KL = {}


class RegisterKL:
    """Decorator registering kl_divergence(a, b) for a pair of distribution classes."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError("kl_fn must be callable, received: %s" % kl_fn)
        if self._key in _KL:
            raise ValueError("KL(%s || %s) has already been registered to: %s"
                             % (self._key[0].__name__, self._key[1].__name__, _KL[self._key]))
        _KL[self._key] = kl_fn
        return kl_fn


def _lookup(a, b):
    """The registered KL for the closest pair of classes in the two MROs (TF's rule)."""
    best, dist = None, None
    for i, ca in enumerate(type(a).__mro__):
        for j, cb in enumerate(type(b).__mro__):
            fn = _KL.get((ca, cb))
            if fn is not None and (dist is None or i + j < dist):
                best, dist = fn, i + j
    return best


def _unregistered(a, b):
    """TF's error for a pair of classes with no registered KL (and none among their bases)."""
    def fail(*args, **kwargs):
        raise NotImplementedError("No KL(distribution_a || distribution_b) registered for distribution_a type %s "
                                  "and distribution_b type %s" % (type(a).__name__, type(b).__name__))
    return fail


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(distribution_a || distribution_b) by the registered function for their classes."""
    fn = _lookup(distribution_a, distribution_b) or _unregistered(distribution_a, distribution_b)
    with name_scope("KullbackLeibler"):
        kl = fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl
        return nan_where(_isnan(kl), kl, False,
                         "KL calculation between %s and %s returned NaN values" % (distribution_a.name,
                                                                                    distribution_b.name))


def _isnan(t):
    from lens.ops.logic import not_equal
    return not_equal(t, t)
