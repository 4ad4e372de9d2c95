"""tensorboard.plugins.hparams.api under lens; HParamsHook stands in for KerasCallback."""

from lens.events.plugins.hparams import (hparams, hparams_config,  # noqa: F401
                                         hparams_config_pb, hparams_pb)
from lens.events.plugins.hparams_api import (Discrete, HParam, IntInterval, Metric,  # noqa: F401
                                             RealInterval)
from lens.plugins.hparams.hook import HParamsHook  # noqa: F401

__all__ = ["Discrete", "HParam", "HParamsHook", "IntInterval", "Metric", "RealInterval",
           "hparams", "hparams_config", "hparams_config_pb", "hparams_pb"]
