"""Read any checkpoint lens knows: TensorFlow's tensor bundle (V2) or V1 table, or lens's earlier `.npz` format.

`open_checkpoint(prefix)` returns an object with names(), dtype(name), shape(name) and
read(names) -> {name: array}; `CheckpointReader` is TF's `NewCheckpointReader` API on top of it.
"""
import collections
import os
import threading

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.training import bundle
from lens.training import saver_format as legacy
from lens.training.checkpoint_v1 import V1Reader, v1_files

__all__ = ["NewCheckpointReader", "CheckpointReader"]


class _LegacyReader:
    """lens's version-1 checkpoint (P.npz + JSON P.index), read-only."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.index = legacy._read_index(prefix)
        self.entries = {e["name"]: e for e in self.index["tensors"]}

    def names(self):
        return sorted(self.entries)

    def dtype(self, name):
        return _dt.as_dtype(self.entries[name]["dtype"])

    def shape(self, name):
        return list(self.entries[name]["shape"])

    def read(self, names):
        for name in names:
            if name not in self.entries:
                raise errors.NotFoundError(None, None, "Key %s not found in checkpoint %s" % (name, self.prefix))
        return legacy._read_values(self.prefix, self.index, list(names))


_READERS = collections.OrderedDict()    # (prefix, cwd, inode, size, mtime) -> BundleReader, newest last
_READERS_KEPT = 8
_READERS_LOCK = threading.Lock()


def _cached_bundle_reader(prefix):
    """A BundleReader, parsed once per version of the index (Saver.restore checks, then RestoreV2 reads)."""
    st = os.stat(prefix + ".index")
    # The reader keeps prefix as given (its messages and data paths): a relative one is keyed with the cwd.
    key = (prefix, None if os.path.isabs(prefix) else os.getcwd(), st.st_ino, st.st_size, st.st_mtime_ns)
    with _READERS_LOCK:
        reader = _READERS.get(key)
        if reader is not None:
            _READERS.move_to_end(key)
            return reader
    reader = bundle.BundleReader(prefix)
    with _READERS_LOCK:
        _READERS[key] = reader
        while len(_READERS) > _READERS_KEPT:
            _READERS.popitem(last=False)
    return reader


def open_checkpoint(prefix):
    """A reader for the checkpoint at prefix, whichever format it has.

    NotFoundError when there is no checkpoint there (as TensorFlow's reader), DataLossError when
    its index is damaged.
    """
    prefix = os.fspath(prefix)
    if prefix.endswith(".index") and not os.path.exists(prefix + ".index"):
        prefix = prefix[:-len(".index")]
    if bundle.is_bundle(prefix):
        return _cached_bundle_reader(prefix)
    if os.path.exists(prefix + ".index"):
        return _LegacyReader(prefix)
    files = v1_files(prefix)
    if files:
        return V1Reader(prefix, files)
    raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                               "matching files for %s. Pass a checkpoint prefix (the path Saver.save returned, "
                               "e.g. tf.train.latest_checkpoint(dir)), without .index or .data-*." % prefix)


class CheckpointReader:
    """TensorFlow's checkpoint reader: tensor names, shapes, dtypes and values."""

    def __init__(self, filepattern):
        self._reader = open_checkpoint(filepattern)

    def has_tensor(self, tensor_str):
        """True when the checkpoint holds tensor_str."""
        return tensor_str in self._reader.entries

    def get_tensor(self, tensor_str):
        """The value of one tensor (NotFoundError naming it when absent)."""
        value = self._reader.read([tensor_str])[tensor_str]
        if isinstance(value, np.ndarray) and not value.flags.writeable:
            value = value.copy()
        return value

    def get_variable_to_shape_map(self):
        """{name: shape as a list}."""
        return {n: self._reader.shape(n) for n in self._reader.names()}

    def get_variable_to_dtype_map(self):
        """{name: DType}."""
        return {n: self._reader.dtype(n) for n in self._reader.names()}

    def debug_string(self):
        """One line per tensor, `name (DT_FLOAT) [3,2]`, as bytes (TensorFlow's DebugString)."""
        from lens.proto import types_pb2
        return "".join("%s (%s) [%s]\n" % (n, types_pb2.DataType.Name(self._reader.dtype(n).as_datatype_enum),
                                            ",".join(str(d) for d in self._reader.shape(n)))
                       for n in self._reader.names()).encode("utf-8")


def NewCheckpointReader(filepattern):  # noqa: N802 - TensorFlow's name
    """A CheckpointReader for the checkpoint prefix filepattern."""
    return CheckpointReader(filepattern)
