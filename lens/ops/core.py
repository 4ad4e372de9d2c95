"""Const, Placeholder, Identity, NoOp, StopGradient, Print, py_func, group, tuple."""
import sys

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor, graph_of
from lens.framework.graph import Operation, Tensor, get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import as_shape


def _same_shape(op):
    return [op._inputs[0].shape]


def _const_kernel(op, ctx):
    value = op._attrs["value"]
    return lambda: value


register_op("Const", make=_const_kernel, not_differentiable=True)


def _placeholder_kernel(op, ctx):
    def fail():
        raise errors.InvalidArgumentError(None, op, "You must feed a value for placeholder tensor %r" % op.name)
    return fail


register_op("Placeholder", make=_placeholder_kernel, not_differentiable=True)


def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed: `tf.placeholder(tf.float32, [None, 784])`."""
    dtype = _dt.as_dtype(dtype)
    shape = as_shape(shape)
    g = get_default_graph()
    op = g._create_op("Placeholder", [], [dtype], {"dtype": dtype, "shape": shape},
                      name or "Placeholder", shapes=[shape], frames_skip=3)
    return op._outputs[0]


# TF1 passes the gradient through to the default input (its gradient is Identity's).
register_op("PlaceholderWithDefault", fn=lambda x: x,
            grad=lambda op, grad: [grad])


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's name
    """input unless the returned tensor is fed."""
    g = get_default_graph()
    with g.name_scope(name or "PlaceholderWithDefault") as scope:
        x = convert_to_tensor(input, name="input")
        shape = as_shape(shape)
        x.shape.merge_with(shape) if shape.ndims is not None and x.shape.ndims == shape.ndims else None
        op = g._create_op("PlaceholderWithDefault", [x], [x.dtype.base_dtype],
                          {"dtype": x.dtype.base_dtype, "shape": shape}, scope, shapes=[shape],
                          frames_skip=3)
    return op._outputs[0]


register_op("Identity", fn=lambda x: x, shape=_same_shape, grad=lambda op, g: [g])
register_op("Snapshot", fn=lambda x: x, shape=_same_shape, grad=lambda op, g: [g])


def identity(input, name=None):  # noqa: A002
    """The same value, as a new op (`v/read`-style)."""
    x = convert_to_tensor(input) if not isinstance(input, Tensor) else input
    return apply_op("Identity", [(x, "input")], name=name or "Identity", dtypes=[x.dtype.base_dtype])


register_op("IdentityN", fn=lambda *xs: xs if len(xs) != 1 else xs[0], shape=lambda op: [t.shape for t in op._inputs],
            grad=lambda op, *grads: list(grads))


def identity_n(input, name=None):  # noqa: A002
    """Identity over a list of tensors."""
    xs = [convert_to_tensor(x) for x in input]
    g = graph_of(xs)
    op = g._create_op("IdentityN", xs, [x.dtype.base_dtype for x in xs], {"T": [x.dtype for x in xs]},
                      name or "IdentityN", frames_skip=3)
    return op.outputs


register_op("NoOp", fn=lambda: None, not_differentiable=True)


def no_op(name=None):
    """An op that does nothing (useful with control dependencies)."""
    return get_default_graph()._create_op("NoOp", [], [], None, name or "NoOp", frames_skip=3)


register_op("StopGradient", fn=lambda x: x, shape=_same_shape, not_differentiable=True)
register_op("PreventGradient", fn=lambda x: x, shape=_same_shape, not_differentiable=True)


def stop_gradient(input, name=None):  # noqa: A002
    """The same value; gradients do not flow through it."""
    return apply_op("StopGradient", [(input, "input")], name=name or "StopGradient")


def _print_kernel(op, ctx):
    message = op._attrs.get("message", "")
    first_n = op._attrs.get("first_n", -1)
    summarize = op._attrs.get("summarize", 3)
    state = {"n": 0}

    def fmt(v):
        flat = np.asarray(v).ravel()
        items = [_summarize_value(x) for x in flat[:summarize].tolist()]
        more = "..." if flat.size > summarize else ""
        return "[" + " ".join(items) + more + "]"

    def run(x, *data):
        if first_n < 0 or state["n"] < first_n:
            state["n"] += 1
            sys.stderr.write(message + "".join(fmt(d) for d in data) + "\n")
        return x
    return run


def _print_grad(op, grad):
    return [grad] + [None] * (len(op._inputs) - 1)


def _summarize_value(x):
    # TF1 prints floats in their shortest form without a trailing '.0' ("[1 3]").
    if isinstance(x, bytes):
        return x.decode(errors="replace")
    if isinstance(x, float):
        return np.format_float_positional(x, trim="-") if abs(x) < 1e16 else repr(x)
    return str(x)


register_op("Print", make=_print_kernel, shape=_same_shape, grad=_print_grad, stateful=True)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """Identity on input_ that prints message and data to stderr when evaluated."""
    g = graph_of([input_] + list(data))
    with g.as_default(), g.name_scope(name or "Print") as scope:
        x = convert_to_tensor(input_, name="input")
        ds = [convert_to_tensor(d) for d in data]
        attrs = {"message": message or "", "first_n": -1 if first_n is None else first_n,
                 "summarize": 3 if summarize is None else summarize, "T": x.dtype}
        op = g._create_op("Print", [x] + ds, [x.dtype.base_dtype], attrs, scope, frames_skip=3)
    return op._outputs[0]


def _print_v2_kernel(op, ctx):
    template = op._attrs["template"]
    stream = op._attrs.get("output_stream", "stderr")
    end = op._attrs.get("end", "\n")
    sep = op._attrs.get("sep", " ")
    summarize = op._attrs.get("summarize", 3)

    def fmt(v):
        return np.array2string(np.asarray(v), threshold=max(summarize * 2, 1), edgeitems=summarize,
                               separator=" ", formatter={"bytes": lambda b: b.decode()}) \
            if np.ndim(v) else (v.decode() if isinstance(v, bytes) else str(v))

    def run(*values):
        text = sep.join(t if v is None else fmt(v) for t, v in _fill(template, values))
        out = sys.stdout if stream in ("stdout", "sys.stdout") else sys.stderr
        out.write(text + end)
        out.flush()
    return run


def _fill(template, values):
    it = iter(values)
    return [(t, None) if isinstance(t, str) else ("", next(it)) for t in template]


register_op("PrintV2", make=_print_v2_kernel, not_differentiable=True, stateful=True)


def print_v2(*inputs, **kwargs):
    """tf.print: an op that prints its inputs (tensors formatted like numpy) when run."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    summarize = kwargs.pop("summarize", 3)
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unrecognized keyword arguments for tf.print: %s" % sorted(kwargs))
    stream = "stdout" if output_stream in (sys.stdout, "stdout", "sys.stdout") else "stderr"
    template, tensors = [], []
    for x in inputs:
        if isinstance(x, Tensor) or hasattr(x, "_as_graph_element"):
            template.append(None)
            tensors.append(convert_to_tensor(x))
        else:
            template.append(str(x))
    g = graph_of(tensors)
    attrs = {"template": template, "output_stream": stream, "sep": sep, "end": end,
             "summarize": summarize}
    return g._create_op("PrintV2", tensors, [], attrs, name or "PrintV2", frames_skip=3)


