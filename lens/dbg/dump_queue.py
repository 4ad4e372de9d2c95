"""One background thread that writes dump files while the debugged step goes on.

The engine computes with one BLAS thread, so a second core sits idle while a debugged run
dumps; os.open/os.writev release the GIL, so file writes handed to this thread overlap the
step's compute. Jobs run in submission order (one thread, FIFO), which is what lets a waiter
know that every job before its own marker is done. Callers keep what the job writes unchanged
until the job is done (see DiskSink.before_update) and wait for their last job before the run
returns, so a dump folder is complete when Session.run() is.
"""

import os
import queue
import threading

_state = {"queue": None, "pid": None}
_start_lock = threading.Lock()


def _work(jobs):
    while True:
        fn, args, done = jobs.get()
        try:
            if fn is not None:
                fn(*args)  # a job records its own errors (DumpWriter._later)
        except BaseException:  # noqa: BLE001 - the thread must outlive any job: waiters hang
            pass
        finally:
            if done is not None:
                done.release()
            fn = args = done = None  # don't keep the last run's values alive until the next


def _jobs():
    """The queue of the writer thread, started on first use (and again in a forked child,
    which inherits the queue but not the thread)."""
    jobs = _state["queue"]
    if jobs is not None and _state["pid"] == os.getpid():
        return jobs
    with _start_lock:
        if _state["queue"] is None or _state["pid"] != os.getpid():
            jobs = queue.SimpleQueue()
            threading.Thread(target=_work, args=(jobs,), name="lens-dbg-dump-writer",
                             daemon=True).start()
            _state["queue"], _state["pid"] = jobs, os.getpid()
        return _state["queue"]


def submit(fn, args, done=None):
    """Run fn(*args) on the writer thread; `done` (an acquired Lock, or None) is released
    when it has run."""
    _jobs().put((fn, args, done))


def marker():
    """An acquired Lock the writer thread releases once every job submitted so far has run:
    `marker().acquire()` waits for them."""
    done = threading.Lock()
    done.acquire()
    submit(None, (), done)
    return done
