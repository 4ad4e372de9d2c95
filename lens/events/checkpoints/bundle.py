"""Read-only access to a TensorFlow tensor bundle (V2 checkpoint): `P.index` + `P.data-*-of-*`.

`P.index` is a table (table.py) whose empty key holds a BundleHeaderProto (shard count,
endianness) and whose other keys map tensor names to BundleEntryProtos (dtype, shape, shard,
offset, size, masked CRC-32C of the bytes). A numeric tensor is stored as its little-endian
elements back to back in its data shard. Keys starting with NUL are slices of partitioned
variables. `latest_checkpoint(dir)` follows the `checkpoint` state file as tf.train does.
"""
import os
import re

import google_crc32c
import numpy as np

from lens.events.checkpoints import table
from lens.proto import tensor_bundle_pb2, tensor_util, types_pb2

_STRING = types_pb2.DataType.Value("DT_STRING")
_STATE_LINE = re.compile(r'^\s*model_checkpoint_path\s*:\s*"((?:[^"\\]|\\.)*)"', re.M)


class CheckpointError(ValueError):
    """A checkpoint or tensor that cannot be read; the message names it and why."""


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


class BundleIndex:
    """The tensors of one bundle: names, shapes, dtypes, and numeric values checked against their CRCs."""

    def __init__(self, prefix):
        self.prefix = prefix
        path = prefix + ".index"
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise CheckpointError("checkpoint %s not found (%s): pass a checkpoint prefix without .index "
                                  "or .data-*" % (prefix, e.strerror)) from None
        try:
            items = table.read_table(data, path)
        except table.TableError as e:
            raise CheckpointError(str(e)) from None
        if not items or items[0][0] != b"":
            raise CheckpointError("%s has no bundle header (empty key): not a V2 checkpoint index" % path)
        self.header = tensor_bundle_pb2.BundleHeaderProto.FromString(items[0][1])
        if self.header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise CheckpointError("%s was written on a big-endian machine; lens reads little-endian bundles"
                                  % path)
        self.entries = {}
        for key, value in items[1:]:
            if not key.startswith(b"\0"):       # NUL-led keys are slices, listed under their tensor
                self.entries[key.decode("utf-8", "replace")] = tensor_bundle_pb2.BundleEntryProto.FromString(value)

    def has_tensor(self, name):
        return name in self.entries

    def shape(self, name):
        return [d.size for d in self.entries[name].shape.dim]

    def variable_to_shape_map(self):
        """{name: shape as a list}, as CheckpointReader.get_variable_to_shape_map."""
        return {name: self.shape(name) for name in sorted(self.entries)}

    def get_tensor(self, name):
        """The value of one numeric tensor; CheckpointError naming it when absent or unreadable."""
        entry = self.entries.get(name)
        if entry is None:
            raise CheckpointError("Tensor %r not found in checkpoint %s" % (name, self.prefix))
        npd = tensor_util.DT_TO_NP.get(entry.dtype)
        if entry.dtype == _STRING or npd is None or entry.dtype == types_pb2.DataType.Value("DT_BFLOAT16"):
            raise CheckpointError("Tensor %r in %s has dtype %s; only numeric tensors can be read here"
                                  % (name, self.prefix, types_pb2.DataType.Name(entry.dtype)))
        if entry.slices:
            raise CheckpointError("Tensor %r in %s is saved in slices (a partitioned variable); save it whole "
                                  "to view it" % (name, self.prefix))
        shape = self.shape(name)
        npd = np.dtype(npd).newbyteorder("<")
        need = int(np.prod(shape, dtype=np.int64)) * npd.itemsize
        if entry.size != need:
            raise CheckpointError("tensor %r holds %d bytes, not the %d its shape %s needs (%s)"
                                  % (name, entry.size, need, shape, self.prefix))
        path = data_path(self.prefix, entry.shard_id, self.header.num_shards)
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                blob = f.read(entry.size)
        except OSError as e:
            raise CheckpointError("checkpoint data file %s is missing (%s): the checkpoint %s is incomplete"
                                  % (path, e.strerror, self.prefix)) from None
        if len(blob) != entry.size:
            raise CheckpointError("%s ends before tensor %r does (the file is truncated)" % (path, name))
        if table.unmask_crc(entry.crc32c) != google_crc32c.value(blob):
            raise CheckpointError("checksum of tensor %r in %s does not match: the file is corrupt" % (name, path))
        return np.frombuffer(blob, dtype=npd).astype(npd.newbyteorder("="), copy=False).reshape(shape)
