"""What a watched (debugger) plan reports, and when it warns the watch of in-place updates.

tfdbg instruments the graph after Grappler has rewritten it, so a debugged run shows what is
left: the dependency optimizer's bypassed identities and the constant folder's shape arithmetic
are never dumped. Watched plans compute those ops (or alias them) without reporting them.
"""
from lens.framework.graph import Operation


def is_variable_ref(t):
    """True for a variable op's own ref output (its buffer)."""
    return t._op._type in ("VariableV2", "Variable") and t._dtype.is_ref_dtype


# Ops that run nested ops (whose updates the plan cannot see one by one).
_NESTING_TYPES = frozenset({"If", "While", "WhileGrad"})


def updated_variables(op):
    """Names of the variables op may update in place: () for none, None when unknown."""
    od = op._op_def
    if not od.stateful:
        return ()
    if op._type in _NESTING_TYPES:
        return None
    refs = [t for i, t in enumerate(op._inputs) if i in od.handle_inputs or t._dtype.is_ref_dtype]
    if not all(is_variable_ref(t) for t in refs):
        return None     # a ref reached through another op (RefIdentity, Switch...)
    return tuple(t._op._name for t in refs)


def bypassed_identities(ops, targets, fed):
    """Identity ops Grappler removes: not fetched, not fed, not reading a variable or a feed."""
    fetched = {t if isinstance(t, Operation) else t._op for t in targets}
    return {op for op in ops
            if op._type == "Identity" and op not in fetched and op._inputs
            and op._outputs[0] not in fed and op._inputs[0] not in fed
            and not is_variable_ref(op._inputs[0])}


def folded_away(ops, targets, folded):
    """Folded ops and constants that only folded ops read: Grappler's constant folding leaves
    just the values other ops read (as constants), so tfdbg never sees the rest."""
    fetched = {t if isinstance(t, Operation) else t._op for t in targets}
    readers = {}
    for op in ops:
        for t in op._inputs:
            readers.setdefault(t._op, set()).add(op)
    return {op for op in ops
            if (op in folded or op._type == "Const") and op not in fetched
            and op in readers and readers[op] <= folded}
