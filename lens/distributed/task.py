"""One task of a cluster as a Ray actor: its variables and resources, its partitions, its rendezvous."""
import importlib
import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from lens.client.parallel import limit_blas
from lens.client.plan import VariableStore, compile_plan, prune, translate_error
from lens.client.session import _Context
from lens.client.tracing import _Recorder, fill_run_metadata
from lens.distributed import ray_env
from lens.distributed.cluster import ClusterSpec
from lens.distributed.dag_step import DagStep
from lens.distributed.outbox import Outbox, unbundle
from lens.distributed.rendezvous import Rendezvous
from lens.framework import errors, run_deadline
from lens.framework.graph import Graph
from lens.framework.importer import import_graph_def
from lens.ops import all as _all_ops  # noqa: F401 - a task process registers every op family, as TF's workers do
from lens.proto import config_pb2, graph_pb2


def _local_name(name):
    """Node names TF's partitioner gives with a leading '_' (_recv_x_0), made valid graph names."""
    return "lens" + name if name.startswith("_") else name


def _importable(gd):
    for nd in gd.node:
        nd.name = _local_name(nd.name)
        nd.input[:] = [("^" + _local_name(i[1:])) if i.startswith("^") else _local_name(i) for i in nd.input]
    return gd


def _sends_first(ops, fed, ranks=None):
    """ops in an order whose plan sends each tensor as soon as it can and waits on a receive only
    when nothing else is left: ops needing k received tensors (transitively) run after those
    needing fewer, and a _Send goes before the other ops of its rank. Without this a task could
    compute all its own work before sending what its peers wait for (a split of the batch)."""
    rank = {}
    for op in prune(ops, {t: i for i, t in enumerate(fed)}):
        r = max([rank.get(i._op, 0) for i in op._inputs] + [rank.get(c, 0) for c in op._control_inputs] + [0])
        rank[op] = r + (op._type == "_Recv" and not op._attrs.get("client_terminated"))
    at = {op: i for i, op in enumerate(ops)}
    # With the client's cluster-wide ranks (transfers crossed to reach an op, stages.py), an op
    # of a later stage never runs before one of an earlier stage: a compiled step needs that.
    ranks = ranks or {}
    return sorted(ops, key=lambda op: (ranks.get(op.name, 0), rank.get(op, 0), op._type != "_Send", at[op]))


class _Partition:
    """A registered subgraph: its compiled plan and what a run feeds and returns."""

    def __init__(self, graph, plan, trace):
        self.graph, self.plan, self.trace = graph, plan, trace
        # Sends leave when the outbox flushes: in a partition that updates a variable in place,
        # a sent read could change before then, so its sends take a snapshot.
        self.snapshot_sends = any(op._op_def.stateful and (op._op_def.handle_inputs or any(
            t._dtype.is_ref_dtype for t in op._inputs)) for op in plan.ops)
        self._device_of = lambda op: op._device   # imported ops keep their full device names
        self.stages = None          # (send ranks, sends per rank, last rank) for compiled steps
        self.dag_step = None        # the compiled step running now


