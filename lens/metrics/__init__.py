"""tf.metrics: TF1's streaming metrics (defined in lens.metrics.metrics and its helpers)."""
from lens.metrics.metrics import *  # noqa: F401,F403
from lens.metrics.metrics import __all__ as _base_all
from lens.metrics.metrics_more import *  # noqa: F401,F403
from lens.metrics.metrics_more import __all__ as _more_all
from lens.metrics.metrics_at_k import *  # noqa: F401,F403
from lens.metrics.metrics_at_k import __all__ as _at_k_all

__all__ = list(_base_all) + list(_more_all) + list(_at_k_all)
