"""tf.train.Coordinator: a stop flag shared by threads, carrying the first error raised."""
import contextlib
import threading

from lens.framework import errors
from lens.training.looper import LooperThread

__all__ = ["Coordinator"]


class Coordinator:
    """Threads check should_stop(); any of them may request_stop(), optionally with an exception."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info = None
        self._threads = set()
        self._joined = False

    def request_stop(self, ex=None):
        """Ask everyone to stop; remember ex (an exception or exc_info) unless it is a clean stop."""
        with self._lock:
            # Only the first stop request's exception is kept (later ones, e.g. a queue runner's
            # CancelledError after the stop closed its queue, are consequences of the stop).
            if ex is not None and self._exc_info is None and not self._stop_event.is_set():
                exc = ex[1] if isinstance(ex, tuple) else ex
                if not isinstance(exc, self._clean_stop):
                    if not isinstance(exc, BaseException):
                        raise ValueError("request_stop expects an exception or exc_info, got %r" % (ex,))
                    self._exc_info = exc
            self._stop_event.set()

    def clear_stop(self):
        """Forget the stop request and its exception."""
        with self._lock:
            self._joined = False
            self._exc_info = None
            self._stop_event.clear()

    def should_stop(self):
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Context manager requesting a stop with any exception raised inside it."""
        try:
            yield
        except Exception as e:  # noqa: BLE001 - every error stops the coordinator, as TF1
            self.request_stop(e)

    def wait_for_stop(self, timeout=None):
        """Block until a stop is requested (or timeout seconds pass); returns should_stop()."""
        return self._stop_event.wait(timeout)

    def looper(self, timer_interval_secs, target, args=None, kwargs=None):
        """Start a LooperThread calling target every timer_interval_secs until the stop; returns it."""
        return LooperThread.loop(self, timer_interval_secs, target, args, kwargs)

    def register_thread(self, thread):
        """Track a thread for join()."""
        with self._lock:
            self._threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for the threads to end, then re-raise the exception given to request_stop."""
        threads = set(threads or ()) | self._threads
        for t in threads:
            t.join(stop_grace_period_secs)
        alive = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._threads = set()
        if self._exc_info is not None:
            raise self._exc_info
        if alive and not ignore_live_threads:
            raise RuntimeError("Coordinator stopped with threads still running: %s" % " ".join(alive))

    @property
    def joined(self):
        """True after join()."""
        return self._joined

    def raise_requested_exception(self):
        """Re-raise the exception given to request_stop, if any."""
        if self._exc_info is not None:
            raise self._exc_info
