"""A parallel executor: ops whose inputs are ready run at once on a pool of inter-op threads."""
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from lens.framework.graph import Operation
from lens.ops import intra_op

# Below these, thread hand-offs (tens of microseconds per op in Python) cost more than they save.
MIN_OVERLAP_FLOPS = 2e6     # work that can run beside the critical path
MIN_FLOPS_PER_OP = 2e4      # average work per op


def pool_size(config):
    """inter_op_parallelism_threads of a ConfigProto (0 or unset: one per core, as TF)."""
    n = getattr(config, "inter_op_parallelism_threads", 0) if config is not None else 0
    if n < 0:
        raise ValueError("ConfigProto.inter_op_parallelism_threads is %d; use 0 (one per core) "
                         "or a positive thread count" % n)
    return n or os.cpu_count() or 1


def _elements(shape):
    dims = shape.as_list() if shape.ndims is not None else []
    n = 1
    for d in dims:
        n *= d if d else 1
    return n


def op_cost(op):
    """A static estimate of an op's work in flops (unknown dimensions count as 1)."""
    out = sum(_elements(t.shape) for t in op._outputs) or 1
    if op._type in ("MatMul", "BatchMatMul", "BatchMatMulV2") and op._inputs:
        a = op._inputs[0].shape
        if a.ndims:
            k = a.as_list()[-2 if op._attrs.get("transpose_a") or op._attrs.get("adj_x") else -1]
            out *= k or 1
    elif op._type == "Conv2D" and len(op._inputs) > 1 and op._inputs[1].shape.ndims == 4:
        kh, kw, cin, _ = op._inputs[1].shape.as_list()
        out *= (kh or 1) * (kw or 1) * (cin or 1)
    return float(out)


def worth_parallel(ops):
    """True when the plan has enough independent work for threads to pay off."""
    if len(ops) < 3:
        return False
    finish, work = {}, 0.0
    for op in ops:  # ops are in topological order
        c = op_cost(op)
        work += c
        deps = [t._op for t in op._inputs] + op._control_inputs
        finish[op] = c + max((finish.get(d, 0.0) for d in deps), default=0.0)
    span = max(finish.values())
    return work - span >= MIN_OVERLAP_FLOPS and work / len(ops) >= MIN_FLOPS_PER_OP


# Kernels that share their own chunks with an intra-op helper (lens.ops.intra_op) when big.
SPLIT_TYPES = frozenset({"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MatMul",
                         "ApplyAdam", "ResourceApplyAdam"})
# Ops that only name or alias values (no work of their own).
_FREE_TYPES = frozenset({"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "Identity",
                         "IdentityN", "Const", "NoOp", "Placeholder", "Reshape", "Shape",
                         "Squeeze", "ExpandDims", "StopGradient"})
SPLIT_MIN_FLOPS = 1e7       # (unknown dimensions, e.g. the batch, count as 1) below this, leave the plan alone
SPLIT_MIN_SHARE = 0.85      # share of the work in SPLIT_TYPES for splitting to beat inter-op threads


def _split_cost(op):
    """Multiply-adds of a convolution or its backprops (op_cost for everything else)."""
    kind = op._type
    if kind in _FREE_TYPES:
        return 0.0
    if kind in ("Conv2DBackpropInput", "Conv2DBackpropFilter") and len(op._inputs) == 3:
        dy, f = op._inputs[2].shape, (op._inputs[1] if kind == "Conv2DBackpropInput" else op._outputs[0]).shape
        if dy.ndims == 4 and f.ndims == 4:
            kh, kw, cin, _ = f.as_list()
            return _elements(dy) * float((kh or 1) * (kw or 1) * (cin or 1))
    return op_cost(op)


def split_within_ops(ops):
    """True when nearly all of a plan's work is in kernels that split themselves between the
    cores: then one thread running the plan in order (keeping its fused chains, with no
    hand-offs between threads) and lending a helper to each big kernel beats running ops side by
    side (a training step of a convnet or an MLP is one long chain of such kernels)."""
    split = total = 0.0
    for op in ops:
        c = _split_cost(op)
        total += c
        if op._type in SPLIT_TYPES:
            split += c
    return total >= SPLIT_MIN_FLOPS and split >= SPLIT_MIN_SHARE * total


