"""The hparams plugin's Python API objects (TensorBoard's `hparams.api`): HParam, the domains
Discrete, RealInterval and IntInterval, and Metric."""

import random

from lens.proto import hparams_api_pb2 as api_pb2


class Domain:
    """The values an hparam may take."""

    dtype = None

    def sample_uniform(self, rng=random):
        raise NotImplementedError

    def update_hparam_info(self, hparam_info):
        """Set hparam_info's type and domain."""
        raise NotImplementedError


class IntInterval(Domain):
    """Every integer in [min_value, max_value]."""

    dtype = int

    def __init__(self, min_value=None, max_value=None):
        for label, value in (("min_value", min_value), ("max_value", max_value)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError("%s must be an int: %r" % (label, value))
        if min_value > max_value:
            raise ValueError("%r > %r" % (min_value, max_value))
        self.min_value, self.max_value = min_value, max_value

    def __repr__(self):
        return "IntInterval(%r, %r)" % (self.min_value, self.max_value)

    def sample_uniform(self, rng=random):
        return rng.randint(self.min_value, self.max_value)

    def update_hparam_info(self, hparam_info):
        hparam_info.type = api_pb2.DATA_TYPE_FLOAT64  # the API has no int type
        hparam_info.domain_interval.min_value = self.min_value
        hparam_info.domain_interval.max_value = self.max_value


class RealInterval(Domain):
    """Every real number in [min_value, max_value]."""

    dtype = float

    def __init__(self, min_value=None, max_value=None):
        for label, value in (("min_value", min_value), ("max_value", max_value)):
            if not isinstance(value, float):
                raise TypeError("%s must be a float: %r" % (label, value))
        if min_value > max_value:
            raise ValueError("%r > %r" % (min_value, max_value))
        self.min_value, self.max_value = min_value, max_value

    def __repr__(self):
        return "RealInterval(%r, %r)" % (self.min_value, self.max_value)

    def sample_uniform(self, rng=random):
        return rng.uniform(self.min_value, self.max_value)

    def update_hparam_info(self, hparam_info):
        hparam_info.type = api_pb2.DATA_TYPE_FLOAT64
        hparam_info.domain_interval.min_value = self.min_value
        hparam_info.domain_interval.max_value = self.max_value


_DTYPES = {int: api_pb2.DATA_TYPE_FLOAT64, float: api_pb2.DATA_TYPE_FLOAT64,
           bool: api_pb2.DATA_TYPE_BOOL, str: api_pb2.DATA_TYPE_STRING}


class Discrete(Domain):
    """A fixed, sorted set of values of one type (int, float, bool or str)."""

    def __init__(self, values, dtype=None):
        self._values = list(values)
        if dtype is None:
            if not self._values:
                raise ValueError("Empty domain with no dtype specified")
            dtype = type(self._values[0])
        if dtype not in _DTYPES:
            raise ValueError("Unknown dtype: %r" % (dtype,))
        for value in self._values:
            if not isinstance(value, dtype) or (dtype is int and isinstance(value, bool)):
                raise TypeError("dtype mismatch: not isinstance(%r, %s)" % (value, dtype.__name__))
        self.dtype = dtype
        self._values.sort()

    def __repr__(self):
        return "Discrete(%r)" % (self._values,)

    @property
    def values(self):
        return list(self._values)

    def sample_uniform(self, rng=random):
        return rng.choice(self._values)

    def update_hparam_info(self, hparam_info):
        hparam_info.type = _DTYPES[self.dtype]
        hparam_info.ClearField("domain_discrete")
        hparam_info.domain_discrete.extend(self._values)


class HParam:
    """A hyperparameter: a name, an optional domain, display name and description."""

    def __init__(self, name, domain=None, display_name=None, description=None):
        if not isinstance(domain, (Domain, type(None))):
            raise ValueError("not a domain: %r" % (domain,))
        self.name, self.domain = name, domain
        self.display_name, self.description = display_name, description

    def __repr__(self):
        return "HParam(name=%r, domain=%r, display_name=%r, description=%r)" % (
            self.name, self.domain, self.display_name, self.description)


class Metric:
    """A metric: the scalar tag (and run subdirectory `group`) that measures a session."""

    TRAINING = api_pb2.DATASET_TRAINING
    VALIDATION = api_pb2.DATASET_VALIDATION

    def __init__(self, tag, group=None, display_name=None, description=None, dataset_type=None):
        if dataset_type not in (None, Metric.TRAINING, Metric.VALIDATION):
            raise ValueError("invalid dataset type: %r (use Metric.TRAINING or "
                             "Metric.VALIDATION)" % (dataset_type,))
        self.tag, self.group = tag, group
        self.display_name, self.description = display_name, description
        self.dataset_type = dataset_type

    def as_proto(self):
        """This metric as an api MetricInfo."""
        return api_pb2.MetricInfo(
            name=api_pb2.MetricName(group=self.group, tag=self.tag),
            display_name=self.display_name, description=self.description,
            dataset_type=self.dataset_type)
