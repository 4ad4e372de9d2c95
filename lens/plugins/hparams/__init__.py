"""HParams (tensorboard.plugins.hparams): the api objects, the summaries and a session hook."""

from lens.plugins.hparams.api import (Discrete, HParam, HParamsHook, IntInterval,  # noqa: F401
                                      Metric, RealInterval, hparams, hparams_config,
                                      hparams_config_pb, hparams_pb)
from lens.plugins.hparams.summary import (experiment_pb, session_end_pb,  # noqa: F401
                                          session_start_pb)
