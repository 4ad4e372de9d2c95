"""Cold starts on every core: runs with nothing in the cache dir are read by worker processes.

Reading a run costs CPU in Python and in NumPy calls too short to release the GIL for long, so
reader threads overlap only about 1.4x on 2 cores. On a cold start of a big logdir with a cache
dir, runs go to worker processes
instead, one per core: `python -m lens.events.run_workers`, fed run names on stdin (a fresh
interpreter: a fork would copy the server's threads and locks, and multiprocessing's spawn
would run the caller's main script again). A worker reads every file of one run and saves it
to the cache dir as the board does (column files, ready answers, state); the board then takes
the run from the cache as on a warm start. The points never cross a pipe, and a cold and a
warm start serve the same saved data.

Until the first worker answers (starting one imports NumPy and pyarrow: about a second), the
board reads runs itself (the first one before starting any worker), so the first series
answers as soon as without workers; a run whose worker failed is read by the board as well.
Workers are used only for MIN_RUNS or more cold runs of local files holding MIN_BYTES or more
(starting two workers costs about 1.3 CPU s: measured on a busy 2-core machine, threads still
won at 1.1 GB; at 5.5 GB the CPU times predict workers about 1.5x faster on free cores), with a
usable cache dir, and with a memory cap (if any) that leaves the board and each worker
WORKER_MB: the cap is shared between them.
"""

import json
import logging
import os
import selectors
import subprocess
import sys
from collections import deque

from lens.events.cached_logdir import CachingWatcher
from lens.events.fsio import local_fs

log = logging.getLogger("lens.events")

MIN_RUNS = 4
MIN_BYTES = 2 << 30
WORKER_MB = 200
_IN_FLIGHT = 2  # runs sent to a worker before its first answer: it never waits for the board


def read_in_worker(cache_root, name, paths, samples, cap_mb, chunk=None):
    """(records parsed, saved) after reading run `name` from `paths` into the cache dir;
    chunk: the board's read size (a worker's share of the cap would make it smaller)."""
    watcher = CachingWatcher(os.path.dirname(paths[0]), samples, cache_root, cap_mb, board=False)
    watcher.chunk = chunk or watcher.chunk
    watcher.add_run(name, local_fs(), paths)
    watcher.note_looked(name)  # the board found no usable entry: read from the start
    watcher._read_run(name)
    return watcher.records_parsed, watcher.saved(name)


