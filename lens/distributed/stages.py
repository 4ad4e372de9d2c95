"""Compiled steps: a plan run often is compiled once into a Ray Compiled Graph of task stages.

A plain step costs a Ray actor call per task plus one per batch of transfers, each a millisecond or
more. A plan that runs again and again (a training step) is compiled once into a Ray Compiled Graph
(ray.dag): every op gets a cluster-wide rank, the number of task boundaries crossed to reach it, and
task T's stage r delivers what the peers' stages r - 1 sent to T, then returns T's sends of rank r.
Ray then moves the tensors between the task processes through shared-memory channels, without a
call per step; the partitions themselves run exactly as in a plain step (task.py, dag_step.py).
"""
import itertools
import logging

from lens.distributed import ray_env
from lens.distributed.rendezvous import transfer_key
from lens.framework.registry import get_op_def

# Runs of one plan in a row before it is compiled (compiling takes about a second).
HOT_RUNS = 5
# Seconds without a step after which a compiled graph is torn down (its readers poll while waiting).
IDLE_S = 2.0
# Plans with these ops may skip a _Send (an untaken branch): their stages could wait forever.
_CONTROL_FLOW = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
                 "NextIteration", "RefNextIteration", "LoopCond"}
_owners = itertools.count()


class _Attrs:
    """A NodeDef's transfer attrs as transfer_key reads them from an op."""

    def __init__(self, nd):
        self._attrs = {k: nd.attr[k].s.decode() for k in ("send_device", "recv_device", "tensor_name")}


def cluster_ranks(graph_defs):
    """Per device: ({node: rank}, {send key: rank}, {rank: sends to other tasks}, last rank). An op's
    rank is the most transfers between tasks on any path reaching it (a _Recv: its _Send's + 1)."""
    nodes, sender = {}, {}
    for gd in graph_defs:
        for nd in gd.node:
            nodes[(nd.device, nd.name)] = nd
            if nd.op == "_Send":
                sender[transfer_key(_Attrs(nd))] = (nd.device, nd.name)
    rank = {}
    for start in nodes:
        stack = [start]
        while stack:    # iterative depth-first: graphs can be deeper than Python's recursion
            at = stack[-1]
            if at in rank:
                stack.pop()
                continue
            nd = nodes[at]
            preds = [(at[0], i.lstrip("^").split(":")[0]) for i in nd.input]
            crossed = nd.op == "_Recv" and not nd.attr["client_terminated"].b
            if crossed:
                preds.append(sender[transfer_key(_Attrs(nd))])
            todo = [p for p in preds if p not in rank]
            if todo:
                stack.extend(todo)
                continue
            step = 1 if crossed and _task(preds[-1][0]) != _task(at[0]) else 0
            rank[at] = max([rank[p] for p in preds[:len(preds) - crossed]] + [0] +
                           ([rank[preds[-1]] + step] if crossed else []))
            stack.pop()
    out = {}
    for gd in graph_defs:
        device = gd.node[0].device
        names = {nd.name: rank[(device, nd.name)] for nd in gd.node}
        send_rank, expected = {}, {}
        for nd in gd.node:
            if nd.op == "_Send" and _task(nd.attr["recv_device"].s.decode()) != _task(device):
                key, r = transfer_key(_Attrs(nd)), names[nd.name]
                send_rank[key] = r
                expected[r] = expected.get(r, 0) + 1
        out[device] = (names, send_rank, expected, max(names.values()))
    return out


def _task(device):
    return ray_env.task_of_device(device)


def compilable(pieces, graph_defs, trace):
    """Whether a plan's step can be compiled: untraced, one partition per task, no control flow."""
    tasks = [(p.task) for p in pieces]
    return (not trace and len(set(tasks)) == len(tasks) and
            not any(nd.op in _CONTROL_FLOW for gd in graph_defs for nd in gd.node))


