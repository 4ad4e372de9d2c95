"""Static checks and parameter tensors of Dataset.padded_batch."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.data import structure as nest
from lens.data.static_args import _int64, _static_bool, _static_int
from lens.framework.graph import Tensor
from lens.framework.tensor_shape import TensorShape, as_shape


def _padded_shape(spec, component_shape, k):
    """(int64 vector with -1 for 'longest in batch', static TensorShape) for one component."""
    if spec is None:
        if component_shape.ndims is None:
            raise ValueError("padded_batch: component %d has unknown rank; give its padded_shapes entry "
                             "explicitly" % k)
        spec = [None] * component_shape.ndims
    if isinstance(spec, Tensor):
        raise TypeError("padded_batch: padded_shapes must be known at graph-build time (lists, tuples "
                        "or TensorShapes), got tensor %s for component %d" % (spec.name, k))
    shape = as_shape(spec)
    if shape.ndims is None:
        raise ValueError("padded_batch: padded_shapes[%d] must have a known rank" % k)
    dims = [-1 if d is None or d == -1 else int(d) for d in shape.as_list()]
    static = TensorShape([None if d == -1 else d for d in dims])
    if component_shape.ndims is not None:
        if component_shape.ndims != len(dims):
            raise ValueError("The padded shape %s is not compatible with the corresponding input "
                             "component shape %s: ranks differ (component %d)" % (static, component_shape, k))
        for want, have in zip(dims, component_shape.as_list()):
            if want != -1 and have is not None and want < have:
                raise ValueError("The padded shape %s is not compatible with the corresponding input "
                                 "component shape %s: padding cannot shrink a dimension (component %d)"
                                 % (static, component_shape, k))
    return np.array(dims, dtype=np.int64), static


def padded_batch_inputs(ds, batch_size, padded_shapes, padding_values, drop_remainder):
    """The op's parameter tensors and its output shapes."""
    types, shapes = ds.output_types, ds.output_shapes
    flat_t, flat_s = nest.flatten(types), nest.flatten(shapes)
    specs = [None] * len(flat_t) if padded_shapes is None else nest._flatten_up_to(types, padded_shapes)
    if padding_values is None:
        values = [b"" if t is _dt.string else 0 for t in flat_t]
    else:
        values = nest._flatten_up_to(types, padding_values)
    n, drop = _static_int(batch_size), _static_bool(drop_remainder)
    dim = n if drop and n is not None else None
    shape_ts, value_ts, out_shapes = [], [], []
    for k, (spec, s, t, v) in enumerate(zip(specs, flat_s, flat_t, values)):
        dims, static = _padded_shape(spec, s, k)
        shape_ts.append(convert_to_tensor(dims, _dt.int64, name="padded_shapes"))
        try:
            pv = convert_to_tensor(v, t, name="padding_values")
        except (TypeError, ValueError) as e:
            raise TypeError("padded_batch: padding value %r for component %d does not match its type "
                            "%s (%s)" % (v, k, t.name, e)) from None
        if pv.shape.ndims != 0:
            raise ValueError("padded_batch: padding values must be scalars, got shape %s for component %d"
                             % (pv.shape, k))
        value_ts.append(pv)
        out_shapes.append(TensorShape([dim]).concatenate(static))
    ins = [_int64(batch_size, "batch_size")] + shape_ts + value_ts + \
        [convert_to_tensor(drop_remainder, _dt.bool, name="drop_remainder")]
    return ins, nest.pack_as(types, out_shapes)
