"""tf.einsum: the Einsum op of TF 1.15+ (one or two operands per op) and its gradient."""
import numpy as np

from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape


def _parse_equation(equation, n_inputs):
    """([input subscripts], output subscripts) of an explicit or implicit equation; ValueError
    naming the equation for what lens does not support (ellipsis, an index repeated in one operand)."""
    if not isinstance(equation, str):
        raise TypeError("einsum: equation must be a string, got %r" % (equation,))
    eq = equation.replace(" ", "")
    if "." in eq:
        raise ValueError("einsum: equation %r uses an ellipsis ('...'), which lens does not support; "
                         "name every axis with a letter." % equation)
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != n_inputs:
        raise ValueError("einsum: equation %r has %d operand(s) but %d input(s) were given"
                         % (equation, len(ins), n_inputs))
    for s in ins + ([out] if arrow else []):
        if not all(c.isalpha() for c in s):
            raise ValueError("einsum: equation %r has a subscript %r that is not made of letters" % (equation, s))
        if len(set(s)) != len(s):
            raise ValueError("einsum: equation %r repeats an index within %r, which lens does not support "
                             "(take the diagonal with tf.linalg.diag_part first)." % (equation, s))
    if not arrow:  # implicit mode: the indices seen once, in alphabetical order
        seen = "".join(ins)
        out = "".join(sorted(c for c in set(seen) if seen.count(c) == 1))
    missing = set(out) - set("".join(ins))
    if missing:
        raise ValueError("einsum: output index %s of equation %r is in no input" % (sorted(missing), equation))
    return ins, out


def _einsum_make(op, ctx):
    eq = op._attrs["equation"]
    ins = eq.split("->")[0].split(",")

    def run(*xs):
        sizes = {}
        for sub, x in zip(ins, xs):
            if np.ndim(x) != len(sub):
                raise errors.InvalidArgumentError(None, op, "einsum %r: input of shape %s has rank %d, "
                                                  "subscript %r needs rank %d" % (eq, list(np.shape(x)),
                                                                                  np.ndim(x), sub, len(sub)))
            for c, d in zip(sub, np.shape(x)):
                if sizes.setdefault(c, d) != d:
                    raise errors.InvalidArgumentError(None, op, "einsum %r: index %r has size %d in one input "
                                                      "and %d in another" % (eq, c, sizes[c], d))
        return np.asarray(np.einsum(eq, *xs)).astype(np.result_type(*xs), copy=False)
    return run


def _einsum_shape(op):
    eq = op._attrs["equation"]
    ins, out = eq.split("->")[0].split(","), eq.split("->")[1]
    sizes = {}
    for sub, t in zip(ins, op._inputs):
        if t.shape.ndims is None:
            continue
        if t.shape.ndims != len(sub):
            raise ValueError("einsum %r: input of shape %s has rank %d, subscript %r needs rank %d"
                             % (eq, t.shape, t.shape.ndims, sub, len(sub)))
        for c, d in zip(sub, t.shape.as_list()):
            if d is not None and sizes.setdefault(c, d) != d:
                raise ValueError("einsum %r: index %r has size %d in one input and %d in another"
                                 % (eq, c, sizes[c], d))
    return [TensorShape([sizes.get(c) for c in out])]


def _einsum_grad(op, grad):
    # d/dX_k of einsum: einsum of the output gradient with the other operands back to X_k's indices;
    # an index of X_k found nowhere else was summed away, so the gradient is broadcast along it.
    eq = op._attrs["equation"]
    ins, out = eq.split("->")[0].split(","), eq.split("->")[1]
    grads = []
    for k, (sub, x) in enumerate(zip(ins, op._inputs)):
        others = [(s, t) for j, (s, t) in enumerate(zip(ins, op._inputs)) if j != k]
        reach = set(out).union(*[set(s) for s, _ in others])
        kept = "".join(c for c in sub if c in reach)
        g = _einsum_op(",".join([out] + [s for s, _ in others]) + "->" + kept, [grad] + [t for _, t in others])
        if kept != sub:
            for axis, c in enumerate(sub):
                if c not in reach:
                    g = A.expand_dims(g, axis)
            g = A.broadcast_to(g, A.shape(x))
        grads.append(g)
    return grads


register_op("Einsum", make=_einsum_make, shape=_einsum_shape, grad=_einsum_grad)


def _einsum_op(equation, inputs, name=None):
    return apply_op("Einsum", [(x, "inputs") for x in inputs], {"equation": equation, "N": len(inputs)},
                    name=name or "Einsum")


def einsum(equation, *inputs, **kwargs):
    """Sum of products over the indices an equation like 'ij,jk->ik' names (implicit output when
    there is no '->'); three or more operands contract pairwise, left to right."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("einsum: unexpected keyword argument(s) %s" % sorted(kwargs))
    if not inputs:
        raise ValueError("einsum: equation %r needs at least one input" % (equation,))
    ins, out = _parse_equation(equation, len(inputs))
    with name_scope(name, "einsum", list(inputs)):
        ts = [convert_to_tensor(x, name="inputs") for x in inputs]
        for t in ts[1:]:
            if t.dtype.base_dtype is not ts[0].dtype.base_dtype:
                raise TypeError("einsum: inputs must share one dtype, got %s and %s"
                                % (ts[0].dtype.name, t.dtype.name))
        acc, acc_sub = ts[0], ins[0]
        for i in range(1, len(ts) - 1):
            later = set(out).union(*[set(s) for s in ins[i + 1:]])
            keep = "".join(dict.fromkeys(c for c in acc_sub + ins[i] if c in later))
            acc, acc_sub = _einsum_op("%s,%s->%s" % (acc_sub, ins[i], keep), [acc, ts[i]]), keep
        if len(ts) == 1:
            return _einsum_op("%s->%s" % (acc_sub, out), [acc])
        return _einsum_op("%s,%s->%s" % (acc_sub, ins[-1], out), [acc, ts[-1]])
