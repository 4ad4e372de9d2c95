"""Dump writer: tfdbg's on-disk layout for one debugged run (reference tfdbg.md §3.1)."""

import json
import os
import re
import struct
import threading
import time
import zlib

from lens.dbg import device_names, dump_queue

CORE_METADATA_PREFIX = "_tfdbg_core_metadata_"
FETCHES_INFO_FILE = "_tfdbg_fetches_info_"
FEED_KEYS_INFO_FILE = "_tfdbg_feed_keys_info_"
GRAPH_PREFIX = "_tfdbg_graph_"
DISK_LIMIT_ENV = "TFDBG_DISK_BYTES_LIMIT"
DEFAULT_DISK_LIMIT = 100 * 1024 ** 3  # tfdbg's default: 100 GiB

_usage_lock = threading.Lock()
_disk_bytes_used = 0  # process-wide, like tfdbg's counter


class DiskBudgetExceededError(RuntimeError):
    """Raised before a dump would push the process past its dump byte budget."""


def disk_bytes_limit():
    """The byte budget from $TFDBG_DISK_BYTES_LIMIT (default 100 GiB)."""
    text = os.environ.get(DISK_LIMIT_ENV, "").strip()
    if not text:
        return DEFAULT_DISK_LIMIT
    try:
        limit = int(text)
    except ValueError:
        raise ValueError("%s=%r is not an integer number of bytes; e.g. %s=1000000000"
                         % (DISK_LIMIT_ENV, text, DISK_LIMIT_ENV)) from None
    return limit if limit > 0 else DEFAULT_DISK_LIMIT


def reset_disk_byte_usage():
    """Start the process-wide dump byte counter from zero again."""
    global _disk_bytes_used
    with _usage_lock:
        _disk_bytes_used = 0


def disk_bytes_used():
    """Bytes dumped by this process since the last reset."""
    return _disk_bytes_used


def _reserve(nbytes, path, limit=None):
    """Account for `nbytes` or raise, naming the env var that raises the budget.

    `path` may be a tuple of path parts, joined only for the message (the common case
    never needs it); `limit` saves re-reading the environment on every dump."""
    global _disk_bytes_used
    if limit is None:
        limit = disk_bytes_limit()
    with _usage_lock:
        if _disk_bytes_used + nbytes > limit:
            if isinstance(path, tuple):
                path = os.path.join(*path)
            raise DiskBudgetExceededError(
                "Debug dump budget exhausted: writing %s (%d bytes) would exceed %s=%d "
                "(already used %d bytes). Raise the limit, e.g. export %s=%d, or watch fewer "
                "tensors (run --node_name_filter / --op_type_filter)."
                % (path, nbytes, DISK_LIMIT_ENV, limit, _disk_bytes_used, DISK_LIMIT_ENV,
                   limit * 2))
        _disk_bytes_used += nbytes


def tensor_folder(node_name, device):
    """Folder of a node's dumps, relative to the dump root: device folder, then scopes."""
    *scopes, _ = node_name.split("/")
    return os.path.join(device_names.device_to_dir(device), *scopes)


def _event_pb2():
    from lens.proto import event_pb2  # imported late: the debugger UI loads without protos
    return event_pb2


def make_tensor_event(node_name, output_slot, debug_op, value, timestamp_us, device):
    """The Event a dump file holds: summary.value[0] carries the tensor and its watch key."""
    from lens.proto import tensor_util
    event = _event_pb2().Event()
    event.wall_time = float(timestamp_us)  # tfdbg stores microseconds here
    summary_value = event.summary.value.add()
    summary_value.node_name = "%s:%d:%s" % (node_name, output_slot, debug_op)
    summary_value.tag = node_name
    plugin = summary_value.metadata.plugin_data
    plugin.plugin_name = "debugger"
    plugin.content = json.dumps({"device": device, "outputSlot": output_slot,
                                 "numChunks": 1, "chunkIndex": 0}).encode()
    summary_value.tensor.CopyFrom(tensor_util.make_tensor_proto(value))
    return event


_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_REPLACE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
_DIR_FDS = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")


def _write_all(fd, parts, total=None):
    """Write every buffer of `parts` (`total` bytes, when the caller knows) with as few syscalls
    as the kernel allows (one, normally)."""
    if total is None:
        total = sum(len(p) if isinstance(p, bytes) else memoryview(p).nbytes for p in parts)
    done = os.writev(fd, parts)
    if done == total:
        return
    # A short write (signal, huge file): finish from where it stopped, byte-exact.
    rest = b"".join(bytes(p) for p in parts)[done:]
    while rest:
        rest = rest[os.write(fd, rest):]


