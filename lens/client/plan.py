"""Compiles (fetches, feeds) into straight-line Python: one kernel call per op, no dispatch."""
import itertools
import time

import numpy as np

from lens.framework import errors
from lens.client import plan_inplace, plan_opt, plan_watch
from lens.framework.graph import Operation
from lens.client.plan_watch import is_variable_ref
from lens.framework.sources import user_frames

_plan_ids = itertools.count()


class Uninitialized(Exception):
    """Raised by the variable store for a variable that has no value yet."""


class VariableStore(dict):
    """name -> current value of each variable in one session."""

    def __missing__(self, key):
        raise Uninitialized(key)


def prune(targets, fed):
    """Ops needed to compute targets (Tensors/Operations) given fed tensors, in run order."""
    order, state = [], {}
    stack = []
    for t in targets:
        op = t if isinstance(t, Operation) else (None if t in fed else t._op)
        if op is not None:
            stack.append((op, False))
        while stack:
            op, expanded = stack.pop()
            st = state.get(op)
            if expanded:
                if st != 2:
                    state[op] = 2
                    order.append(op)
                continue
            if st is not None:
                continue
            state[op] = 1
            stack.append((op, True))
            deps = [c for c in reversed(op._control_inputs)]
            deps += [i._op for i in reversed(op._inputs) if i not in fed]
            for d in deps:
                if d not in state:
                    stack.append((d, False))
    return order


class Plan:
    """A compiled run: feed slots, the generated function, the ops it runs."""

    def __init__(self, ops, fn, line_ops, source, fetch_count, filename, trace_layout=None):
        self.ops = ops
        self.fn = fn
        self.code = fn.__code__     # kept when fn gets wrapped (BLAS limits), for error lookup
        self.globals = fn.__globals__
        self.line_ops = line_ops
        self.source = source
        self.fetch_count = fetch_count
        self.filename = filename
        # Traced plans: per op (op, start stamp, end stamp); values come per op from W.seq.
        self.trace_layout = trace_layout


def compile_plan(targets, fed_tensors, ctx, watch=None, trace=False):
    """Build a Plan computing targets from the fed tensors (given in feed order)."""
    fed = {t: i for i, t in enumerate(fed_tensors)}
    ops = prune(targets, fed)
    return _Builder(ops, targets, fed, ctx, watch, trace).build()


