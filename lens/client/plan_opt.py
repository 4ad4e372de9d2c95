"""What a compiled plan may skip, compute once or fuse, without changing any fetched value.

Rewrites in the compiled plan only (the graph keeps every op); fused chains and conv-pool
blocks (below) apply to plain runs only, never to watched or traced ones:

* Dead ops. TF1 sessions run Grappler's dependency optimizer by default, which turns a
  side-effect-free op whose outputs nobody reads (only control edges leave it, e.g. the gradient
  w.r.t. a placeholder grouped by `tuple/group_deps`) into a NoOp. Plans do the same.
* Shape folding. Ops computed only from constants and the *shapes* of other tensors (the
  Shape/BroadcastGradientArgs/DynamicStitch chains of broadcasting and reduction gradients) are
  grouped by the tensors whose shapes they read; each group runs once per distinct set of those
  shapes and its values are reused (read-only) while the shapes stay the same.
"""
import numpy as np

from lens.client.plan_watch import is_variable_ref

# Ops whose output is a function of their inputs' shapes only.
SHAPE_READERS = frozenset({"Shape", "ShapeN", "Rank", "Size"})

# Deterministic, side-effect-free ops that may be folded when all their inputs fold.
FOLDABLE = SHAPE_READERS | frozenset({
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "FloorMod", "Neg", "Maximum",
    "Minimum", "Cast", "Identity", "Reshape", "ExpandDims", "Squeeze", "Fill", "BroadcastTo",
    "BroadcastGradientArgs", "Range", "DynamicStitch", "Slice", "StridedSlice", "ConcatV2", "Pack",
    "Unpack", "Prod", "Sum", "Max", "Min", "Mean", "Tile", "Transpose", "GatherV2", "ZerosLike",
    "OnesLike", "Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual", "LogicalAnd",
    "LogicalOr", "LogicalNot", "Select", "SelectV2", "InvertPermutation", "Pad", "PadV2",
})

# Never turned into NoOps even when nobody reads them (Grappler's do-not-rewrite list, plus ops
# whose value comes from outside the graph).
_KEEP_TYPES = frozenset({"Assert", "CheckNumerics", "Placeholder", "PlaceholderWithDefault",
                         "VariableV2", "Variable", "Switch", "Merge", "Enter", "Exit",
                         "NextIteration", "LoopCond", "ControlTrigger", "NoOp"})

ENABLED = True         # tests compare against plans built without these rewrites
BLOCKS = True          # conv-pool blocks (see conv_pool_blocks); off: the plain fused chains
MAX_CACHED_KEYS = 64   # distinct shape sets kept per group (varying batch sizes)


def _removable(op):
    """Side-effect free, with outputs, and not an op Grappler keeps (variable reads included)."""
    if not op._outputs or op._type in _KEEP_TYPES or op._op_def.stateful or op._op_def.handle_inputs:
        return False
    if op._type in ("Identity", "IdentityN") and op._inputs and is_variable_ref(op._inputs[0]):
        return False
    return True


def dead_ops(ops, targets, fed):
    """Ops of `ops` (topological) whose outputs no kept op reads and that may be skipped."""
    from lens.framework.graph import Operation
    needed = set()
    for t in targets:
        needed.add(t if isinstance(t, Operation) else t._op)
    dead = set()
    for op in reversed(ops):    # consumers come before producers in this walk
        if op in needed or not _removable(op):
            for t in op._inputs:
                if t not in fed:
                    needed.add(t._op)
        else:
            dead.add(op)
    return dead


