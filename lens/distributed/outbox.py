"""Tensors a task sends to other tasks, batched into one Ray call per (step, receiving task)."""
import threading
import time

FLUSH_DELAY_S = 0.002   # sends waiting behind a kernel that blocks (a queue, an accumulator) go after this


class Outbox:
    """Pending sends of this task; flushed when the sending partition is about to wait on a receive
    or ends (the usual case: no extra latency), else by a background thread after FLUSH_DELAY_S."""

    def __init__(self, peer_of):
        self._peer_of = peer_of     # (job, index) -> the receiving task's actor handle
        self._cond = threading.Condition()
        self._boxes = {}            # (step, job, index) -> [(key, value)]
        self._thread = None

    def put(self, step, job, index, key, value):
        with self._cond:
            self._boxes.setdefault((step, job, index), []).append((key, value))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="lens-outbox", daemon=True)
                self._thread.start()
            self._cond.notify()

    def flush(self, step=None):
        """Send every pending batch (of one step, or all)."""
        with self._cond:
            keys = [k for k in self._boxes if step is None or k[0] == step]
            batches = [(k, self._boxes.pop(k)) for k in keys]
        for (s, job, index), items in batches:
            self._peer_of(job, index).deliver_many.remote(s, [k for k, _ in items], *[v for _, v in items])

    def _loop(self):
        while True:
            with self._cond:
                while not self._boxes:
                    self._cond.wait()
            time.sleep(FLUSH_DELAY_S)
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - a vanished peer: its own run fails and aborts the step
                pass
