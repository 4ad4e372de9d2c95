"""Scans and segments: cumsum/cumprod, segment_* reductions over sorted and unsorted ids,
unique, roll (kernels in NumPy, gradients written with lens ops as TF defines them)."""
import collections

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops.indexing import gather, unsorted_segment_sum
from lens.ops.shapes import const_value
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape

_INDEX_TYPES = (_dt.int32, _dt.int64)


# ---- argument checks ---------------------------------------------------------------------------
def _allowed(t, arg, ok, names):
    """TypeError like TF's op-def check when t's dtype is not one ok() accepts."""
    d = t.dtype.base_dtype
    if not ok(d):
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values: %s"
                        % (arg, d.name, names))
    return t


def _numeric(t, arg):
    return _allowed(t, arg, lambda d: d.is_floating or d.is_complex or (d.is_integer and not d.is_bool),
                    "numeric types (floats, complex, ints)")


def _real(t, arg):
    return _allowed(t, arg, lambda d: d.is_floating or (d.is_integer and not d.is_bool),
                    "real number types (floats, ints)")


def _index(v, name):
    # no dtype forced: Python ints become int32 and a float is refused, as TF's op-def check does
    t = v if isinstance(v, Tensor) else convert_to_tensor(v, name=name)
    return _allowed(t, name, lambda d: d in _INDEX_TYPES, "int32, int64")


def _fail(op, message):
    raise errors.InvalidArgumentError(None, op, message)


def _rank_error(op, want, t, shapes):
    raise ValueError("Shape must be %s but is rank %d for '%s' (op: '%s') with input shapes: %s."
                     % (want, t.shape.ndims, op.name, op.type, ", ".join(str(s) for s in shapes)))


def _input_shapes(op):
    return [t.shape for t in op._inputs]


# ---- Cumsum / Cumprod --------------------------------------------------------------------------
def _scan_make(ufunc, identity):
    def make(op, ctx):
        exclusive, reverse = op._attrs["exclusive"], op._attrs["reverse"]

        def run(x, axis):
            x, axis = np.asarray(x), np.asarray(axis)
            if axis.ndim:
                _fail(op, "ScanOp: axis must be a scalar, not %s" % list(axis.shape))
            a = int(axis)
            if not -x.ndim <= a < x.ndim:
                _fail(op, "ScanOp: Expected scan axis in the range [%d, %d), but got %d" % (-x.ndim, x.ndim, a))
            y = np.moveaxis(x, a, 0)    # scan along the first axis, then put it back
            if reverse:
                y = y[::-1]
            acc = ufunc.accumulate(y, axis=0, dtype=x.dtype)
            if exclusive:
                shifted = np.empty_like(acc)
                shifted[:1] = identity
                shifted[1:] = acc[:-1]
                acc = shifted
            if reverse:
                acc = acc[::-1]
            return np.ascontiguousarray(np.moveaxis(acc, 0, a))
        return run
    return make


def _scan_shape(op):
    return [op._inputs[0].shape]


def _cumsum_grad(op, grad):
    a = op._attrs
    return [cumsum(grad, op._inputs[1], exclusive=a["exclusive"], reverse=not a["reverse"]), None]


def _cumprod_grad(op, grad):
    from lens.ops import math as M
    x, axis = op._inputs
    a = op._attrs
    prod = cumprod(x, axis, exclusive=a["exclusive"], reverse=a["reverse"])
    out = cumsum(M.multiply(prod, grad), axis, exclusive=a["exclusive"], reverse=not a["reverse"])
    # TF 2's formula: dividing by x loses the gradient where x == 0 (div_no_nan makes it 0, not NaN)
    return [M.div_no_nan(out, x), None]


register_op("Cumsum", make=_scan_make(np.add, 0), shape=_scan_shape, grad=_cumsum_grad)
register_op("Cumprod", make=_scan_make(np.multiply, 1), shape=_scan_shape, grad=_cumprod_grad)


