"""tf.while_loop as a functional While op; its gradient runs the body's gradient backwards.

Loop variables enter the cond and body regions as placeholders (`while/Identity`, ...). Once a
gradient is built, the forward While records, per iteration, the body values the gradient
needs and outputs them stacked; WhileGrad then walks those iterations in reverse.
"""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.eager import executing_eagerly
from lens.framework.graph import get_default_graph, name_scope
from lens.ops import control_flow_nest as nest
from lens.ops.control_flow_region import (SubPlan, append_output, externals, is_auto_zero,
                                                 trace)
from lens.framework.registry import register_op
from lens.ops.tensor_array import TensorArray
from lens.framework.tensor_shape import as_shape


class _WhileInfo:
    """Python-side description of one While op (kept in a private attr, not in GraphDefs)."""

    def __init__(self, loop_vars, cond_out, body_outs, body_ops, has_max, back_prop):
        self.loop_vars = loop_vars      # the placeholders cond and body read
        self.cond_out = cond_out
        self.body_outs = body_outs
        self.body_ops = body_ops
        self.has_max = has_max
        self.back_prop = back_prop
        self.cond_caps, self.cond_idx = [], []
        self.body_caps, self.body_idx = [], []
        self.count_slot = None          # output slot of the iteration count (after a gradient)
        self.inters = []                # (body tensor, output slot) stacked per iteration


def _stack(values, dtype):
    if not values:
        return np.empty((0,), dtype)
    first = np.shape(values[0])
    if all(np.shape(v) == first for v in values) and not getattr(values[0], "_lens_flow", False):
        return np.stack([np.asarray(v, dtype=dtype) for v in values])
    out = np.empty(len(values), dtype=object)  # shapes vary across iterations
    for i, v in enumerate(values):
        out[i] = v
    return out


def _while_make(op, ctx):
    info = op._attrs["_cf"]
    nv = len(info.loop_vars)
    shapes = [t.shape for t in info.loop_vars]
    check = [s.ndims is not None for s in shapes]
    cond_plan = SubPlan([info.cond_out], info.loop_vars + info.cond_caps, ctx)
    body_plan = SubPlan(info.body_outs + [t for t, _ in info.inters], info.loop_vars + info.body_caps, ctx)
    n_rec = len(info.inters)
    dtypes = [op._outputs[slot].dtype.as_numpy_dtype for _, slot in info.inters]
    record = info.count_slot is not None
    has_max = info.has_max
    cidx, bidx = info.cond_idx, info.body_idx

    def run(*args):
        vals = list(args[:nv])
        limit = args[nv] if has_max else None
        caps = args[nv + has_max:]
        ccaps = [caps[i] for i in cidx]
        bcaps = [caps[i] for i in bidx]
        rec = [[] for _ in range(n_rec)]
        n = 0
        while (limit is None or n < limit) and cond_plan(vals + ccaps)[0]:
            res = body_plan(vals + bcaps)
            for j in range(n_rec):
                rec[j].append(res[nv + j])
            vals = list(res[:nv])
            for i in range(nv):
                if check[i] and not shapes[i].is_compatible_with(np.shape(vals[i])):
                    raise errors.InvalidArgumentError(
                        None, op, "Loop variable %d of %s has shape %s after iteration %d, not "
                        "compatible with its shape invariant %s; pass a less specific shape in "
                        "shape_invariants." % (i, op.name, list(np.shape(vals[i])), n + 1, shapes[i]))
            n += 1
        out = vals
        if record:
            out = out + [np.int32(n)] + [_stack(r, d) for r, d in zip(rec, dtypes)]
        return out[0] if len(out) == 1 else tuple(out)
    return run


def _is_float(t):
    return t.dtype.base_dtype.is_floating or t.dtype.base_dtype.is_complex


