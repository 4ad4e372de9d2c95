"""Reading a TensorFlow tensor bundle (V2 checkpoint): `P.index` + `P.data-*-of-*`, without the engine.

`P.index` is a table (table.py) whose empty key holds a BundleHeaderProto (shard count,
endianness, version) and whose other keys map tensor names to BundleEntryProtos (dtype, shape,
shard, offset, size, masked CRC-32C of the bytes). A numeric tensor is stored as its little-endian
elements back to back in its data shard; a string tensor as one varint64 length per element, a
4-byte masked CRC-32C of those lengths (each as a little-endian uint32, or uint64 past 4 GiB), then
the strings' bytes (the entry's CRC covers lengths, checksum and bytes). Keys starting with NUL
are slices of partitioned variables, read one by one (`read_slice`).

Reading maps each data shard once and hands out read-only NumPy views of it; every tensor's CRC
is checked on those same pages (the one pass over the bytes), in worker threads. Saver writes a
new file and renames it over the old, so a mapping stays valid while views of it live.

lens.training wraps this reader in TensorFlow's exception classes (CheckpointError.kind) and
adds writing and the assembly of partitioned variables; the board's projector reads here.
`latest_checkpoint(dir)` follows the `checkpoint` state file as tf.train does.
"""
import mmap
import os
import re
import struct

import google_crc32c
import numpy as np

from lens.events.checkpoints import table
from lens.events.checkpoints.crc import Checksums
from lens.proto import tensor_bundle_pb2, tensor_util, types_pb2

BUNDLE_VERSION = 1             # TensorFlow's kTensorBundleVersion
_STRING = types_pb2.DataType.Value("DT_STRING")
_UNREADABLE = {types_pb2.DataType.Value(n) for n in ("DT_BFLOAT16", "DT_RESOURCE", "DT_VARIANT")}
_STATE_LINE = re.compile(r'^\s*model_checkpoint_path\s*:\s*"((?:[^"\\]|\\.)*)"', re.M)
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")
_CRC_WORKERS = max(1, min(4, os.cpu_count() or 1))


class CheckpointError(ValueError):
    """A checkpoint or tensor that cannot be read; the message names it and why. kind is one of
    'not_found', 'data_loss', 'unimplemented', 'invalid_argument' (TensorFlow's error classes)."""

    def __init__(self, message, kind="data_loss"):
        super().__init__(message)
        self.kind = kind


def data_path(prefix, shard=0, num_shards=1):
    """The name of one data shard of the bundle at prefix."""
    return "%s.data-%05d-of-%05d" % (prefix, shard, num_shards)


