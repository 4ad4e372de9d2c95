"""Session('grpc://host:port'): partitions each run by task and runs the pieces on the task actors."""
import itertools
import random
import sys
import threading
import time
import uuid

import numpy as np

from lens.client.fetches import fetch_key
from lens.client.partition import partition_graphs
from lens.client.plan import prune
from lens.client.session import _Feed, _FetchMapper, _fetched, register_target_runtime
from lens.distributed import ray_env, stages
from lens.distributed.cluster import ClusterSpec
from lens.distributed.placement import ClusterPlacer
from lens.distributed.stages import cluster_ranks, compilable, try_compile
from lens.framework import errors, run_deadline
from lens.framework.graph import Operation, Tensor
from lens.framework.registry import get_op_def
from lens.framework.tensor_shape import TensorShape
from lens.framework.graph_io import _fill_attr
from lens.proto import config_pb2

_PYTHON_ATTRS = ("_func", "_single", "_fn")   # attrs a GraphDef cannot carry: shipped pickled
_POLL_S = 0.5
_plan_ids = itertools.count()


class _Piece:
    """One partition of a compiled run: where it runs, what it is fed and what it returns."""

    __slots__ = ("device", "task", "actor", "key", "feed_slots", "fetches", "graph_def")

    def __init__(self, device, task, actor, key, feed_slots, fetches, graph_def):
        self.device, self.task, self.actor, self.key = device, task, actor, key
        self.feed_slots, self.fetches, self.graph_def = feed_slots, fetches, graph_def


class _DistRun:
    """A compiled run over the cluster for one (fetches, feeds, traced) signature."""

    def __init__(self, pieces, feeds, feed_keys, fed, elements, build):
        self.pieces, self.feeds, self.feed_keys, self.build = pieces, feeds, feed_keys, build
        self.fed = fed
        self.tensors = [e for e in elements if isinstance(e, Tensor)]
        self.ranks = None           # cluster_ranks of its partitions
        self.compilable = False     # whether its steps can run as a compiled graph (stages.py)
        self.dag = None             # its CompiledStep, once compiled
        self.compile_at = stages.HOT_RUNS  # the run (in a row) at which to compile it