def _record(op, t):
    """The While output stacking body tensor t over iterations (added on first request)."""
    info = op._attrs["_cf"]
    if info.count_slot is None:
        info.count_slot = append_output(op, convert_to_tensor(0)).value_index
    for inner, slot in info.inters:
        if inner is t:
            return op._outputs[slot]
    out = append_output(op, t)
    out._shape = as_shape([None]).concatenate(t.shape)
    info.inters.append((t, out.value_index))
    return out


def _while_grad(op, *grads):
    from lens.ops.gradients import gradients
    from lens.ops.array import zeros_like
    info = op._attrs["_cf"]
    nv = len(info.loop_vars)
    n_in = len(op._inputs)
    for slot in range(nv, len(grads)):
        if not is_auto_zero(grads[slot], op._outputs[slot]):
            raise NotImplementedError(
                "lens cannot differentiate the gradient of a while_loop (%s) again: second "
                "derivatives through while_loop are not supported." % op.name)
    fv = [i for i in range(nv) if _is_float(info.loop_vars[i])]
    if not info.back_prop or not fv or all(grads[i] is None for i in fv):
        return [None] * n_in
    cap_base = nv + info.has_max
    fcaps = [(t, j) for t, j in zip(info.body_caps, info.body_idx) if _is_float(t)]
    g_in = [convert_to_tensor(grads[i]) if grads[i] is not None else zeros_like(op._outputs[i])
            for i in fv]
    g = get_default_graph()
    with name_scope("WhileGrad") as scope:
        gph = [g._create_op("Placeholder", [], [info.loop_vars[i].dtype.base_dtype],
                            {"dtype": info.loop_vars[i].dtype.base_dtype, "shape": info.loop_vars[i].shape},
                            "grad_in", shapes=[info.loop_vars[i].shape], frames_skip=3)._outputs[0]
               for i in fv]
        connected = []

        def body_grad():
            xs = [info.loop_vars[i] for i in fv] + [t for t, _ in fcaps]
            ys = [info.body_outs[i] for i in fv]
            dx = [d if d is None else convert_to_tensor(d)   # IndexedSlices densified: regions hold tensors
                  for d in gradients(ys, xs, grad_ys=gph, stop_gradients=xs)]
            d_vars = [d if d is not None else zeros_like(info.loop_vars[i]) for d, i in zip(dx, fv)]
            d_caps = dx[len(fv):]
            connected.extend(k for k, d in enumerate(d_caps) if d is not None)
            return d_vars + [d_caps[k] for k in connected]

        targets, region = trace(body_grad)
        found, ctrl = externals(region, targets, gph)
        inters, caps = [], []
        for t in found:
            if t._op in info.body_ops or any(t is v for v in info.loop_vars):
                inters.append(t)
            else:
                caps.append(t)
        stacked = [_record(op, t) for t in inters]
        count = op._outputs[info.count_slot]
        cap_vals = [fcaps[k][0] for k in connected]
        ginfo = {"gph": gph, "inters": inters, "caps": caps, "targets": targets, "nf": len(fv),
                 "ncap": len(connected)}
        inputs = g_in + [count] + stacked + caps + cap_vals
        out_dtypes = [info.loop_vars[i].dtype.base_dtype for i in fv] + [t.dtype.base_dtype for t in cap_vals]
        shapes = [op._inputs[i].shape for i in fv] + [t.shape for t in cap_vals]
        gop = g._create_op("WhileGrad", inputs, out_dtypes, {"_cf": ginfo}, scope, shapes=shapes,
                           control_inputs=ctrl, frames_skip=3)
    result = [None] * n_in
    for k, i in enumerate(fv):
        result[i] = gop._outputs[k]
    for m, k in enumerate(connected):
        result[cap_base + fcaps[k][1]] = gop._outputs[len(fv) + m]
    return result


