"""TensorFlow's tensor bundle (the V2 checkpoint format): write and read `P.index` + `P.data-00000-of-00001`.

`P.index` is a table (bundle_table.py) mapping the empty key to a BundleHeaderProto (shard count,
endianness, version) and each tensor name to a BundleEntryProto (dtype, shape, shard, offset, size,
masked CRC-32C). A data shard holds the tensors' bytes back to back: numeric tensors as their raw
little-endian elements; string tensors as one varint64 length per element, a 4-byte masked CRC-32C
of those lengths (each taken as a little-endian uint32, or uint64 past 4 GiB), then the strings'
bytes. The entry's CRC covers the lengths (as those fixed-width integers), the 4 checksum bytes and
the strings' bytes.
"""
import os
import struct
import uuid

import google_crc32c
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.proto import tensor_bundle_pb2, tensor_shape_pb2
from lens.training import bundle_slices
from lens.training import bundle_table as table
from lens.training.bundle_crc import Checksums

HEADER_KEY = b""
BUNDLE_VERSION = 1             # TensorFlow's kTensorBundleVersion
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")


def data_path(prefix, shard=0, num_shards=1):
    """The name of one data shard of the bundle at prefix."""
    return "%s.data-%05d-of-%05d" % (prefix, shard, num_shards)


def _length_bytes(n):
    """A string length as the checksums see it: 4 bytes when it fits, else 8."""
    return _U32.pack(n) if n <= 0xffffffff else _U64.pack(n)


def _string_bytes(arr):
    """(lengths + checksum + bytes, crc) of a string tensor in the bundle's layout."""
    items = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in np.asarray(arr, dtype=object).ravel()]
    lengths = bytearray()
    crc = 0
    for s in items:
        table.put_varint(lengths, len(s))
        crc = google_crc32c.extend(crc, _length_bytes(len(s)))
    checksum = _U32.pack(table.mask_crc(crc))
    crc = google_crc32c.extend(crc, checksum)
    body = b"".join(items)
    crc = google_crc32c.extend(crc, body)
    return bytes(lengths) + checksum + body, crc


def _bundle_dtype(arr):
    if arr.dtype.kind in "OSU":
        return _dt.string
    return _dt.as_dtype(arr.dtype)


def write_bundle(prefix, named_values):
    """Write the bundle P.index + P.data-00000-of-00001 for [(name, array)]; each file lands by rename."""
    entries = []
    data_file = data_path(prefix)
    tmp_data = "%s.tempstate%s" % (data_file, uuid.uuid4().hex)
    named = sorted(((str(n), v) for n, v in named_values), key=lambda it: it[0].encode("utf-8"))
    for (a, _), (b, _) in zip(named, named[1:]):
        if a == b:
            raise ValueError("Two tensors are saved under the same name %r" % a)
    try:
        offset, placed = 0, []
        with open(tmp_data, "wb") as f, Checksums() as crcs:
            for name, value in named:
                arr = np.asarray(value)
                dtype = _bundle_dtype(arr)
                if dtype == _dt.string:
                    blob, crc = _string_bytes(arr)
                    crcs.submit_value(name, crc)
                    f.write(blob)
                    size = len(blob)
                else:
                    # (np.ascontiguousarray would turn a scalar into shape [1].)
                    arr = np.require(arr, dtype=np.dtype(dtype.as_numpy_dtype).newbyteorder("<"), requirements="C")
                    crcs.submit(name, arr)          # checksummed in a thread while it is written
                    f.write(memoryview(arr.reshape(-1)).cast("B") if arr.size else b"")
                    size = arr.nbytes
                placed.append((name, dtype, arr.shape, offset, size))
                offset += size
            for name, dtype, shape, start, size in placed:
                entry = tensor_bundle_pb2.BundleEntryProto(dtype=dtype.as_datatype_enum, shard_id=0, offset=start,
                                                           size=size, crc32c=table.mask_crc(crcs.result(name)))
                entry.shape.CopyFrom(tensor_shape_pb2.TensorShapeProto(
                    dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in shape]))
                entries.append((name.encode("utf-8"), entry.SerializeToString()))
        # The index lands last: its presence marks a complete checkpoint.
        os.replace(tmp_data, data_file)
        _write_index(prefix, [(HEADER_KEY, _header(1))] + entries)
    finally:
        if os.path.exists(tmp_data):
            os.remove(tmp_data)
    return prefix


