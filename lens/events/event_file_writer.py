"""EventFileWriter: appends framed Event records to one events file, written by a background thread."""
import atexit
import os
import socket
import threading
import time
import weakref

import struct

import google_crc32c

from lens.events.records import masked_crc32c
from lens.proto import event_pb2

_WRITE_AT = 256 * 1024  # encoded bytes that wake the writer thread
_BLOCK_AT = 16 * 1024 * 1024  # encoded bytes the caller writes itself (writer thread lagging)
_LIVE = weakref.WeakSet()
_LENGTH = struct.Struct("<Q").pack
_U32 = struct.Struct("<I").pack
_crc32c = google_crc32c.value
_HEADERS = {}   # record length -> its 12-byte header (length and the length's masked CRC)


def frame_records(items):
    """TFRecord framing of many records in one bytes object, as records.encode_records, with
    headers reused per length (a training loop writes records of a few lengths) and the CRC's
    masking inlined: half the cost per record."""
    parts = []
    append = parts.append
    headers = _HEADERS
    crc, pack = _crc32c, _U32
    for data in items:
        head = headers.get(len(data))
        if head is None:
            if len(headers) > 4096:
                headers.clear()
            length = _LENGTH(len(data))
            head = headers[len(data)] = length + pack(masked_crc32c(length))
        append(head)
        append(data)
        c = crc(data)
        append(pack(((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF))
    return b"".join(parts)


def event_file_name(suffix=""):
    """events.out.tfevents.<10-digit seconds>.<hostname><suffix>, as TF1's C++ writer names it."""
    return "events.out.tfevents.%010d.%s%s" % (int(time.time()), socket.gethostname(), suffix or "")


class EventFileWriter:
    """Queues events and appends them to `<logdir>/events.out.tfevents...`.

    At most max_queue events wait unencoded; when that many are pending the calling thread
    encodes them in one batch (cheaper than handing each event to the thread). Encoded bytes
    are written by the background thread once they pass 256 KiB, and flushed to the file
    every flush_secs, on flush() and on close(). Open writers are flushed at interpreter exit.
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        """Create logdir if needed and open a new events file in it."""
        if max_queue < 1:
            raise ValueError("max_queue must be >= 1, got %r" % (max_queue,))
        if flush_secs <= 0:
            raise ValueError("flush_secs must be > 0, got %r" % (flush_secs,))
        self._logdir = os.fspath(logdir)
        self._max_queue = int(max_queue)
        self._flush_secs = float(flush_secs)
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()  # guards _pending, _chunks, _closed
        self._wake = threading.Condition(self._lock)
        self._io_lock = threading.Lock()  # one writer of the file at a time, in order
        self._closed = True
        self._file = None
        self.reopen()

    # -- public API ------------------------------------------------------------------------
    def get_logdir(self):
        """The directory the events file lives in."""
        return self._logdir

    @property
    def path(self):
        """Path of the events file currently written."""
        return self._path

    def add_event(self, event):
        """Queue an Event proto (serialized now, so later changes to it do not leak in)."""
        if not isinstance(event, event_pb2.Event):
            raise TypeError("add_event expects an Event proto, got %s" % type(event).__name__)
        self._enqueue(event.SerializeToString())

    def add_owned_event(self, event):
        """Queue an Event the caller will not touch again; it is serialized later, in a batch."""
        self._enqueue(event)

    def flush(self):
        """Write every queued event and flush the file."""
        self._write_out(flush_file=True)

    def close(self):
        """Flush and close the file; the writer can be reopened."""
        with self._lock:
            if self._closed:
                return
            self._stop = True
            self._wake.notify_all()
        self._thread.join()
        try:
            self._write_out(flush_file=True)
        finally:
            with self._lock:
                self._closed = True
            self._file.close()
            _LIVE.discard(self)

    def reopen(self):
        """Open a new events file after close(); no-op while open."""
        with self._lock:
            if not self._closed:
                return
            os.makedirs(self._logdir, exist_ok=True)
            self._path = os.path.join(self._logdir, event_file_name(self._suffix))
            self._file = open(self._path, "ab", buffering=1 << 20)
            self._pending, self._chunks, self._chunk_bytes = [], [], 0
            self._error = None
            self._stop = False
            self._write_requested = False
            self._closed = False
        first = event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2")
        self._enqueue(first.SerializeToString())
        self.flush()  # the first event is on disk at once, as in TF
        self._thread = threading.Thread(target=self._run, name="lens-event-writer", daemon=True)
        self._thread.start()
        _LIVE.add(self)

    # -- internals -------------------------------------------------------------------------
    def _enqueue(self, item):
        """Add one item; encode the backlog in this thread when max_queue items are pending."""
        with self._lock:
            if self._closed:
                raise ValueError("the event writer for %s is closed; call reopen() first"
                                 % self._logdir)
            self._pending.append(item)
            if len(self._pending) < self._max_queue:
                return
            self._encode_pending_locked()
            if self._chunk_bytes >= _WRITE_AT and not self._write_requested:
                self._write_requested = True
                self._wake.notify()
            lagging = self._chunk_bytes >= _BLOCK_AT
        if lagging:
            self._write_out(flush_file=False)

    add_event_bytes = _enqueue  # queue an already serialized Event (bytes)

    def _encode_pending_locked(self):
        """Turn pending items into framed bytes appended to _chunks (caller holds _lock)."""
        if not self._pending:
            return
        items, self._pending = self._pending, []
        blob = frame_records([item if type(item) is bytes else item.SerializeToString()
                               for item in items])
        self._chunks.append(blob)
        self._chunk_bytes += len(blob)

    def _write_out(self, flush_file):
        """Write encoded bytes (and pending items) to the file, in order."""
        with self._io_lock:
            with self._lock:
                self._encode_pending_locked()
                chunks, self._chunks, self._chunk_bytes = self._chunks, [], 0
                self._write_requested = False
                error, self._error = self._error, None
            if error is not None:
                raise OSError("writing events to %s failed earlier: %s" % (self._path, error))
            if self._file.closed:
                return
            for blob in chunks:
                self._file.write(blob)
            if flush_file:
                self._file.flush()

    def _run(self):
        """Writer thread: write when woken by a full buffer, flush every flush_secs."""
        next_flush = time.monotonic() + self._flush_secs
        while True:
            with self._lock:
                while not self._stop and not self._write_requested:
                    left = next_flush - time.monotonic()
                    if left <= 0:
                        break
                    self._wake.wait(left)
                if self._stop:
                    return
            due = time.monotonic() >= next_flush
            try:
                self._write_out(flush_file=due)
            except Exception as exc:  # keep the thread alive; report on the next flush/close
                with self._lock:
                    self._error = exc
            if due:
                next_flush = time.monotonic() + self._flush_secs


@atexit.register
def _flush_all_at_exit():
    """Close every open writer so buffered events reach the disk when the program ends."""
    for writer in list(_LIVE):
        try:
            writer.close()
        except Exception:  # exit must not fail because one logdir vanished
            pass
