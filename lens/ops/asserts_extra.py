"""The rest of TF1's assertions: assert_near, assert_integer, assert_scalar, assert_rank_in,
assert_same_float_dtype, assert_proper_iterable, assert_shapes, assert_all_finite."""
import collections.abc

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.control_flow_assert import Assert, _static, verify_tensor_all_finite
from lens.ops.core import group, no_op
from lens.ops.logic import equal, less_equal, logical_or
from lens.ops.reduce import reduce_all

_INTS = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """Assert |x - y| <= atol + rtol * |y| element-wise (defaults: 10 * eps of the dtype for both)."""
    with name_scope(name, "assert_near", [x, y, rtol, atol]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=x.dtype.base_dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=x.dtype.base_dtype)
        if data is None:
            data = [message or "", "x and y not equal to tolerance rtol = ", rtol, ", atol = ", atol,
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        tol = M.add(atol, M.multiply(rtol, M.abs(y)))
        diff = M.abs(M.subtract(x, y))
        return Assert(reduce_all(less_equal(diff, tol)), data, summarize=summarize)


def assert_integer(x, message=None, name=None):
    """Statically assert x has an integer dtype (TypeError otherwise); returns a no_op."""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype not in _INTS:
            raise TypeError("%sExpected \"x\" to be integer type.  Found: %s of dtype %s"
                            % ("%s  " % message if message else "", x.name, x.dtype.name))
        return no_op("statically_determined_was_integer")


def assert_scalar(tensor, name=None, message=None):
    """tensor, after checking statically that it is a scalar (ValueError otherwise)."""
    with name_scope(name, "assert_scalar", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        ndims = tensor.shape.ndims
        if ndims is None:
            raise ValueError("%sExpected scalar shape, saw unknown shape for %s." % (message or "", tensor.name))
        if ndims != 0:
            raise ValueError("%sExpected scalar shape for %s, saw shape: %s." % (message or "", tensor.name,
                                                                                tensor.shape))
        return tensor


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Assert x's rank is one of ranks (statically when known, else an Assert op)."""
    with name_scope(name, "assert_rank_in", [x] + list(ranks)):
        x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(r, name="rank") for r in ranks]
        wants = [_static(r) for r in ranks]
        prefix = "%s.  " % message if message else ""
        if x.shape.ndims is not None and all(w is not None for w in wants):
            if x.shape.ndims not in [int(w) for w in wants]:
                raise ValueError("%sTensor %s must have rank in %s.  Received rank %d, shape %s"
                                 % (prefix, x.name, tuple(int(w) for w in wants), x.shape.ndims, x.shape))
            return no_op(name="static_checks_determined_all_ok")
        rank = A.rank(x)
        hits = [equal(rank, r) for r in ranks]
        cond = hits[0]
        for h in hits[1:]:
            cond = logical_or(cond, h)
        if data is None:
            data = [prefix + "Tensor %s must have rank in" % x.name] + ranks + ["Received shape: ", A.shape(x)]
        return Assert(cond, data, summarize=summarize)


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of tensors (and dtype); ValueError when they differ or are not floats."""
    if tensors:
        dtype = _dt.as_dtype(dtype) if dtype is not None else None
        for t in tensors:
            if t is None:
                continue
            t_dtype = t.dtype.base_dtype
            if dtype is None:
                dtype = t_dtype
            elif t_dtype != dtype:
                raise ValueError("%s, type=%s: expected type %s." % (getattr(t, "name", t), t_dtype.name,
                                                                     dtype.name))
    if dtype is None:
        return _dt.float32
    dtype = _dt.as_dtype(dtype).base_dtype
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype.name)
    return dtype


def assert_proper_iterable(values):
    """TypeError when values is a Tensor, ndarray, string or not iterable at all (a likely mistake)."""
    unintentional = (Tensor, np.ndarray, bytes, str)
    if isinstance(values, unintentional):
        raise TypeError("Expected argument \"values\" to be a \"proper\" iterable.  Found: %s" % type(values))
    if not isinstance(values, collections.abc.Iterable):
        raise TypeError("Expected argument \"values\" to be iterable.  Found: %s" % type(values))


def assert_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """t, checked at run time to hold no inf or nan (tf.debugging.assert_all_finite)."""
    t = t if x is None else x
    msg = msg if message is None else message
    return verify_tensor_all_finite(t, msg, name=name)


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Assert each (tensor, symbolic shape) pair: ints must match, equal letters must be equal sizes
    across tensors, '.' or None matches any size and a leading '...' any number of leading dims."""
    shapes = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    with name_scope(name, "assert_shapes", [t for t, _ in shapes]):
        sizes = {}
        checks = []
        for tensor, symbols in shapes:
            tensor = convert_to_tensor(tensor)
            symbols = list(symbols) if not isinstance(symbols, str) else [symbols]
            prefix = "%s.  " % message if message else ""
            ellipsis = bool(symbols) and symbols[0] == "..."
            symbols = symbols[1:] if ellipsis else symbols
            static = tensor.shape
            if static.ndims is not None and (static.ndims < len(symbols) if ellipsis
                                             else static.ndims != len(symbols)):
                raise ValueError("%sSpecified by tensor %s dimension %d.  Tensor %s must have rank %s%d.  "
                                 "Received rank %d, shape %s" % (prefix, tensor.name, 0, tensor.name,
                                                                 "at least " if ellipsis else "", len(symbols),
                                                                 static.ndims, static))
            dyn = A.shape(tensor)
            n = len(symbols)
            for k, sym in enumerate(symbols):
                pos = (static.ndims - n + k) if static.ndims is not None else None
                if sym in (None, "."):
                    continue
                dim_static = static.as_list()[pos] if pos is not None else None
                dim = dyn[pos] if pos is not None else None
                if isinstance(sym, (int, np.integer)):
                    if dim_static is not None and dim_static != sym:
                        raise ValueError("%sSpecified explicitly.  Tensor %s dimension %d must have size %d.  "
                                         "Received size %d, shape %s" % (prefix, tensor.name, pos, sym,
                                                                          dim_static, static))
                    if dim_static is None:
                        checks.append(Assert(equal(dim, sym), [prefix + "Tensor %s dimension %d must have size %d"
                                                               % (tensor.name, pos, sym), dyn]))
                    continue
                if sym in sizes:
                    first_static, first_dyn, first_name = sizes[sym]
                    if dim_static is not None and first_static is not None:
                        if dim_static != first_static:
                            raise ValueError("%sSpecified by tensor %s.  Tensor %s dimension %d must have size %d.  "
                                             "Received size %d, shape %s" % (prefix, first_name, tensor.name, pos,
                                                                              first_static, dim_static, static))
                    else:
                        checks.append(Assert(equal(dim, first_dyn), [prefix + "Tensor %s dimension %d must match "
                                                                     "size %s of %s" % (tensor.name, pos, sym,
                                                                                        first_name), dyn]))
                else:
                    sizes[sym] = (dim_static, dim, tensor.name)
        if not checks:
            return no_op(name="static_checks_determined_all_ok")
        return group(*checks)


__all__ = ["assert_near", "assert_integer", "assert_scalar", "assert_rank_in", "assert_same_float_dtype",
           "assert_proper_iterable", "assert_all_finite", "assert_shapes"]
