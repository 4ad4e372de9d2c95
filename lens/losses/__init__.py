"""tf.losses: TF1's loss functions and their collection (defined in lens.losses.losses)."""
from lens.losses.losses import *  # noqa: F401,F403
from lens.losses.losses import __all__  # noqa: F401