def fold_groups(ops, fed, skip):
    """Foldable ops grouped by the tensors whose shapes they read: [(sources, member ops)].

    Groups come in the order they can be evaluated; members in topological order.
    """
    sources = {}        # op -> frozenset of tensors whose shapes its value depends on
    for op in ops:
        if op in skip or op._type not in FOLDABLE or op._control_inputs or not op._outputs \
                or op._op_def.handle_inputs or op._op_def.stateful or any(t in fed for t in op._outputs):
            continue
        srcs = set()
        ok = True
        for t in op._inputs:
            if op._type in SHAPE_READERS and t not in fed and t._op in sources:
                srcs |= sources[t._op]    # the shape of a folded value: same sources
            elif op._type in SHAPE_READERS and t not in fed and t._op._type == "Const":
                continue
            elif op._type in SHAPE_READERS:
                if is_variable_ref(t):   # an Assign may reshape it mid-run: keep the read in place
                    ok = False
                srcs.add(t)
            elif t in fed:
                ok = False
            elif t._op._type == "Const":
                continue
            elif t._op in sources:
                srcs |= sources[t._op]
            else:
                ok = False
            if not ok:
                break
        if ok:
            sources[op] = frozenset(srcs)
    groups = {}
    for op in ops:
        if op in sources:
            groups.setdefault(sources[op], []).append(op)
    # A group feeding another reads a strict subset of its sources: fewer sources first.
    return sorted(groups.items(), key=lambda kv: len(kv[0]))


def freeze(values):
    """Values made read-only (views), so a cached value cannot be changed through a consumer."""
    out = []
    for v in values:
        if isinstance(v, np.ndarray) and v.flags.writeable:
            v = v.view()
            v.flags.writeable = False
        out.append(v)
    return tuple(out)


def make_fold(cache, fn):
    """The slow path of one group: compute, freeze, remember under the sources' shapes."""
    def fold(srcs, args):
        vals = freeze(fn(*args))
        try:
            key = tuple(s.shape for s in srcs)
        except AttributeError:   # a Python scalar or bytes: fall back to NumPy's view of its shape
            return vals
        if len(cache) >= MAX_CACHED_KEYS:
            cache.clear()
        cache[key] = vals
        return vals
    return fold


# ------------------------------------------------------------------ fused chains
# A third rewrite, for plain (unwatched, untraced) runs only: a chain of ops whose intermediate
# values nobody else reads runs as one kernel call, so the big intermediate buffers are written
# in place while they are still in the cache instead of being allocated and passed over again.
# Each pattern: op types from head to tail, and how the fused kernel's inputs are gathered.
def _conv_bias_ok(conv, bias):
    return (conv._attrs.get("data_format", "NHWC") == "NHWC" and bias._attrs.get("data_format", "NHWC") == "NHWC"
            and bias._inputs[0] is conv._outputs[0]
            and conv._outputs[0].dtype.base_dtype == bias._inputs[1].dtype.base_dtype)


def _patterns():
    from lens.ops import conv as C
    from lens.ops import pool as P
    from lens.ops import reduce as R
    return [
        # A broadcasting gradient's Sum then Reshape (add_grad, every bias, every step).
        (("Sum", "Reshape"), lambda s, r: r._inputs[0] is s._outputs[0],
         lambda s, r: [s._inputs[0], s._inputs[1], r._inputs[1]], R.make_sum_reshape),
        (("Conv2D", "BiasAdd", "Relu"), lambda c, b, r: _conv_bias_ok(c, b) and r._inputs[0] is b._outputs[0],
         lambda c, b, r: list(c._inputs) + [b._inputs[1]], C.make_conv_bias_relu),
        (("Conv2D", "BiasAdd"), _conv_bias_ok,
         lambda c, b: list(c._inputs) + [b._inputs[1]], C.make_conv_bias_relu),
        (("MaxPoolGrad", "ReluGrad"),
         lambda p, r: (p._attrs.get("data_format", "NHWC") == "NHWC" and r._inputs[0] is p._outputs[0]
                       and r._inputs[1] is p._inputs[0]
                       and r._inputs[0].dtype.base_dtype == p._inputs[2].dtype.base_dtype),
         lambda p, r: list(p._inputs), P.make_max_pool_grad_relu),
    ]


