"""tf.cond and tf.case as a functional If op: only the taken branch's region runs.

The If op's inputs are [pred] + the outer tensors either branch reads; its outputs are the branch
results, plus (once a gradient is built) the branch intermediates the gradient needs, which the
forward kernel records so the backward If never reruns a branch (random draws, assigns).
"""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Operation, Tensor, name_scope
from lens.ops import control_flow_nest as nest
from lens.ops.control_flow_region import (SubPlan, append_output, externals, is_auto_zero,
                                                 trace)
from lens.framework.registry import register_op
from lens.ops.tensor_array import TensorArray
from lens.framework.tensor_shape import TensorShape, unknown_shape


class _Branch:
    """One traced branch: its region, flat results, fed captures and recorded intermediates."""

    def __init__(self, ops, outputs):
        self.ops = ops
        self.outputs = outputs
        self.captures = []    # inner tensors fed to the sub-plan
        self.cap_index = []   # their positions among the If op's inputs (after pred)
        self.inters = []      # (inner tensor, output slot) recorded for gradients


class _IfInfo:
    """Python-side description of one If op (kept in a private attr, not in GraphDefs)."""

    def __init__(self, branches, n_user):
        self.branches = branches
        self.n_user = n_user


def _most_specific(a, b):
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return unknown_shape()
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def make_if(pred, branches, name, outer_of=None):
    """Create an If op from traced branches [(region ops, flat results)]; returns the op.

    outer_of(branch_index, inner_tensor) names the outer tensor that feeds an inner one (the
    identity for ordinary captures; a forward op's output when differentiating)."""
    g = pred.graph
    objs = [_Branch(ops, list(flat)) for ops, flat in branches]
    inputs, index, controls = [], {}, []
    for bi, b in enumerate(objs):
        found, ctrl = externals(b.ops, b.outputs, ())
        controls.extend(c for c in ctrl if c not in controls)
        for t in found:
            outer = outer_of(bi, t) if outer_of is not None else t
            if outer not in index:
                index[outer] = len(inputs)
                inputs.append(outer)
            b.captures.append(t)
            b.cap_index.append(index[outer])
    first, second = objs[0].outputs, objs[1].outputs
    dtypes, shapes = [], []
    for x, y in zip(first, second):
        if isinstance(x, Operation):
            dtypes.append(_dt.bool)
            shapes.append(TensorShape([]))
        else:
            dtypes.append(x.dtype.base_dtype)
            shapes.append(_most_specific(x.shape, y.shape))
    attrs = {"Tcond": pred.dtype.base_dtype, "Tin": [t.dtype.base_dtype for t in inputs],
             "Tout": list(dtypes), "_cf": _IfInfo(objs, len(dtypes))}
    return g._create_op("If", [pred] + inputs, dtypes, attrs, name, shapes=shapes,
                        control_inputs=controls, frames_skip=3)


def _if_make(op, ctx):
    info = op._attrs["_cf"]
    n_out = len(op._outputs)
    empties = [np.empty((0,), t.dtype.as_numpy_dtype) for t in op._outputs]
    plans = []
    for b in info.branches:
        targets, user_src = [], []
        for t in b.outputs:
            targets.append(t)
            user_src.append(-1 if isinstance(t, Operation) else
                            sum(1 for x in targets[:-1] if isinstance(x, Tensor)))
        n_vals = sum(1 for t in targets if isinstance(t, Tensor))
        inter_src = [(n_vals + k, slot) for k, (_, slot) in enumerate(b.inters)]
        targets += [t for t, _ in b.inters]
        plans.append((SubPlan(targets, b.captures, ctx), list(b.cap_index), user_src, inter_src))

    def run(pred, *inputs):
        sub, idx, user_src, inter_src = plans[0 if pred else 1]
        vals = sub([inputs[i] for i in idx])
        out = list(empties)
        for i, k in enumerate(user_src):
            out[i] = vals[k] if k >= 0 else np.bool_(pred)
        for k, slot in inter_src:
            out[slot] = vals[k]
        return out[0] if n_out == 1 else tuple(out)
    return run


def _intermediate(op, bi, t):
    """The If output carrying branch bi's inner tensor t (added on first request)."""
    info = op._attrs["_cf"]
    b = info.branches[bi]
    for i, o in enumerate(b.outputs):
        if o is t:
            return op._outputs[i]
    for inner, slot in b.inters:
        if inner is t:
            return op._outputs[slot]
    out = append_output(op, t)
    b.inters.append((t, out.value_index))
    return out


def _outer_mapper(op):
    """Maps a gradient region's external tensors to what feeds them from outside op."""
    info = op._attrs["_cf"]

    def outer_of(bi, t):
        b = info.branches[bi]
        if t._op in b.ops:
            return _intermediate(op, bi, t)
        for inner, j in zip(b.captures, b.cap_index):
            if inner is t:
                return op._inputs[1 + j]
        return t
    return outer_of


def _is_float(t):
    return t.dtype.base_dtype.is_floating or t.dtype.base_dtype.is_complex