class TaskService:
    """The state and the entry points of one task (/job:j/replica:0/task:i) in its own process."""

    def __init__(self, cluster, job, index, intra_op_threads=0):
        self.cluster = ClusterSpec(cluster)
        self.job, self.index = job, index
        self.name = ray_env.task_name(job, index)
        # Shared by every partition and every client session: a ps variable lives here by name.
        self.variables = VariableStore()
        self.resources = {}
        self.partitions = {}
        self.rendezvous = Rendezvous()
        self._peers = {}
        self._tls = threading.local()
        self._stopped = threading.Event()
        self.outbox = Outbox(self._peer, lambda value: ray_env.ray_module().put(value))
        self.intra_op_threads = intra_op_threads    # the Server's ConfigProto: BLAS threads per kernel
        self._claim_lock = threading.Lock()
        self._claimed_by = None     # the client session whose compiled graph runs on this actor
        self._dag_steps = itertools.count(-1, -1)   # local step ids (clients draw positive ones)
        self._runner = None

    def describe(self):
        """(cluster as a dict, job, task index, process id)."""
        return self.cluster.as_dict(), self.job, self.index, os.getpid()

    def register(self, key, graph_def, feed_names, fetch_names, private_attrs, modules, trace, stages=None):
        """Import and compile one partition once; runs then name it by key."""
        for name in modules:
            # The modules defining the partition's op types (as TF loads op libraries on a worker).
            importlib.import_module(name)
        graph = Graph()
        with graph.as_default():
            import_graph_def(_importable(graph_pb2.GraphDef.FromString(graph_def)), name="")
        feed_names = [_local_name(n) for n in feed_names]
        by_name = graph._ops_by_name
        for op_name, attrs in private_attrs.items():
            by_name[op_name]._attrs.update(attrs)   # Python values (a py_func's function)
        ctx = _Context(graph, self)
        ctx.variables, ctx.resources, ctx.task = self.variables, self.resources, self
        fed = [graph.get_tensor_by_name(n) for n in feed_names]
        # Every op of the partition runs, except the client's _Recv nodes whose values are fed.
        targets = [op for op in graph._ops if not (op._type == "_Recv" and op._attrs.get("client_terminated"))]
        ranks = {_local_name(n): r for n, r in stages[0].items()} if stages else None
        targets = _sends_first(targets, fed, ranks)
        targets += [graph.get_tensor_by_name(n) for n in fetch_names]
        plan = compile_plan(targets, fed, ctx, trace=trace)
        if self.intra_op_threads > 0:
            plan.fn = limit_blas(plan.fn, self.intra_op_threads)
        part = self.partitions[key] = _Partition(graph, plan, trace)
        if stages:
            part.stages = stages[1:]
        return True

    def forget(self, prefix):
        """Drop the partitions a closed client session registered."""
        for key in [k for k in self.partitions if k.startswith(prefix)]:
            del self.partitions[key]

    def run(self, key, step, feeds, timeout_ms, options):
        """Run one partition for one step: ("ok", fetched values, RunMetadata bytes) or ("error", ...)."""
        part = self.partitions[key]
        self._tls.step = step
        try:
            try:
                if timeout_ms > 0:
                    with run_deadline.within(timeout_ms):
                        return self._run(part, feeds, options)
                return self._run(part, feeds, options)
            finally:
                self.outbox.flush(step)
        except Exception as e:  # noqa: BLE001 - every failure goes back to the client as TF's error
            err = translate_error(e, part.plan) if not isinstance(e, errors.OpError) or e.op is None else e
            if err is None:
                err = e if isinstance(e, errors.OpError) else errors.InternalError(
                    None, None, "%s: %s" % (type(e).__name__, e))
            # The step failed here: receivers of this step on this task give up too.
            self.rendezvous.abort(step, errors.CancelledError(None, None, "Step %d was cancelled" % step))
            message = err.message.split("\n\t [[node ")[0]
            return ("error", type(err).__name__, message, err.op.name if err.op is not None else None,
                    self.name)

    def _run(self, part, feeds, options):
        t0 = time.perf_counter()
        self._tls.waited = self._tls.sending = 0.0
        self._tls.snapshot = part.snapshot_sends
        self._tls.copies = {}
        feeds = [v.copy() if isinstance(v, np.ndarray) and not v.flags.writeable else v for v in feeds]
        if not part.trace:
            with np.errstate(all="ignore"):
                out = part.plan.fn(feeds, self.variables, None)
            # (seconds in the partition, of which blocked waiting for transfers): the bench's breakdown
            return ("ok", list(out), None, self._timing(t0))
        rec = _Recorder()
        wall0, perf0 = time.time(), rec.t0
        with np.errstate(all="ignore"):
            out = part.plan.fn(feeds, self.variables, rec)
        meta = config_pb2.RunMetadata()
        fill_run_metadata(part, part.plan, rec, meta, config_pb2.RunOptions.FromString(options), wall0, perf0)
        return ("ok", list(out), meta.SerializeToString(), self._timing(t0))

    def _timing(self, t0):
        """(seconds in the partition, blocked receiving, sending): the bench's breakdown."""
        return time.perf_counter() - t0, self._tls.waited, self._tls.sending

    # ---------------------------------------------------------------- transfers
    def send(self, recv_device, key, value):
        """Deliver value to the task of recv_device for the step running on this thread."""
        step = self._tls.step
        job, index = ray_env.task_of_device(recv_device)
        if job == self.job and index == self.index:
            self.rendezvous.deliver(step, key, value)
            return
        t0 = time.perf_counter()
        if self._tls.snapshot and isinstance(value, np.ndarray):
            # One copy per tensor and step, however many tasks receive it (a ps's weights).
            # (The original stays referenced so that its id is not reused within the step.)
            kept = self._tls.copies.get(id(value))
            if kept is None or kept[0] is not value:
                kept = self._tls.copies[id(value)] = (value, value.copy())
            value = kept[1]
        dag = getattr(self._tls, "dag", None)
        if dag is not None:     # a compiled step: the stage of the send's rank carries it
            dag.put(key, (job, index), value)
        else:
            self.outbox.put(step, job, index, key, value)
        self._tls.sending += time.perf_counter() - t0

    def receive(self, key):
        """The value sent under key in this thread's step (blocks until it arrives)."""
        t0 = time.perf_counter()
        self.outbox.flush(self._tls.step)     # what this partition sent so far goes before it waits
        dag = getattr(self._tls, "dag", None)
        if dag is not None and not self.rendezvous.has(self._tls.step, key):
            dag.set_waiting(True)   # its stage may return: the partition needs the next one's inputs
            try:
                value = self.rendezvous.receive(self._tls.step, key, self.name)
            finally:
                dag.set_waiting(False)
        else:
            value = self.rendezvous.receive(self._tls.step, key, self.name)
        self._tls.waited += time.perf_counter() - t0
        if isinstance(value, np.ndarray) and not value.flags.writeable:
            value = value.copy()    # object-store buffers are read-only; kernels may update in place
        return value

    def deliver_many(self, step, payload, bundle):
        """Called by a peer's outbox: the values its partitions sent for step (the object-store
        bundle of the large ones arrives resolved: Ray resolves top-level arguments)."""
        keys, values = unbundle(payload, bundle)
        for key, value in zip(keys, values):
            self.rendezvous.deliver(step, key, value)

    def abort(self, step, message):
        """The client gave the step up: wake its receivers with CancelledError."""
        self.rendezvous.abort(step, errors.CancelledError(None, None, message))

    # ---------------------------------------------------------------- compiled steps (stages.py)
    def claim(self, owner):
        """Reserve this actor for owner's compiled graph (Ray runs one per actor): True if it got it."""
        with self._claim_lock:
            if self._claimed_by in (None, owner):
                self._claimed_by = owner
                return True
            return False

    def release(self, owner, keys=()):
        """owner's compiled graph is gone: free the actor and cancel its partitions' running steps."""
        with self._claim_lock:
            if self._claimed_by == owner:
                self._claimed_by = None
        for key in keys:
            part = self.partitions.get(key)
            if part is not None and part.dag_step is not None and part.dag_step.result is None:
                why = "the compiled step was torn down"
                self.abort(part.dag_step.step, why)
                # Its stages return now, even while a kernel still blocks (a queue's dequeue):
                # Ray's teardown waits for them.
                part.dag_step.finish(("error", "CancelledError", why, None, self.name))

    def stage(self, key, rank, start, first, *peers):
        """Stage rank of partition key in a compiled step: a piece's first stage (start) starts the
        partition with the feeds in first, a later one gets the previous stage's output in first;
        each delivers what the peers' stages of rank - 1 sent here and returns the partition's sends
        of its rank: (ok, {(job, index): [(key, value)]}, {partition key: result}). The results are
        those its inputs carried plus, at the last stage, its partition's once it ended."""
        part = self.partitions[key]
        send_rank, expected, last = part.stages
        if start:
            step = part.dag_step = DagStep(next(self._dag_steps), send_rank, expected)
            if self._runner is None:
                self._runner = ThreadPoolExecutor(max_workers=8, thread_name_prefix="lens-step")
            self._runner.submit(self._run_dag_step, key, step, first)
            results = {}
        else:
            step = part.dag_step
            results = dict(first[2])
        me = (self.job, self.index)
        failed = False
        for ok, sends, carried in peers:
            failed = failed or not ok
            results.update(carried)
            for k, value in sends.get(me, ()):
                if isinstance(value, np.ndarray) and not value.flags.writeable:
                    value = value.copy()    # a view of the channel's buffer, rewritten next step
                self.rendezvous.deliver(step.step, k, value)
        if failed:      # a peer's partition failed: this step's receivers here give up too
            self.abort(step.step, "a peer task's partition failed")
        ok, sends = step.sends(rank)
        if rank == last:
            results[key] = step.done()
        return ok, sends, results

    def _run_dag_step(self, key, step, feeds):
        self._tls.dag = step
        try:
            result = self.run(key, step.step, feeds, 0, b"")
        except BaseException as e:  # noqa: BLE001 - the stages must learn the step ended
            result = ("error", "InternalError", "%s: %s" % (type(e).__name__, e), None, self.name)
        finally:
            self._tls.dag = None
        step.finish(result)

    def _peer(self, job, index):
        handle = self._peers.get((job, index))
        if handle is None:
            ray = ray_env.ray_module()
            handle = ray_env.find_actor(ray, self.cluster.task_address(job, index))
            if handle is None:
                raise errors.UnavailableError(None, None, "Task %s is not running (no tf.train.Server "
                                              "serves it)" % ray_env.task_name(job, index))
            self._peers[(job, index)] = handle
        return handle

    # ---------------------------------------------------------------- lifetime
    def join(self, timeout_s):
        """Wait up to timeout_s for stop(); True once stopped."""
        return self._stopped.wait(timeout_s)

    def stop(self):
        """Ask joiners to return (the actor itself ends when its owner exits or it is killed)."""
        self._stopped.set()