def _scan(op_type, x, axis, exclusive, reverse, name):
    with name_scope(name, op_type, [x]) as scope:
        xt = _numeric(convert_to_tensor(x, name="x"), "x")
        at = _index(axis, "axis")
        return apply_op(op_type, [(xt, "x"), (at, "axis")],
                        {"exclusive": bool(exclusive), "reverse": bool(reverse), "Tidx": at.dtype.base_dtype},
                        name=scope, dtypes=[xt.dtype.base_dtype], same_dtype=False)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sum along axis (exclusive: leave out the current element; reverse: from the end)."""
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running product along axis (exclusive: leave out the current element; reverse: from the end)."""
    return _scan("Cumprod", x, axis, exclusive, reverse, name)


# ---- sorted segments ---------------------------------------------------------------------------
def _sorted_runs(op, data, ids):
    """(number of output rows, start of each run of equal ids, the id of each run), as TF checks."""
    if ids.ndim != 1:
        _fail(op, "segment_ids should be a vector.")
    if data.ndim < 1 or data.shape[0] != ids.size:
        _fail(op, "segment_ids should be the same size as dimension 0 of input.")
    if ids.size == 0:
        return 0, np.zeros(0, np.intp), ids
    rows = int(ids[-1]) + 1
    if rows < 0:
        _fail(op, "segment ids must be >= 0")
    starts = np.concatenate([[0], np.flatnonzero(ids[1:] != ids[:-1]) + 1])
    run_ids = ids[starts]
    descending = np.append(run_ids[:-1] > run_ids[1:], False)
    bad = descending | (run_ids < 0) | (run_ids >= rows)
    if bad.any():
        k = int(np.argmax(bad))
        if descending[k]:
            _fail(op, "segment ids are not increasing")
        _fail(op, "Segment id %d out of range [0, %d), possibly because 'segment_ids' input is not sorted."
              % (int(run_ids[k]), rows))
    return rows, starts, run_ids


