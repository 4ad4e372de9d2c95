"""A task's side of a compiled step (stages.py): the sends of one step, collected stage by stage.

In a compiled step the partition runs on a thread of the task as usual, but its _Send kernels do not
call the peers: they leave the tensors here, and the task's stage r (an actor method of Ray's compiled
graph) returns the sends of rank r once they are all there; Ray's shared-memory channels carry them to
the receiving tasks' stage r + 1, which deliver them into the rendezvous.
"""
import threading
from collections import defaultdict


class DagStep:
    """One step of a partition in a compiled step: its sends by rank, then its result."""

    def __init__(self, step, send_rank, expected):
        self.step = step
        self._send_rank = send_rank     # transfer key -> the stage whose output carries it
        self._expected = expected       # rank -> how many sends to other tasks it has
        self._cond = threading.Condition()
        self._out = defaultdict(lambda: defaultdict(list))   # rank -> (job, index) -> [(key, value)]
        self._count = defaultdict(int)
        self.result = None              # the partition's result tuple ("ok", ...) / ("error", ...)
        self.waiting = False            # the partition waits for a tensor from another task

    def put(self, key, dest, value):
        """A _Send of the partition: keep the value for the stage of its rank."""
        rank = self._send_rank[key]
        with self._cond:
            self._out[rank][dest].append((key, value))
            self._count[rank] += 1
            self._cond.notify_all()

    def set_waiting(self, flag):
        with self._cond:
            self.waiting = flag
            self._cond.notify_all()

    def finish(self, result):
        with self._cond:
            self.result = result
            self._cond.notify_all()

    def sends(self, rank):
        """(ok, {(job, index): [(key, value)]}): the sends of rank, once all are made and the partition
        cannot go on without the next stage's tensors (or it ended). Returning earlier would leave the
        partition's thread to compete for the GIL with Ray's channel read, which polls holding it."""
        with self._cond:
            while ((self._count[rank] < self._expected.get(rank, 0) or not self.waiting)
                   and self.result is None):
                self._cond.wait()
            ok = self.result is None or self.result[0] == "ok"
            return ok, dict(self._out.pop(rank, {}))

    def done(self):
        """The partition's result tuple, once it ran."""
        with self._cond:
            while self.result is None:
                self._cond.wait()
            return self.result
