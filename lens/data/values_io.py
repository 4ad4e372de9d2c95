"""Run-time dataset values that read outside data: TFRecord files, text files, Python generators."""
import gzip
import io
import os
import zlib

import numpy as np

from lens.framework import errors
from lens.data.values import DatasetValue, _invalid


def _filenames(value):
    arr = np.asarray(value, dtype=object).reshape(-1)
    return [os.fsdecode(f) for f in arr]


def _compression(value):
    c = np.asarray(value, dtype=object)[()]
    c = c.decode() if isinstance(c, bytes) else (c or "")
    if c not in ("", "ZLIB", "GZIP"):
        raise _invalid("compression_type must be '', 'ZLIB' or 'GZIP', got %r" % c)
    return c


class TFRecords(DatasetValue):
    """The records of TFRecord files, in file order, as scalar strings."""

    def __init__(self, filenames, compression):
        self.files, self.compression = _filenames(filenames), _compression(compression)

    def iterate(self):
        from lens.events.tfrecord import tf_record_iterator
        for path in self.files:
            for rec in tf_record_iterator(path, self.compression or None):
                yield (np.array(rec, dtype=object),)


class TextLines(DatasetValue):
    """The lines of text files as scalar strings, without '\\n' and any '\\r' (as TF reads them)."""

    def __init__(self, filenames, compression):
        self.files, self.compression = _filenames(filenames), _compression(compression)

    def iterate(self):
        for path in self.files:
            if not os.path.exists(path):
                raise errors.NotFoundError(None, None, "%s; No such file or directory" % path)
            with self._open(path) as f:
                for line in f:
                    ended = line.endswith(b"\n")
                    # TF's line reader drops every carriage return, not only a trailing one.
                    line = (line[:-1] if ended else line).replace(b"\r", b"")
                    if ended or line:
                        yield (np.array(line, dtype=object),)

    def _open(self, path):
        if self.compression == "GZIP":
            return gzip.open(path, "rb")
        if self.compression == "ZLIB":
            with open(path, "rb") as f:
                return io.BytesIO(zlib.decompress(f.read()))
        return open(path, "rb")


class FromGenerator(DatasetValue):
    """Each iteration calls the Python generator function anew and converts what it yields."""

    def __init__(self, gen_fn, types, shapes):
        self.gen_fn, self.types, self.shapes = gen_fn, list(types), list(shapes)

    def iterate(self):
        from lens.data.structure import flatten
        for item in self.gen_fn():
            flat = flatten(tuple(item) if isinstance(item, list) and len(self.types) > 1 else item)
            if len(flat) != len(self.types):
                raise _invalid("`generator` yielded an element with %d components where %d were "
                               "expected (output_types has %d entries): %r"
                               % (len(flat), len(self.types), len(self.types), item))
            yield tuple(self._convert(x, t, s) for x, t, s in zip(flat, self.types, self.shapes))

    @staticmethod
    def _convert(x, dtype, shape):
        try:
            if dtype.base_dtype.name == "string":
                arr = np.array(x, dtype=object)
                arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s,
                                   otypes=[object])(arr) if arr.size else arr
            else:
                arr = np.asarray(x)
                if arr.dtype.kind in "SUO":
                    raise TypeError
                arr = arr.astype(dtype.as_numpy_dtype)
        except (TypeError, ValueError):
            raise _invalid("`generator` yielded an element that could not be converted to the "
                           "expected type. The expected type was %s, but the yielded element was %r."
                           % (dtype.name, x)) from None
        if not shape.is_compatible_with(arr.shape):
            raise _invalid("`generator` yielded an element of shape %s where an element of shape %s "
                           "was expected." % (list(arr.shape), shape))
        return arr
