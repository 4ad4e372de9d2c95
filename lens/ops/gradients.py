"""tf.gradients: one reverse walk over the ops between xs and ys, TF1's algorithm and naming."""
import collections

from lens.framework import dtypes as _dt
from lens.framework import registry
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, get_default_graph, name_scope
from lens.framework.indexed_slices import IndexedSlices

_BACKPROP_KINDS = ("float16", "float32", "float64", "complex64", "complex128")
# What gradients flow through (TF's "trainable" dtypes): integer, bool and string values stop them.
_TRAINABLE_KINDS = _BACKPROP_KINDS + ("bfloat16", "resource", "variant")


def _backpropagatable(t):
    return t.dtype.base_dtype.name in _BACKPROP_KINDS


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _to_tensor(x):
    if isinstance(x, Tensor):
        return x
    return convert_to_tensor(x)


def _reachable_forward(from_ops):
    """Ops that a gradient can reach from from_ops: integer and string outputs are not followed."""
    seen = set(from_ops)
    stack = list(from_ops)
    while stack:
        op = stack.pop()
        for t in op._outputs:
            if t.dtype.base_dtype.name not in _TRAINABLE_KINDS:
                continue
            for c in t._consumers:
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
    return seen


def _between(to_ops, reached):
    """Ops on a path from xs to ys (following data inputs backwards from ys)."""
    between = set()
    stack = [op for op in to_ops if op in reached]
    between.update(stack)
    while stack:
        op = stack.pop()
        for t in op._inputs:
            p = t._op
            if p in reached and p not in between:
                between.add(p)
                stack.append(p)
    return between


def _grad_fn_for(op):
    override = op._attrs.get("_gradient_op_type")
    name = override if override is not None else op._type
    if not registry.has_gradient_entry(name):
        return False, None
    return True, registry.get_gradient_function(name)


def _aggregate(grads, name="AddN"):
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if any(isinstance(g, IndexedSlices) for g in grads):
        return _aggregate_indexed_slices(grads)
    from lens.ops.math import add_n
    return add_n(grads, name=name)


def _aggregate_indexed_slices(grads):
    """TF1's sum of gradients when any is IndexedSlices: one IndexedSlices of all rows (dense ones as every row)."""
    from lens.ops import array as A
    from lens.ops.sequence import range as _range
    slices = []
    for g in grads:
        if isinstance(g, IndexedSlices):
            slices.append(g)
        else:
            shape = A.shape(g)
            slices.append(IndexedSlices(g, _range(0, shape[0]), shape))
    if len({s.indices.dtype.base_dtype for s in slices}) > 1:
        slices = [IndexedSlices(s.values, A.cast(s.indices, _dt.int64), s.dense_shape) for s in slices]
    return IndexedSlices(A.concat([s.values for s in slices], 0), A.concat([s.indices for s in slices], 0),
                         slices[0].dense_shape)