def latest_checkpoint(directory):
    """The prefix named by directory/checkpoint (model_checkpoint_path), or None when there is no
    state file or its checkpoint has no index."""
    try:
        with open(os.path.join(directory, "checkpoint"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    match = _STATE_LINE.search(text)
    if not match:
        return None
    path = match.group(1).encode("utf-8").decode("unicode_escape")
    if not os.path.isabs(path):
        path = os.path.join(directory, path)
    return path if os.path.exists(path + ".index") else None


def length_bytes(n):
    """A string length as the checksums see it: 4 bytes when it fits, else 8."""
    return _U32.pack(n) if n <= 0xffffffff else _U64.pack(n)


def _map(path):
    """The whole file, mapped read-only (pages populated up front where the OS allows)."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return b""
        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        return mmap.mmap(f.fileno(), 0, flags=flags, prot=mmap.PROT_READ)


class BundleIndex:
    """The tensors of one bundle: names, shapes, dtypes, and values checked against their CRCs."""

    def __init__(self, prefix):
        self.prefix = prefix
        path = prefix + ".index"
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise CheckpointError("checkpoint %s not found (%s): pass a checkpoint prefix without .index "
                                  "or .data-*" % (prefix, e.strerror), "not_found") from None
        try:
            items = table.read_table(data, path)
        except table.TableError as e:
            raise CheckpointError(str(e), "unimplemented" if e.unimplemented else "data_loss") from None
        if not items or items[0][0] != b"":
            raise CheckpointError("%s has no bundle header (empty key): not a V2 checkpoint index" % path)
        self.header = tensor_bundle_pb2.BundleHeaderProto.FromString(items[0][1])
        if self.header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise CheckpointError("%s was written on a big-endian machine; lens reads little-endian bundles"
                                  % path, "unimplemented")
        version = self.header.version
        if version.producer > BUNDLE_VERSION and BUNDLE_VERSION < version.min_consumer:
            raise CheckpointError("%s needs a bundle reader of version >= %d" % (path, version.min_consumer),
                                  "invalid_argument")
        self.entries = {}
        self.slice_entries = {}     # encoded (name, slice) key -> entry of one saved slice
        for key, value in items[1:]:
            entry = tensor_bundle_pb2.BundleEntryProto.FromString(value)
            if key.startswith(b"\0"):
                # The ordered-code key of (name, slice) begins with a NUL no tensor name has.
                self.slice_entries[key] = entry
            else:
                self.entries[key.decode("utf-8", "replace")] = entry

    def names(self):
        """Tensor names, sorted."""
        return sorted(self.entries)

    def has_tensor(self, name):
        return name in self.entries

    def shape(self, name):
        return [d.size for d in self.entries[name].shape.dim]

    def variable_to_shape_map(self):
        """{name: shape as a list}, as CheckpointReader.get_variable_to_shape_map."""
        return {name: self.shape(name) for name in sorted(self.entries)}

    def get_tensor(self, name):
        """A writable copy of one whole numeric tensor (the projector's read)."""
        entry = self.entries.get(name)
        if entry is None:
            raise CheckpointError("Tensor %r not found in checkpoint %s" % (name, self.prefix), "not_found")
        if entry.dtype == _STRING or entry.dtype in _UNREADABLE or entry.dtype not in tensor_util.DT_TO_NP:
            raise CheckpointError("Tensor %r in %s has dtype %s; only numeric tensors can be read here"
                                  % (name, self.prefix, types_pb2.DataType.Name(entry.dtype)), "unimplemented")
        if entry.slices:
            raise CheckpointError("Tensor %r in %s is saved in slices (a partitioned variable); save it whole "
                                  "to view it" % (name, self.prefix), "unimplemented")
        return np.array(self.read([name])[name])

    def read(self, names):
        """{name: read-only array} for whole (unsliced) tensors, every one checked against its CRC."""
        for name in names:
            if name not in self.entries:
                raise CheckpointError("Key %s not found in checkpoint %s" % (name, self.prefix), "not_found")
            if self.entries[name].slices:
                raise CheckpointError("Tensor %s in %s is saved in slices; assemble it from read_slice"
                                      % (name, self.prefix), "unimplemented")
        by_shard = {}
        for name in names:
            by_shard.setdefault(self.entries[name].shard_id, []).append(name)
        out = {}
        for shard, shard_names in by_shard.items():
            out.update(self._read_shard(shard, [(n, self.entries[n]) for n in shard_names]))
        return out

    def read_slice(self, key):
        """One saved slice of a partitioned variable (by its encoded key), checked against its CRC."""
        entry = self.slice_entries.get(key)
        if entry is None:
            raise CheckpointError("Checkpoint %s lists a slice (key %r) it does not hold" % (self.prefix, key))
        return self._read_shard(entry.shard_id, [(key, entry)])[key]

    def _read_shard(self, shard, named_entries):
        path = data_path(self.prefix, shard, self.header.num_shards)
        try:
            data = _map(path)
        except OSError as e:
            raise CheckpointError("Checkpoint data file %s is missing (%s): the checkpoint %s is incomplete"
                                  % (path, e.strerror, self.prefix), "not_found") from None
        out = {}
        with Checksums(_CRC_WORKERS) as crcs:
            for name, entry in sorted(named_entries, key=lambda it: it[1].offset):
                if entry.offset + entry.size > len(data):
                    raise CheckpointError("%s: tensor %s needs bytes %d..%d but the file ends at %d"
                                          % (path, _label(name), entry.offset, entry.offset + entry.size,
                                             len(data)))
                if entry.dtype == _STRING:
                    blob = data[entry.offset:entry.offset + entry.size]
                    out[name], crc = _parse_strings(blob, [d.size for d in entry.shape.dim], _label(name), path)
                    crcs.submit_value(name, crc)
                else:
                    out[name] = self._numeric(data, path, name, entry)
                    crcs.submit(name, out[name])
            for name, entry in named_entries:
                crc = crcs.result(name)
                if table.unmask_crc(entry.crc32c) != crc:
                    raise CheckpointError("Checksum does not match: stored %#x vs. calculated on the restored bytes "
                                          "%#x (tensor %s in %s): the file is corrupt, its checksum fails"
                                          % (table.unmask_crc(entry.crc32c), crc, _label(name), path))
        for name, value in out.items():
            if value.dtype.kind != "O" and not value.dtype.isnative:
                out[name] = value.astype(value.dtype.newbyteorder("="))
        return out

    def _numeric(self, data, path, name, entry):
        npd = tensor_util.DT_TO_NP.get(entry.dtype)
        if npd is None or entry.dtype in _UNREADABLE:
            raise CheckpointError("Tensor %s in %s has dtype %s, which lens cannot restore"
                                  % (_label(name), self.prefix, types_pb2.DataType.Name(entry.dtype)),
                                  "unimplemented")
        npd = np.dtype(npd).newbyteorder("<")
        shape = [d.size for d in entry.shape.dim]
        count = int(np.prod(shape, dtype=np.int64))
        if entry.size != count * npd.itemsize:
            raise CheckpointError("%s: tensor %s holds %d bytes, not the %d its shape %s and dtype %s need"
                                  % (path, _label(name), entry.size, count * npd.itemsize, shape,
                                     types_pb2.DataType.Name(entry.dtype)))
        if count == 0:
            return np.empty(shape, npd)
        return np.frombuffer(data, dtype=npd, count=count, offset=entry.offset).reshape(shape)


def _label(name):
    return name if isinstance(name, str) else "slice %r" % (name,)


def _parse_strings(blob, shape, name, path):
    """(object array of bytes, CRC over lengths + checksum + bytes) of one string tensor."""
    count = int(np.prod(shape, dtype=np.int64))
    pos, crc, lengths = 0, 0, []
    for _ in range(count):
        try:
            n, pos = table.get_varint(blob, pos)
        except table.TableError:
            raise CheckpointError("%s: the string lengths of tensor %s run past its bytes" % (path, name)) from None
        lengths.append(n)
        crc = google_crc32c.extend(crc, length_bytes(n))
    if pos + 4 > len(blob) or table.unmask_crc(_U32.unpack_from(blob, pos)[0]) != crc:
        raise CheckpointError("%s: the string lengths of tensor %s fail their checksum" % (path, name))
    crc = google_crc32c.extend(crc, blob[pos:pos + 4])
    pos += 4
    start = pos
    out = np.empty(count, dtype=object)
    for i, n in enumerate(lengths):
        out[i] = bytes(blob[pos:pos + n])
        pos += n
    if pos != len(blob):
        raise CheckpointError("%s: tensor %s's strings take %d bytes, the entry says %d"
                              % (path, name, pos, len(blob)))
    crc = google_crc32c.extend(crc, bytes(blob[start:pos]))
    return out.reshape(shape), crc
