"""Dataset arguments known at graph-build time (counts, flags) and int64 scalar conversion."""
import numbers

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor


def _int64(value, name):
    return convert_to_tensor(value, dtype=_dt.int64, name=name)


def _static_int(value):
    """value as a Python int when known at graph-build time, else None."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, Tensor) and value.op.type == "Const":
        return int(value.op.get_attr("value"))
    return None


def _static_bool(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Tensor) and value.op.type == "Const":
        return bool(value.op.get_attr("value"))
    return None