class _Worker:
    """One worker process and the runs sent to it, oldest first."""

    def __init__(self):
        env = dict(os.environ)
        # The lens this board runs, whatever the worker's working directory.
        home = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [home, env.get("PYTHONPATH")]))
        self.proc = subprocess.Popen([sys.executable, "-m", "lens.events.run_workers"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.sent = deque()
        self._pending = b""  # answer bytes read but not yet a whole line

    def answers(self):
        """The whole answer lines that arrived (a read may bring several: the pipe is read
        as raw bytes, since a buffered reader would keep lines out of select's sight), or
        None at end of output (the worker exited)."""
        data = os.read(self.proc.stdout.fileno(), 1 << 16)
        if not data:
            return None
        *lines, self._pending = (self._pending + data).split(b"\n")
        return [json.loads(line) for line in lines]

    def send(self, task):
        self.sent.append(task["name"])  # first: a failed write gives the run back too
        self.proc.stdin.write(json.dumps(task).encode() + b"\n")
        self.proc.stdin.flush()

    def close(self):
        try:
            self.proc.stdin.close()  # end of input: the worker exits
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


class ParallelWatcher(CachingWatcher):
    """CachingWatcher whose cold runs are read by worker processes (see the module doc)."""

    read_while_starting = True  # the board reads runs itself until a worker first answers

    def _read_big(self, big):
        workers = os.cpu_count() or 1
        cap_mb = None
        if self.cap:
            cap_mb = (self.cap >> 20) // (workers + 1)
        usable = (self.cache is not None and self.cache.usable and workers >= 2
                  and (cap_mb is None or cap_mb >= WORKER_MB))
        cold = self._cold(big) if usable else []
        unread = sum(r.size - r.offset for name in cold for r in self._runs[name].readers.values())
        if len(cold) < MIN_RUNS or unread < MIN_BYTES:
            return super()._read_big(big)
        self._with_workers(cold, workers, cap_mb)
        return cold + list(super()._read_big([name for name in big if name not in cold]))

    def _cold(self, big):
        """The runs of `big` read from nothing: not resumed from the cache, local files."""
        cold = []
        for name in big:
            run = self._runs[name]
            if name in self._looked or any(r.fs is not local_fs() or r.offset
                                           for r in run.readers.values()):
                continue
            self.note_looked(name)
            self._resume(name, run)
            if not self.saved(name):
                cold.append(name)
        return cold

    def _with_workers(self, cold, count, cap_mb):
        """Read the `cold` runs in worker processes, then take each from the cache dir."""
        queue = deque(cold)
        pool = []
        selector = selectors.DefaultSelector()
        answered = False
        if self.read_while_starting:
            self._take(queue.popleft(), None)  # the first series, before workers take the CPU
        try:
            for _ in range(count):
                worker = _Worker()
                pool.append(worker)
                selector.register(worker.proc.stdout, selectors.EVENT_READ, worker)
            while queue or any(w.sent for w in pool):
                for worker in pool:
                    while queue and len(worker.sent) < _IN_FLIGHT:
                        name = queue.popleft()
                        worker.send({"cache_root": self.cache.root, "name": name,
                                     "paths": sorted(self._runs[name].readers),
                                     "samples": self.samples, "cap_mb": cap_mb,
                                     "chunk": self.chunk})
                mine = self.read_while_starting and not answered and queue
                events = selector.select(timeout=0 if mine else None)
                for key, _ in events:
                    answered = True
                    self._answer(key.data, selector, pool, queue)
                if mine and not events:
                    self._take(queue.popleft(), None)  # workers still starting: read one here
        except OSError as exc:  # cannot start or talk to workers: read the rest here
            log.warning("worker processes failed (%s); reading the runs here", exc)
            for worker in pool:
                queue.extend(worker.sent)
                worker.sent.clear()
            for name in queue:
                self._take(name, None)
        finally:
            for worker in pool:
                worker.close()

    def _answer(self, worker, selector, pool, queue):
        """Take the runs a worker answered for; a worker that died gives its runs back."""
        answers = worker.answers()
        if answers is None:
            selector.unregister(worker.proc.stdout)
            pool.remove(worker)
            log.warning("a worker process exited (code %s); reading its runs here",
                        worker.proc.poll())
            queue.extendleft(reversed(worker.sent))
            worker.sent.clear()
            if not pool:
                raise OSError("no worker process left")
            return
        for answer in answers:
            self._take(worker.sent.popleft(), answer)

    def _take(self, name, answer):
        """Serve a run from what its worker saved; read it here when there is nothing."""
        if answer is not None:
            if "error" in answer:
                log.warning("run %s: worker failed (%s); reading it here", name, answer["error"])
            with self.lock:
                self.records_parsed += answer.get("parsed", 0)
            if answer.get("saved"):
                self._looked.discard(name)  # so _read_run resumes it from the cache
        self._read_run(name)


def main():
    """Worker loop: one JSON task per stdin line, one JSON answer per stdout line."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything else printed goes to stderr, not into the answers
    logging.basicConfig(level=logging.WARNING, format="lens worker %(levelname)s: %(message)s")
    for line in sys.stdin:
        task = json.loads(line)
        try:
            parsed, saved = read_in_worker(**task)
            answer = {"parsed": parsed, "saved": saved}
        except Exception as exc:  # the board reads the run itself
            answer = {"error": "%s: %s" % (type(exc).__name__, exc)}
        out.write(json.dumps(answer) + "\n")
        out.flush()
    # Everything is saved (files closed, answers flushed): skip the interpreter's teardown,
    # which takes a second with NumPy and pyarrow loaded while the board waits for the exit.
    os._exit(0)


if __name__ == "__main__":
    main()