class _Builder:
    """Writes one plan's Python source: a line per kernel call, folded groups, trace stamps."""

    def __init__(self, ops, targets, fed, ctx, watch, trace):
        self.ops, self.targets, self.fed, self.ctx = ops, targets, fed, ctx
        self.watch, self.trace = watch, trace
        self.env = {"S": ctx.variables, "_np": np, "_time": time.perf_counter, "_ns": time.time_ns}
        self.names = {t: "f[%d]" % i for t, i in fed.items()}
        self.lines = ["def run(f, S, W):"]
        self.line_ops = {}
        self.counter = itertools.count()
        # Watched (debugger) runs skip dead ops, fold shapes and alias identities too: tfdbg
        # instruments the graph after Grappler, so a node Grappler made a NoOp is never dumped.
        optimize = plan_opt.ENABLED
        self.dead = plan_opt.dead_ops(ops, targets, fed) if optimize else set()
        # Grappler's dependency optimizer also bypasses Identity ops that are neither fetched
        # nor variable reads (tuple/control_dependency...): tfdbg never sees them either.
        self.unwatched = plan_watch.bypassed_identities(ops, targets, fed) if optimize and watch else set()
        groups = plan_opt.fold_groups(ops, fed, self.dead) if optimize else []
        self.folded = {op for _, members in groups for op in members}
        if optimize and watch is not None:
            self.unwatched |= plan_watch.folded_away(ops, targets, self.folded)
        # Fused chains change which values exist, so watched and traced runs (which report every
        # op's value and time) keep one call per op.
        fuse = optimize and watch is None and not trace
        self.chains = plan_opt.fused_chains(ops, targets, fed, self.dead, self.folded) if fuse else {}
        self.absorbed = {m for members, _, _, _ in self.chains.values() for m in members[:-1]}
        # Buffers a kernel may overwrite (see plan_inplace): never in watched runs, whose values
        # the debugger keeps; traced runs only read each value's shape and size, which stay.
        fused = self.folded | self.absorbed | set(self.chains)
        donate = optimize and watch is None
        self.donated = plan_inplace.donations(ops, targets, fed, self.dead, fused) if donate else {}
        self.private = {}       # private plan value (a chain's extra output) -> its local name
        pos = {op: i for i, op in enumerate(ops)}
        self.groups_at = {}
        for srcs, members in groups:
            at = max((pos.get(t._op, -1) for t in srcs if t not in fed), default=-1)
            self.groups_at.setdefault(at, []).append((srcs, members))
        self.alias = optimize
        for op in ops:  # constants are globals, named up front: folded groups may run first
            if op._type == "Const" and op._outputs[0] not in fed:
                cname = self.new("c")
                self.env[cname] = op._attrs["value"]
                self.names[op._outputs[0]] = cname
        self.stamp = 0          # timestamps recorded so far in a traced run (the first at entry)
        self.traced = {}        # op -> (start stamp, end stamp, value expressions)
        self.group_defs = []
        self.group_line_ops = []    # (index into group_defs, op): numbered once main's length is known

    def new(self, prefix):
        return "%s%d" % (prefix, next(self.counter))

    def build(self):
        if self.trace:
            # Stamp 0 is the run's start (taken by the caller): inputs-free ops (constants,
            # variables and their reads) are reported there, as TF's executor runs them first.
            self.lines += ["    _t = [W.t0, _time()]", "    _a = _t.append"]
            self.stamp = 1
        self._emit_groups(-1)
        for i, op in enumerate(self.ops):
            if op not in self.folded:
                self._emit_op(op)
            self._emit_groups(i)
        fetch_exprs = [self.names[t] for t in self.targets if not isinstance(t, Operation)]
        layout = None
        if self.trace:
            layout, values = [], []
            for op in self.ops:
                start, end, exprs = self.traced[op]
                layout.append((op, start, end))
                values.append("(%s)" % "".join(e + ", " for e in exprs))
            self.lines.append("    W.seq(_t, (%s))" % "".join(e + ", " for e in values))
        self.lines.append("    return (%s)" % "".join(e + ", " for e in fetch_exprs))
        for i, op in self.group_line_ops:
            self.line_ops[len(self.lines) + i + 1] = op
        source = "\n".join(self.lines + self.group_defs) + "\n"
        filename = "<lens-plan-%d>" % next(_plan_ids)
        exec(compile(source, filename, "exec"), self.env)
        return Plan(self.ops, self.env["run"], self.line_ops, source, len(fetch_exprs), filename, layout)

    def _record(self, op, exprs, start=None):
        """Remember what a traced run reports for op (ops emitting no code take zero time)."""
        if self.trace:
            end = self.stamp if start != 0 else 0
            self.traced[op] = (self.stamp if start is None else start, end, exprs)

    def _stamp(self):
        if self.trace:
            self.lines.append("    _a(_time())")
            self.stamp += 1

    def _emit_op(self, op):
        names, fed, watch = self.names, self.fed, self.watch
        watched = watch is not None and op not in self.unwatched and watch.selects(op)
        for t in op._outputs:
            if t not in fed and is_variable_ref(t):
                names[t] = "S[%r]" % op._name
        kind = op._type
        if kind in ("VariableV2", "Variable") and not watched:
            self._record(op, ["S.get(%r)" % op._name], 0 if not op._control_inputs else None)
            return
        if kind == "NoOp" or op in self.dead:
            self._record(op, [])
            return
        if op in self.absorbed:     # computed by its chain's fused call, at the chain's tail
            return
        if op in self.chains:
            self._emit_chain(op)
            return
        if kind == "Const":
            if self.trace:  # a constant is there from the start of the run (folded groups may read it first)
                self.traced[op] = (0, 0, [names[op._outputs[0]]])
            self._emit_watch(op)
            return
        if self.alias and kind == "Identity" and op._outputs[0] not in fed and not watched:
            src = op._inputs[0]
            if not is_variable_ref(src):
                # A pure alias: control inputs are already honoured by the sequential order.
                names[op._outputs[0]] = names[src]
                self._record(op, [names[src]])
                return
            v = self.new("t")
            names[op._outputs[0]] = v
            self.line_ops[len(self.lines) + 1] = op
            self.lines.append("    %s = %s" % (v, names[src]))
            if op._control_inputs:
                start = self.stamp
                self._stamp()
                self._record(op, [v], start)
            elif self.trace:
                self.traced[op] = (0, 0, [v])
            return
        start = self.stamp
        if watch is not None:
            self._emit_before_update(op)
        stmt, outs = self._call(op)
        self.line_ops[len(self.lines) + 1] = op
        self.lines.append("    " + stmt)
        self._stamp()
        self._record(op, [names.get(t, "None") if t not in fed else "None" for t in op._outputs], start)
        if watched:
            self._emit_watch(op)

    def _emit_chain(self, tail):
        """One fused kernel call computing a chain's outputs (errors name the op that fails)."""
        members, inputs, maker, outputs = self.chains[tail]
        kname = self.new("k")
        self.env[kname] = _Fused(maker(members, self.ctx, self.fed), members, inputs, self.ctx)
        outs = []
        for t in outputs:
            v = self.new("t")
            if isinstance(t, str):
                self.private[t] = v
            else:
                self.names.setdefault(t, v)
                v = v if self.names[t] == v else "_"
            outs.append(v)
        args = ", ".join(self.private[t] if isinstance(t, str) else self.names[t] for t in inputs)
        target = outs[0] if len(outs) == 1 else "".join(o + ", " for o in outs)
        self.line_ops[len(self.lines) + 1] = members[0]
        self.lines.append("    %s = %s(%s)" % (target, kname, args))

    def _emit_before_update(self, op):
        """Tell the watch which variable buffers op is about to overwrite (None: maybe any), so
        a watch holding earlier reads by reference copies just those, just in time."""
        names = plan_watch.updated_variables(op)
        if names is None:
            self.lines.append("    W.before_update(None)")
        elif names:
            self.lines.append("    W.before_update(%s)" % "".join("S.get(%r), " % n for n in names))

    def _emit_watch(self, op):
        """Hand each output of a watched op to the watch, right after it is computed."""
        if self.watch is None or op in self.unwatched or not self.watch.selects(op):
            return
        oname = self.new("o")
        self.env[oname] = op
        for slot, t in enumerate(op._outputs):
            if t not in self.fed:
                self.lines.append("    W.on_output(%s, %d, %s, _ns() // 1000)" % (oname, slot, self.names[t]))

    def _call(self, op):
        """The statement running op's kernel, naming its outputs."""
        od, names = op._op_def, self.names
        kname = self.new("k")
        donated = self.donated.get(op)
        self.env[kname] = od.make(op, self.ctx) if donated is None else od.inplace(op, self.ctx, donated)
        args = ", ".join(names[t] for i, t in enumerate(op._inputs) if i not in od.handle_inputs)
        outs = []
        for t in op._outputs:
            if t in self.fed:
                outs.append("_")
            else:
                v = self.new("t")
                names.setdefault(t, v)
                outs.append(v if names[t] == v else "_")
        call = "%s(%s)" % (kname, args)
        if not outs:
            return call, outs
        if len(outs) == 1:
            return "%s = %s" % (outs[0], call), outs
        return "%s, = %s" % (", ".join(outs), call), outs

    def _emit_groups(self, at):
        for srcs, members in self.groups_at.get(at, ()):
            self._emit_group(srcs, members)

    def _emit_group(self, srcs, members):
        """A function computing the group's ops, called only when its sources' shapes are new."""
        names = self.names
        gname = self.new("_g")
        inner = set()
        body = []
        for op in members:
            stmt, _ = self._call(op)
            body.append((op, "    " + stmt))
            inner.update(op._outputs)
        params = []
        for op in members:
            for t in op._inputs:
                n = names[t]
                if t not in inner and n.startswith("t") and n not in params:
                    params.append(n)
        outs = [names[t] for op in members for t in op._outputs]
        src_exprs = [names[t] for t in sorted(srcs, key=lambda t: names[t])]
        cache = {}
        cname, fname = self.new("_C"), self.new("_F")
        self.env[cname] = cache
        self.group_defs.append("def %s(f, S, %s):" % (gname, ", ".join(params)))
        for op, stmt in body:
            self.group_line_ops.append((len(self.group_defs), op))
            self.group_defs.append(stmt)
        self.group_defs.append("    return (%s)" % "".join(o + ", " for o in outs))
        target = "".join(o + ", " for o in outs)
        key = "(%s)" % "".join(e + ".shape, " for e in src_exprs)
        self.lines += ["    try:", "        %s= %s[%s]" % (target, cname, key),
                       "    except (KeyError, AttributeError):",
                       "        %s= %s((%s), (f, S, %s))" % (target, fname, "".join(e + ", " for e in src_exprs),
                                                          ", ".join(params))]
        self.env[fname] = _Deferred(self.env, gname, cache)
        self._stamp()
        for op in members:
            self._record(op, [names[t] for t in op._outputs])
            self._emit_watch(op)