# Gradient functions that take IndexedSlices as they are; every other one sees the dense gradient
# (TF1's gradient functions densify through convert_to_tensor, with its memory warning).
_SLICES_PASS_THROUGH = {"Identity", "Snapshot"}


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none"):
    """Symbolic d(sum ys)/d(x) for each x in xs; None for xs the ys do not depend on."""
    mode = getattr(unconnected_gradients, "value", unconnected_gradients)
    if mode not in ("none", "zero"):
        raise ValueError("Unknown value for unconnected_gradients: %r (use 'none' or 'zero')"
                         % (unconnected_gradients,))
    ys = [_to_tensor(y) for y in _as_list(ys)]
    xs_in = _as_list(xs)
    xs = [x if isinstance(x, Tensor) else convert_to_tensor(x, as_ref=True) for x in xs_in]
    grad_ys = _as_list(grad_ys) or [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError("Passed %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
    stop_ops = set()
    stop_tensors = set()
    for s in _as_list(stop_gradients):
        s = _to_tensor(s)
        stop_tensors.add(s)
        stop_ops.add(s.op)
    g = ys[0].graph if ys else get_default_graph()
    with g.as_default(), name_scope(name, "gradients", list(ys) + list(xs)):
        # Initial gradients: ones shaped like each y (TF1: gradients/Shape, grad_ys_0, Fill).
        from lens.ops import array as A
        new_grad_ys = []
        for i, (y, gy) in enumerate(zip(ys, grad_ys)):
            if gy is None:
                # An integer y seeds ones too, as TF's; nothing flows back through integer values,
                # so its xs get None.
                from lens.framework.convert import constant
                # TF1.15's array_ops.shape folds a static shape into a Const (named Shape).
                shp = (constant(y.shape.as_list(), dtype=_dt.int32, name="Shape") if y.shape.is_fully_defined()
                       else A.shape(y))
                one = constant(1, dtype=y.dtype.base_dtype, name="grad_ys_%d" % i)
                new_grad_ys.append(A.fill(shp, one))
            else:
                gy = convert_to_tensor(gy, dtype=y.dtype.base_dtype, name="grad_ys_%d" % i)
                new_grad_ys.append(gy)

        from_ops = [x.op for x in xs]
        to_ops = [y.op for y in ys]
        reached = _reachable_forward(from_ops)
        between = _between(to_ops, reached)
        # Pending count: how many consumers in `between` still owe each op a gradient.
        pending = collections.Counter()
        for op in between:
            for t in op._inputs:
                if t._op in between:
                    pending[t._op] += 1
        grads = {}  # tensor -> list of gradient contributions
        for y, gy in zip(ys, new_grad_ys):
            grads.setdefault(y, []).append(gy)
        queue = collections.deque()
        seen_ready = set()
        for op in to_ops:
            if op not in seen_ready and pending[op] == 0:
                seen_ready.add(op)
                queue.append(op)
        xs_set = set(xs)
        while queue:
            op = queue.popleft()
            out_grads = []
            for t in op._outputs:
                contribs = grads.get(t)
                out_grads.append(_aggregate(contribs) if contribs else None)
                if contribs and len(contribs) > 1:
                    grads[t] = [out_grads[-1]]
            is_stop = op in stop_ops and not any(t in xs_set and t not in stop_tensors for t in op._outputs)
            has_entry, grad_fn = _grad_fn_for(op)
            in_grads = [None] * len(op._inputs)
            if any(gr is not None for gr in out_grads) and op in between and not is_stop \
                    and op._inputs:
                if not has_entry:
                    raise LookupError("No gradient defined for operation '%s' (op type: %s). Register "
                                      "one with tf.RegisterGradient(%r) or mark it tf.NotDifferentiable."
                                      % (op.name, op.type, op.type))
                if grad_fn is not None:
                    if op._type not in _SLICES_PASS_THROUGH:
                        out_grads = [convert_to_tensor(gr) if isinstance(gr, IndexedSlices) else gr
                                     for gr in out_grads]
                    for i, t in enumerate(op._outputs):
                        if out_grads[i] is None and _backpropagatable(t):
                            out_grads[i] = A.zeros_like(t)
                    with name_scope(op.name + "_grad"):
                        result = grad_fn(op, *out_grads)
                        result = list(result) if isinstance(result, (list, tuple)) else [result]
                        if gate_gradients and sum(1 for r in result if r is not None) > 1 and \
                                not any(isinstance(r, IndexedSlices) for r in result):
                            from lens.ops.core import tuple_
                            result = tuple_(result)
                    if len(result) != len(op._inputs):
                        raise ValueError("Num gradients %d generated for op %s do not match num inputs %d"
                                         % (len(result), op.node_def, len(op._inputs)))
                    in_grads = result
            for t, gin in zip(op._inputs, in_grads):
                if gin is not None and _backpropagatable(t):
                    if isinstance(gin, Tensor) and gin.dtype.base_dtype is not t.dtype.base_dtype:
                        from lens.ops.array import cast
                        gin = cast(gin, t.dtype.base_dtype)
                    grads.setdefault(t, []).append(gin)
            for t in op._inputs:
                p = t._op
                if p in between:
                    pending[p] -= 1
                    if pending[p] == 0 and p not in seen_ready:
                        seen_ready.add(p)
                        queue.append(p)
        results = []
        for x in xs:
            contribs = grads.get(x)
            r = _aggregate(contribs) if contribs else None
            if r is None and mode == "zero":
                r = A.zeros_like(x)
            results.append(r)
        return results


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """Second derivatives of sum(ys) with respect to each x (one matrix per x)."""
    from lens.ops import array as A
    from lens.ops.indexing import gather
    from lens.ops.sequence import range as _range
    xs = [_to_tensor(x) for x in _as_list(xs)]
    out = []
    with name_scope(name, "hessians", xs):
        grads = gradients(ys, xs)
        for g, x in zip(grads, xs):
            flat = A.reshape(g, [-1])
            n = x.shape.num_elements()
            if n is None:
                raise ValueError("hessians needs a statically known shape for %s" % x.name)
            rows = [gradients(gather(flat, i), x)[0] for i in range(n)]
            h = A.stack([A.reshape(r, [-1]) for r in rows])
            out.append(A.reshape(h, x.shape.as_list() + x.shape.as_list()))
            _ = _range
    return out