def _truncating_mean(total, counts):
    """total / counts; integers divide rounding towards zero as TF's kernel does."""
    if total.dtype.kind in "iu":
        return (np.sign(total) * (np.abs(total) // counts)).astype(total.dtype)
    return (total / counts).astype(total.dtype, copy=False)


def _segment_make(ufunc, empty, mean=False):
    def make(op, ctx):
        def run(data, ids):
            data, ids = np.asarray(data), np.asarray(ids)
            rows, starts, run_ids = _sorted_runs(op, data, ids)
            out = np.full((rows,) + data.shape[1:], empty, dtype=data.dtype)
            if starts.size:
                part = ufunc.reduceat(data, starts, axis=0, dtype=data.dtype)
                if mean:
                    counts = np.diff(np.append(starts, ids.size)).reshape((-1,) + (1,) * (data.ndim - 1))
                    part = _truncating_mean(part, counts)
                out[run_ids] = part
            return out
        return run
    return make


def _segment_shape(op):
    d, i = op._inputs[0].shape, op._inputs[1].shape
    if i.ndims is not None and i.ndims != 1:
        _rank_error(op, "rank 1", op._inputs[1], _input_shapes(op))
    if d.ndims is None:
        return [unknown_shape()]
    return [TensorShape([None] + d.as_list()[1:])]


def _row_ones(ids, data):
    """Ones of shape [len(ids), 1, ..., 1] (data's rank), to broadcast per-row counts."""
    from lens.ops import array as A
    from lens.ops import math as M
    rest = A.fill(A.expand_dims(M.subtract(A.rank(data), 1), 0), 1)
    return A.ones(A.concat([A.shape(ids), rest], 0), dtype=data.dtype.base_dtype)


def _segment_sum_grad(op, grad):
    return [gather(grad, op._inputs[1]), None]


def _segment_mean_grad(op, grad):
    from lens.ops import math as M
    data, ids = op._inputs
    counts = segment_sum(_row_ones(ids, data), ids)
    return [gather(M.real_div(grad, counts), ids), None]


def _selected_grad(op, grad, seg_sum, gather_fn):
    """Gradient of a max/min: split evenly between the inputs equal to their segment's result."""
    from lens.ops import array as A
    from lens.ops import math as M
    from lens.ops.logic import equal, logical_and, where
    data = op._inputs[0]
    picked, keep = gather_fn(op._outputs[0])
    chosen = equal(data, picked)
    if keep is not None:     # unsorted: rows with a negative id belong to no segment
        chosen = logical_and(chosen, keep)
    count = seg_sum(A.cast(chosen, grad.dtype.base_dtype))
    share, _ = gather_fn(M.div_no_nan(grad, count))
    return where(chosen, share, A.zeros_like(data))


def _segment_minmax_grad(op, grad):
    ids = op._inputs[1]
    return [_selected_grad(op, grad, lambda v: segment_sum(v, ids), lambda v: (gather(v, ids), None)), None]


def _segment_prod_grad(op, grad):
    """Per segment: no zero -> prod / x; one zero -> the product of the others there; more -> 0."""
    from lens.ops import array as A
    from lens.ops import math as M
    from lens.ops.logic import equal, greater, where_v2
    data, ids = op._inputs
    is_zero = equal(data, A.zeros_like(data))
    zeros_per_segment = segment_sum(A.cast(is_zero, _dt.int32), ids)
    grad = where_v2(greater(zeros_per_segment, 1), A.zeros_like(grad), grad)
    no_zero = where_v2(is_zero, A.ones_like(data), data)
    others = gather(segment_prod(no_zero, ids), ids)
    partial = where_v2(is_zero, others, M.real_div(gather(op._outputs[0], ids), no_zero))
    return [M.multiply(gather(grad, ids), partial), None]


register_op("SegmentSum", make=_segment_make(np.add, 0), shape=_segment_shape, grad=_segment_sum_grad)
register_op("SegmentMean", make=_segment_make(np.add, 0, mean=True), shape=_segment_shape,
            grad=_segment_mean_grad)
register_op("SegmentMax", make=_segment_make(np.maximum, 0), shape=_segment_shape, grad=_segment_minmax_grad)
register_op("SegmentMin", make=_segment_make(np.minimum, 0), shape=_segment_shape, grad=_segment_minmax_grad)
register_op("SegmentProd", make=_segment_make(np.multiply, 1), shape=_segment_shape, grad=_segment_prod_grad)


def _segment(op_type, data, segment_ids, name, check=_numeric):
    with name_scope(name, op_type, [data, segment_ids]) as scope:
        d = check(convert_to_tensor(data, name="data"), "data")
        i = _index(segment_ids, "segment_ids")
        return apply_op(op_type, [(d, "data"), (i, "segment_ids")], {"Tindices": i.dtype.base_dtype},
                        name=scope, dtypes=[d.dtype.base_dtype], same_dtype=False)


def segment_sum(data, segment_ids, name=None):
    """out[k] = sum of data[i] with segment_ids[i] == k; ids sorted, gaps give 0."""
    return _segment("SegmentSum", data, segment_ids, name)


def segment_mean(data, segment_ids, name=None):
    """out[k] = mean of data[i] with segment_ids[i] == k; ids sorted, gaps give 0."""
    return _segment("SegmentMean", data, segment_ids, name)


def segment_max(data, segment_ids, name=None):
    """out[k] = max of data[i] with segment_ids[i] == k; ids sorted, gaps give 0."""
    return _segment("SegmentMax", data, segment_ids, name, _real)


def segment_min(data, segment_ids, name=None):
    """out[k] = min of data[i] with segment_ids[i] == k; ids sorted, gaps give 0."""
    return _segment("SegmentMin", data, segment_ids, name, _real)


def segment_prod(data, segment_ids, name=None):
    """out[k] = product of data[i] with segment_ids[i] == k; ids sorted, gaps give 1."""
    return _segment("SegmentProd", data, segment_ids, name)


# ---- unsorted segments -------------------------------------------------------------------------
def _unsorted_make(ufunc, empty_of):
    def make(op, ctx):
        def run(data, ids, num):
            data, ids, n = np.asarray(data), np.asarray(ids), int(num)
            if data.shape[:ids.ndim] != ids.shape:
                _fail(op, "data.shape = %s does not start with segment_ids.shape = %s"
                      % (_dims(data.shape), _dims(ids.shape)))
            flat_ids = ids.ravel()
            flat = data.reshape((flat_ids.size,) + data.shape[ids.ndim:])
            over = flat_ids >= n
            if over.any():
                k = int(np.argmax(over))
                pos = ",".join(str(int(p)) for p in np.unravel_index(k, ids.shape))
                _fail(op, "segment_ids[%s] = %d is out of range [0, %d)" % (pos, int(flat_ids[k]), n))
            out = np.full((n,) + flat.shape[1:], empty_of(data.dtype), dtype=data.dtype)
            keep = flat_ids >= 0     # TF drops negative ids
            ufunc.at(out, flat_ids[keep], flat[keep])
            return out
        return run
    return make


def _dims(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def _unsorted_shape(op):
    d, i, n = _input_shapes(op)
    if n.ndims is not None and n.ndims != 0:
        _rank_error(op, "rank 0", op._inputs[2], [d, i, n])
    if d.ndims is None or i.ndims is None:
        return [unknown_shape()]
    if not TensorShape(d.as_list()[:i.ndims]).is_compatible_with(i) or d.ndims < i.ndims:
        raise ValueError("Dimensions must be equal: data shape %s must start with segment_ids shape %s "
                         "for '%s' (op: '%s')" % (d, i, op.name, op.type))
    num = const_value(op._inputs[2])
    return [TensorShape([None if num is None else int(num)] + d.as_list()[i.ndims:])]


def _gather_drop_negatives(values, ids, data_rank):
    """values gathered at ids, with 0 where an id is negative; and the kept-mask (data-shaped)."""
    from lens.ops import array as A
    from lens.ops import math as M
    from lens.ops.logic import greater_equal, where_v2
    zero = convert_to_tensor(0, dtype=ids.dtype.base_dtype)
    picked = gather(values, M.maximum(ids, zero))
    keep = greater_equal(ids, zero)
    extra = data_rank - ids.shape.ndims
    if extra:
        keep = A.reshape(keep, A.concat([A.shape(ids), [1] * extra], 0))
    keep = A.broadcast_to(keep, A.shape(picked))
    return where_v2(keep, picked, A.zeros_like(picked)), keep


def _unsorted_minmax_grad(op, grad):
    data, ids, num = op._inputs
    if data.shape.ndims is None or ids.shape.ndims is None:
        raise ValueError("lens differentiates %s %r only for inputs of known rank; give data and "
                         "segment_ids static ranks (e.g. placeholder shapes)" % (op.type, op.name))
    return [_selected_grad(op, grad, lambda v: unsorted_segment_sum(v, ids, num),
                           lambda v: _gather_drop_negatives(v, ids, data.shape.ndims)), None, None]


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


register_op("UnsortedSegmentMax", make=_unsorted_make(np.maximum, _lowest), shape=_unsorted_shape,
            grad=_unsorted_minmax_grad)
register_op("UnsortedSegmentMin", make=_unsorted_make(np.minimum, _highest), shape=_unsorted_shape,
            grad=_unsorted_minmax_grad)


def _unsorted(op_type, data, segment_ids, num_segments, name):
    with name_scope(name, op_type, [data, segment_ids, num_segments]) as scope:
        d = _real(convert_to_tensor(data, name="data"), "data")
        i = _index(segment_ids, "segment_ids")
        n = _index(num_segments, "num_segments")
        return apply_op(op_type, [(d, "data"), (i, "segment_ids"), (n, "num_segments")],
                        {"Tindices": i.dtype.base_dtype, "Tnumsegments": n.dtype.base_dtype},
                        name=scope, dtypes=[d.dtype.base_dtype], same_dtype=False)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """out[k] = max of data[i] with segment_ids[i] == k; empty segments give the dtype's lowest."""
    return _unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """out[k] = min of data[i] with segment_ids[i] == k; empty segments give the dtype's highest."""
    return _unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, name)


# ---- Unique ------------------------------------------------------------------------------------
UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])


