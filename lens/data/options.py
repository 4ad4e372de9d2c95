"""tf.data.Options and its parts: typed option records that Dataset.with_options attaches and merges.

lens runs a pipeline in the calling thread, in order: the options are kept and reported (dataset.options()),
and none of them can change which elements come out."""
import enum
import logging

__all__ = ["Options", "ThreadingOptions", "OptimizationOptions", "DistributeOptions", "AutotuneOptions",
           "AutoShardPolicy", "ExternalStatePolicy", "AutotuneAlgorithm"]

_log = logging.getLogger("tensorflow")


class AutoShardPolicy(enum.IntEnum):
    """How a distributed input pipeline is sharded."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """What to do with external state when a dataset is serialized."""
    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    """The autotuning algorithm."""
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _OptionsRecord:
    """Named, typed fields (None until set); setting an unknown name or a wrong type fails as TF's do."""

    _FIELDS = {}        # name -> (type or tuple of types, factory for nested records or None)
    _ALIASES = {}       # deprecated name -> name

    def __init__(self):
        object.__setattr__(self, "_values", {})
        for name, (_, factory) in self._FIELDS.items():
            if factory is not None:
                self._values[name] = factory()

    def __getattr__(self, name):
        name = self._ALIASES.get(name, name)
        if name in self._FIELDS:
            return self._values.get(name)
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        name = self._ALIASES.get(name, name)
        if name not in self._FIELDS:
            raise AttributeError("Cannot set the property %s on %s." % (name, type(self).__name__))
        kind = self._FIELDS[name][0]
        if value is not None and not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError("Property \"%s\" must be of type %s, got: %r (type: %r)" % (name, kind, value, type(value)))
        self._values[name] = value

    def __eq__(self, other):
        return type(self) is type(other) and self._values == other._values

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % kv for kv in sorted(self._values.items())
                                                         if kv[1] is not None))

    def _merge_from(self, other):
        """Copy other's set values into self (later options win, as TF 2.21)."""
        for name, value in other._values.items():
            if isinstance(value, _OptionsRecord):
                self._values[name]._merge_from(value)
            elif value is not None:
                mine = self._values.get(name)
                if mine is not None and mine != value:
                    _log.warning("Changing the value of option %s from %r to %r.", name, mine, value)
                self._values[name] = value


class ThreadingOptions(_OptionsRecord):
    """max_intra_op_parallelism and private_threadpool_size (ints)."""
    _FIELDS = {"max_intra_op_parallelism": (int, None), "private_threadpool_size": (int, None)}


class OptimizationOptions(_OptionsRecord):
    """Which static graph optimizations tf.data may apply (bools)."""
    _FIELDS = {n: (bool, None) for n in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
        "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization", "noop_elimination",
        "parallel_batch", "seq_interleave_prefetch", "shuffle_and_repeat_fusion")}


class DistributeOptions(_OptionsRecord):
    """auto_shard_policy (AutoShardPolicy) and num_devices (int)."""
    _FIELDS = {"auto_shard_policy": (AutoShardPolicy, None), "num_devices": (int, None)}


class AutotuneOptions(_OptionsRecord):
    """Whether and how tf.data autotunes (enabled, budgets, algorithm)."""
    _FIELDS = {"enabled": (bool, None), "cpu_budget": (int, None), "ram_budget": (int, None),
               "autotune_algorithm": (AutotuneAlgorithm, None), "initial_parallelism": (int, None),
               "min_parallelism": (int, None)}


class Options(_OptionsRecord):
    """tf.data.Options: set fields, then dataset.with_options(options)."""
    _FIELDS = {
        "autotune": (AutotuneOptions, AutotuneOptions), "dataset_name": (str, None), "deterministic": (bool, None),
        "experimental_distribute": (DistributeOptions, DistributeOptions),
        "experimental_external_state_policy": (ExternalStatePolicy, None),
        "experimental_optimization": (OptimizationOptions, OptimizationOptions),
        "experimental_slack": (bool, None), "experimental_symbolic_checkpoint": (bool, None),
        "experimental_warm_start": (bool, None), "threading": (ThreadingOptions, ThreadingOptions)}
    _ALIASES = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}

    def merge(self, options):
        """A new Options with this one's values, then options' set values on top."""
        out = Options()
        out._merge_from(self)
        out._merge_from(options)
        return out
