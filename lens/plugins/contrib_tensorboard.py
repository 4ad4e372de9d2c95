"""tf.contrib.tensorboard: TF1's home of the projector writer, so that
`tf.contrib.tensorboard.plugins.projector.visualize_embeddings(...)` runs with `import lens as tf`."""

import types

from lens.plugins import projector

plugins = types.ModuleType("lens.contrib.tensorboard.plugins", "TF1's tf.contrib.tensorboard.plugins.")
plugins.projector = projector

__all__ = ["plugins"]
