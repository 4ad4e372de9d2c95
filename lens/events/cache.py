"""The board's cache directory: each run's store kept on disk between restarts.

Layout under the cache dir (one per logdir): `boards/` (a lock file per live board, held
exclusive while it lives), `lock` (held shared by a board while it registers, exclusive by one
that, alone after its first pass, deletes column files nothing names), and
`runs/<key>/` per run: `state` (what the run's store and file readers held, a versioned,
checksummed pickle read back with a loader that builds nothing but plain values and NumPy
arrays), `lock` (taken while the state is written or read) and the run's colstore chunks.

Nothing read from the cache is trusted: a state of another format or lens version, a bad
checksum, a chunk of the wrong size or CRC, all make the run be read again from its event
files. A cache dir that cannot be written (read-only, full) is said once in the log and in
`status()`, and the board goes on from memory.
"""

import fcntl
import functools
import hashlib
import io
import logging
import os
import pickle
import uuid

import google_crc32c

from lens.events import colstore

log = logging.getLogger("lens.events")

FORMAT = 3  # 2: states name a file of ready scalar answers; 3: chunks name their record batch
_MAGIC = b"LENS-RUN-CACHE\n"
_ALLOWED = {("numpy", "ndarray"), ("numpy", "dtype"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "scalar"),
            ("numpy.core.multiarray", "scalar"), ("builtins", "set"), ("builtins", "frozenset"),
            ("builtins", "bytearray"), ("lens.events.payload", "FileRef"),
            ("lens.events.spill", "Spilled")}


@functools.lru_cache(maxsize=None)
def _version():
    """lens's installed version (read once: the metadata lookup costs ~2 ms a call)."""
    from importlib import metadata

    try:
        return metadata.version("lens")
    except metadata.PackageNotFoundError:
        return "unknown"


def default_cache_dir(logdir):
    """~/.cache/lens/<hash of the logdir's absolute path> (XDG_CACHE_HOME honoured)."""
    if isinstance(logdir, dict):
        key = ",".join("%s:%s" % (k, _absolute(v)) for k, v in sorted(logdir.items()))
    else:
        key = _absolute(logdir)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "lens", hashlib.sha256(key.encode("utf-8")).hexdigest()[:20])


def _absolute(path):
    path = os.fspath(path)
    return path if "://" in path else os.path.abspath(path)


class _Loader(pickle.Unpickler):
    """Unpickles plain values and NumPy arrays only: a foreign file cannot run code."""

    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError("cache entry names %s.%s, which a lens cache never "
                                         "holds" % (module, name))
        return super().find_class(module, name)


Loader = _Loader  # for other cache-dir files written by pickle (spill.py)


