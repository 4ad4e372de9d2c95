"""`from lens.python import pywrap_tensorflow`: TF1's checkpoint reader entry point."""
from lens.training.checkpoint_reader import CheckpointReader, NewCheckpointReader

__all__ = ["NewCheckpointReader", "CheckpointReader"]