def fused_chains(ops, targets, fed, dead, folded=frozenset()):
    """{tail op: (member ops, tail last; inputs; kernel maker; outputs)} for chains safe to fuse.

    Inputs and outputs are tensors, or strings naming a private plan value that one fused call
    returns and a later one takes (never seen outside the plan).

    A member before the tail must have one output, read only by the next member (no fetch, no
    control edge, no shape reader), and no op updating a variable may run between head and tail:
    the fused call reads every input at the tail's place in the plan.
    """
    from lens.framework.graph import Operation
    skip = dead | folded
    uses, ctl = {}, set()
    for op in ops:
        if op in dead:      # a folded group reads its sources' values too (their shapes)
            continue
        for t in op._inputs:
            uses[t] = uses.get(t, 0) + 1
        ctl.update(op._control_inputs)
    fetched = set()
    for t in targets:
        fetched.add(t if isinstance(t, Operation) else t._op)
    pos = {op: i for i, op in enumerate(ops)}
    # Ops that may change a value in place (assignments and updates take a variable's ref or
    # handle); a variable read or a random op in between is harmless.
    stateful_at = [i for i, op in enumerate(ops) if op._op_def.stateful and op not in skip and (
        op._op_def.handle_inputs or any(t._dtype.is_ref_dtype for t in op._inputs))]

    def inner_ok(op):
        return (op not in fetched and op not in ctl and op not in skip and len(op._outputs) == 1
                and op._outputs[0] not in fed and uses.get(op._outputs[0], 0) == 1)

    chains, taken = {}, set()
    if BLOCKS:
        for tail, entry in conv_pool_blocks(ops, fetched, fed, skip, uses, ctl, pos, stateful_at).items():
            chains[tail] = entry
            taken.update(entry[0])
    for types, fits, gather, maker in _patterns():
        for tail in ops:
            if tail._type != types[-1] or tail in taken or tail in skip or tail in chains:
                continue
            members = [tail]
            while len(members) < len(types):
                src = members[0]._inputs[0] if members[0]._inputs else None
                if src is None or src in fed or src._op._type != types[-1 - len(members)]:
                    break
                members.insert(0, src._op)
            if len(members) < len(types) or any(m in taken for m in members):
                continue
            if not all(inner_ok(m) for m in members[:-1]) or not fits(*members):
                continue
            lo, hi = pos[members[0]], pos[tail]
            if any(lo < i < hi for i in stateful_at):
                continue
            chains[tail] = (members, gather(*members), maker, [tail._outputs[0]])
            taken.update(members)
    return chains


# ------------------------------------------------------------------ conv-pool blocks
# The layer every TF1 CNN tutorial builds, relu(conv2d(x, f) + b) -> max_pool, trained through
# the gradients of f and b: two fused calls (see lens/ops/conv_pool.py) sharing the patch
# matrix and a pool-friendly layout of the conv output through a private plan value.
def _nhwc(op):
    return op._attrs.get("data_format", "NHWC") == "NHWC"


def _conv_keys(op):
    return {k: op._attrs.get(k) for k in ("strides", "padding", "dilations", "data_format", "explicit_paddings")}


def _pool_keys(op):
    return {k: op._attrs.get(k) for k in ("ksize", "strides", "padding", "data_format")}