class _BlasThreads:
    """Limits OpenBLAS's own threads while ops run side by side (else 2 x 2 threads fight for 2 cores)."""

    _SYMBOLS = ("scipy_openblas_%s_num_threads64_", "scipy_openblas_%s_num_threads",
                "openblas_%s_num_threads64_", "openblas_%s_num_threads")

    def __init__(self):
        self._get = self._set = None
        self._lock = threading.Lock()
        self._active = 0
        self._saved = None
        try:
            import ctypes
            with open("/proc/self/maps") as fh:
                paths = {ln.split()[-1] for ln in fh if "openblas" in ln.lower() and "/" in ln}
            for path in sorted(paths):
                lib = ctypes.CDLL(path)
                for sym in self._SYMBOLS:
                    if hasattr(lib, sym % "get") and hasattr(lib, sym % "set"):
                        self._get, self._set = getattr(lib, sym % "get"), getattr(lib, sym % "set")
                        self._get.restype = ctypes.c_int
                        return
        except OSError:  # no /proc or no loadable BLAS: leave BLAS threading alone
            pass

    def enter(self, blas_threads):
        if self._set is None:
            return
        with self._lock:
            if self._active == 0:
                self._saved = self._get()
                self._set(blas_threads)
            self._active += 1

    def exit(self):
        if self._set is None:
            return
        with self._lock:
            self._active -= 1
            if self._active == 0:
                self._set(self._saved)


_blas = None


def _blas_threads():
    global _blas
    if _blas is None:
        _blas = _BlasThreads()
    return _blas


