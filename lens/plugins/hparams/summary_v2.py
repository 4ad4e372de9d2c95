"""tensorboard.plugins.hparams.summary_v2 under lens."""

from lens.events.plugins.hparams import (hparams, hparams_config,  # noqa: F401
                                         hparams_config_pb, hparams_pb)
from lens.events.plugins.hparams_api import (Discrete, Domain, HParam,  # noqa: F401
                                             IntInterval, Metric, RealInterval)