def _header(num_shards):
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=num_shards,
                                                 endianness=tensor_bundle_pb2.BundleHeaderProto.LITTLE)
    header.version.producer = BUNDLE_VERSION
    return header.SerializeToString()


def _write_index(prefix, items):
    tmp = "%s.index.tempstate%s" % (prefix, uuid.uuid4().hex)
    try:
        with open(tmp, "wb") as f:
            f.write(table.build_table(items))
        os.replace(tmp, prefix + ".index")
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_merged_index(prefix, readers):
    """Write prefix.index for shards already moved to prefix.data-<i>-of-<n>, shard i from readers[i]."""
    entries = {}
    for shard, reader in enumerate(readers):
        for name, entry in reader.entries.items():
            if name in entries:
                raise errors.InvalidArgumentError(None, None, "Tensor %s is in two checkpoint parts (%s)"
                                                  % (name, reader.prefix))
            merged = tensor_bundle_pb2.BundleEntryProto()
            merged.CopyFrom(entry)
            merged.shard_id = shard
            entries[name] = merged
    items = sorted((n.encode("utf-8"), e.SerializeToString()) for n, e in entries.items())
    _write_index(prefix, [(HEADER_KEY, _header(len(readers)))] + items)


def is_bundle(prefix):
    """True when P.index is a tensor-bundle table (not lens's older JSON index)."""
    try:
        with open(prefix + ".index", "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() < table.FOOTER_SIZE:
                return False
            f.seek(-8, os.SEEK_END)
            return _U64.unpack(f.read(8))[0] == table.MAGIC
    except OSError:
        return False


class BundleReader:
    """The entries of one bundle and its tensors' values, checked against their CRCs."""

    def __init__(self, prefix):
        self.prefix = prefix
        path = prefix + ".index"
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                       "matching files for %s (%s)" % (prefix, e.strerror))
        items = table.read_table(data, path)
        if not items or items[0][0] != HEADER_KEY:
            raise errors.DataLossError(None, None, "%s has no bundle header (empty key)" % path)
        self.header = tensor_bundle_pb2.BundleHeaderProto.FromString(items[0][1])
        if self.header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise errors.UnimplementedError(None, None, "%s was written on a big-endian machine; lens reads "
                                            "little-endian bundles only" % path)
        if self.header.version.producer > BUNDLE_VERSION and BUNDLE_VERSION < self.header.version.min_consumer:
            raise errors.InvalidArgumentError(None, None, "%s needs a bundle reader of version >= %d"
                                              % (path, self.header.version.min_consumer))
        self.entries = {}
        self.slice_entries = {}     # encoded (name, slice) key -> entry of one saved slice
        for key, value in items[1:]:
            entry = tensor_bundle_pb2.BundleEntryProto.FromString(value)
            if key.startswith(b"\0"):
                # A slice of a partitioned variable: its key is the ordered-code encoding of
                # (name, slice), which begins with a NUL no tensor name has; listed under its tensor.
                self.slice_entries[key] = entry
            else:
                self.entries[key.decode("utf-8", "replace")] = entry

    def names(self):
        """Tensor names, sorted."""
        return sorted(self.entries)

    def dtype(self, name):
        return _dt.as_dtype(self.entries[name].dtype)

    def shape(self, name):
        return [d.size for d in self.entries[name].shape.dim]

    def read(self, names):
        """{name: array} for names (NotFoundError naming the first one missing)."""
        for name in names:
            if name not in self.entries:
                raise errors.NotFoundError(None, None, "Key %s not found in checkpoint %s" % (name, self.prefix))
        out, by_shard = {}, {}
        for name in names:
            e = self.entries[name]
            if e.slices:
                out[name] = bundle_slices.assemble(name, self.prefix, _numpy_dtype(e, name, self.prefix),
                                                   [d.size for d in e.shape.dim], e.slices, self._read_slice)
            else:
                by_shard.setdefault(e.shard_id, []).append(name)
        for shard, shard_names in by_shard.items():
            path = data_path(self.prefix, shard, self.header.num_shards)
            try:
                f = open(path, "rb")
            except OSError as e:
                raise errors.NotFoundError(None, None, "Checkpoint data file %s is missing (%s): the checkpoint %s "
                                           "is incomplete" % (path, e.strerror, self.prefix))
            with f, Checksums() as crcs:
                for name in sorted(shard_names, key=lambda n: self.entries[n].offset):
                    out[name] = self._read_one(f, path, name, crcs)
                for name in shard_names:
                    crc = crcs.result(name)
                    if table.unmask_crc(self.entries[name].crc32c) != crc:
                        raise errors.DataLossError(None, None, "Checksum does not match: stored %#x vs. calculated "
                                                   "on the restored bytes %#x (tensor %s in %s)"
                                                   % (table.unmask_crc(self.entries[name].crc32c), crc, name, path))
        return out

    def _read_slice(self, key):
        """One saved slice of a partitioned variable, checked against its CRC."""
        e = self.slice_entries.get(key)
        if e is None:
            raise errors.DataLossError(None, None, "Checkpoint %s lists a slice (key %r) it does not hold"
                                       % (self.prefix, key))
        path = data_path(self.prefix, e.shard_id, self.header.num_shards)
        with open(path, "rb") as f, Checksums() as crcs:
            value = self._read_one(f, path, key, crcs, e)
            if table.unmask_crc(e.crc32c) != crcs.result(key):
                raise errors.DataLossError(None, None, "Checksum does not match for a slice in %s" % path)
        return value

    def _read_one(self, f, path, name, crcs, e=None):
        e = e if e is not None else self.entries[name]
        dtype = _dt.as_dtype(e.dtype)
        shape = [d.size for d in e.shape.dim]
        f.seek(e.offset)
        if dtype == _dt.string:
            blob = f.read(e.size)
            self._check_size(path, name, len(blob), e)
            value, crc = _parse_strings(blob, shape, name, path)
            crcs.submit_value(name, crc)
            return value
        if dtype.as_numpy_dtype is None or dtype in (_dt.resource, _dt.variant):
            raise errors.UnimplementedError(None, None, "Tensor %s in %s has dtype %s, which lens cannot "
                                            "restore" % (name, self.prefix, dtype.name))
        npd = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        if e.size != int(np.prod(shape, dtype=np.int64)) * npd.itemsize:
            raise errors.DataLossError(None, None, "%s: tensor %s holds %d bytes, not the %d its shape %s and "
                                       "dtype %s need" % (path, name, e.size, int(np.prod(shape)) * npd.itemsize,
                                                          shape, dtype.name))
        value = np.empty(shape, dtype=npd)
        got = f.readinto(memoryview(value.reshape(-1)).cast("B")) if value.size else 0
        self._check_size(path, name, got, e)
        crcs.submit(name, value)                    # checked in a thread while the next tensor is read
        return value if npd.isnative else value.astype(npd.newbyteorder("="))

    def _check_size(self, path, name, got, e):
        if got != e.size:
            raise errors.DataLossError(None, None, "%s: tensor %s needs bytes %d..%d but the file ends at %d"
                                       % (path, name, e.offset, e.offset + e.size, e.offset + got))


