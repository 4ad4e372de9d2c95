"""Intra-op parallelism for big kernels: the chunks of one op shared with a helper thread.

NumPy's GEMMs and ufuncs release the GIL, so two threads working on different chunks of one
convolution or matrix product use two cores. Chunks are taken from a shared counter (work
sharing, not a fixed split): when the helper is late (a loaded machine) the calling thread
simply does more chunks and waits at most for the one chunk the helper is running, so a busy
machine never makes an op slower than doing it alone. Nothing spins: waits are on events.
While other runnable threads fill every core, ops run on their own thread only.

Only enabled while the client says so (its parallel executor limits BLAS to one thread per
call; with BLAS's own threads the cores are already in use). Results never depend on which
thread ran a chunk: callers combine per-chunk results in chunk order.
"""
import os
import threading
import time

_state = threading.local()
_enabled = [0]      # > 0 while some run allows helpers (nested runs count up)
_enabled_lock = threading.Lock()
_helper_lock = threading.Lock()     # held while the helper is lent to one op
_helper = None


def enter():
    """Allow helpers (the client's parallel executor calls this around a run)."""
    with _enabled_lock:
        _enabled[0] += 1


def leave():
    """Undo one enter()."""
    with _enabled_lock:
        _enabled[0] -= 1


_CPUS = os.cpu_count() or 1
_SAMPLE_EVERY = 0.05    # seconds between two looks at the run queue
# [when last sampled, smoothed count of other runnable threads, whether the machine had room]
_load = [-1.0, 0.0, True]


def _runnable_now():
    """Threads runnable on the machine right now besides the caller, or None when unknown.

    The kernel's instantaneous run-queue count (/proc/loadavg's fourth field) follows the
    machine within a fraction of a second, where the 1-minute load average trails it for
    minutes (a bench run just after a busy spell would run without helpers)."""
    try:
        with open("/proc/loadavg") as fh:
            return max(0, int(fh.read().split()[3].split("/")[0]) - 1)
    except (OSError, ValueError, IndexError):
        return None


def _machine_has_room():
    """True unless the other runnable threads already fill every core.

    A helper thread on a machine whose cores are all taken by other processes only waits for
    its time slice while the op's other chunks are done (and the op then waits for its chunk):
    it is used only when a core is likely free. The run queue is sampled at most every
    _SAMPLE_EVERY seconds and smoothed over the last few samples."""
    now = time.monotonic()
    if now - _load[0] >= _SAMPLE_EVERY:
        others = _runnable_now()
        if others is None:      # no /proc: the 1-minute load average, counting this thread
            try:
                others = max(0.0, os.getloadavg()[0] - 1)
            except OSError:     # no load figure at all: trust the core count
                others = 0.0
        first = _load[0] < 0
        _load[0] = now
        _load[1] = others if first else 0.5 * _load[1] + 0.5 * others
        _load[2] = _load[1] < _CPUS
    return _load[2]


_running = [0]      # ops the client's executor is running right now, on all its threads


def op_started():
    """The executor starts an op (helpers are lent only while one op runs alone)."""
    with _enabled_lock:
        _running[0] += 1


def op_finished():
    """Undo one op_started()."""
    with _enabled_lock:
        _running[0] -= 1


def helpers_available():
    """True when a helper thread may take chunks of an op started on this thread now: the
    executor allows it, no other op is running beside this one (their threads already use the
    cores), and the machine is not oversubscribed."""
    return (_enabled[0] > 0 and _running[0] <= 1 and _CPUS > 1
            and not getattr(_state, "inside", False) and _machine_has_room())


class _Helper:
    """One daemon thread running handed-over jobs (a job: a callable of no arguments)."""

    def __init__(self):
        self._job = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="lens-intra-op", daemon=True)
        self._thread.start()

    def _loop(self):
        _state.inside = True    # chunks run here never lend the helper again
        while True:
            self._ready.wait()
            self._ready.clear()
            job, self._job = self._job, None
            job()

    def start(self, job):
        self._job = job
        self._ready.set()


def _get_helper():
    global _helper
    if _helper is None:
        _helper = _Helper()
    return _helper


def run_chunks(fn, count, share=True):
    """fn(i) for i in range(count), shared with the helper thread when one is free; returns the
    results in chunk order. The first exception (in chunk order of discovery) is raised after
    every started chunk has finished.

    share=False runs every chunk here: for chunks made of many short NumPy passes (elementwise,
    memory-bound work), which measured slower on two threads than on one - each pass hands the
    GIL back and forth between the threads, and both wait on the same memory. Chunks of big
    GEMMs (BLAS runs seconds of work per GIL release) are what gains from a second core."""
    results = [None] * count
    if count < 2 or not share or not helpers_available() or not _helper_lock.acquire(blocking=False):
        for i in range(count):
            results[i] = fn(i)
        return results
    try:
        next_chunk = [0]
        take_lock = threading.Lock()
        errors = []
        helper_done = threading.Event()

        def work():
            while not errors:
                with take_lock:
                    i = next_chunk[0]
                    if i >= count:
                        return
                    next_chunk[0] = i + 1
                try:
                    results[i] = fn(i)
                except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
                    errors.append(exc)
                    return

        def helper_job():
            try:
                work()
            finally:
                helper_done.set()

        _get_helper().start(helper_job)
        _state.inside = True
        try:
            work()
        finally:
            _state.inside = False
        helper_done.wait()
    finally:
        _helper_lock.release()
    if errors:
        raise errors[0]
    return results