def _if_grad(op, *grads):
    from lens.ops.gradients import gradients
    from lens.ops.array import zeros_like
    info = op._attrs["_cf"]
    used = []
    for slot, gr in enumerate(grads):
        if gr is None or not _is_float(op._outputs[slot]):
            continue
        if slot >= info.n_user and is_auto_zero(gr, op._outputs[slot]):
            continue
        used.append((slot, gr))
    n_in = len(op._inputs) - 1
    float_in = [j for j in range(n_in) if _is_float(op._inputs[1 + j])]
    if not used or not float_in:
        return [None] * len(op._inputs)
    raw = [None, None]

    def branch_grads(bi):
        def run():
            b = info.branches[bi]
            slot_tensor = {i: t for i, t in enumerate(b.outputs) if isinstance(t, Tensor)}
            slot_tensor.update({slot: t for t, slot in b.inters})
            ys, gys = [], []
            for slot, gr in used:
                if slot in slot_tensor:
                    ys.append(slot_tensor[slot])
                    gys.append(gr)
            xs = [(t, j) for t, j in zip(b.captures, b.cap_index) if j in float_in]
            dx = gradients(ys, [t for t, _ in xs], grad_ys=gys, stop_gradients=[t for t, _ in xs]) \
                if ys and xs else [None] * len(xs)
            by_input = {j: convert_to_tensor(d) for (_, j), d in zip(xs, dx) if d is not None}  # slices densified
            raw[bi] = by_input
            return [by_input[j] if j in by_input else zeros_like(op._inputs[1 + j]) for j in float_in]
        return run

    flat_t, ops_t = trace(branch_grads(0))
    flat_f, ops_f = trace(branch_grads(1))
    keep = [k for k, j in enumerate(float_in) if j in raw[0] or j in raw[1]]
    if not keep:
        return [None] * len(op._inputs)
    with name_scope("If") as scope:
        grad_op = make_if(op._inputs[0], [(ops_t, [flat_t[k] for k in keep]),
                                          (ops_f, [flat_f[k] for k in keep])],
                          scope, outer_of=_outer_mapper(op))
    result = [None] * len(op._inputs)
    for out, k in zip(grad_op._outputs, keep):
        result[1 + float_in[k]] = out
    return result


register_op("If", make=_if_make, grad=_if_grad, stateful=True)


def _unpack_singleton(x):
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields") and len(x) == 1:
        return x[0]
    return x


def _leaf(x, what):
    if isinstance(x, Operation):
        return x
    if x is None:
        raise ValueError("%s returned None inside its results; every result must be a Tensor, "
                         "an Operation or convertible to a Tensor." % what)
    if isinstance(x, TensorArray):
        return x.flow         # a TensorArray goes through as its flow and is rebuilt after the Merge
    return convert_to_tensor(x)


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """Return true_fn() if pred else false_fn(); only the taken branch runs (TF1 tf.cond)."""
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if true_fn is None:
        raise TypeError("cond(): true_fn argument required")
    if false_fn is None:
        raise TypeError("cond(): false_fn argument required")
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("pred must not be a Python bool; use a bool Tensor (or plain Python `if`).")
    with name_scope(name, "cond", [pred]) as scope:
        pred = convert_to_tensor(pred)
        if pred.dtype.base_dtype is not _dt.bool:
            raise TypeError("pred must be a bool Tensor, got %s with dtype %s; compare it first "
                            "(e.g. tf.greater(x, 0))." % (pred.name, pred.dtype.name))
        if pred.shape.ndims not in (None, 0):
            raise ValueError("Shape must be rank 0 but is rank %d for '%sSwitch' (op: 'Switch'): "
                             "pred %s must be a scalar." % (pred.shape.ndims, scope, pred.name))
        structures = {}

        def wrap(fn, key):
            def run():
                res = fn()
                if res is None:
                    raise ValueError("%s must have a return value." % key)
                if not strict:
                    res = _unpack_singleton(res)
                structures[key] = res
                return [_leaf(x, key) for x in nest.flatten(res)]
            return run

        flat_t, ops_t = trace(wrap(true_fn, "true_fn"))
        flat_f, ops_f = trace(wrap(false_fn, "false_fn"))
        res_t, res_f = structures["true_fn"], structures["false_fn"]
        if not nest.same_structure(res_t, res_f):
            raise ValueError("Outputs of true_fn and false_fn must have the same structure: %s, %s"
                             % (nest.describe(res_t), nest.describe(res_f)))
        for x, y in zip(flat_t, flat_f):
            if isinstance(x, Operation) != isinstance(y, Operation) or (
                    isinstance(x, Tensor) and x.dtype.base_dtype is not y.dtype.base_dtype):
                raise ValueError("Outputs of true_fn and false_fn must have the same type: %s, %s"
                                 % (_type_name(x), _type_name(y)))
        op = make_if(pred, [(ops_t, flat_t), (ops_f, flat_f)], scope)
        from lens.ops.core import identity
        merged = [identity(t, name="Merge") for t in op._outputs[:len(flat_t)]]
        merged = [r._with_flow(m) if isinstance(r, TensorArray) else m
                  for r, m in zip(nest.flatten(res_t), merged)]
    return nest.pack_sequence_as(res_t, merged)


def _type_name(x):
    return "Operation %s" % x.name if isinstance(x, Operation) else "%s (%s)" % (x.dtype.name, x.name)


__all__ = ["cond"]
