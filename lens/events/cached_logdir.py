"""The logdir watcher the provider uses: a run that shrank is read anew, and, with a cache
dir, runs are resumed from and saved to it, and resident memory is held under a cap by
moving scalar points to the cache's column files.

Resume rules (per run, since a run's store mixes its files): every file the cache read must
still be there, at least as long and with the same bytes at both ends of the part read; then
only the bytes after it are parsed. Otherwise the run is read again from the start of every
file. A file that shrinks under a running board resets its run the same way (no stale points).
"""

import ctypes
import logging

from lens.events import answers, colstore, spill
from lens.events.cache import CacheDir
from lens.events.logdir import LogdirWatcher
from lens.events.reader import EventFileReader
from lens.events.snapshot import reader_state, restore_store, resume_reader, store_state
from lens.events.store import RunStore

log = logging.getLogger("lens.events")

_CAP_SHARE = 0.6  # spill once anonymous RSS passes this share of the cap
_MIN_CHUNK = 1 << 20
_LIBC = []


def anon_rss():
    """Anonymous resident bytes of this process (what the board itself holds: not shared
    library pages nor memory-mapped cache files, which the kernel can drop), or 0."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _trim():
    """Give freed heap back to the system (glibc keeps it otherwise)."""
    if not _LIBC:
        try:
            _LIBC.append(ctypes.CDLL("libc.so.6").malloc_trim)
        except (OSError, AttributeError):  # not glibc: nothing to trim
            _LIBC.append(None)
    if _LIBC[0] is not None:
        _LIBC[0](0)


class CachingWatcher(LogdirWatcher):
    """LogdirWatcher with run resets on shrink, an optional cache dir and memory cap."""

    def __init__(self, logdir, samples, cache_dir=None, max_memory_mb=None, board=True):
        super().__init__(logdir, samples)
        self.cache = CacheDir(cache_dir, board) if cache_dir else None
        self.cap = int(max_memory_mb * (1 << 20)) if max_memory_mb else None
        self.chunk = None
        if self.cap:
            # Read buffers (and the objects a batch parses into) count against the cap too:
            # 1/64 of it per reader, at most 64 MB.
            self.chunk = max(_MIN_CHUNK, min(64 << 20, self.cap // 64))
        self._looked = set()  # runs whose cache entry was looked at
        self._saved = {}  # run -> reader offsets at the last save
        self._cap_said = False
        self.records_parsed = 0  # records parsed by this process (not taken from the cache)
        self._damaged = set()  # runs whose column files failed to read: reset on next reload
        self._swept = False

    # ---- reading ------------------------------------------------------------------------
    def reload(self):
        super().reload()
        if self.cache is not None:
            # pyarrow is imported before a save takes the store lock (first runs are readable
            # sooner), and here in the loading thread for the first read of a column file.
            colstore.import_arrow()
        if self.cache is not None and not self._swept:
            self._swept = True
            with self.lock:
                in_use = [c.path for store in self.stores.values()
                          for series in store.scalars.values() for c in series.chunks()]
                in_use += [self.cache.folder(name) + "/" + store.answers_file
                           for name, store in self.stores.items() if store.answers_file]
                in_use += [p for store in self.stores.values() for p in spill.paths(store)]
                held = [name for name in self._saved if name in self.stores]
            # After serving starts: old column files cost only disk.
            self.cache.sweep(in_use, held)

    def _read_run(self, name):
        run = self._runs[name]
        if any(r.shrank for r in run.readers.values()):
            self._reset(name, run, "a file shrank")
        elif name in self._damaged:
            self._reset(name, run, "its column files in the cache dir could not be read")
        self._damaged.discard(name)
        if self.chunk:
            for reader in run.readers.values():
                reader.chunk = self.chunk
        if self.cache is not None and name not in self._looked:
            self._looked.add(name)
            self._resume(name, run)
        super()._read_run(name)
        if self.cache is not None and self.cache.usable:
            self._save(name, run)

    def note_looked(self, name):
        """Run `name` is not to be resumed from the cache (nothing usable there)."""
        self._looked.add(name)

    def saved(self, name):
        """True when run `name`'s state in the cache is what this watcher holds."""
        return name in self._saved

    def damaged(self, name):
        """A column file of run `name` could not be read: read the run again on next reload."""
        if name not in self._damaged:
            self._damaged.add(name)
            log.warning("run %s: a column file in the cache dir cannot be read; the run is read "
                        "again from its event files on the next reload", name)

    def _reset(self, name, run, why):
        """Forget what was read of the run; read every file of it again from the start."""
        log.warning("run %s: %s; reading the run again from the start", name, why)
        run.readers = {p: EventFileReader(p, run.fs) for p in run.readers}
        self._install(name, run, RunStore(self.samples, name))
        self._saved.pop(name, None)
        if self.cache is not None:
            self.cache.discard(name, why)

    def _install(self, name, run, store):
        run.store = store
        with self.lock:
            if name in self.stores:
                self.stores[name] = store
                self.generation += 1

    def _ingest(self, run, path, reader, batch):
        with self.lock:  # runs load in threads: count under the lock
            self.records_parsed += batch.records
        super()._ingest(run, path, reader, batch)
        if self.cap and anon_rss() > _CAP_SHARE * self.cap:
            self._relieve()

    # ---- the cache ----------------------------------------------------------------------
    def _resume(self, name, run):
        """Take the run's store and reader positions from the cache when they still hold."""
        state = self.cache.load(name)
        if state is None:
            return
        files = state.get("files")
        if not isinstance(files, dict) or state.get("samples") != self.samples:
            self.cache.discard(name, "it was made with other settings")
            return
        if set(files) - set(run.readers):
            self.cache.discard(name, "a file it read is gone")
            return
        fresh = {p: EventFileReader(p, run.fs) for p in files}
        for path, saved in files.items():
            if not resume_reader(fresh[path], saved):
                self.cache.discard(name, "%s changed (replaced or shrank)" % path)
                return
        try:
            store = restore_store(state["store"], self.cache.folder(name), name)
        except (colstore.ChunkError, KeyError, TypeError, ValueError, OSError) as exc:
            self.cache.discard(name, "its data is unusable (%s)" % exc)
            return
        for path, reader in fresh.items():
            reader.chunk = run.readers[path].chunk
            run.readers[path] = reader
        self._install(name, run, store)
        self._saved[name] = self._marks(run)

    @staticmethod
    def _marks(run):
        return tuple(sorted((p, r.offset) for p, r in run.readers.items()))

    def _save(self, name, run):
        """Spill the run's points and write its state, if anything was read since."""
        marks = self._marks(run)
        if self._saved.get(name) == marks:
            return
        try:
            files = {p: reader_state(r) for p, r in run.readers.items() if r.offset > 0}
        except (OSError, ValueError):
            return  # an event file went away mid-save: try again on the next reload
        colstore.import_arrow()  # not under the store lock, where requests wait
        try:
            with self.lock:
                store = store_state(run.store, self.cache.chunks_writer(name),
                                    self.cache.folder(name))
        except OSError as exc:
            self.cache.fail("cannot write column files", exc)
            return
        if self.cache.save(name, {"files": files, "store": store, "samples": self.samples}):
            self._saved[name] = marks

    def _relieve(self):
        """Over the memory cap: move every run's RAM points to the cache's column files."""
        if self.cache is None or not self.cache.usable:
            if not self._cap_said:
                self._cap_said = True
                log.warning("resident memory passed %d MB and no usable cache dir takes the "
                            "points; serving from memory above the cap", self.cap >> 20)
            return
        colstore.import_arrow()
        with self.lock:
            for name, run in list(self._runs.items()):
                writer = None
                try:
                    for series in run.store.scalars.values():
                        if series.nbytes():
                            writer = writer or self.cache.chunk_writer(name)
                            series.spill(writer)
                        answers.forget_texts(series)
                    spill.spill_store(self.cache.folder(name), run.store)
                except OSError as exc:
                    self.cache.fail("cannot write column or spill files", exc)
                    return
        _trim()

    def status(self):
        """{'dir', 'ok', 'error', 'rebuilt', 'max_memory_mb', 'resident_mb'} or None."""
        if self.cache is None and not self.cap:
            return None
        out = self.cache.status() if self.cache is not None else {
            "dir": None, "ok": False, "error": "no cache dir", "rebuilt": 0}
        out["max_memory_mb"] = (self.cap >> 20) if self.cap else None
        out["resident_mb"] = round(anon_rss() / (1 << 20), 1)
        return out