def _py_func_kernel(op, ctx):
    func = op._attrs["_func"]
    out_dtypes = op._attrs["Tout"]
    single = op._attrs["_single"]

    def run(*args):
        res = func(*args)
        if single:
            res = [res]
        if len(res) != len(out_dtypes):
            raise errors.InvalidArgumentError(None, op, "py_func %s returned %d values, expected %d"
                                              % (op.name, len(res), len(out_dtypes)))
        outs = tuple(np.asarray(r, dtype=d.as_numpy_dtype) for r, d in zip(res, out_dtypes))
        return outs[0] if len(outs) == 1 else outs
    return run


def _py_func_grad(op, *grads):
    return [None] * len(op._inputs)


register_op("PyFunc", make=_py_func_kernel, grad=_py_func_grad, stateful=True)


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's name
    """Run a Python function on numpy values as an op."""
    single = not isinstance(Tout, (list, tuple))
    touts = [_dt.as_dtype(t) for t in ([Tout] if single else Tout)]
    xs = [convert_to_tensor(x) for x in inp]
    g = graph_of(xs)
    op = g._create_op("PyFunc", xs, touts, {"Tout": touts, "_func": func, "_single": single,
                                            "token": "pyfunc_%d" % id(func)},
                      name or "PyFunc", frames_skip=3)
    outs = op.outputs
    if not outs:
        return op
    return outs[0] if single else outs


def group(*inputs, **kwargs):
    """An op that runs all inputs (a NoOp with control dependencies on them)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: %s" % ", ".join(kwargs))
    ops = []
    for x in _flatten(inputs):
        if hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation)):
            x = x._as_graph_element()
        op = x.op if isinstance(x, Tensor) else x
        if not isinstance(op, Operation):
            raise TypeError("tf.group expects ops or tensors, got %r" % (x,))
        if op not in ops:
            ops.append(op)
    g = ops[0].graph if ops else get_default_graph()
    with g.as_default(), g.name_scope(name or "group_deps") as scope:
        with g.control_dependencies(ops):
            return g._create_op("NoOp", [], [], None, scope, frames_skip=3)


def _flatten(items):
    for x in items:
        if isinstance(x, (list, tuple, set)):
            yield from _flatten(x)
        elif isinstance(x, dict):
            yield from _flatten(list(x.values()))
        elif x is not None:
            yield x


def tuple_(tensors, name=None, control_inputs=None):
    """Identities of tensors that are only available after all of them are computed."""
    tensors = list(tensors)
    live = [t for t in tensors if t is not None]
    g = graph_of(live)
    with g.as_default(), g.name_scope(name or "tuple"):
        gate = group(*(live + list(control_inputs or [])))
        out = []
        for t in tensors:
            out.append(None if t is None else _with_dependencies([gate], t))
        return out


def _with_dependencies(deps, t, name=None):
    """Identity of t that runs after deps (TF1's control_dependency identities)."""
    g = t.graph
    with name_scope(name, "control_dependency", list(deps) + [t]) as scope:
        with g.colocate_with(t.op), g.control_dependencies(deps):
            return identity(t, name=scope)


def shape_of(op_inputs):
    """Static shapes of an op's inputs (helper for shape functions)."""
    return [t.shape for t in op_inputs]
