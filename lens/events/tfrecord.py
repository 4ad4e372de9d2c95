"""tf.python_io: TFRecordWriter, tf_record_iterator and their compression options."""
import gzip
import io
import os
import struct
import zlib

from lens.framework import errors
from lens.events.records import encode_record, masked_crc32c


class TFRecordCompressionType:
    """Compression of a whole TFRecord file (as in TF1)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
          TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """Options for TFRecordWriter / tf_record_iterator: compression_type NONE, ZLIB or GZIP."""

    compression_type_map = dict(_NAMES)

    def __init__(self, compression_type=None):
        self.compression_type = _parse_compression(compression_type)

    @classmethod
    def get_compression_type_string(cls, options):
        """'' / 'ZLIB' / 'GZIP' for an options object, a type or a string (None -> '')."""
        if isinstance(options, TFRecordOptions):
            return _NAMES[options.compression_type]
        return _NAMES[_parse_compression(options)]


def _parse_compression(value):
    """Accept None, a TFRecordCompressionType, '', 'ZLIB', 'GZIP' or TFRecordOptions."""
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if value is None or value == "":
        return TFRecordCompressionType.NONE
    if isinstance(value, str):
        by_name = {"ZLIB": TFRecordCompressionType.ZLIB, "GZIP": TFRecordCompressionType.GZIP,
                   "NONE": TFRecordCompressionType.NONE}
        if value.upper() in by_name:
            return by_name[value.upper()]
    elif value in _NAMES:
        return value
    raise ValueError("unknown TFRecord compression %r: use None, '', 'ZLIB' or 'GZIP' "
                     "(or TFRecordCompressionType.NONE/ZLIB/GZIP)" % (value,))


class TFRecordWriter:
    """Writes framed records to a file; use as a context manager or call close()."""

    def __init__(self, path, options=None):
        self._path = os.fspath(path)
        self._compression = _parse_compression(options)
        self._raw = open(self._path, "wb")
        if self._compression == TFRecordCompressionType.GZIP:
            self._out = gzip.GzipFile(fileobj=self._raw, mode="wb")
        else:
            self._out = self._raw
        self._zlib = (zlib.compressobj() if self._compression == TFRecordCompressionType.ZLIB
                      else None)
        self._closed = False

    def write(self, record):
        """Append one record (bytes)."""
        if self._closed:
            raise ValueError("TFRecordWriter for %s is closed; open a new writer" % self._path)
        if isinstance(record, str):
            record = record.encode("utf-8")
        framed = encode_record(record)
        self._out.write(self._zlib.compress(framed) if self._zlib else framed)

    def flush(self):
        """Push buffered records to the file."""
        if self._closed:
            return
        if self._zlib:
            self._out.write(self._zlib.flush(zlib.Z_SYNC_FLUSH))
        self._out.flush()

    def close(self):
        """Finish the file (compression trailer included) and close it."""
        if self._closed:
            return
        if self._zlib:
            self._out.write(self._zlib.flush())
        if self._out is not self._raw:
            self._out.close()
        self._raw.close()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _open_stream(path, compression):
    """A readable binary stream of the uncompressed records."""
    if compression == TFRecordCompressionType.GZIP:
        return gzip.open(path, "rb")
    if compression == TFRecordCompressionType.ZLIB:
        with open(path, "rb") as f:
            return io.BytesIO(zlib.decompress(f.read()))
    return open(path, "rb")


def tf_record_iterator(path, options=None):
    """Yield each record of a TFRecord file; raise DataLossError on corruption or truncation."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, "%s: no such file" % path)
    with _open_stream(path, _parse_compression(options)) as f:
        offset = 0
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise _loss(path, offset, "truncated record header")
            if masked_crc32c(header[:8]) != struct.unpack("<I", header[8:])[0]:
                raise _loss(path, offset, "corrupted record length (CRC mismatch)")
            (length,) = struct.unpack("<Q", header[:8])
            body = f.read(length + 4)
            if len(body) < length + 4:
                raise _loss(path, offset, "truncated record (expected %d bytes)" % length)
            data = body[:length]
            if masked_crc32c(data) != struct.unpack("<I", body[length:])[0]:
                raise _loss(path, offset, "corrupted record data (CRC mismatch)")
            offset += 16 + length
            yield data


def _loss(path, offset, what):
    """A DataLossError naming the file and the offset."""
    return errors.DataLossError(None, None, "%s at offset %d in %s; the file is damaged past "
                                "this point (lens.events.records.iter_records can skip the bad "
                                "part)" % (what, offset, path))
