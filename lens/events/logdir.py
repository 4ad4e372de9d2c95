"""Watching a logdir: run discovery, per-file tailing, parallel loading of big runs, progress."""

import logging
import os
import posixpath
import threading
from concurrent.futures import ThreadPoolExecutor

from lens.events.failures import Failures, merge
from lens.events.fsio import filesystem
from lens.events.reader import EventFileReader
from lens.events.store import DEFAULT_SAMPLES, RunStore

log = logging.getLogger("lens.events")

PARALLEL_MIN_BYTES = 8 << 20  # runs with less unread data are not worth a thread


def parse_samples(spec):
    """{plugin: n} from a dict or TensorBoard's 'images=all,scalars=5000' string (all/0 = keep all)."""
    if spec is None:
        return {}
    if isinstance(spec, str):
        items = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            if "=" not in part:
                raise ValueError("samples_per_plugin entry %r must look like plugin=count "
                                 "(e.g. images=20 or images=all)" % part)
            key, _, value = part.partition("=")
            items[key.strip()] = value.strip()
        spec = items
    out = {}
    for plugin, value in dict(spec).items():
        if isinstance(value, str) and value.lower() == "all":
            value = 0
        try:
            count = int(value)
        except (TypeError, ValueError):
            count = -1
        if count < 0:
            raise ValueError("samples_per_plugin[%r] = %r: use a count >= 0, or 'all'/0 to keep "
                             "everything" % (plugin, value))
        out[plugin] = count
    if out.get("scalars"):
        log.info("samples_per_plugin scalars=%d ignored: lens keeps every scalar", out["scalars"])
    return out


def _roots(logdir):
    """[(run prefix or None, fs, root)] for a logdir path/URL or a {prefix: path} spec."""
    if isinstance(logdir, dict):
        if not logdir:
            raise ValueError("logdir_spec is empty: give at least one name: path pair")
        return [(str(name), *filesystem(path)) for name, path in sorted(logdir.items())]
    if logdir is None or str(logdir) == "":
        raise ValueError("no logdir given: pass a directory or URL holding event files")
    return [(None, *filesystem(logdir))]


def _exists(fs, path):
    try:
        return fs.exists(path)
    except OSError:
        return True  # unknown: keep the run rather than lose data


class _Run:
    def __init__(self, name, fs, samples):
        self.fs = fs
        self.store = RunStore(samples, name)
        self.readers = {}  # path -> EventFileReader
        self.failures = Failures("run %s" % name)  # errors the reader or store let through
        self.failed_at = set()  # (path, offset) of those, so a retry is not counted again

    def failure_list(self):
        """The run's Failures: its files' (in file order), its store's, then its own."""
        return [self.readers[p].failures for p in sorted(self.readers)] + [self.store.failures,
                                                                          self.failures]