class ParallelPlan:
    """Runs a pruned op list as a dataflow graph on a thread pool; same results as the plan."""

    def __init__(self, ops, targets, fed, ctx, pool, threads, trace=False, intra_threads=0):
        self.ops = ops
        self.pool = pool
        self.threads = threads
        self.blas_threads = intra_threads or max(1, (os.cpu_count() or 1) // threads)
        slot = {}                       # tensor -> index into the per-run value list
        template = []
        var_names = []                  # variable reads are done at call time: encoded as ~k
        for i, t in enumerate(fed):
            slot[t] = len(template)
            template.append(None)
        self.feed_slots = [slot[t] for t in fed]
        node_of = {}
        self.nodes = []
        for op in ops:
            node_of[op] = len(self.nodes)
            od = op._op_def
            kernel, kind = None, "run"
            if op._type in ("VariableV2", "Variable"):
                kind = "var"
            elif op._type == "NoOp":
                kind = "noop"
            elif op._type == "Const" and not trace:
                kind = "const"
            else:
                kernel = od.make(op, ctx)
            outs = []
            for t in op._outputs:
                if t in fed:
                    outs.append(None)
                elif kind == "var" and t._dtype.is_ref_dtype:
                    var_names.append(op._name)
                    slot[t] = ~(len(var_names) - 1)
                    outs.append(None)
                else:
                    slot[t] = len(template)
                    template.append(op._attrs["value"] if kind == "const" else None)
                    outs.append(slot[t])
            args = [slot[t] for i, t in enumerate(op._inputs) if i not in od.handle_inputs]
            self.nodes.append([op, kind, kernel, args, outs])
        self.template = template
        self.var_names = var_names
        consumers = [[] for _ in self.nodes]
        pending = [0] * len(self.nodes)
        for op in ops:
            me = node_of[op]
            deps = {node_of[t._op] for t in op._inputs if t not in fed and t._op in node_of}
            deps |= {node_of[c] for c in op._control_inputs if c in node_of}
            for d in deps:
                consumers[d].append(me)
            pending[me] = len(deps)
        self.consumers = consumers
        self.pending = pending
        self.roots = [i for i, p in enumerate(pending) if p == 0]
        self.fetch_slots = [slot[t] for t in targets if not isinstance(t, Operation)]
        self.fetch_count = len(self.fetch_slots)
        self.line_ops, self.source, self.code = {}, "", None   # what plan.translate_error looks at

    def fn(self, f, S, W):
        """Run once: f = feed values, S = variable store, W = trace recorder or None."""
        blas = _blas_threads()
        blas.enter(self.blas_threads)
        if self.blas_threads == 1:
            intra_op.enter()    # one BLAS thread per call: big kernels may share chunks instead
        try:
            return _Run(self, f, S, W).go()
        finally:
            if self.blas_threads == 1:
                intra_op.leave()
            blas.exit()


class _Run:
    """The state of one execution: values, pending counts, completion and the first error."""

    def __init__(self, plan, f, S, W):
        self.plan = plan
        self.vals = list(plan.template)
        for s, v in zip(plan.feed_slots, f):
            self.vals[s] = v
        self.S = S
        self.W = W
        self.pending = list(plan.pending)
        self.remaining = len(plan.nodes)
        self.inflight = 0
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.error = None

    def go(self):
        plan = self.plan
        if not plan.nodes:
            return ()
        roots = plan.roots
        now = time.perf_counter()
        with self.lock:
            self.inflight += len(roots)
        for r in roots[1:]:
            plan.pool.submit(self.chain, r, now)
        self.chain(roots[0], now)
        self.done.wait()
        if self.error is not None:
            raise self.error
        vals, S, names = self.vals, self.S, plan.var_names
        return tuple(vals[s] if s >= 0 else S[names[~s]] for s in plan.fetch_slots)

    def _arg(self, s):
        return self.vals[s] if s >= 0 else self.S[self.plan.var_names[~s]]

    def execute(self, node, scheduled):
        op, kind, kernel, args, outs = node
        W = self.W
        start = time.perf_counter() if W is not None else 0.0
        if kind == "run":
            vals = self.vals
            inputs = None
            intra_op.op_started()
            try:
                inputs = [vals[s] if s >= 0 else self._arg(s) for s in args]
                result = kernel(*inputs)
            except Exception as e:  # noqa: BLE001 - re-raised on the caller's thread
                e._lens_failed_op = op
                if inputs is not None:
                    e._lens_input_shapes = [list(np.shape(v)) for v in inputs]
                raise
            finally:
                intra_op.op_finished()
            if len(outs) == 1:
                result = (result,)
            for s, v in zip(outs, result if outs else ()):
                if s is not None:
                    vals[s] = v
        if W is not None:
            if kind == "var":
                values = (self.S.get(op._name),)
            else:
                values = tuple(self.vals[s] if s is not None else None for s in outs)
            W.timed(op, start, time.perf_counter(), values, scheduled)

    def chain(self, idx, scheduled):
        """Run idx, then keep running one newly ready consumer inline; hand the rest to the pool."""
        plan = self.plan
        while idx is not None:
            if self.error is None:
                try:
                    self.execute(plan.nodes[idx], scheduled)
                except BaseException as e:  # noqa: BLE001
                    with self.lock:
                        if self.error is None:
                            self.error = e
                        self.inflight -= 1
                        if self.inflight == 0:
                            self.done.set()
                    return
            ready = []
            with self.lock:
                for c in plan.consumers[idx]:
                    self.pending[c] -= 1
                    if self.pending[c] == 0:
                        ready.append(c)
                self.remaining -= 1
                if self.error is not None:
                    ready = []
                self.inflight += len(ready) - 1
                if self.remaining == 0 or (self.inflight == 0 and self.error is not None):
                    self.done.set()
            scheduled = time.perf_counter()
            for r in ready[1:]:
                plan.pool.submit(self.chain, r, scheduled)
            idx = ready[0] if ready else None


def share_chunks(fn):
    """fn run with one BLAS thread per call and intra-op helpers allowed (see split_within_ops)."""
    blas = _blas_threads()

    def run(f, S, W):
        blas.enter(1)
        intra_op.enter()
        try:
            return fn(f, S, W)
        finally:
            intra_op.leave()
            blas.exit()
    run.__wrapped__ = fn
    return run


def limit_blas(fn, intra_threads):
    """fn run with BLAS limited to intra_threads (ConfigProto.intra_op_parallelism_threads)."""
    blas = _blas_threads()
    if blas._set is None:
        return fn

    def run(f, S, W):
        blas.enter(intra_threads)
        try:
            return fn(f, S, W)
        finally:
            blas.exit()
    return run


class ExecutorPool:
    """The session's inter-op thread pool (the calling thread is one of the workers)."""

    def __init__(self, threads):
        self.threads = threads
        self._pool = None
        self._lock = threading.Lock()

    def submit(self, fn, *args):
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max(self.threads - 1, 1),
                                                    thread_name_prefix="lens-inter-op")
        return self._pool.submit(fn, *args)

    def shutdown(self):
        """Stop the worker threads (Session.close)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
