"""Read TensorFlow's V1 checkpoints (one table file per shard, as most 2016-2017 pretrained models ship).

A V1 checkpoint `P` (or shards `P-00000-of-0000N`) is a table (bundle_table.py): the empty key holds a
SavedTensorSlices whose `meta` lists each tensor (name, shape, dtype, the slices saved); every other
key holds one slice's values as a TensorProto (`data`). Tensors saved in several slices (partitioned
variables) are put back together from their extents.
"""
import glob
import os

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.proto import saved_tensor_slice_pb2, tensor_util
from lens.training import bundle_table as table


def v1_files(prefix):
    """The V1 checkpoint files for prefix (the file itself, or its shards), [] when there are none."""
    if os.path.isfile(prefix):
        with open(prefix, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() >= table.FOOTER_SIZE:
                f.seek(-8, os.SEEK_END)
                if int.from_bytes(f.read(8), "little") == table.MAGIC:
                    return [prefix]
        return []
    return sorted(glob.glob(glob.escape(prefix) + "-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]"))


def _extent_bounds(extent, size):
    start = extent.start
    length = extent.length if extent.WhichOneof("has_length") else size - start
    return start, start + length


class V1Reader:
    """Tensor names, dtypes, shapes and values of a V1 checkpoint (whole tensors, slices joined)."""

    def __init__(self, prefix, files):
        self.prefix = prefix
        self.entries = {}          # name -> SavedSliceMeta
        self._slices = {}          # name -> [(SavedSlice bytes location: file, key)]
        self._tables = {}
        for path in files:
            with open(path, "rb") as f:
                items = table.read_table(f.read(), path)
            if not items or items[0][0] != b"":
                raise errors.DataLossError(None, None, "%s has no V1 checkpoint meta (empty key)" % path)
            meta = saved_tensor_slice_pb2.SavedTensorSlices.FromString(items[0][1]).meta
            for t in meta.tensor:
                self.entries.setdefault(t.name, t)
            self._tables[path] = items[1:]

    def names(self):
        return sorted(self.entries)

    def dtype(self, name):
        return _dt.as_dtype(self.entries[name].type)

    def shape(self, name):
        return [d.size for d in self.entries[name].shape.dim]

    def read(self, names):
        """{name: array} for names, each assembled from all of its saved slices."""
        wanted = set(names)
        for name in names:
            if name not in self.entries:
                raise errors.NotFoundError(None, None, "Key %s not found in checkpoint %s" % (name, self.prefix))
        out = {n: np.zeros(self.shape(n), dtype=self.dtype(n).as_numpy_dtype) for n in wanted}
        filled = {n: 0 for n in wanted}
        for path, items in self._tables.items():
            for _, value in items:
                saved = saved_tensor_slices_data(value, path)
                if saved.name not in wanted:
                    continue
                name, shape = saved.name, self.shape(saved.name)
                extents = list(saved.slice.extent) or [None] * len(shape)
                bounds = [(0, s) if e is None else _extent_bounds(e, s) for e, s in zip(extents, shape)]
                proto = type(saved.data)()
                proto.CopyFrom(saved.data)
                proto.dtype = self.entries[name].type
                for lo, hi in bounds:
                    proto.tensor_shape.dim.add(size=hi - lo)
                part = tensor_util.make_ndarray(proto)
                out[name][tuple(slice(lo, hi) for lo, hi in bounds)] = part
                filled[name] += part.size
        for name in wanted:
            if filled[name] != out[name].size:
                raise errors.DataLossError(None, None, "V1 checkpoint %s holds %d of the %d values of %s"
                                           % (self.prefix, filled[name], out[name].size, name))
        return out


def saved_tensor_slices_data(value, path):
    """The SavedSlice of one table value (DataLossError when it does not parse)."""
    try:
        return saved_tensor_slice_pb2.SavedTensorSlices.FromString(value).data
    except Exception as e:
        raise errors.DataLossError(None, None, "%s: a slice record does not parse: %s" % (path, e))