class CacheDir:
    """One logdir's cache directory (see the module docstring)."""

    def __init__(self, root, board=True):
        """board=False: a helper process of a board that holds the dir (run_workers.py); it
        registers nothing and never sweeps."""
        self.root = os.path.abspath(os.fspath(root))
        self.error = None  # why the cache is not used (the page shows it), or None
        self.rebuilt = 0  # cache entries found unusable and rebuilt
        self._board = None  # boards/<pid>-<id>.lock, held exclusive while this board lives
        if not board:
            return
        try:
            os.makedirs(os.path.join(self.root, "runs"), exist_ok=True)
            os.makedirs(os.path.join(self.root, "boards"), exist_ok=True)
            with open(os.path.join(self.root, "lock"), "a+") as gate:
                fcntl.flock(gate, fcntl.LOCK_SH)  # waits while a sweep runs
                self._board = open(os.path.join(self.root, "boards", "%d-%s.lock" % (
                    os.getpid(), uuid.uuid4().hex[:8])), "a+")
                fcntl.flock(self._board, fcntl.LOCK_EX)
            self._probe()
        except OSError as exc:
            self.fail("cannot use it", exc)

    @property
    def usable(self):
        return self.error is None

    def fail(self, what, exc):
        """Stop writing to the cache; say why once."""
        if self.error is None:
            self.error = "cache dir %s: %s (%s: %s); serving from memory" % (
                self.root, what, type(exc).__name__, exc)
            log.warning("%s", self.error)

    def status(self):
        """{'dir', 'ok', 'error', 'rebuilt'} for /data/lens/progress."""
        return {"dir": self.root, "ok": self.error is None, "error": self.error,
                "rebuilt": self.rebuilt}

    def _probe(self):
        """Fail now, not in the middle of a save, when the dir cannot be written."""
        probe = os.path.join(self.root, ".probe-%d" % os.getpid())
        with open(probe, "wb") as f:
            f.write(b"0" * 4096)
            f.flush()
            os.fsync(f.fileno())
        os.remove(probe)

    def sweep(self, in_use=(), held=()):
        """If no other board uses the cache, delete chunk files that neither a run's state nor
        this board (`in_use`: paths) names. Called once this board's first pass is saved.
        `held`: runs whose state this board wrote or read (their files are all in in_use)."""
        if self._board is None or self.error is not None:
            return
        try:
            with open(os.path.join(self.root, "lock"), "a+") as gate:
                try:
                    fcntl.flock(gate, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    return  # a board is starting
                if self._others_alive():
                    return  # their chunks may be named by no state yet
                self._sweep({os.path.abspath(p) for p in in_use},
                            {os.path.basename(self._folder_path(run)) for run in held})
        except OSError as exc:  # leftovers cost only disk space
            log.info("cache dir %s: could not delete old column files (%s)", self.root, exc)

    def _others_alive(self):
        """True if another board holds its lock file; dead boards' files are removed."""
        folder = os.path.join(self.root, "boards")
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if path == self._board.name:
                continue
            with open(path, "a+") as other:
                try:
                    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    return True
                os.remove(path)  # its board is gone
        return False

    def _sweep(self, in_use, held):
        runs = os.path.join(self.root, "runs")
        for key in os.listdir(runs):
            folder = os.path.join(runs, key)
            state = None if key in held else self._read(folder)
            names = set()
            if state is not None:
                for entry in state.get("store", {}).get("scalars", {}).values():
                    names.update(str(c.get("file")) for c in entry.get("chunks", ()))
                names.add(str((state.get("store", {}).get("answers") or {}).get("file")))
                for blob in state.get("store", {}).get("blobs", {}).values():
                    names.update(os.path.basename(getattr(item[2], "path", "")) for item in blob[1])
            for name in os.listdir(folder):
                path = os.path.join(folder, name)
                if name.endswith((".arrow", ".answers", ".spill", ".tmp")) and \
                        name not in names and \
                        path not in in_use:
                    os.remove(path)

    def folder(self, run):
        """The run's folder (created on demand)."""
        path = self._folder_path(run)
        os.makedirs(path, exist_ok=True)
        return path

    def _folder_path(self, run):
        return os.path.join(self.root, "runs", hashlib.sha256(run.encode("utf-8")).hexdigest()[:24])

    # ---- state files ----------------------------------------------------------------------
    def load(self, run):
        """The saved state of `run` (a dict), or None when there is none or it is unusable."""
        folder = self._folder_path(run)
        if not os.path.isdir(folder):
            return None
        with _Locked(folder, fcntl.LOCK_SH):
            state = self._read(folder)
        if state is not None and state.get("run") != run:
            state = None
        if state is None and os.path.exists(os.path.join(folder, "state")):
            self.discard(run, "it is damaged, foreign or from another lens version")
        return state

    def _read(self, folder):
        try:
            with open(os.path.join(folder, "state"), "rb") as f:
                data = f.read()
        except OSError:
            return None
        head = len(_MAGIC) + 4
        if not data.startswith(_MAGIC) or len(data) < head:
            return None
        body = data[head:]
        if google_crc32c.value(body) != int.from_bytes(data[len(_MAGIC):head], "little"):
            return None
        try:
            state = _Loader(io.BytesIO(body)).load()
        except Exception:  # any unpickling problem: the entry is rebuilt, never served
            return None
        if not isinstance(state, dict) or state.get("format") != FORMAT or \
                state.get("lens") != _version():
            return None
        return state

    def save(self, run, state):
        """Write `run`'s state atomically; False (and the cache given up) on an OSError."""
        if self.error is not None:
            return False
        state = dict(state, format=FORMAT, lens=_version(), run=run)
        body = pickle.dumps(state, protocol=4)
        data = _MAGIC + google_crc32c.value(body).to_bytes(4, "little") + body
        try:
            folder = self.folder(run)
            tmp = os.path.join(folder, "state.%d.tmp" % os.getpid())
            with _Locked(folder, fcntl.LOCK_EX):
                with open(tmp, "wb") as f:
                    f.write(data)
                os.replace(tmp, os.path.join(folder, "state"))
            return True
        except OSError as exc:
            self.fail("cannot write a run's state", exc)
            return False

    def discard(self, run, why):
        """Forget a run's saved state (its chunks go at the next sweep)."""
        self.rebuilt += 1
        log.info("cache entry of run %s rebuilt: %s", run, why)
        try:
            os.remove(os.path.join(self._folder_path(run), "state"))
        except OSError:
            pass

    def chunk_writer(self, run):
        """write(steps, walls, values) -> colstore.Chunk in the run's folder."""
        folder = self.folder(run)
        return lambda steps, walls, values: colstore.write_chunk(folder, steps, walls, values)

    def chunks_writer(self, run):
        """write([(steps, walls, values)]) -> [colstore.Chunk], one file per value type."""
        folder = self.folder(run)
        return lambda stretches: colstore.write_chunks(folder, stretches)


class _Locked:
    """flock on <folder>/lock for the duration of a with block (no-op if it cannot open)."""

    def __init__(self, folder, mode):
        self.path, self.mode, self.file = os.path.join(folder, "lock"), mode, None

    def __enter__(self):
        try:
            self.file = open(self.path, "a+")
        except OSError:
            try:
                self.file = open(self.path, "r")
            except OSError:
                return self
        fcntl.flock(self.file, self.mode)
        return self

    def __exit__(self, *exc):
        if self.file is not None:
            fcntl.flock(self.file, fcntl.LOCK_UN)
            self.file.close()
