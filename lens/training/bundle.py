"""TensorFlow's tensor bundle (the V2 checkpoint format): write and read `P.index` + `P.data-00000-of-00001`.

`P.index` is a table (bundle_table.py) mapping the empty key to a BundleHeaderProto (shard count,
endianness, version) and each tensor name to a BundleEntryProto (dtype, shape, shard, offset, size,
masked CRC-32C). A data shard holds the tensors' bytes back to back: numeric tensors as their raw
little-endian elements; string tensors as one varint64 length per element, a 4-byte masked CRC-32C
of those lengths (each taken as a little-endian uint32, or uint64 past 4 GiB), then the strings'
bytes. The entry's CRC covers the lengths (as those fixed-width integers), the 4 checksum bytes and
the strings' bytes. Reading is lens.events.checkpoints.bundle's (one mapped file, CRC-checked views);
BundleReader wraps it in TensorFlow's errors and assembles partitioned variables.
"""
import os
import struct
import uuid

import google_crc32c
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.events.checkpoints import bundle as _reader
from lens.events.checkpoints.crc import Checksums
from lens.proto import tensor_bundle_pb2, tensor_shape_pb2
from lens.training import bundle_slices
from lens.training import bundle_table as table

HEADER_KEY = b""
BUNDLE_VERSION = _reader.BUNDLE_VERSION
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")
data_path = _reader.data_path
_length_bytes = _reader.length_bytes


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


_ERRORS = {"not_found": errors.NotFoundError, "data_loss": errors.DataLossError,
           "unimplemented": errors.UnimplementedError, "invalid_argument": errors.InvalidArgumentError}


def _tf_error(exc):
    """TensorFlow's exception for a CheckpointError of the shared reader."""
    return _ERRORS.get(exc.kind, errors.DataLossError)(None, None, str(exc))


class BundleReader:
    """lens.events.checkpoints' bundle reader in TensorFlow's errors, with partitioned variables assembled."""

    def __init__(self, prefix):
        self.prefix = prefix
        try:
            self._index = _reader.BundleIndex(prefix)
        except _reader.CheckpointError as e:
            if e.kind == "not_found":
                raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find "
                                           "any matching files for %s (%s)" % (prefix, e)) from None
            raise _tf_error(e) from None
        self.header = self._index.header
        self.entries = self._index.entries
        self.slice_entries = self._index.slice_entries

    def names(self):
        """Tensor names, sorted."""
        return self._index.names()

    def dtype(self, name):
        return _dt.as_dtype(self.entries[name].dtype)

    def shape(self, name):
        return self._index.shape(name)

    def read(self, names):
        """{name: array} for names (NotFoundError naming the first one missing). Whole numeric tensors
        are read-only views of the mapped data file (callers copy before writing)."""
        for name in names:
            if name not in self.entries:
                raise errors.NotFoundError(None, None, "Key %s not found in checkpoint %s" % (name, self.prefix))
        whole = [n for n in names if not self.entries[n].slices]
        try:
            out = self._index.read(whole)
        except _reader.CheckpointError as e:
            raise _tf_error(e) from None
        for name in names:
            e = self.entries[name]
            if e.slices:
                out[name] = bundle_slices.assemble(name, self.prefix, _numpy_dtype(e, name, self.prefix),
                                                   [d.size for d in e.shape.dim], e.slices, self._read_slice)
        return out

    def _read_slice(self, key):
        try:
            return self._index.read_slice(key)
        except _reader.CheckpointError as e:
            raise _tf_error(e) from None


def _numpy_dtype(entry, name, prefix):
    dtype = _dt.as_dtype(entry.dtype)
    if dtype == _dt.string:
        return object
    if dtype.as_numpy_dtype is None or dtype in (_dt.resource, _dt.variant):
        raise errors.UnimplementedError(None, None, "Tensor %s in %s has dtype %s, which lens cannot restore"
                                        % (name, prefix, dtype.name))
    return dtype.as_numpy_dtype
