"""Regions: the ops a traced Python function adds to the graph, run lazily as compiled sub-plans.

A control-flow op (If, While, ...) owns one region per function. The region's ops live in the
same graph as the op (so names read `cond/add`, `while/Less` as in TF1) but the outer plan never
reaches them: the op's inputs are only the outer tensors the region reads (its captures), and its
kernel compiles the region into its own plan with those captures fed.
"""
from lens.framework.graph import Operation, Tensor, get_default_graph

VARIABLE_TYPES = ("VariableV2", "Variable")


def trace(fn):
    """Call fn() recording the ops it creates; returns (result, region op set).

    Enclosing control dependencies are cleared (the control-flow op itself carries them), and
    variables created while tracing are lifted out: their VariableV2 op and `v/read` snapshot
    count as outer ops, as TF1 lifts variable creation out of control-flow contexts."""
    g = get_default_graph()
    start = len(g._ops)
    with g.control_dependencies(None):
        result = fn()
    created = g._ops[start:]
    lifted = set()
    for op in created:
        if op._type in VARIABLE_TYPES:
            lifted.add(op)
            for t in op._outputs:
                for c in t._consumers:
                    if c._type == "Identity" and c._name == op._name + "/read":
                        lifted.add(c)
    return result, set(created) - lifted


def externals(region_ops, targets, fed):
    """Tensors produced outside the region that targets need (variable refs excluded).

    Walks back from targets through region ops only. Control inputs from region ops to outer
    ops are cut and returned, so the control-flow op can depend on them instead (an outer op
    must not run again inside the sub-plan)."""
    fed = set(fed)
    found, seen, outer_controls = [], set(), []
    found_set = set()
    stack = []
    for t in targets:
        if isinstance(t, Operation):
            stack.append(t)
        elif t in fed:
            continue
        elif t._op in region_ops:
            stack.append(t._op)
        elif t._op._type not in VARIABLE_TYPES and t not in found_set:
            found.append(t)
            found_set.add(t)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        for t in op._inputs:
            if t in fed:
                continue
            p = t._op
            if p in region_ops:
                stack.append(p)
            elif p._type not in VARIABLE_TYPES and t not in found_set:
                found.append(t)
                found_set.add(t)
        for c in list(op._control_inputs):
            if c in region_ops:
                stack.append(c)
            elif c._type not in VARIABLE_TYPES:
                op._control_inputs.remove(c)
                if op in c._control_outputs:
                    c._control_outputs.remove(op)
                outer_controls.append(c)
    return found, outer_controls


class SubPlan:
    """A region compiled on first use for one session: fed tensors in, target values out.

    `ctx` is the running session's context: it compiles the region (the client registers itself
    there rather than the ops layer importing the executor)."""

    __slots__ = ("targets", "fed", "ctx", "plan", "n_values")

    def __init__(self, targets, fed, ctx):
        self.targets = list(targets)
        self.fed = list(fed)
        self.ctx = ctx
        self.plan = None
        self.n_values = sum(1 for t in self.targets if isinstance(t, Tensor))

    def __call__(self, values):
        """The target tensors' values (operation targets just run)."""
        plan = self.plan
        if plan is None:
            plan = self.plan = self.ctx.compile_plan(self.targets, self.fed, self.ctx)
        try:
            return plan.fn(values, self.ctx.variables, None)
        except Exception as e:  # noqa: BLE001 - re-raised as the TF error naming the inner op
            err = self.ctx.translate_error(e, plan)
            if err is None:
                raise
            raise err.with_traceback(None) from None


def is_auto_zero(grad, output):
    """True when grad is the ZerosLike tf.gradients made for an output nobody differentiated."""
    return (grad is None or (isinstance(grad, Tensor) and grad._op._type == "ZerosLike"
                             and grad._op._inputs and grad._op._inputs[0] is output))


def append_output(op, like):
    """Add one more output to op, typed and shaped like tensor `like` (intermediates for gradients)."""
    t = Tensor(op, len(op._outputs), like.dtype.base_dtype)
    t._shape = like.shape
    op._outputs.append(t)
    return t
