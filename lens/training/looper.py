"""tf.train.LooperThread: a daemon thread calling a function every timer_interval_secs until the coordinator stops."""
import threading
import time

__all__ = ["LooperThread"]


class LooperThread(threading.Thread):
    """Calls target (or run_loop, in a subclass) repeatedly until coord.should_stop(); an exception stops coord."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not all(hasattr(coord, m) for m in ("should_stop", "wait_for_stop", "register_thread")):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super().__init__(daemon=True)
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Start and return a LooperThread calling target(*args, **kwargs) every timer_interval_secs."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():     # back to back
                    self.run_loop()
            else:
                next_time = time.time()                  # the first call is immediate
                while not self._coord.wait_for_stop(max(0.0, next_time - time.time())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once in the thread before the loop (override in subclasses)."""

    def stop_loop(self):
        """Called once in the thread after the loop (override in subclasses)."""

    def run_loop(self):
        """One iteration: target(*args, **kwargs) (override in subclasses)."""
        if self._target:
            self._target(*self._args, **self._kwargs)
