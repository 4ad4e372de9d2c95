"""Incremental, corruption-tolerant reading of one event file into batches for the run store.

Each call to EventFileReader.read() picks up the bytes appended since the last call. Records
are framed in bulk (framing.py); a run of same-shaped records has every data CRC checked in one
pass (run_check.py), other records and the runs that pass fails are checked in batches per
record length (crc_batch.py); scalar-only events are parsed column-wise (fastscalar.py), and
every other record with the protobuf runtime. Both CRCs of every record are always verified. A bad record
is logged (file and offset), counted and skipped; reading goes on at the next good record. A
half-written last record is left for the next call.

An unexpected error (a bug, or input the fast path cannot take) never costs more than the one
record it happens on: a batch whose fast path fails is read again record by record, and a
record that fails there is skipped. Such errors are counted in `failures`, logged once per kind.
"""

import logging

import numpy as np

from lens.events import fastscalar
from lens.events.crc_batch import batch_crc, diff_mask, mask, masked_crc, record_view
from lens.events.failures import Failures
from lens.events.framing import HEADER, OVERHEAD, frame
from lens.events.fsio import local_fs
from lens.events.payload import REF_MIN
from lens.events.run_check import check_run

log = logging.getLogger("lens.events")

CHUNK = 64 << 20  # read at most this much at a time, so memory stays bounded
_MIN_BATCH = 16  # fewer same-length records than this are cheaper one by one


class Batch:
    """What one read produced, in file order (`order` numbers the records of a file)."""

    def __init__(self):
        self.scalars = []  # [fastscalar.ScalarPart]
        self.metadata = []  # [(order, tag, serialized SummaryMetadata)]
        self.events = []  # [(order, Event)] for everything not on the scalar fast path
        self.records = 0  # good records
        self.path = None  # the local file read (None for remote ones): payloads may stay there
        self.where = {}  # order -> (file offset, data length) of large records in self.events


def _event_class():
    from lens.proto import event_pb2
    return event_pb2.Event


