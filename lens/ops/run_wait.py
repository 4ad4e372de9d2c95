"""Waiting inside a blocking kernel: until notified, or DeadlineExceededError at the run's deadline."""
from lens.framework import errors, run_deadline


def wait(cond, message):
    """cond.wait() (cond held) bounded by the Session.run deadline, if any; raises DeadlineExceededError(message)."""
    left = run_deadline.remaining()
    if left is None:
        cond.wait()
    elif left <= 0 or (not cond.wait(left) and run_deadline.remaining() <= 0):
        raise errors.DeadlineExceededError(None, None, message)
