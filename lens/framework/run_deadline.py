"""The deadline of the Session.run in progress on this thread (RunOptions.timeout_in_ms,
ConfigProto.operation_timeout_in_ms): blocking kernels (queues, readers) wait only until then."""
import contextlib
import threading
import time

_local = threading.local()


@contextlib.contextmanager
def within(timeout_ms):
    """Run the block with a deadline timeout_ms from now (on this thread)."""
    _local.deadline = time.monotonic() + timeout_ms / 1000.0
    try:
        yield
    finally:
        _local.deadline = None


def active():
    """True inside within()."""
    return getattr(_local, "deadline", None) is not None


def remaining():
    """Seconds left before the deadline (None when there is none)."""
    deadline = getattr(_local, "deadline", None)
    return None if deadline is None else deadline - time.monotonic()
