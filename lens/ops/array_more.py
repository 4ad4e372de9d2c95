"""tf.histogram_fixed_width_bins, tf.broadcast_dynamic_shape (BroadcastArgs), tf.parallel_stack, tf.switch_case,
tf.recompute_grad and tf.fingerprint (FarmHash Fingerprint64 per row)."""
import struct

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import clip_by_value
from lens.ops.control_flow_case import case
from lens.ops.core import stop_gradient
from lens.ops.farmhash import fingerprint64
from lens.ops.gradients import gradients
from lens.ops.logic import equal
from lens.ops.templates import custom_gradient

__all__ = ["histogram_fixed_width_bins", "broadcast_dynamic_shape", "parallel_stack", "switch_case",
           "recompute_grad"]


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dt.int32, name=None):
    """The bin index (0 .. nbins-1) of each value in nbins equal bins over value_range (outside: the end bins)."""
    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        shape = A.shape(values)
        flat = A.reshape(values, [-1])
        value_range = convert_to_tensor(value_range, dtype=values.dtype.base_dtype, name="value_range")
        n = M.cast(convert_to_tensor(nbins, dtype=_dt.int32, name="nbins"), values.dtype.base_dtype)
        scaled = M.truediv(M.subtract(flat, value_range[0]), M.subtract(value_range[1], value_range[0]))
        idx = clip_by_value(M.floor(M.multiply(n, scaled)), 0, M.subtract(n, 1))
        return A.reshape(M.cast(idx, dtype), shape)


def _bcast_args_make(op, ctx):
    def run(s0, s1):
        a, b = [int(v) for v in np.asarray(s0)], [int(v) for v in np.asarray(s1)]
        try:
            out = np.broadcast_shapes(tuple(a), tuple(b))
        except ValueError:
            raise errors.InvalidArgumentError(None, op, "Incompatible shapes: [%s] vs. [%s]"
                                              % (",".join(map(str, a)), ",".join(map(str, b)))) from None
        return np.asarray(out, op._attrs["T"].as_numpy_dtype)
    return run


register_op("BroadcastArgs", make=_bcast_args_make, shape=lambda op: [TensorShape([None])], not_differentiable=True)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as 1-D int tensors (InvalidArgumentError when incompatible)."""
    x = convert_to_tensor(shape_x, name="s0")
    y = convert_to_tensor(shape_y, dtype=x.dtype.base_dtype if x.dtype.is_integer else _dt.int32, name="s1")
    if not x.dtype.is_integer:
        x = M.cast(x, _dt.int32)
    return apply_op("BroadcastArgs", [(x, "s0"), (y, "s1")], {"T": x.dtype.base_dtype}, name="BroadcastArgs")


def parallel_stack(values, name="parallel_stack"):
    """stack(values) for tensors of one fully known shape (TF's ParallelConcat requirement)."""
    with name_scope(name):
        values = [convert_to_tensor(v) for v in values]
        shape = values[0].shape
        if not shape.is_fully_defined():
            raise ValueError("Cannot infer the shape of the values: parallel_stack needs fully defined shapes, got "
                             "%s" % shape)
        for v in values[1:]:
            if not v.shape.is_compatible_with(shape):
                raise ValueError("Shapes %s and %s of parallel_stack's values differ" % (shape, v.shape))
        return A.stack(values)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """branch_fns[branch_index]() (a list, (index, fn) pairs or a dict); out of range: default, else the last."""
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif branch_fns and isinstance(branch_fns[0], (list, tuple)):
        pairs = sorted(branch_fns)
    else:
        pairs = list(enumerate(branch_fns))
    if not pairs:
        raise ValueError("Must provide at least one item in branch_fns")
    keys = [k for k, _ in pairs]
    if keys != list(range(len(keys))):
        raise ValueError("branch indices (keys) must form contiguous range of [0 to %d) but found %s"
                         % (len(keys), keys))
    for k, fn in pairs:
        if not callable(fn):
            raise TypeError("fn for branch %d must be callable." % k)
    with name_scope(name, "switch_case", [branch_index]):
        idx = convert_to_tensor(branch_index, name="branch_index")
        if idx.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("branch_index must be an int32 or int64 tensor, got %s" % idx.dtype.name)
        fallback = default if default is not None else pairs[-1][1]
        return case([(equal(idx, k), fn) for k, fn in pairs], default=fallback, exclusive=False)


def recompute_grad(f):
    """f, whose gradient recomputes f's forward pass instead of keeping its activations."""
    def wrapped(*args):
        @custom_gradient
        def inner(*xs):
            def grad(*dys):
                copies = [stop_gradient(x) for x in xs]
                again = f(*copies)
                outs = list(again) if isinstance(again, (list, tuple)) else [again]
                return gradients(outs, copies, grad_ys=list(dys))
            return f(*xs), grad
        return inner(*args)
    return wrapped


def _fingerprint_make(op, ctx):
    def row_bytes(row, is_string):
        if not is_string:
            return np.ascontiguousarray(row).tobytes()
        items = [v.encode() if isinstance(v, str) else bytes(v) for v in np.asarray(row, dtype=object).reshape(-1)]
        if len(items) == 1:
            return items[0]
        # several strings: fingerprint the little-endian concatenation of their fingerprints, as TF
        return b"".join(struct.pack("<Q", fingerprint64(s)) for s in items)

    def run(data, method):
        method = np.asarray(method, dtype=object).item()
        method = method.decode() if isinstance(method, bytes) else method
        if method != "farmhash64":
            raise errors.InvalidArgumentError(None, op, "Unsupported fingerprint method is given: %s" % method)
        data = np.asarray(data)
        if data.ndim < 1:
            raise errors.InvalidArgumentError(None, op, "`data` should have at least one dimension: %s"
                                              % list(data.shape))
        is_string = data.dtype == object or data.dtype.kind in "SU"
        out = np.empty((data.shape[0], 8), np.uint8)
        for i in range(data.shape[0]):
            out[i] = np.frombuffer(struct.pack("<Q", fingerprint64(row_bytes(data[i], is_string))), np.uint8)
        return out
    return run


register_op("Fingerprint", make=_fingerprint_make, not_differentiable=True,
            shape=lambda op: [TensorShape([op._inputs[0].shape.as_list()[0] if op._inputs[0].shape.ndims else None, 8])])


def fingerprint(data, method="farmhash64", name=None):
    """An 8-byte (uint8) FarmHash fingerprint of each row (first-axis slice) of data."""
    data = convert_to_tensor(data, name="data")
    if data.shape.ndims == 0:
        raise ValueError("`data` should have at least one dimension, got a scalar")
    m = convert_to_tensor(method, _dt.string, name="method")
    return apply_op("Fingerprint", [(data, "data"), (m, "method")], {"T": data.dtype.base_dtype},
                    name=name or "Fingerprint", dtypes=[_dt.uint8], same_dtype=False)


__all__ += ["fingerprint"]
