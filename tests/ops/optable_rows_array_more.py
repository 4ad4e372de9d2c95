"""Op-table row: BroadcastArgs (tf.broadcast_dynamic_shape) against NumPy's broadcasting."""
import numpy as np

from lens.ops.array_more import broadcast_dynamic_shape
from optable_lib import FIX, Row

ROWS = [
    Row("BroadcastArgs", broadcast_dynamic_shape,
        lambda a, b: np.array(np.broadcast_shapes(tuple(a), tuple(b)), np.int32),
        [[FIX([2, 1, 3], np.int32), FIX([4, 3], np.int32)], [FIX([5], np.int32), FIX([1], np.int32)]], grad=False),
]
