"""tf.metrics: TF1's streaming metrics (defined in lens.metrics.metrics and its helpers)."""
from lens.metrics.metrics import *  # noqa: F401,F403
from lens.metrics.metrics import __all__  # noqa: F401