class _Fused:
    """A fused chain's kernel; when it fails, the chain reruns op by op so the error names the op
    (and carries the message and input shapes) that one call per op would have reported."""

    __slots__ = ("fn", "members", "inputs", "ctx")

    def __init__(self, fn, members, inputs, ctx):
        self.fn, self.members, self.inputs, self.ctx = fn, members, inputs, ctx

    def __call__(self, *args):
        try:
            return self.fn(*args)
        except Exception:   # noqa: BLE001 - re-raised below, from the op that fails on its own
            self._blame(args)
            raise

    def _blame(self, args):
        values = dict(zip(self.inputs, args))
        known = getattr(self.fn, "known", None)
        if known is not None:   # tensors a previous fused call computed, from its private value
            values.update(known(*args))
        for op in self.members:
            od = op._op_def
            vals = [values[t] for i, t in enumerate(op._inputs) if i not in od.handle_inputs]
            try:
                values[op._outputs[0]] = od.make(op, self.ctx)(*vals)
            except Exception as e:  # noqa: BLE001 - tagged for translate_error, then raised
                e._lens_failed_op = op
                e._lens_input_shapes = [list(np.shape(v)) for v in vals]
                raise


class _Deferred:
    """A group's slow path, bound to its generated function once the source is compiled."""

    def __init__(self, env, gname, cache):
        self.env, self.gname, self.cache, self.fold = env, gname, cache, None

    def __call__(self, srcs, args):
        if self.fold is None:
            self.fold = plan_opt.make_fold(self.cache, self.env[self.gname])
        return self.fold(srcs, args)