class LogdirWatcher:
    """Holds every run of a logdir and reads what was appended on each reload()."""

    def __init__(self, logdir, samples):
        self.samples = dict(DEFAULT_SAMPLES, **samples)
        self.roots = _roots(logdir)
        self.lock = threading.RLock()  # guards stores while batches are applied
        self._reload_lock = threading.Lock()
        self._runs = {}
        self.stores = {}  # run name -> RunStore (what the provider serves)
        self.generation = 0  # bumped (under lock) whenever a store is added, dropped or fed
        self._loading = False
        self._passes = 0
        self._missing = set()

    def _discover(self):
        found = {}
        for prefix, fs, root in self.roots:
            try:
                runs = fs.event_files(root) if fs.exists(root) else {}
            except OSError as exc:
                runs = {}
                log.warning("cannot list logdir %s: %s", root, exc)
            if not runs and root not in self._missing:
                self._missing.add(root)
                log.warning("no event files under %s yet (looking for files named *tfevents*)", root)
            for rel, paths in runs.items():
                name = rel if prefix is None else (prefix if rel == "." else prefix + "/" + rel)
                found.setdefault(name, (fs, []))[1].extend(paths)
        return found

    def reload(self):
        """One pass over every run: new runs, new files, appended bytes."""
        with self._reload_lock:
            self._loading = True
            try:
                self._reload()
            finally:
                self._loading = False
                self._passes += 1

    def _reload(self):
        found = self._discover()
        self._drop_deleted_runs(found)
        for name, (fs, paths) in found.items():
            self.add_run(name, fs, paths)
        pending = {name: sum(max(r.poll(), 0) for r in run.readers.values())
                   for name, run in self._runs.items()}
        big = [n for n in sorted(self._runs) if pending[n] >= PARALLEL_MIN_BYTES]
        done = self._read_big(big)
        for name in sorted(self._runs):
            if name not in done:
                self._read_run(name)

    def add_run(self, name, fs, paths):
        """Run `name` (made when first seen), with a reader for each of `paths`."""
        run = self._runs.get(name)
        if run is None:
            run = self._runs[name] = _Run(name, fs, self.samples)
            with self.lock:
                self.stores[name] = run.store
                self.generation += 1
        for path in sorted(paths):
            if path not in run.readers:
                run.readers[path] = EventFileReader(path, fs)
        return run

    def _read_big(self, big):
        """Read the runs with much unread data side by side; returns the names read."""
        workers = min(len(big), os.cpu_count() or 1)
        if workers < 2:
            return ()
        # Large NumPy operations and file reads release the GIL: some overlap in threads.
        with ThreadPoolExecutor(workers, thread_name_prefix="lens-load") as pool:
            list(pool.map(self._read_run, big))
        return big

    def _drop_deleted_runs(self, found):
        """Forget runs whose directory was deleted while serving (a deleted file keeps its data)."""
        for name in [n for n in self._runs if n not in found]:
            run = self._runs[name]
            if any(_exists(run.fs, posixpath.dirname(path)) for path in run.readers):
                continue
            del self._runs[name]
            with self.lock:
                self.stores.pop(name, None)
                self.generation += 1
            log.info("run %s was deleted; dropped it", name)

    def _read_run(self, name):
        """Read what was appended to every file of one run, in file-name order."""
        run = self._runs[name]
        for path in sorted(run.readers):
            reader = run.readers[path]
            try:
                for batch in reader.read():
                    self._ingest(run, path, reader, batch)
            except Exception as exc:  # the reader isolates records; this is the last guard
                # The reader resumes where it stopped on the next reload: count that once.
                if (path, reader.offset) not in run.failed_at:
                    run.failed_at.add((path, reader.offset))
                    run.failures.note("file read failed", "reading %s stopped at offset %d; the "
                                      "other files go on and this one is retried on the next "
                                      "reload" % (path, reader.offset), exc)

    def _ingest(self, run, path, reader, batch):
        """Store one batch; the store isolates values, so a failure here is a bug: say so."""
        try:
            with self.lock:
                self.generation += 1
                run.store.ingest(batch)
        except Exception as exc:
            run.failures.note("batch not stored", "%d records of %s before offset %d could not "
                              "be stored" % (batch.records, path, reader.offset), exc,
                              skipped=batch.records)

    def progress(self):
        """{'runs', 'files', 'bytes_read', 'bytes_total', 'events', 'done', 'errors', 'per_run'}.

        per_run: {run: {'files', 'bytes_read', 'bytes_total', 'events'}}.

        errors: {run: {'count', 'skipped', 'first'}} for runs that met unexpected errors
        (count of errors, records or values lost to them, the first error's message)."""
        items = sorted(self._runs.items())  # one snapshot: a reload may add runs meanwhile
        errors, per_run = {}, {}  # per run, so the page can show which runs are still arriving
        files = read = total = events = 0
        # One pass per run (pages and loaders poll this while thousands of runs load).
        for name, run in items:
            mine = list(run.readers.values())
            run_read = run_total = 0
            failed = run.store.failures.count or run.failures.count
            for r in mine:
                run_read += r.offset
                run_total += r.size if r.size > r.offset else r.offset
                failed = failed or r.failures.count
            if failed:
                errors[name] = merge(run.failure_list())
            per_run[name] = {"files": len(mine), "bytes_read": run_read,
                             "bytes_total": run_total, "events": run.store.events}
            files, read, total = files + len(mine), read + run_read, total + run_total
            events += run.store.events
        return {"runs": len(items), "files": files, "bytes_read": read, "bytes_total": total,
                "events": events, "done": self._passes > 0 and not self._loading,
                "errors": errors, "per_run": per_run}

    def problems(self):
        """Files that could not be read or held corrupt records."""
        out = []
        for name, run in sorted(self._runs.items()):
            for path, r in sorted(run.readers.items()):
                if r.error or r.corrupt:
                    out.append({"run": name, "path": path, "error": r.error,
                                "corrupt": r.corrupt, "bytes_skipped": r.bytes_skipped})
        return out
