"""tensorboard.plugins.hparams.summary (the TF1-era protos) under lens."""

from lens.events.plugins.hparams import (experiment_pb, session_end_pb,  # noqa: F401
                                         session_start_pb)
from lens.proto.hparams_api_pb2 import (STATUS_FAILURE, STATUS_RUNNING,  # noqa: F401
                                        STATUS_SUCCESS, STATUS_UNKNOWN)

__all__ = ["experiment_pb", "session_start_pb", "session_end_pb"]