def failing_op(plan, tb):
    """The op whose line raised (the innermost generated frame), and that frame's locals."""
    frame_locals, op = None, None
    filename = getattr(plan, "filename", None)
    while tb is not None:
        code = tb.tb_frame.f_code
        if code is plan.code or (filename is not None and code.co_filename == filename):
            found = plan.line_ops.get(tb.tb_lineno)
            if found is not None:
                op = found
                frame_locals = tb.tb_frame.f_locals
        tb = tb.tb_next
    return op, frame_locals


def creation_trace(op, limit=8):
    """The last user frames of where op was created, formatted like a traceback."""
    tb = op.traceback
    user = user_frames(tb) or tb
    lines = []
    for filename, lineno, func, text in user[-limit:]:
        lines.append('  File "%s", line %d, in %s' % (filename, lineno, func))
        if text:
            lines.append("    " + text)
    return "\n".join(lines)


def translate_error(exc, plan):
    """Turn an exception from a generated run function into a lens OpError naming the op."""
    op = getattr(exc, "_lens_failed_op", None)
    if op is not None:  # raised on a parallel executor thread, which recorded the op and shapes
        frame_locals = None
    else:
        op, frame_locals = failing_op(plan, exc.__traceback__)
    if op is None and isinstance(exc, Uninitialized):
        # A fetched variable is read on the plan's return line, which belongs to no op.
        op = next((o for o in getattr(plan, "ops", ()) if o.name == exc.args[0]), None)
    if op is None:
        return None
    where = "\n\t [[node %s (defined at %s) ]]" % (op.name, _defined_at(op))
    trace = "\n\nOriginal stack trace for %r:\n%s" % (op.name, creation_trace(op))
    if isinstance(exc, Uninitialized):
        return errors.FailedPreconditionError(
            op.node_def, op, "Attempting to use uninitialized value %s%s%s"
            % (exc.args[0], where, trace) + "\nRun the variable's initializer first, e.g. "
            "sess.run(tf.global_variables_initializer()).")
    if isinstance(exc, errors.OpError):
        cls = type(exc)
        return cls(op.node_def, op, exc.message + where + trace)
    values = _values_from_locals(op, plan, frame_locals)
    shapes = getattr(exc, "_lens_input_shapes", None)
    if shapes is None and values is not None:
        shapes = [list(np.shape(v)) if v is not None else None for v in values]
    msg = _kernel_message(op, exc, shapes, values)
    if msg is None:
        msg = "%s: %s op %r failed: %s" % (type(exc).__name__, op.type, op.name, exc)
        if shapes is not None:
            msg += "; input shapes: %s" % ", ".join(str(s) for s in shapes)
    return errors.InvalidArgumentError(op.node_def, op, msg + where + trace)