class EventFileReader:
    """Tails one event file: read() returns the Batches of newly appended records."""

    def __init__(self, path, fs=None):
        self.path = path
        self.fs = fs or local_fs()
        self.offset = 0  # next byte to frame
        self.size = 0  # file size at the last look
        self.records = 0
        self.corrupt = 0  # corrupt stretches (bad length CRC) plus records with bad data
        self.bytes_skipped = 0
        self.error = None  # why the file cannot be read now (deleted, not a file, ...)
        self.failures = Failures(path)  # unexpected errors while decoding records
        self._order = 0
        self._resyncing = False
        self.chunk = CHUNK  # bytes read at a time (smaller under a memory cap)
        self.shrank = False  # set when the file was found shorter than what was read

    def _warn(self, message, *args):
        log.warning("%s: " + message, self.path, *args)

    def poll(self):
        """Refresh self.size; returns the number of unread bytes (0 when unreadable)."""
        try:
            size = self.fs.size(self.path)
        except (OSError, ValueError) as exc:
            if self.error is None:
                self._warn("cannot read event file (%s); keeping what was loaded", exc)
            self.error = "%s: %s" % (type(exc).__name__, exc)
            return 0
        if self.error is not None:
            log.info("%s: readable again", self.path)
            self.error = None
        if size < self.offset:
            self._warn("file shrank from %d to %d bytes; reading it again from the start",
                       self.offset, size)
            self.offset, self._resyncing, self.shrank = 0, False, True
        self.size = size
        return size - self.offset

    def read(self, chunk=None):
        """Yield a Batch per chunk of the bytes appended since the last call."""
        if self.poll() <= 0:
            return
        chunk = chunk or self.chunk
        want = chunk
        while self.offset < self.size:
            try:
                buf = self.fs.read(self.path, self.offset, min(want, self.size - self.offset))
            except (OSError, ValueError) as exc:
                self.error = "%s: %s" % (type(exc).__name__, exc)
                self._warn("read failed at offset %d (%s); will retry", self.offset, exc)
                return
            if not buf:
                return
            frames = frame(buf, 0, self._resyncing)
            for offset, skipped, continued in frames.problems:
                self.bytes_skipped += skipped
                if not continued:
                    self.corrupt += 1
                    self._warn("corrupt record header at offset %d; skipped %d bytes to the "
                               "next good record", self.offset + offset, skipped)
            if frames.end == 0 and len(buf) < self.size - self.offset:
                want *= 2  # one record longer than the chunk: read more at once
                continue
            batch = self._decode(buf, frames)
            if self.fs is local_fs():
                batch.path = self.path
            else:
                batch.where = {}
            at_end = self.offset + len(buf) >= self.size
            self.offset += frames.end
            self._resyncing = frames.resyncing
            self.records += batch.records
            want = chunk
            yield batch
            if at_end:
                return  # any unframed tail is a partial record: wait for the file to grow

    def _decode(self, buf, frames):
        """Verify data CRCs and parse the framed records of buf into a Batch."""
        first_order = self._order
        try:
            return self._decode_fast(buf, frames)
        except Exception as exc:  # a bug in the grouping itself: read every record one by one
            self._order = first_order
            offsets, lengths = frames.arrays()
            self.failures.note("bulk decoding failed", "bulk decoding of %d records from offset "
                               "%d failed; read them one by one instead"
                               % (len(offsets), self.offset), exc)
            orders = first_order + np.arange(len(offsets), dtype=np.int64)
            self._order = first_order + len(offsets)
            batch = Batch()
            bad = self._parse_slow(buf, [(offsets, lengths, orders)], [], batch)
            batch.records = frames.count - bad
            return batch

    def _decode_fast(self, buf, frames):
        """_decode with records of one length grouped: CRCs in bulk, scalars column-wise."""
        arr = np.frombuffer(buf, dtype=np.uint8)
        batch = Batch()
        loose = []  # (offsets, lengths, orders) of records not in a long regular run
        slow = []  # same, for records to parse one by one
        bad = []
        order = self._order
        for seg in frames.segments:
            if seg[0] == "list":
                count = len(seg[1])
                loose.append((seg[1], seg[2], order + np.arange(count, dtype=np.int64)))
                order += count
                continue
            _, start, stride, periods, pattern = seg
            # The whole run in one pass: its varying bits, and every data CRC checked at once.
            vary, checked = (check_run(arr, start, stride, periods, pattern)
                             if periods >= _MIN_BATCH else (None, False))
            phase = start
            for k, length in enumerate(pattern):
                # Every record of one phase of a run is evenly spaced: a ready-made group.
                orders = order + k + len(pattern) * np.arange(periods, dtype=np.int64)
                if periods < _MIN_BATCH or not length:
                    offs = phase + stride * np.arange(periods, dtype=np.int64)
                    loose.append((offs, np.full(periods, length, np.int64), orders))
                else:
                    src = (arr, phase + HEADER, stride)
                    at = phase - start + HEADER
                    dmask = vary[at:at + length] if checked else None
                    rows_left, rows_bad = self._fast_group(src, periods, length, orders, batch,
                                                           phase, dmask)
                    for rows, sink in ((rows_left, slow), (rows_bad, bad)):
                        if len(rows):
                            sink.append((phase + stride * rows, np.full(len(rows), length, np.int64),
                                         orders[rows]))
                phase += length + OVERHEAD
            order += periods * len(pattern)
        self._order = order
        if loose:
            offsets, lengths, orders = (np.concatenate(c) for c in zip(*loose))
            by_length = np.argsort(lengths, kind="stable")
            cuts = np.flatnonzero(np.diff(lengths[by_length])) + 1
            for idx in np.split(by_length, cuts):
                length = int(lengths[idx[0]])
                if len(idx) < _MIN_BATCH or length == 0:
                    slow.append((offsets[idx], lengths[idx], orders[idx]))
                    continue
                src = _gather(arr, offsets[idx] + HEADER, length)
                rows_left, rows_bad = self._fast_group(src, len(idx), length, orders[idx], batch,
                                                       int(offsets[idx[0]]))
                slow.append((offsets[idx[rows_left]], lengths[idx[rows_left]], orders[idx[rows_left]]))
                bad.append((offsets[idx[rows_bad]], lengths[idx[rows_bad]], orders[idx[rows_bad]]))
        bad_count = self._parse_slow(buf, slow, bad, batch)
        batch.records = frames.count - bad_count
        return batch

    def _fast_group(self, src, count, length, orders, batch, first_offset, checked=None):
        """_fast_group, or after an unexpected error every row left for the slow path."""
        kept = len(batch.scalars), len(batch.metadata)
        try:
            return _fast_group(src, count, length, orders, batch, checked)
        except Exception as exc:
            del batch.scalars[kept[0]:], batch.metadata[kept[1]:]  # nothing half-parsed stays
            self.failures.note("fast decoding failed", "fast decoding of %d records of %d bytes "
                               "from offset %d failed; read them one by one instead"
                               % (count, length, self.offset + first_offset), exc)
            return np.arange(count, dtype=np.int64), np.zeros(0, np.int64)

    def _parse_slow(self, buf, slow, bad, batch):
        """Check and parse records one by one with the protobuf runtime, in file order.

        Returns how many records were dropped as bad."""
        bad_list = [(int(o), int(L)) for offs, lens, _ in bad for o, L in zip(offs, lens)]
        dropped = 0
        if slow:
            offsets, lengths, orders = (np.concatenate(c) for c in zip(*slow))
            event_cls = _event_class()
            for i in np.argsort(orders, kind="stable").tolist():
                try:
                    start = int(offsets[i]) + HEADER
                    data = buf[start:start + int(lengths[i])]
                    stored = int.from_bytes(buf[start + len(data):start + len(data) + 4], "little")
                    if masked_crc(data) != stored:
                        bad_list.append((int(offsets[i]), int(lengths[i])))
                        continue
                    try:
                        event = event_cls.FromString(data)
                    except Exception as exc:  # protobuf's DecodeError: CRC fine but not an Event
                        self._warn("record at offset %d is not an Event (%s); skipped",
                                   self.offset + int(offsets[i]), exc)
                        self.corrupt += 1
                        dropped += 1
                        continue
                    batch.events.append((int(orders[i]), event))
                    if len(data) >= REF_MIN:
                        batch.where[int(orders[i])] = (self.offset + int(offsets[i]), len(data))
                except Exception as exc:  # anything else: lose this record, not the others
                    dropped += 1
                    self.failures.note("record unreadable", "record at offset %d could not be "
                                       "read; skipped it" % (self.offset + int(offsets[i])),
                                       exc, skipped=1)
        for offset, length in sorted(bad_list):
            self.corrupt += 1
            self.bytes_skipped += length + OVERHEAD
            self._warn("bad data CRC in record at offset %d; skipped its %d bytes",
                       self.offset + offset, length + OVERHEAD)
        return len(bad_list) + dropped