def _while_grad_make(op, ctx):
    info = op._attrs["_cf"]
    nf, ncap = info["nf"], info["ncap"]
    k, nc = len(info["inters"]), len(info["caps"])
    plan = SubPlan(info["targets"], info["gph"] + info["inters"] + info["caps"], ctx)
    n_out = len(op._outputs)

    def run(*args):
        g = list(args[:nf])
        n = int(args[nf])
        stacks = args[nf + 1:nf + 1 + k]
        caps = list(args[nf + 1 + k:nf + 1 + k + nc])
        cap_vals = args[nf + 1 + k + nc:]
        acc = [None] * ncap
        for it in range(n - 1, -1, -1):
            res = plan(g + [s[it] for s in stacks] + caps)
            g = list(res[:nf])
            for j in range(ncap):
                d = res[nf + j]
                acc[j] = d if acc[j] is None else np.add(acc[j], d)
        acc = [np.zeros_like(v) if a is None else np.asarray(a, dtype=np.asarray(v).dtype)
               for a, v in zip(acc, cap_vals)]
        out = g + acc
        return out[0] if n_out == 1 else tuple(out)
    return run


def _while_grad_grad(op, *grads):
    raise NotImplementedError("lens cannot differentiate the gradient of a while_loop (%s): "
                              "second derivatives through while_loop are not supported." % op.name)


register_op("While", make=_while_make, grad=_while_grad, stateful=True)
register_op("WhileGrad", make=_while_grad_make, grad=_while_grad_grad, stateful=True)


def _invariants(loop_vars, flat, shape_invariants):
    if shape_invariants is None:
        return [t.shape for t in flat]
    if not nest.same_structure(loop_vars, shape_invariants) and not (
            len(flat) == 1 and not nest.is_sequence(shape_invariants)):
        raise ValueError("shape_invariants must have the same structure as loop_vars: %s vs %s"
                         % (nest.describe(loop_vars), nest.describe(shape_invariants)))
    invs = [as_shape(s) for s in (nest.flatten(shape_invariants) if nest.is_sequence(shape_invariants)
                                  else [shape_invariants])]
    for t, s in zip(flat, invs):
        if not _shape_more_specific(s, t.shape):
            raise ValueError("The shape invariant specified for %s is not compatible with the initial "
                             "shape of the loop variable. It enters the loop with shape %s, but the "
                             "specified shape invariant is %s." % (t.name, t.shape, s))
    return invs


def _shape_more_specific(inv, s):
    """True when s fits invariant inv (every known dim of inv is matched)."""
    if inv.ndims is None:
        return True
    if s.ndims is None or s.ndims != inv.ndims:
        return False
    return all(a is None or a == b for a, b in zip(inv.as_list(), s.as_list()))


