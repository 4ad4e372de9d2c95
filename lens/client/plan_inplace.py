"""Which inputs a plain plan's kernels may overwrite (TF's buffer forwarding, decided at compile time).

TF's kernels write their output into an input buffer whose reference count is one. A compiled
plan knows every reader of every value up front, so it decides the same thing once: an op's
input is *donated* when

* the value comes from a kernel that always returns a new array of its own (a product, a sum,
  an activation; never a view, a variable, a constant, a feed or a cached shape value), or from
  an op that itself wrote in place into such a donated buffer;
* this op is its only reader: no other op reads it (a Shape only reads its shape, which an
  in-place write keeps), it is not fetched, and no Identity alias of it is read or fetched;
* the reader's kernel knows how to write in place (OpDef.inplace) and checks, when it runs, that
  the buffer has the result's shape and dtype (else it allocates as usual).

Watched runs hand every op's value to the debugger, so they never donate; traced runs do (step
stats read only each value's shape and size, which an in-place write keeps).
"""
from lens.client.plan_watch import is_variable_ref
from lens.framework.graph import Operation

# Kernels whose outputs are arrays nothing else refers to (fresh, or a recycled buffer only the
# kernel's recycler kept, which it reuses only once no one else holds it).
FRESH = frozenset({"MatMul", "Add", "AddV2", "Sub", "Mul", "BiasAdd", "Relu", "ReluGrad",
                   "SoftmaxCrossEntropyWithLogits"})

# Reading only the shape of a value: an in-place write (same shape) cannot change what they see.
SHAPE_ONLY = frozenset({"Shape", "ShapeN", "Rank", "Size"})


def _aliases(ops, fed, skip):
    """{Identity output: the tensor it aliases} for the Identities a plan emits as plain names."""
    root = {}
    for op in ops:
        if op._type == "Identity" and op not in skip and op._outputs[0] not in fed \
                and not is_variable_ref(op._inputs[0]):
            src = op._inputs[0]
            root[op._outputs[0]] = root.get(src, src)
    return root


def donations(ops, targets, fed, dead, skip):
    """{op: frozenset of input indices op's kernel may overwrite}. dead: ops that do not run;
    skip: ops not run by a kernel call of their own (folded into cached groups, fused into chains)."""
    root = _aliases(ops, fed, dead | skip)
    uses, fetched = {}, set()
    for t in targets:
        if not isinstance(t, Operation):
            fetched.add(root.get(t, t))
    for op in ops:
        if op in dead or op._type in SHAPE_ONLY or (op._outputs and op._outputs[0] in root):
            continue
        for t in op._inputs:
            r = root.get(t, t)
            uses[r] = uses.get(r, 0) + 1
    out = {}
    for op in ops:
        inplace = op._op_def.inplace
        if inplace is None or op in dead or op in skip:
            continue
        given = []
        for i, t in enumerate(op._inputs):
            r = root.get(t, t)
            src = r._op
            if (r not in fed and r not in fetched and uses.get(r) == 1 and src._type in FRESH
                    and src not in dead and src not in skip and not is_variable_ref(r)):
                given.append(i)
        if given:
            out[op] = frozenset(given)
    return out