def _block_at(pool, fetched, fed, skip, uses, ctl, consumers):
    """(forward members, backward members) of the block ending in this MaxPool, or None."""
    from lens.framework import dtypes
    from lens.ops.conv_np import TAP_MAJOR_MAX_C

    # Control edges need no check: nothing updating a variable may run between the block's
    # first op and its last call, and no other op can tell when a pure op ran.
    def single(op, users=1):
        return (op not in fetched and op not in skip and len(op._outputs) == 1
                and op._outputs[0] not in fed and uses.get(op._outputs[0], 0) == users)

    def producer(t, kind):
        return t._op if t not in fed and t._op._type == kind else None

    relu = producer(pool._inputs[0], "Relu")
    bias = relu and producer(relu._inputs[0], "BiasAdd")
    conv = bias and producer(bias._inputs[0], "Conv2D")
    if conv is None or not (single(conv) and single(bias) and single(relu, 3)):
        return None
    r, p = relu._outputs[0], pool._outputs[0]
    x, dtype = conv._inputs[0], r.dtype.base_dtype
    if not (_nhwc(conv) and _nhwc(bias) and _nhwc(pool) and dtype in (dtypes.float32, dtypes.float64)
            and bias._inputs[1].dtype.base_dtype == dtype and conv._inputs[1].dtype.base_dtype == dtype
            and x.shape.ndims == 4 and x.shape.as_list()[3] is not None
            and x.shape.as_list()[3] <= TAP_MAJOR_MAX_C
            and list(pool._attrs["ksize"]) == list(pool._attrs["strides"]) and p not in fed):
        return None
    users = [u for u in consumers.get(r, ()) if u is not pool]
    grad = next((u for u in users if u._type == "MaxPoolGrad"), None)
    rgrad = next((u for u in users if u._type == "ReluGrad"), None)
    if grad is None or rgrad is None or len(users) != 2 or not single(grad) or not single(rgrad, 2):
        return None
    if not (grad._inputs[0] is r and grad._inputs[1] is p and _pool_keys(grad) == _pool_keys(pool)
            and rgrad._inputs[0] is grad._outputs[0] and rgrad._inputs[1] is r
            and grad._inputs[2].dtype.base_dtype == dtype):
        return None
    d = rgrad._outputs[0]
    users = consumers.get(d, ())
    bgrad = next((u for u in users if u._type == "BiasAddGrad"), None)
    # The filter gradient may read it through identities (tf.gradients' tuple/control_dependency).
    idents = []
    fgrad = next((u for u in users if u._type in ("Conv2DBackpropFilter", "Identity")), None)
    while fgrad is not None and fgrad._type == "Identity":
        if not single(fgrad):
            return None
        idents.append(fgrad)
        nxt = consumers.get(fgrad._outputs[0], ())
        fgrad = nxt[0] if len(nxt) == 1 and nxt[0]._type in ("Conv2DBackpropFilter", "Identity") else None
    if bgrad is None or fgrad is None or len(users) != 2:
        return None
    sizes, fin = fgrad._inputs[1], (idents[-1] if idents else rgrad)._outputs[0]
    if not (_nhwc(bgrad) and fgrad._inputs[0] is x and fgrad._inputs[2] is fin and _conv_keys(fgrad) == _conv_keys(conv)
            and sizes not in fed and sizes._op._type == "Shape" and sizes._op._inputs[0] is conv._inputs[1]
            and not any(t in fed for t in (bgrad._outputs[0], fgrad._outputs[0]))):
        return None
    return [conv, bias, relu, pool], [grad, rgrad] + idents + [bgrad, fgrad]


def conv_pool_blocks(ops, fetched, fed, skip, uses, ctl, pos, stateful_at):
    """{tail op: chain entry} for each conv-pool block's forward and backward call.

    The forward call runs at the MaxPool's place and also returns the private value; the
    backward call runs at the later of BiasAddGrad and Conv2DBackpropFilter, so whatever reads
    the earlier one's output must come after it. No op updating a variable may run anywhere
    between the Conv2D and that place (the backward call reads the forward call's input).
    """
    from lens.ops import conv_pool
    consumers = {}
    for op in ops:
        if op in skip:
            continue
        for t in op._inputs:
            consumers.setdefault(t, []).append(op)
    out = {}
    for pool in ops:
        if pool._type != "MaxPool" or pool in skip:
            continue
        found = _block_at(pool, fetched, fed, skip, uses, ctl, consumers)
        if found is None:
            continue
        fwd, bwd = found
        grad, bgrad, fgrad = bwd[0], bwd[-2], bwd[-1]
        first, tail = sorted((bgrad, fgrad), key=pos.get)
        lo, hi = pos[fwd[0]], pos[tail]
        if any(lo < i < hi for i in stateful_at) \
                or any(pos[u] <= hi for u in consumers.get(first._outputs[0], ())):
            continue
        key = "block%d" % len(out)
        out[pool] = (fwd, list(fwd[0]._inputs) + [fwd[1]._inputs[1]], conv_pool.make_forward,
                     [pool._outputs[0], key])
        out[tail] = ([m for m in bwd if m is not tail] + [tail], [key, grad._inputs[2], fgrad._inputs[1]],
                     conv_pool.make_backward, [bgrad._outputs[0], fgrad._outputs[0]])
    return out