def _eager_while(cond, body, loop_vars, maximum_iterations, return_same_structure):
    """TF's while_loop when executing eagerly: a Python loop over the values (TF's eager rules for
    what comes back: the body's last structure, a lone value unpacked)."""
    try_to_pack = isinstance(loop_vars, (list, tuple)) and len(loop_vars) == 1 and not return_same_structure
    packed = False
    i = 0
    while (maximum_iterations is None or i < int(maximum_iterations)) and bool(cond(*loop_vars)):
        loop_vars = body(*loop_vars)
        if try_to_pack and not isinstance(loop_vars, (list, tuple)):
            packed = True
            loop_vars = (loop_vars,)
        i += 1
    return loop_vars[0] if packed else loop_vars


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeat body while cond is true (TF1 tf.while_loop); loop_vars may be nested."""
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if isinstance(loop_vars, dict):
        raise TypeError("loop_vars is a dict: TF1 passes loop_vars positionally as body(*loop_vars); "
                        "wrap the dict in a tuple or list, e.g. loop_vars=(d,).")
    if loop_vars is None or (nest.is_sequence(loop_vars) and not nest.flatten(loop_vars)):
        raise ValueError("No loop variables provided")
    if executing_eagerly():
        return _eager_while(cond, body, loop_vars, maximum_iterations, return_same_structure)
    with name_scope(name, "while", nest.flatten(loop_vars)) as scope:
        flat_in = nest.flatten(loop_vars)
        # TensorArrays travel as their flow tensors and are rebuilt around them inside and after the loop.
        tas = {k: v for k, v in enumerate(flat_in) if isinstance(v, TensorArray)}
        flat_init = [v.flow if k in tas else convert_to_tensor(v) for k, v in enumerate(flat_in)]
        invs = _invariants(loop_vars, flat_init, shape_invariants)
        max_t = None
        if maximum_iterations is not None:
            max_t = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if max_t.shape.ndims not in (None, 0):
                raise ValueError("maximum_iterations must be a scalar, saw shape: %s" % max_t.shape)
            if not max_t.dtype.base_dtype.is_integer:
                raise TypeError("maximum_iterations must be an integer, got dtype %s" % max_t.dtype.name)
        g = get_default_graph()
        phs = [g._create_op("Placeholder", [], [t.dtype.base_dtype], {"dtype": t.dtype.base_dtype, "shape": s},
                            "Identity", shapes=[s], frames_skip=3)._outputs[0]
               for t, s in zip(flat_init, invs)]
        packed = nest.pack_sequence_as(loop_vars, [tas[k]._with_flow(p) if k in tas else p
                                                   for k, p in enumerate(phs)])
        args = list(packed) if isinstance(packed, (list, tuple)) else [packed]

        def run_cond():
            c = convert_to_tensor(cond(*args))
            if c.dtype.base_dtype is not _dt.bool or c.shape.ndims not in (None, 0):
                raise ValueError("cond must return a boolean scalar tensor, got %s with dtype %s and "
                                 "shape %s" % (c.name, c.dtype.name, c.shape))
            return c

        def run_body():
            res = body(*args)
            if not nest.is_sequence(res):
                res = [res]
            if isinstance(res, dict) or not nest.same_structure(list(args), list(res)):
                raise ValueError("The two structures don't have the same nested structure: body "
                                 "returned %s for loop variables %s." % (nest.describe(res),
                                                                        nest.describe(args)))
            return [x.flow if isinstance(x, TensorArray) else convert_to_tensor(x) for x in nest.flatten(list(res))]

        cond_out, cond_ops = trace(run_cond)
        body_outs, body_ops = trace(run_body)
        for t0, out, s in zip(flat_init, body_outs, invs):
            if out.dtype.base_dtype is not t0.dtype.base_dtype:
                raise ValueError("Loop variable %s enters the loop with type %s, but has type %s after "
                                 "one iteration." % (t0.name, t0.dtype.name, out.dtype.name))
            if not _shape_more_specific(s, out.shape):
                raise ValueError("Input tensor '%s' enters the loop with shape %s, but has shape %s after "
                                 "one iteration. To allow the shape to vary across iterations, use the "
                                 "`shape_invariants` argument of tf.while_loop to specify a less-specific "
                                 "shape." % (t0.name, s, out.shape))
        info = _WhileInfo(phs, cond_out, body_outs, body_ops, max_t is not None, back_prop)
        inputs, index, controls = [], {}, []
        for ops, targets, caps, idx in ((cond_ops, [cond_out], info.cond_caps, info.cond_idx),
                                        (body_ops, body_outs, info.body_caps, info.body_idx)):
            found, ctrl = externals(ops, targets, phs)
            controls.extend(c for c in ctrl if c not in controls)
            for t in found:
                if t not in index:
                    index[t] = len(inputs)
                    inputs.append(t)
                caps.append(t)
                idx.append(index[t])
        dtypes = [t.dtype.base_dtype for t in flat_init]
        attrs = {"T": dtypes, "parallel_iterations": parallel_iterations, "_cf": info}
        op = g._create_op("While", flat_init + ([max_t] if max_t is not None else []) + inputs, dtypes,
                          attrs, scope, shapes=invs, control_inputs=controls, frames_skip=3)
        from lens.ops.core import identity
        exits = [identity(t, name="Exit") for t in op._outputs[:len(flat_init)]]
        exits = [tas[k]._with_flow(e) if k in tas else e for k, e in enumerate(exits)]
    result = nest.pack_sequence_as(loop_vars, exits)
    if not return_same_structure and len(exits) == 1:
        return exits[0]
    return result


__all__ = ["while_loop"]