def _unique_make(op, ctx):
    idx_type = op._attrs["out_idx"].as_numpy_dtype

    def run(x):
        x = np.asarray(x)
        if x.ndim != 1:
            _fail(op, "unique expects a 1D vector.")
        kw = {"equal_nan": False} if x.dtype.kind in "fc" else {}   # TF: NaN never equals NaN
        values, first, inverse = np.unique(x, return_index=True, return_inverse=True, **kw)
        order = np.argsort(first, kind="stable")     # sorted order -> first-occurrence order
        new_pos = np.empty_like(order)
        new_pos[order] = np.arange(order.size)
        return values[order], new_pos[inverse.reshape(-1)].astype(idx_type)
    return run


def _unique_shape(op):
    x = op._inputs[0].shape
    if x.ndims is not None and x.ndims != 1:
        _rank_error(op, "rank 1", op._inputs[0], [x])
    return [TensorShape([None]), x if x.ndims is not None else unknown_shape(1)]


register_op("Unique", make=_unique_make, shape=_unique_shape, not_differentiable=True)


def unique(x, out_idx=_dt.int32, name=None):
    """(y, idx): the distinct values of 1-D x in first-occurrence order, and x[i] == y[idx[i]]."""
    out_idx = _dt.as_dtype(out_idx)
    if out_idx not in _INDEX_TYPES:
        raise TypeError("Value passed to parameter 'out_idx' has DataType %s not in list of allowed "
                        "values: int32, int64" % out_idx.name)
    with name_scope(name, "Unique", [x]) as scope:
        xt = convert_to_tensor(x, name="x")
        y, idx = apply_op("Unique", [(xt, "x")], {"out_idx": out_idx}, name=scope,
                          dtypes=[xt.dtype.base_dtype, out_idx], same_dtype=False)
        return UniqueOutput(y, idx)