class ClusterRuntime:
    """The client side of a session on a cluster target: placement, partitions, steps."""

    def __init__(self, session, target):
        address = target[len("grpc://"):]
        if not address or ":" not in address:
            raise errors.InvalidArgumentError(None, None, "Invalid target %r: expected 'grpc://host:port' "
                                              "(a tf.train.Server's .target)" % target)
        self.ray = ray_env.connect()
        actor = ray_env.find_actor(self.ray, address)
        if actor is None:
            raise errors.UnavailableError(None, None, "No task serves %s in this Ray cluster: start a "
                                          "tf.train.Server for it first (or set $%s to the cluster's "
                                          "address)" % (target, ray_env.ADDRESS_ENV))
        cluster, self.job, self.index, _ = self._get(actor.describe.remote(), ray_env.task_name("?", 0))
        self.cluster = ClusterSpec(cluster)
        self.session = session
        self.prefix = "%s/" % uuid.uuid4().hex
        self.actors = {(self.job, self.index): actor}
        self.runs = {}
        self.closed = False
        self.last_timing = {}
        self.shipped = 0        # partitions registered on tasks (once per fetch/feed signature)
        self._streak = (None, 0)    # (the last run's signature, how many runs in a row had it)
        self._dag_run = None        # the run whose compiled graph holds the tasks now
        self._dag_lock = threading.Lock()
        self._last_step = time.monotonic()

    def placer(self):
        """Places ops on the cluster's devices; unpinned ops go to the target's task."""
        return ClusterPlacer(self.session.graph, self.session._config, self.cluster, self.job, self.index)

    def close(self):
        if self.closed:
            return
        self.closed = True
        self._drop_dag()
        for actor in self.actors.values():
            try:
                actor.forget.remote(self.prefix)
            except Exception:  # noqa: BLE001 - a dead task has nothing to forget
                pass

    # ---------------------------------------------------------------- running
    def run(self, fetches, feed_dict, options, run_metadata):
        trace = bool(options is not None and options.trace_level)
        key = (fetch_key(fetches), tuple(feed_dict) if feed_dict else (), trace)
        compiled = self.runs.get(key)
        if compiled is None:
            compiled = self.runs[key] = self._compile(fetches, feed_dict, trace)
        vals = [f.convert(feed_dict[k]) for f, k in zip(compiled.feeds, compiled.feed_keys)]
        streak = self._streak[1] + 1 if self._streak[0] == key else 1
        self._streak = (key, streak)
        results = None
        # One compiled step at a time (another thread's concurrent run takes the plain path).
        if not run_deadline.active() and self._dag_lock.acquire(blocking=False):
            try:
                if self._compiled_step(compiled, streak):
                    results = self._run_compiled(compiled, vals)
            finally:
                self._last_step = time.monotonic()
                self._dag_lock.release()
        if results is None:
            results = self._run_plain(compiled, vals, options, trace)
        # Per device: (seconds its partition ran, of which blocked receiving, and sending).
        self.last_timing = {p.device: results[p][3] for p in compiled.pieces}
        values = {}
        for p in compiled.pieces:
            values.update(zip(p.fetches, results[p][1]))
        fed_at = {t: i for i, t in enumerate(compiled.fed)}
        out = [vals[fed_at[t]] if t in fed_at else values[t] for t in compiled.tensors]
        if trace and run_metadata is not None:
            for p in compiled.pieces:
                run_metadata.MergeFromString(results[p][2])
            if options.output_partition_graphs:
                for p in compiled.pieces:
                    run_metadata.partition_graphs.add().CopyFrom(p.graph_def)
        return compiled.build([_fetched(v) for v in out])

    def _run_plain(self, compiled, vals, options, trace):
        """One step as an actor call per task; transfers go task to task (outbox.py)."""
        step = random.getrandbits(62)
        timeout_ms = 0
        if run_deadline.active():
            timeout_ms = max(1, int(run_deadline.remaining() * 1000))
        opts = b""
        if trace:   # the tasks trace their steps; partition graphs are the client's to report
            task_options = config_pb2.RunOptions()
            task_options.CopyFrom(options)
            task_options.output_partition_graphs = False
            opts = task_options.SerializeToString()
        refs = {p.actor.run.remote(p.key, step, [vals[i] for i in p.feed_slots], timeout_ms, opts): p
                for p in compiled.pieces}
        try:
            results = self._gather(refs, step, timeout_ms)
        except KeyboardInterrupt:   # Ctrl-C in the client: the tasks drop the step too
            self._abort(refs.values(), step, "the client was interrupted")
            raise
        return results

    # ---------------------------------------------------------------- compiled steps
    def _compiled_step(self, compiled, streak):
        """Whether this run goes through the plan's compiled graph (compiling it when it got hot)."""
        if compiled.dag is not None:
            return True
        if not compiled.compilable or streak < compiled.compile_at or self.closed:
            return False
        self._drop_dag()    # a task runs one compiled graph at a time: the session's newest plan
        ranks = compiled.ranks
        try:
            compiled.dag = try_compile(self.ray, compiled.pieces, [p.graph_def for p in compiled.pieces], ranks)
        except Exception:  # noqa: BLE001 - a task died: the plain path reports it (UnavailableError)
            compiled.dag = None
        if compiled.dag is None:    # or another session's compiled graph holds a task: try later
            compiled.compile_at = streak + 20 * stages.HOT_RUNS
            return False
        self._dag_run = compiled
        threading.Thread(target=self._reap_idle_dag, args=(compiled.dag,), name="lens-dag-reaper",
                         daemon=True).start()
        return True

    def _reap_idle_dag(self, dag):
        """Tear the compiled graph down once the session leaves it idle: Ray's channel readers wait
        by polling (sched_yield), so an idle compiled graph would keep every task's core busy."""
        while self._dag_run is not None and self._dag_run.dag is dag:
            time.sleep(stages.IDLE_S / 4)
            idle = time.monotonic() - self._last_step > stages.IDLE_S
            if idle and self._dag_lock.acquire(blocking=False):
                try:
                    if self._dag_run is not None and self._dag_run.dag is dag:
                        self._dag_run.compile_at = self._streak[1] + stages.HOT_RUNS
                        self._drop_dag()
                finally:
                    self._dag_lock.release()

    def _drop_dag(self, failed=False):
        run, self._dag_run = self._dag_run, None
        if run is not None and failed:  # compile it again only after a while
            run.compile_at = self._streak[1] + 20 * stages.HOT_RUNS
        if run is not None and run.dag is not None:
            dag, run.dag = run.dag, None
            dag.teardown()

    def _run_compiled(self, compiled, vals):
        """One step through the plan's compiled graph; a failure tears it down (later runs recompile)."""
        feeds = [[vals[i] for i in p.feed_slots] for p in compiled.pieces]
        try:
            outs = compiled.dag.execute(feeds)
        except KeyboardInterrupt:   # Ctrl-C in the client: the tasks drop the step (teardown)
            self._drop_dag()
            raise
        except Exception as e:  # noqa: BLE001 - a task died, or the graph was torn down meanwhile
            self._drop_dag(failed=True)
            if self.closed:
                raise errors.CancelledError(None, None, "Session was closed while the step ran") from None
            # Ray reports a dead task as its actor's error or as a closed channel: ask each task.
            dead = [p.task for p in compiled.pieces if getattr(e, "actor_id", None) == p.actor._actor_id.hex()]
            for p in compiled.pieces if not dead else ():
                try:
                    self._get(p.actor.describe.remote(), p.task)
                except errors.UnavailableError:
                    dead.append(p.task)
            if dead:
                raise errors.UnavailableError(None, None, "Task %s is unavailable: its process (Ray actor) "
                                              "died or cannot be reached (%s). Restart its tf.train.Server."
                                              % (dead[0], type(e).__name__)) from None
            raise errors.UnavailableError(None, None, "The compiled step failed: %s: %s"
                                          % (type(e).__name__, e)) from None
        results = dict(zip(compiled.pieces, outs))
        failed = [r for r in outs if r[0] == "error"]
        if failed:  # the failure that started it, not the peers' cancellations it caused
            first = [r for r in failed if r[1] != "CancelledError"] or failed
            raise self._error(first[0])
        for p in compiled.pieces:   # the channel's buffers are rewritten by the next step
            results[p] = (results[p][0], [v.copy() if isinstance(v, np.ndarray) and not v.flags.writeable
                                          else v for v in results[p][1]]) + tuple(results[p][2:])
        return results

    def _gather(self, refs, step, timeout_ms):
        """Each piece's result; the first failure aborts the step everywhere and is raised."""
        ray, pending, results = self.ray, dict(refs), {}
        while pending:
            # Short waits: a session closed meanwhile (by another thread) cancels the step.
            wait_s = _POLL_S if not timeout_ms else max(0.0, min(_POLL_S, run_deadline.remaining()))
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=wait_s)
            if not ready:
                if self.closed:
                    self._abort(refs.values(), step, "the session was closed")
                    raise errors.CancelledError(None, None, "Session was closed while the step ran")
                if timeout_ms and run_deadline.remaining() <= 0:
                    self._abort(refs.values(), step, "the run's deadline passed")
                    raise errors.DeadlineExceededError(None, None, "Timed out waiting for the tasks of the "
                                                       "step (RunOptions.timeout_in_ms)")
                continue
            piece = pending.pop(ready[0])
            try:
                res = self._get(ready[0], piece.task)
            except errors.OpError:
                self._abort(pending.values(), step, "task %s failed" % piece.task)
                raise
            if res[0] == "error":
                self._abort(pending.values(), step, "task %s failed" % piece.task)
                raise self._error(res)
            results[piece] = res
        return results

    def _abort(self, pieces, step, why):
        for p in pieces:
            try:
                p.actor.abort.remote(step, "Step %d cancelled: %s" % (step, why))
            except Exception:  # noqa: BLE001 - a dead task cannot be told
                pass

    def _get(self, ref, task):
        """ray.get, with a dead task actor reported as UnavailableError naming the task."""
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayActorError as e:
            raise errors.UnavailableError(None, None, "Task %s is unavailable: its process (Ray actor) "
                                          "died or cannot be reached (%s). Restart its tf.train.Server."
                                          % (task, type(e).__name__)) from None

    def _error(self, res):
        _, cls_name, message, op_name, task = res
        cls = getattr(errors, cls_name, None)
        if not (isinstance(cls, type) and issubclass(cls, errors.OpError)):
            cls = errors.InternalError
        op = self.session.graph._ops_by_name.get(op_name) if op_name else None
        if op is not None:
            message += "\n\t [[node %s (on %s) ]]" % (op.name, task)
        return cls(op.node_def if op is not None else None, op, message)

    # ---------------------------------------------------------------- compiling
    def _compile(self, fetches, feed_dict, trace):
        sess = self.session
        mapper = _FetchMapper(sess.graph, fetches)
        feeds, feed_keys, fed = [], [], []
        for k in (feed_dict or ()):
            t = sess._resolve_feed(k)
            feeds.append(_Feed(t))
            feed_keys.append(k)
            fed.append(t)
        sess._place()
        fed_set = {t: i for i, t in enumerate(fed)}
        ops = prune(mapper.elements, fed_set)
        for op in ops:
            if op._type == "Placeholder":
                raise errors.InvalidArgumentError(
                    op.node_def, op, "You must feed a value for placeholder tensor '%s' with dtype %s"
                    % (op.name, op._attrs["dtype"].name))
        device_of = sess._device_of
        graph_defs = partition_graphs(ops, device_of, {}, fed=fed_set, control_transfers=True)
        ranks = cluster_ranks(graph_defs)
        pieces, pending = [], []
        plan_id = next(_plan_ids)
        for gd in graph_defs:
            device = gd.node[0].device
            on_device = [op for op in ops if device_of(op) == device]
            feed_slots, feed_names = [], []
            for t in fed:
                if any(t in op._inputs for op in on_device):
                    feed_slots.append(fed_set[t])
                    feed_names.append("_recv_%s:0" % t.name.replace(":", "_"))
            fetched = [t for t in mapper.elements if isinstance(t, Tensor) and t not in fed_set
                       and device_of(t.op) == device]
            _recv_shapes(gd, sess.graph, fed)
            _output_types(gd, sess.graph)
            python_attrs = {op.name: {k: op._attrs[k] for k in _PYTHON_ATTRS if k in op._attrs}
                            for op in on_device if any(k in op._attrs for k in _PYTHON_ATTRS)}
            job, index = ray_env.task_of_device(device)
            actor = self._actor(job, index)
            key = "%s%d" % (self.prefix, plan_id) + device
            pending.append(actor.register.remote(key, gd.SerializeToString(), feed_names,
                                                 [t.name for t in fetched], python_attrs,
                                                 _op_modules(gd), trace, ranks[device]))
            task = ray_env.task_name(job, index)
            pieces.append(_Piece(device, task, actor, key, feed_slots, fetched, gd))
        for ref, piece in zip(pending, pieces):
            self._get(ref, piece.task)
        self.shipped += len(pieces)
        # Steps submit first the partitions sending most to other tasks (a ps's weight reads):
        # the others wait on them, and each submission costs the client a fraction of a millisecond.
        pieces.sort(key=lambda p: -sum(nd.op == "_Send" for nd in p.graph_def.node))
        run = _DistRun(pieces, feeds, feed_keys, fed, mapper.elements, mapper.build)
        run.ranks, run.compilable = ranks, compilable(pieces, graph_defs, trace)
        return run

    def _actor(self, job, index):
        handle = self.actors.get((job, index))
        if handle is None:
            handle = ray_env.find_actor(self.ray, self.cluster.task_address(job, index))
            if handle is None:
                raise errors.UnavailableError(None, None, "Task %s (%s) is not running: start its "
                                              "tf.train.Server" % (ray_env.task_name(job, index),
                                                                   self.cluster.task_address(job, index)))
            self.actors[(job, index)] = handle
        return handle


