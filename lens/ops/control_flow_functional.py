"""map_fn, scan, foldl, foldr: while_loops over the first dimension of (nested) elems.

Elements are read and results written through TensorArrays inside the loop (linear in the length);
gradients come from while_loop's own gradient through the arrays' flows.
"""
from lens.framework import dtypes as _dt
from lens.framework.convert import constant, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import control_flow_nest as nest
from lens.framework.tensor_shape import TensorShape, as_shape


def _flat_elems(elems, what):
    flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("%s: elems must be a Tensor or a (possibly nested) sequence of Tensors, got "
                         "an empty structure." % what)
    for e in flat:
        if e.shape.ndims == 0:
            raise ValueError("%s: elements in elems must be 1+ dimensional Tensors, not scalars: %s"
                             % (what, e.name))
    return flat


def _length(flat):
    from lens.ops import array as A
    from lens.ops.indexing import strided_slice
    n0 = flat[0].shape[0].value if flat[0].shape.ndims else None
    for e in flat[1:]:
        n = e.shape[0].value if e.shape.ndims else None
        if n0 is not None and n is not None and n != n0:
            raise ValueError("All elems must have the same first dimension, got %d and %d (%s)"
                             % (n0, n, e.name))
    if n0 is not None:
        return constant(n0, name="n"), n0
    return strided_slice(A.shape(flat[0]), [0], [1], shrink_axis_mask=1), None


def _loop(step, flat_elems, n, state, out_dtypes, start, reverse, first_outs, **loop_kw):
    """Run step(state, xs_i) -> (state, outs) for i in [start, n); returns (state, stacked outs).

    elems are read and outputs written through TensorArrays, as TF1 does: O(n) in the length."""
    from lens.ops.control_flow_while import while_loop
    from lens.ops.tensor_array import TensorArray
    elems_tas = [TensorArray(e.dtype, size=n, element_shape=e.shape[1:] if e.shape.ndims else None).unstack(e)
                 for e in flat_elems]
    accs = [TensorArray(d, size=n) for d in out_dtypes]
    if first_outs:
        accs = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs, first_outs)]
    out_shapes = []

    def body(i, st, acc):
        idx = n - 1 - i if reverse else i
        xs = [ta.read(idx) for ta in elems_tas]
        new_state, outs = step(st, xs)
        out_shapes[:] = [o.shape for o in outs]
        return i + 1, new_state, [ta.write(idx, o) for ta, o in zip(acc, outs)]

    i0 = constant(start, dtype=_dt.int32, name="i")
    invariants = (TensorShape([]), [s.shape for s in state], [TensorShape([])] * len(accs))
    _, state, accs = while_loop(lambda i, st, acc: i < n, body, (i0, list(state), list(accs)),
                                shape_invariants=invariants, return_same_structure=True, **loop_kw)
    return state, [ta.stack() for ta in accs], out_shapes


def _finish(accs, shapes, n_static):
    for a, s in zip(accs, shapes):
        a.set_shape(as_shape([n_static]).concatenate(s))
    return accs


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None):
    """Apply fn to each slice of elems along dimension 0 and stack the results."""
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with name_scope(name, "map", nest.flatten(elems)):
        flat = _flat_elems(elems, "map_fn")
        n, n_static = _length(flat)
        out_struct = dtype if dtype is not None else nest.map_structure(lambda e: e.dtype, elems)
        out_dtypes = [_dt.as_dtype(d).base_dtype for d in nest.flatten(out_struct)]

        def step(state, xs):
            res = fn(nest.pack_sequence_as(elems, xs))
            flat_res = [convert_to_tensor(r) for r in nest.flatten(res)]
            if len(flat_res) != len(out_dtypes):
                raise ValueError("map_fn: fn returned %d values but dtype describes %d; pass dtype= "
                                 "with fn's output structure." % (len(flat_res), len(out_dtypes)))
            for r, d in zip(flat_res, out_dtypes):
                if r.dtype.base_dtype is not d:
                    raise TypeError("map_fn: fn returned %s with dtype %s, but dtype says %s; pass "
                                    "dtype= matching fn's output." % (r.name, r.dtype.name, d.name))
            return [], flat_res

        _, accs, shapes = _loop(step, flat, n, [], out_dtypes, 0, False, None,
                                parallel_iterations=parallel_iterations or 10, back_prop=back_prop)
        return nest.pack_sequence_as(out_struct, _finish(accs, shapes, n_static))


def _initial(elems, flat, initializer, reverse):
    if initializer is not None:
        init = nest.map_structure(convert_to_tensor, initializer)
        return init, 0
    n, _ = _length(flat)
    first = [e[n - 1] if reverse else e[0] for e in flat]   # a slice (dense gradient), as TF's TensorArray read
    return nest.pack_sequence_as(elems, first), 1


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """Stack the successive accumulator values a = fn(a, x) over elems along dimension 0."""
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with name_scope(name, "scan", nest.flatten(elems)):
        flat = _flat_elems(elems, "scan")
        n, n_static = _length(flat)
        init, start = _initial(elems, flat, initializer, reverse)
        flat_init = nest.flatten(init)

        def step(state, xs):
            a = fn(nest.pack_sequence_as(init, state), nest.pack_sequence_as(elems, xs))
            flat_a = [convert_to_tensor(x) for x in nest.flatten(a)]
            return flat_a, flat_a

        _, accs, shapes = _loop(step, flat, n, flat_init, [a.dtype.base_dtype for a in flat_init], start,
                                reverse, flat_init if start else None, parallel_iterations=parallel_iterations,
                                back_prop=back_prop)
        return nest.pack_sequence_as(init, _finish(accs, shapes or [a.shape for a in flat_init], n_static))


def _fold(fn, elems, initializer, reverse, what, name, **loop_kw):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with name_scope(name, what, nest.flatten(elems)):
        flat = _flat_elems(elems, what)
        n, _ = _length(flat)
        init, start = _initial(elems, flat, initializer, reverse)

        def step(state, xs):
            a = fn(nest.pack_sequence_as(init, state), nest.pack_sequence_as(elems, xs))
            return [convert_to_tensor(x) for x in nest.flatten(a)], []

        state, _, _ = _loop(step, flat, n, nest.flatten(init), [], start, reverse, None, **loop_kw)
        return nest.pack_sequence_as(init, state)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """a = fn(a, x) over elems from first to last; returns the final a."""
    return _fold(fn, elems, initializer, False, "foldl", name, parallel_iterations=parallel_iterations,
                 back_prop=back_prop)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """a = fn(a, x) over elems from last to first; returns the final a."""
    return _fold(fn, elems, initializer, True, "foldr", name, parallel_iterations=parallel_iterations,
                 back_prop=back_prop)


__all__ = ["map_fn", "scan", "foldl", "foldr"]