def _gather(arr, data_offs, length):
    """Copy records (data + data CRC) whose data start at `data_offs` into one dense matrix."""
    rows = arr[data_offs[:, None] + np.arange(length + 4)]
    return rows.reshape(-1), 0, length + 4


def _fast_group(src, count, length, order, batch, checked=None):
    """Check CRCs and fast-parse `count` records of `length` bytes found at
    src = (buffer, base, stride); returns (leftover rows, bad rows).

    checked: the records' diff mask when run_check found every CRC right (none is checked again)."""
    buf, base, stride = src
    if checked is not None:
        return _parse(src, count, length, order, batch, checked)
    stored = record_view(buf, base + length, stride, count, 0, "<u4")
    dmask = diff_mask(buf, base, stride, count, length)
    good = mask(batch_crc(buf, base, stride, count, length, dmask=dmask)) == stored
    if not good.all():
        badrows = np.flatnonzero(~good)
        # Rows the batch check rejects are checked again with the C library: only a record whose
        # own CRC is wrong is dropped, whatever happened in the table look-ups.
        stored_bad = stored[badrows].tolist()
        recheck = [masked_crc(buf[base + stride * r:base + stride * r + length]) == c
                   for r, c in zip(badrows.tolist(), stored_bad)]
        good[badrows[np.asarray(recheck, bool)]] = True
    if not good.all():
        keep = np.flatnonzero(good)
        badrows = np.flatnonzero(~good)
        if len(keep) < _MIN_BATCH:
            return keep, badrows
        sub = _gather(buf, base + stride * keep, length)
        leftover, _ = _fast_group(sub, len(keep), length, order[keep], batch)
        return keep[leftover], badrows
    return _parse(src, count, length, order, batch, dmask)


def _parse(src, count, length, order, batch, dmask):
    """Fast-parse records whose CRCs were checked; returns (leftover rows, no bad rows)."""
    buf, base, stride = src
    parts, metadata, leftover = fastscalar.parse_group(buf, base, stride, count, length,
                                                       dmask, order)
    batch.scalars.extend(parts)
    batch.metadata.extend(metadata)
    return leftover, np.zeros(0, np.int64)