def _recv_shapes(gd, graph, fed):
    """Give each _Recv the static shape of the tensor it brings, so the task's graph keeps it."""
    client_names = {"_recv_%s" % t.name.replace(":", "_"): t for t in fed}
    for nd in gd.node:
        if nd.op != "_Recv":
            continue
        name = nd.attr["tensor_name"].s.decode()
        if nd.name in client_names:
            shape = client_names[nd.name].shape
        elif name.startswith("^"):
            shape = TensorShape([])
        else:
            shape = graph.get_tensor_by_name(name).shape
        _fill_attr(nd.attr["_output_shapes"], [shape])


def _output_types(gd, graph):
    """Each node's exact output dtypes (the task's importer would otherwise infer them from attrs)."""
    by_name = graph._ops_by_name
    for nd in gd.node:
        op = by_name.get(nd.name)
        if op is not None:
            types = nd.attr["_output_types"].list
            types.SetInParent()
            types.type.extend(t.dtype.as_datatype_enum for t in op._outputs)


_MODULE_OF_FILE = {}
_MODULES_SEEN = [0]


def _op_modules(gd):
    """Names of the modules registering the partition's op types (the task imports them)."""
    if _MODULES_SEEN[0] != len(sys.modules):
        _MODULES_SEEN[0] = len(sys.modules)
        for name, mod in list(sys.modules.items()):
            path = getattr(mod, "__file__", None)
            if path and name.startswith("lens"):
                _MODULE_OF_FILE[path] = name
    out = set()
    for nd in gd.node:
        where = get_op_def(nd.op).where.rsplit(":", 1)[0]
        name = _MODULE_OF_FILE.get(where)
        if name is not None:
            out.add(name)
    return sorted(out)


register_target_runtime("grpc://", ClusterRuntime)
