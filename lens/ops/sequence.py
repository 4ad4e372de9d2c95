"""range and linspace."""
import builtins

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops.math import cast
from lens.ops.shapes import const_value


def _range_shape(op):
    vals = [const_value(t) for t in op._inputs]
    if any(v is None for v in vals):
        return [unknown_shape(1)]
    start, limit, delta = (v.item() for v in vals)
    return [TensorShape([len(builtins.range(0, 0)) if delta == 0 else
                         max(0, int(np.ceil((limit - start) / delta)))])]


register_op("Range", fn=lambda s, l, d: np.arange(s, l, d, dtype=np.result_type(s, l, d)),
            shape=_range_shape, not_differentiable=True)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """[start, limit) in steps of delta (tf.range(n) counts from 0)."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        ts = [convert_to_tensor(v, dtype=dtype, name=n) for v, n in
              ((start, "start"), (limit, "limit"), (delta, "delta"))]
        order = [_dt.int32, _dt.int64, _dt.float32, _dt.float64]
        target = builtins.max((t.dtype.base_dtype for t in ts), key=lambda d: order.index(d) if d in order else 0)
        ts = [cast(t, target) for t in ts]
        return apply_op("Range", [(ts[0], "start"), (ts[1], "limit"), (ts[2], "delta")], name=scope)


register_op("LinSpace", fn=lambda a, b, n: np.linspace(a, b, int(n), dtype=np.asarray(a).dtype),
            shape=lambda op: [TensorShape([None if const_value(op._inputs[2]) is None
                                           else int(const_value(op._inputs[2]))])],
            not_differentiable=True)


def linspace(start, stop, num, name=None):
    """num evenly spaced values from start to stop inclusive."""
    with name_scope(name, "LinSpace", [start, stop, num]) as scope:
        a = convert_to_tensor(start, name="start")
        b = convert_to_tensor(stop, dtype=a.dtype.base_dtype, name="stop")
        n = convert_to_tensor(num, dtype=_dt.int32, name="num")
        return apply_op("LinSpace", [(a, "start"), (b, "stop"), (n, "num")], name=scope,
                        dtypes=[a.dtype.base_dtype], same_dtype=False)


lin_space = linspace
