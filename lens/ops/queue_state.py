"""The state of one queue in one session: a bounded, blocking, closable store of element tuples."""
import collections
import heapq
import itertools
import threading

import numpy as np

from lens.framework import errors
from lens.ops import run_wait


class QueueState:
    """Elements (tuples of arrays) behind one condition variable; kinds: fifo, shuffle, priority."""

    def __init__(self, kind, name, capacity, dtypes, shapes, min_after_dequeue=0, rng=None):
        self.kind, self.name, self.capacity = kind, name, capacity
        self.dtypes, self.shapes = dtypes, shapes
        self.min_after_dequeue = min_after_dequeue
        self.rng = rng
        self.cond = threading.Condition()
        self.items = collections.deque() if kind in ("fifo", "padding") else []
        self.seq = itertools.count()    # priority ties dequeue in insertion order
        self.closed = False
        self.cancel_enqueues = False    # close(cancel_pending_enqueues=True) was called
        self.session_closed = False

    def _label(self):
        return "%s '%s'" % ({"fifo": "FIFOQueue", "padding": "PaddingFIFOQueue", "shuffle": "RandomShuffleQueue",
                             "priority": "PriorityQueue"}[self.kind], self.name)

    def _wait(self):
        """Wait for a change; DeadlineExceededError once the run's timeout (if any) has passed."""
        run_wait.wait(self.cond, "Timed out waiting for notification (%s)" % self._label())

    def size(self):
        with self.cond:
            return len(self.items)

    # ---------------------------------------------------------------- enqueue
    def enqueue(self, elements):
        """Add elements (an iterable of tuples) one at a time, waiting for room while the queue is full."""
        with self.cond:
            if self.closed:
                raise errors.CancelledError(None, None, "%s is closed." % self._label())
            for element in elements:
                while self.capacity > 0 and len(self.items) >= self.capacity:
                    self._check_cancelled("Enqueue")
                    self._wait()
                self._check_cancelled("Enqueue")
                self._put(element)
                self.cond.notify_all()

    def _check_cancelled(self, what):
        if self.session_closed or self.cancel_enqueues:
            raise errors.CancelledError(None, None, "%s operation was cancelled (%s is closed%s)." % (
                what, self._label(), " and its pending enqueues cancelled" if self.cancel_enqueues else ""))

    def _put(self, element):
        if self.kind == "priority":
            heapq.heappush(self.items, (int(element[0]), next(self.seq), element))
        else:
            self.items.append(element)

    # ---------------------------------------------------------------- dequeue
    def dequeue(self, n, allow_fewer):
        """Take n elements (blocking); fewer only when allow_fewer and the queue is closed."""
        with self.cond:
            while True:
                if self.session_closed:
                    raise errors.CancelledError(None, None, "Dequeue operation was cancelled: the session "
                                                "was closed.")
                have = len(self.items)
                if self.closed:
                    if have >= n or (allow_fewer and have > 0):
                        break
                    raise errors.OutOfRangeError(
                        None, None, "%s is closed and has insufficient elements (requested %d, current "
                        "size %d)" % (self._label(), n, have))
                if have >= n and (self.kind != "shuffle" or have - n >= self.min_after_dequeue):
                    break
                self._wait()
            taken = [self._take() for _ in range(min(n, len(self.items)))]
            self.cond.notify_all()
            return taken

    def _take(self):
        if self.kind == "priority":
            return heapq.heappop(self.items)[2]
        if self.kind == "shuffle":
            i = int(self.rng.integers(len(self.items)))
            self.items[i], self.items[-1] = self.items[-1], self.items[i]
            return self.items.pop()
        return self.items.popleft()

    # ---------------------------------------------------------------- close
    def close(self, cancel_pending_enqueues):
        """No more enqueues; blocked dequeues get what is left or OutOfRangeError."""
        with self.cond:
            self.closed = True
            self.cancel_enqueues = self.cancel_enqueues or bool(cancel_pending_enqueues)
            self.cond.notify_all()

    def on_session_close(self):
        """The owning session closed: every blocked enqueue and dequeue fails with CancelledError."""
        with self.cond:
            self.session_closed = True
            self.closed = True
            self.cond.notify_all()


def stack_elements(elements, n_components, pad_shapes=None, dtypes=None):
    """Tuple of batched arrays from a list of element tuples (padded to each batch's largest shape)."""
    out = []
    for c in range(n_components):
        parts = [e[c] for e in elements]
        if pad_shapes is not None and pad_shapes[c] is not None and None in pad_shapes[c].as_list():
            parts = _pad(parts, dtypes[c])
        out.append(np.stack(parts) if parts else None)
    return tuple(out)


def _pad(parts, dtype):
    """Pad arrays of one rank to the largest size per dimension (zeros, or b'' for strings)."""
    if not parts:
        return parts
    target = tuple(max(p.shape[d] for p in parts) for d in range(parts[0].ndim))
    padded = []
    for p in parts:
        if p.shape == target:
            padded.append(p)
            continue
        fill = b"" if p.dtype == object else 0
        q = np.full(target, fill, dtype=p.dtype)
        q[tuple(slice(0, s) for s in p.shape)] = p
        padded.append(q)
    return padded
