"""_Send/_Recv kernels and the per-task rendezvous where one step's values meet their receivers."""
import threading
import time
from collections import deque

import numpy as np

from lens.framework import errors, run_deadline
from lens.framework.registry import register_op

RECV_TIMEOUT_S = 600.0  # a receiver whose sender never comes (its client died) gives up eventually


def transfer_key(op):
    """The rendezvous key both ends of a transfer compute: tensor, sender and receiver devices."""
    a = op._attrs
    return "%s;%s;%s" % (a["send_device"], a["recv_device"], a["tensor_name"])


class Rendezvous:
    """step id -> {key: value}; receivers block until their value is delivered or the step aborts."""

    def __init__(self):
        self._cond = threading.Condition()
        self._tables = {}
        self._aborted = {}          # step -> the reason (an OpError), kept for late deliveries
        self._aborted_order = deque()

    def deliver(self, step, key, value):
        with self._cond:
            if step in self._aborted:
                return
            self._tables.setdefault(step, {})[key] = value
            self._cond.notify_all()

    def has(self, step, key):
        """Whether the value sent under key in step has arrived."""
        with self._cond:
            return key in self._tables.get(step, ())

    def receive(self, step, key, task_name):
        deadline = time.monotonic() + RECV_TIMEOUT_S
        with self._cond:
            while True:
                table = self._tables.get(step)
                if table is not None and key in table:
                    value = table.pop(key)
                    if not table:
                        del self._tables[step]
                    return value
                reason = self._aborted.get(step)
                if reason is not None:
                    raise reason
                left = deadline - time.monotonic()
                if run_deadline.active():
                    left = min(left, run_deadline.remaining())
                if left <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, "%s timed out waiting for %s of step %d" % (task_name, key, step))
                self._cond.wait(min(left, 1.0))

    def abort(self, step, reason):
        with self._cond:
            self._tables.pop(step, None)
            self._aborted[step] = reason
            self._aborted_order.append(step)
            while len(self._aborted_order) > 1024:
                self._aborted.pop(self._aborted_order.popleft(), None)
            self._cond.notify_all()


def _send_kernel(op, ctx):
    key = transfer_key(op)
    recv_device = op._attrs["recv_device"]
    task = ctx.task

    def send(*values):
        # A control transfer carries no tensor: the receiver only waits for its arrival.
        task.send(recv_device, key, values[0] if values else np.zeros((), np.float32))
    return send


def _recv_kernel(op, ctx):
    key = transfer_key(op)
    task = ctx.task
    return lambda: task.receive(key)


register_op("_Send", make=_send_kernel, stateful=True, not_differentiable=True)
register_op("_Recv", make=_recv_kernel, stateful=True, not_differentiable=True)