class CompiledStep:
    """The Ray Compiled Graph of one plan's stages; execute(feeds per piece) -> a result per piece."""

    def __init__(self, ray, pieces, stage_ranks, senders):
        """stage_ranks[piece]: its stages' ranks, ascending; senders[piece][rank]: the pieces
        receiving that piece's sends of rank."""
        from ray.dag import InputNode, MultiOutputNode   # the optional extra, loaded with ray
        logging.getLogger("ray.dag.compiled_dag_node").setLevel(logging.WARNING)
        self.ray, self.pieces = ray, pieces
        self.owner = "%s:%d" % (ray.get_runtime_context().get_worker_id(), next(_owners))
        self.dag = None
        self.fed = [i for i, p in enumerate(pieces) if stage_ranks[p][0] == 0]   # those reading feeds
        self.outputs = 0    # how many channels the client reads a step's results from
        claimed = []
        try:
            for p in pieces:
                if not ray.get(p.actor.claim.remote(self.owner)):
                    raise _Busy()
                claimed.append(p)
            with InputNode() as inp:
                node, consumed = {}, set()
                for r in sorted(set(r for ranks in stage_ranks.values() for r in ranks)):
                    for i, p in enumerate(pieces):
                        if r not in stage_ranks[p]:
                            continue
                        at = stage_ranks[p].index(r)
                        # A piece's first stage starts its partition with the feeds (none when it
                        # starts later than rank 0); a later one carries the previous one's results.
                        first = (inp[self.fed.index(i)] if r == 0 else []) if at == 0 else \
                            node[(p, stage_ranks[p][at - 1])]
                        peers = [(q, r - 1) for q in pieces if q is not p and p in senders[q].get(r - 1, ())]
                        consumed.update(peers)
                        node[(p, r)] = p.actor.stage.bind(p.key, r, at == 0, first, *[node[q] for q in peers])
                # A piece's results travel with its last stage's sends: the client reads only the
                # last stages nobody else reads (one channel for a ps gathering all gradients).
                sinks = [node[(p, stage_ranks[p][-1])] for p in pieces if (p, stage_ranks[p][-1]) not in consumed]
                self.outputs = len(sinks)
                out = MultiOutputNode(sinks)
            self.dag = out.experimental_compile()
        except BaseException:
            for p in claimed:
                p.actor.release.remote(self.owner)
            raise

    def execute(self, feeds):
        """Each piece's result tuple (as a plain step's run returns it)."""
        results = {}
        for ref in self.dag.execute(*[feeds[i] for i in self.fed]):
            results.update(ref.get(timeout=-1)[2])
        return [results[p.key] for p in self.pieces]

    def teardown(self):
        """Free the actors (and cancel a step left running there)."""
        dag, self.dag = self.dag, None
        if dag is None:
            return
        for p in self.pieces:
            try:
                p.actor.release.remote(self.owner, [p.key])
            except Exception:  # noqa: BLE001 - a dead task has nothing to free
                pass
        log = logging.getLogger("ray.dag.compiled_dag_node")
        level = log.level
        log.setLevel(logging.CRITICAL)  # a dead task's loop cannot be cancelled: Ray logs each
        try:
            dag.teardown()
        except Exception:  # noqa: BLE001 - a dead task's loop is gone already
            pass
        finally:
            log.setLevel(level)


class _Busy(Exception):
    """A task of the plan runs another session's compiled graph."""


def try_compile(ray, pieces, graph_defs, ranks):
    """A CompiledStep for the plan, or None when a task is busy with another compiled graph."""
    task_of = {p.task: p for p in pieces}
    senders = {}
    # A task's stages: rank 0 (the client's feeds) and each rank at which it receives from another
    # task; it has no ops of any other rank (only a received tensor raises an op's rank).
    stage_ranks = {p: {0} for p in pieces}
    for p in pieces:
        by_rank = senders[p] = {}
        for key, r in ranks[p.device][1].items():
            receiver = task_of[ray_env.task_name(*_task(key.split(";")[1]))]
            by_rank.setdefault(r, set()).add(receiver)
            stage_ranks[receiver].add(r + 1)
    for p, gd in zip(pieces, graph_defs):
        if len(stage_ranks[p]) > 1 and _late_start(p, gd, ranks[p.device]):
            stage_ranks[p].discard(0)
    stage_ranks = {p: sorted(r) for p, r in stage_ranks.items()}
    if any(stage_ranks[p][-1] != ranks[p.device][3] for p in pieces):
        return None     # (cannot happen with one partition per task; the plain path is always right)
    try:
        return CompiledStep(ray, pieces, stage_ranks, senders)
    except _Busy:
        return None


def _late_start(piece, graph_def, ranks):
    """Whether a piece's partition may start at its first receiving stage instead of rank 0 (one Ray
    call and channel hop less per step): it is fed nothing, sends nothing at rank 0, and its ops of
    rank 0 are stateless (constants, shapes: whether they run a little later changes nothing)."""
    names, _, expected, _ = ranks
    return (not piece.feed_slots and not expected.get(0) and
            not any(names[nd.name] == 0 and get_op_def(nd.op).stateful for nd in graph_def.node
                    if nd.op not in ("_Recv", "_Send")))