class DumpWriter:
    """Writes one run's dumps, graphs and metadata under `dump_root`.

    A tensor file holds the value as it was when the watched op produced it: create() writes
    it at once; create_later() hands it to the writer thread (dump_queue), and the caller keeps
    the value unchanged until that job is done. With `queued`, the graph and metadata files go
    to the writer thread too. flush() waits for every handed-on file, so all dumps are complete
    when the run returns, as in tfdbg."""

    def __init__(self, dump_root, queued=False):
        self.dump_root = dump_root
        self.queued = queued
        self.bytes_written = 0
        self.files_written = 0
        self._dirs = set()
        self._dir_fds = {}  # folder relative to dump_root -> open directory fd (this run)
        self._limit = disk_bytes_limit()
        self._pending = False  # files handed to the writer thread since the last wait()
        self._error = None  # the first error the writer thread met (raised by wait())
        os.makedirs(dump_root, exist_ok=True)

    def _ensure_dir(self, path):
        if path not in self._dirs:
            os.makedirs(path, exist_ok=True)
            self._dirs.add(path)

    def _write(self, folder, name, data):
        """Write (or replace) `folder/name` (folder relative to the root) holding `data`;
        returns its path. Made through the folder's cached fd, as the tensor dumps are."""
        path = os.path.join(self.dump_root, folder, name)
        _reserve(len(data), path, self._limit)
        if self.queued:
            self._pending = True
            dump_queue.submit(self._later, (self._replace, (folder, name, path, data)))
        else:
            self._replace(folder, name, path, data)
        self.bytes_written += len(data)
        self.files_written += 1
        return path

    def _replace(self, folder, name, path, data):
        if _DIR_FDS:
            fd = os.open(name, _REPLACE_FLAGS, 0o644, dir_fd=self._dir_fd(folder))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, _REPLACE_FLAGS, 0o644)
        try:
            _write_all(fd, [data], len(data))
        finally:
            os.close(fd)

    def tensor_path(self, node_name, output_slot, debug_op, timestamp_us, device):
        """Path of a new dump file; '-1', '-2'… appended when that name exists."""
        folder = os.path.join(self.dump_root, tensor_folder(node_name, device))
        self._ensure_dir(folder)
        path = os.path.join(folder, "%s_%d_%s_%d" % (node_name.rsplit("/", 1)[-1], output_slot,
                                                      debug_op, timestamp_us))
        candidate, n = path, 0
        while os.path.exists(candidate):
            n += 1
            candidate = "%s-%d" % (path, n)
        return candidate

    def write_tensor(self, node_name, output_slot, debug_op, value, timestamp_us, device):
        """Write one watched tensor; returns the file path."""
        from lens.dbg import dump_encoding
        folder = tensor_folder(node_name, device)
        name = "%s_%d_%s_%d" % (node_name.rsplit("/", 1)[-1], output_slot, debug_op,
                                timestamp_us)
        array = dump_encoding.raw_array(value)
        if array is None:  # strings, objects: the protobuf encoder handles every dtype
            parts = [make_tensor_event(node_name, output_slot, debug_op, value, timestamp_us,
                                       device).SerializeToString()]
        else:
            encoder = dump_encoding.WatchEncoder(node_name, output_slot, debug_op, device)
            parts = encoder.parts(array, timestamp_us)
        return os.path.join(self.dump_root, folder, self.write_parts(folder, name, parts))

    def write_tensor_async(self, node_name, output_slot, debug_op, value, timestamp_us,
                           device):
        """Kept for callers of the old asynchronous writer: writes now (see the class doc)."""
        self.write_tensor(node_name, output_slot, debug_op, value, timestamp_us, device)

    def write_parts(self, folder, name, parts):
        """Create `folder/name` (folder relative to the root; '-1', '-2'… if taken) holding
        the concatenated buffers `parts`, after reserving their size. Returns the file name."""
        return self.create(folder, name, parts, self.reserve(folder, name, parts))

    def reserve(self, folder, name, parts, nbytes=None):
        """Count the size of the file `parts` will make (`nbytes`, when the caller knows it)
        against the byte budget, raising DiskBudgetExceededError when it would pass it;
        returns that size."""
        if nbytes is None:
            nbytes = 0
            for part in parts:
                nbytes += len(part) if isinstance(part, bytes) else part.nbytes
        _reserve(nbytes, (self.dump_root, folder, name), self._limit)
        self.bytes_written += nbytes
        self.files_written += 1
        return nbytes

    def create(self, folder, name, parts, nbytes):
        """write_parts for an already reserved file of `nbytes` bytes."""
        dir_fd = (self._dir_fds.get(folder) or self._dir_fd(folder)) if _DIR_FDS else None
        base = candidate = name if _DIR_FDS else os.path.join(self.dump_root, folder, name)
        n = 0
        while True:
            try:  # exclusive: never overwrite another dump with the same timestamp
                fd = os.open(candidate, _OPEN_FLAGS, 0o644, dir_fd=dir_fd)
                break
            except FileExistsError:
                n += 1
                candidate = "%s-%d" % (base, n)
        try:
            _write_all(fd, parts, nbytes)
        finally:
            os.close(fd)
        return candidate if _DIR_FDS else os.path.basename(candidate)

    def create_later(self, folder, name, parts, nbytes, done=None):
        """create() on the writer thread; `done` (an acquired Lock) is released once the file
        is written. `parts` must not change until then."""
        self._pending = True
        dump_queue.submit(self._later, (self.create, (folder, name, parts, nbytes)), done)

    def _later(self, write, args):
        """write(*args) on the writer thread, its error kept for wait()."""
        if self._error is not None:
            return  # the first failure is reported; the files after it are not attempted
        try:
            write(*args)
        except Exception as exc:  # noqa: BLE001 - raised in the run's thread by wait()
            self._error = exc

    def wait(self):
        """Return once every file handed to the writer thread is written; raise the first
        error it met."""
        if self._pending:
            self._pending = False
            dump_queue.marker().acquire()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _dir_fd(self, folder):
        """An open fd of dump_root/folder, creating the folder (and parents) once per run."""
        fd = self._dir_fds.get(folder)
        if fd is None:
            # Each level is made and opened relative to its parent's fd: no path walks and no
            # exists() probes, which cost as much as the mkdir on a busy disk.
            parent, _, name = folder.rpartition(os.sep)
            if not name:  # the dump root itself
                fd = os.open(self.dump_root, os.O_RDONLY | os.O_DIRECTORY)
            else:
                parent_fd = self._dir_fd(parent)
                try:
                    os.mkdir(name, 0o777, dir_fd=parent_fd)
                except FileExistsError:
                    pass
                fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=parent_fd)
            self._dir_fds[folder] = fd
        return fd

    def flush(self):
        """Wait for the files handed to the writer thread, then release the run's directory
        handles."""
        try:
            self.wait()
        finally:
            self._close_dirs()

    def _close_dirs(self):
        fds, self._dir_fds = self._dir_fds, {}
        for fd in fds.values():
            os.close(fd)

    def __del__(self):
        # Never waits: a queued job holds the writer, so none is pending by now (and this
        # may run on the writer thread itself).
        try:
            self._close_dirs()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to release
            pass

    def write_graph(self, graph_def, device, timestamp_us=None):
        """Write a device's partition GraphDef as `_tfdbg_graph_hash<h>_<us>`."""
        data = graph_def.SerializeToString()
        return self.write_graph_bytes(data, device, zlib.crc32(data) | (zlib.adler32(data) << 32),
                                      timestamp_us)

    def write_graph_bytes(self, data, device, digest, timestamp_us=None):
        """write_graph for an already serialized GraphDef and its 64-bit digest."""
        from lens.dbg.dump_encoding import varint
        # Event: wall_time (field 1, double) and graph_def (field 4, bytes).
        event = b"\x09" + struct.pack("<d", time.time()) + b"\x22" + varint(len(data)) + data
        return self._write(device_names.device_to_dir(device), "%shash%d_%d" % (
            GRAPH_PREFIX, digest, timestamp_us or int(time.time() * 1e6)), event)

    def write_core_metadata(self, session_run_index, executor_step_index, input_names,
                            output_names, target_nodes, global_step=-1):
        """Write the run's core metadata (JSON in an Event's log_message)."""
        payload = json.dumps({
            "global_step": global_step, "session_run_index": session_run_index,
            "executor_step_index": executor_step_index, "input_names": list(input_names),
            "output_names": list(output_names), "target_nodes": list(target_nodes)})
        name = "%ssessionrun%014d_%d" % (CORE_METADATA_PREFIX, session_run_index,
                                         int(time.time() * 1e6))
        return self._write_log_message(name, payload)

    def write_fetches_info(self, fetches):
        """repr(fetches) in `_tfdbg_fetches_info_`."""
        return self._write_log_message(FETCHES_INFO_FILE, repr(fetches))

    def write_feed_keys_info(self, feed_dict):
        """repr(feed_dict.keys()) in `_tfdbg_feed_keys_info_`."""
        keys = list(feed_dict.keys()) if feed_dict else []
        return self._write_log_message(FEED_KEYS_INFO_FILE, repr(keys))

    def _write_log_message(self, name, message):
        event = _event_pb2().Event(wall_time=time.time())
        event.log_message.message = message
        return self._write("", name, event.SerializeToString())


_RUN_DIR_RE = re.compile(r"^run_\d+_\d+$")


def is_run_dir(name):
    """True for a DumpingDebugWrapperSession run sub-directory name."""
    return bool(_RUN_DIR_RE.match(name))
