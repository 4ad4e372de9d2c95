"""One tfdbg v2 DebugEvent file set on disk, read incrementally and tolerantly.

Each of the six files is read from where the last update stopped. A corrupt region is skipped
(the records after it still count) and a record cut short at the end is left for the next
update (the writer may still be writing it); both are reported by file name in `damage()`.
"""

import glob
import os
import struct

from lens.events.records import RecordReader
from lens.proto import debug_event_pb2

METADATA_SUFFIX = ".metadata"
_LEN = struct.Struct("<Q")


def find_metadata_files(directory):
    """The `*.metadata` files of a directory (one per file set), sorted by name."""
    return sorted(glob.glob(os.path.join(glob.escape(directory), "*" + METADATA_SUFFIX)))


class _TrackedFile:
    """A RecordReader that remembers the start offset of each record it yields."""

    def __init__(self, path):
        self.path = path
        self.reader = RecordReader(path, name=path)
        self.bad_records = 0  # records with valid framing whose DebugEvent didn't parse

    def records(self):
        """(offset, DebugEvent) for each new, complete, parseable record."""
        if not os.path.exists(self.path):
            return
        reader = self.reader
        for data in reader:
            start = reader.offset - 16 - len(data)
            try:
                event = debug_event_pb2.DebugEvent.FromString(data)
            except Exception:  # noqa: BLE001 - protobuf's DecodeError: skip the record
                self.bad_records += 1
                continue
            yield start, event

    def damage(self):
        """A description of what is wrong with this file, or None."""
        problems = []
        if self.reader.corrupt_regions:
            problems.append("%d corrupt region(s), %d byte(s) skipped"
                            % (self.reader.corrupt_regions, self.reader.lost_bytes))
        if self.bad_records:
            problems.append("%d record(s) that are not DebugEvents" % self.bad_records)
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = None
        if size is None:
            problems.append("file missing")
        elif size > self.reader.offset:
            problems.append("incomplete record at offset %d (truncated, or still being "
                            "written)" % self.reader.offset)
        return "; ".join(problems) or None


def read_record_at(path, offset):
    """The DebugEvent of the record that starts at `offset` in `path`."""
    with open(path, "rb") as f:
        f.seek(offset)
        header = f.read(12)
        (length,) = _LEN.unpack_from(header)
        return debug_event_pb2.DebugEvent.FromString(f.read(length))


class DebugEventFileSet:
    """The files of one dump directory: the main set plus every host's traces file."""

    def __init__(self, directory):
        self.directory = directory
        metas = find_metadata_files(directory)
        if not metas:
            raise ValueError("Cannot find any tfdbg metadata file in directory: %s" % directory)
        starts = []
        self.run_id = self.tensorflow_version = self.file_version = ""
        for path in metas:
            first = next(_TrackedFile(path).records(), None)
            wall = first[1].wall_time if first is not None else float("inf")
            starts.append((wall, path, first[1] if first is not None else None))
        starts.sort(key=lambda s: s[0])
        first_event = starts[0][2]
        self.metadata_path = starts[0][1]
        self.metadata_ok = first_event is not None
        self.starting_wall_time = starts[0][0] if first_event is not None else None
        if first_event is not None:
            meta = first_event.debug_metadata
            self.run_id, self.tensorflow_version = meta.tfdbg_run_id, meta.tensorflow_version
            self.file_version = meta.file_version
        prefixes = [p[:-len(METADATA_SUFFIX)] for _, p, _ in starts]
        main = prefixes[0]
        self.files = {kind: _TrackedFile(main + "." + kind)
                      for kind in ("source_files", "stack_frames", "graphs", "execution")}
        self.trace_files = [_TrackedFile(p + ".graph_execution_traces") for p in prefixes]

    def damage(self):
        """{file name: problem} for every damaged file of the set."""
        out = {}
        if not self.metadata_ok:
            out[os.path.basename(self.metadata_path)] = "no readable DebugMetadata record"
        for f in list(self.files.values()) + self.trace_files:
            problem = f.damage()
            if problem:
                out[os.path.basename(f.path)] = problem
        return out