def _dims(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def _kernel_message(op, exc, shapes, values):
    """TF's own message for the common kernel failures NumPy reports in its words, else None."""
    if not isinstance(exc, ValueError) or not shapes or any(s is None for s in shapes):
        return None
    if op.type in ("MatMul", "BatchMatMul", "BatchMatMulV2") and len(shapes) == 2:
        return "Matrix size-incompatible: In[0]: %s, In[1]: %s" % (_dims(shapes[0]), _dims(shapes[1]))
    if op.type == "Reshape" and values is not None and len(values) == 2 and values[1] is not None:
        size = int(np.prod(shapes[0]))
        wanted = [int(d) for d in np.ravel(values[1])]
        known = int(np.prod([d for d in wanted if d != -1]))
        if -1 in wanted:
            return ("Input to reshape is a tensor with %d values, but the requested shape requires "
                    "a multiple of %d" % (size, known))
        return ("Input to reshape is a tensor with %d values, but the requested shape has %d"
                % (size, known))
    return None


def _values_from_locals(op, plan, frame_locals):
    """The failing kernel call's argument values, read from the run function's frame."""
    if frame_locals is None:
        return None
    line = next((ln for ln, o in plan.line_ops.items() if o is op), None)
    if line is None:
        return None
    stmt = plan.source.splitlines()[line - 1]
    call = stmt.split("(", 1)[1].rsplit(")", 1)[0] if "(" in stmt else ""
    values = []
    for name in filter(None, (a.strip() for a in call.split(","))):
        if name.startswith("f["):
            val = frame_locals["f"][int(name[2:-1])]
        elif name.startswith("S["):
            val = frame_locals["S"].get(name[3:-2])
        else:
            val = frame_locals.get(name, plan.globals.get(name))
        values.append(val)
    return values


def _defined_at(op):
    tb = op.traceback
    user = user_frames(tb) or tb
    if not user:
        return "<unknown>"
    filename, lineno = user[-1][0], user[-1][1]
    return "%s:%d" % (filename, lineno)


class RegionCompiler:
    """Mixin for run contexts: control-flow kernels (lens.ops) compile their regions (If/While,
    dataset functions) through the context they are given, so the ops layer never imports the executor."""

    @staticmethod
    def compile_plan(targets, fed_tensors, ctx):
        """A sub-plan computing targets from fed tensors."""
        return compile_plan(targets, fed_tensors, ctx)

    @staticmethod
    def translate_error(exc, plan):
        """The TF error naming the op of plan that raised exc, or None."""
        return translate_error(exc, plan)
