"""Tensors a task sends to other tasks, batched into one Ray call per (step, receiving task)."""
import pickle
import threading
import time

import numpy as np

# Sends left waiting behind a kernel that blocks (a queue, an accumulator) go after this; in the usual
# case the partition flushes them itself, before it waits on a receive and when it ends.
FLUSH_DELAY_S = 0.02
# Ray inlines smaller arguments in the call itself; larger tensors go through the object store.
BUNDLE_BYTES = 100 * 1024


class Outbox:
    """Pending sends of this task; flushed when the sending partition is about to wait on a receive
    or ends (no extra latency), else by a background thread once a batch is FLUSH_DELAY_S old."""

    def __init__(self, peer_of, put):
        self._peer_of = peer_of     # (job, index) -> the receiving task's actor handle
        self._put = put             # value -> an object-store ref (ray.put)
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
        if not batches:
            return
        # The large tensors of all these batches go into the object store as one object (one put,
        # however many tasks receive them: a ps sends the same weights to every worker); each
        # receiver maps it zero-copy and picks its own. Small ones ride inline in the call, pickled
        # together with the keys as one argument (Ray serializes each argument on its own: one
        # argument instead of one per tensor makes the submission cheaper).
        bundle, slot_of, calls = [], {}, []
        for (s, job, index), items in batches:
            slots, small = [], []
            for _, value in items:
                if isinstance(value, np.ndarray) and value.nbytes >= BUNDLE_BYTES:
                    slot = slot_of.get(id(value))
                    if slot is None:
                        slot = slot_of[id(value)] = -1 - len(bundle)
                        bundle.append(value)
                    slots.append(slot)
                else:
                    slots.append(len(small))
                    small.append(value)
            calls.append((s, job, index, [k for k, _ in items], slots, small))
        ref = self._put(bundle) if bundle else None
        for s, job, index, keys, slots, small in calls:
            payload = pickle.dumps((keys, slots, small), protocol=pickle.HIGHEST_PROTOCOL)
            self._peer_of(job, index).deliver_many.remote(s, payload, ref)

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


def unbundle(payload, bundle):
    """(keys, values) of one delivered batch, in send order (the inverse of Outbox.flush's packing)."""
    keys, slots, small = pickle.loads(payload)
    return keys, [bundle[-1 - s] if s < 0 else small[s] for s in slots]