def _numpy_dtype(entry, name, prefix):
    dtype = _dt.as_dtype(entry.dtype)
    if dtype == _dt.string:
        return object
    if dtype.as_numpy_dtype is None or dtype in (_dt.resource, _dt.variant):
        raise errors.UnimplementedError(None, None, "Tensor %s in %s has dtype %s, which lens cannot restore"
                                        % (name, prefix, dtype.name))
    return dtype.as_numpy_dtype


def _parse_strings(blob, shape, name, path):
    count = int(np.prod(shape, dtype=np.int64))
    pos, crc, lengths = 0, 0, []
    for _ in range(count):
        n, pos = table.get_varint(blob, pos)
        lengths.append(n)
        crc = google_crc32c.extend(crc, _length_bytes(n))
    if pos + 4 > len(blob) or table.unmask_crc(_U32.unpack_from(blob, pos)[0]) != crc:
        raise errors.DataLossError(None, None, "%s: the string lengths of tensor %s fail their checksum"
                                   % (path, name))
    crc = google_crc32c.extend(crc, blob[pos:pos + 4])
    pos += 4
    out = np.empty(count, dtype=object)
    for i, n in enumerate(lengths):
        out[i] = blob[pos:pos + n]
        pos += n
    if pos != len(blob):
        raise errors.DataLossError(None, None, "%s: tensor %s's strings take %d bytes, the entry says %d"
                                   % (path, name, pos, len(blob)))
    crc = google_crc32c.extend(crc, blob[pos - sum(lengths):pos])
    return out.reshape(shape), crc