# ---- Roll --------------------------------------------------------------------------------------
def _roll_make(op, ctx):
    def run(x, shift, axis):
        x, shift, axis = np.asarray(x), np.asarray(shift), np.asarray(axis)
        if shift.shape != axis.shape:
            _fail(op, "shift and axis must have the same size")
        axes = axis.reshape(-1).astype(np.int64)
        bad = (axes < -x.ndim) | (axes >= x.ndim)
        if bad.any():
            _fail(op, "axis %d is out of range" % int(axes[np.argmax(bad)]))
        if x.size == 0 or axes.size == 0:
            return x.copy()
        return np.roll(x, tuple(int(s) for s in shift.reshape(-1)), tuple(int(a) for a in axes))
    return run


def _roll_shape(op):
    x, s, a = _input_shapes(op)
    if x.ndims is not None and x.ndims < 1:
        _rank_error(op, "at least rank 1", op._inputs[0], [x, s, a])
    for t in (op._inputs[1], op._inputs[2]):
        if t.shape.ndims is not None and t.shape.ndims > 1:
            _rank_error(op, "at most rank 1", t, [x, s, a])
    if s.ndims is not None and a.ndims is not None and not s.is_compatible_with(a):
        raise ValueError("Shapes of shift %s and axis %s must be equal for '%s' (op: 'Roll')" % (s, a, op.name))
    return [x]


def _roll_grad(op, grad):
    from lens.ops.math import negative
    return [roll(grad, negative(op._inputs[1]), op._inputs[2]), None, None]


register_op("Roll", make=_roll_make, shape=_roll_shape, grad=_roll_grad)


def roll(input, shift, axis, name=None):  # noqa: A002 - TF's argument name
    """input with elements moved shift places along axis, wrapping around (several axes at once)."""
    with name_scope(name, "Roll", [input, shift, axis]) as scope:
        x = convert_to_tensor(input, name="input")
        s = _index(shift, "shift")
        a = _index(axis, "axis")
        return apply_op("Roll", [(x, "input"), (s, "shift"), (a, "axis")],
                        {"Tshift": s.dtype.base_dtype, "Taxis": a.dtype.base_dtype}, name=scope,
                        dtypes=[x.dtype.base_dtype], same_dtype=False)
