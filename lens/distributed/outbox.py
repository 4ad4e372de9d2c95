"""Tensors a task sends to other tasks, batched into one Ray call per (step, receiving task)."""
import threading
import time

# Sends left waiting behind a kernel that blocks (a queue, an accumulator) go after this; in the usual
# case the partition flushes them itself, before it waits on a receive and when it ends.
FLUSH_DELAY_S = 0.02


class Outbox:
    """Pending sends of this task; flushed when the sending partition is about to wait on a receive
    or ends (no extra latency), else by a background thread once a batch is FLUSH_DELAY_S old."""

    def __init__(self, peer_of):
        self._peer_of = peer_of     # (job, index) -> the receiving task's actor handle
        self._cond = threading.Condition()
        self._boxes = {}            # (step, job, index) -> (time of the first send, [(key, value)])
        self._thread = None

    def put(self, step, job, index, key, value):
        with self._cond:
            box = self._boxes.get((step, job, index))
            if box is None:
                box = self._boxes[(step, job, index)] = (time.monotonic(), [])
                self._cond.notify()
            box[1].append((key, value))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="lens-outbox", daemon=True)
                self._thread.start()

    def flush(self, step=None, older_than=None):
        """Send the pending batches of one step (or all, or those queued before older_than)."""
        with self._cond:
            keys = [k for k, (t, _) in self._boxes.items()
                    if (step is None or k[0] == step) and (older_than is None or t <= older_than)]
            batches = [(k, self._boxes.pop(k)[1]) for k in keys]
        for (s, job, index), items in batches:
            self._peer_of(job, index).deliver_many.remote(s, [k for k, _ in items], *[v for _, v in items])

    def _loop(self):
        while True:
            with self._cond:
                while not self._boxes:
                    self._cond.wait()
                oldest = min(t for t, _ in self._boxes.values())
            time.sleep(max(0.0, oldest + FLUSH_DELAY_S - time.monotonic()))
            try:
                self.flush(older_than=time.monotonic() - FLUSH_DELAY_S)
            except Exception:  # noqa: BLE001 - a vanished peer: its own run fails and aborts the step
                pass
