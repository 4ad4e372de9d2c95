"""(key, record) generators over one file, shared by the TF1 readers and FixedLengthRecordDataset."""
import gzip
import io
import struct
import zlib

from lens.framework import errors
from lens.events import gfile
from lens.events.records import masked_crc32c


def _open(path, compression):
    """A binary stream of the file's uncompressed bytes ('' / 'ZLIB' / 'GZIP')."""
    if not gfile.exists(path):
        raise errors.NotFoundError(None, None, "%s; No such file or directory" % path)
    raw = gfile.GFile(path, "rb")
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=io.BytesIO(raw.read()))
    if compression == "ZLIB":
        return io.BytesIO(zlib.decompress(raw.read()))
    if compression:
        raise errors.InvalidArgumentError(None, None, "compression_type must be '', 'ZLIB' or 'GZIP', got %r"
                                          % compression)
    return raw


def tfrecords(path, compression=""):
    """('path:offset', record) for each TFRecord; DataLossError names the offset of a damaged record."""
    with _open(path, compression) as f:
        offset = 0
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12 or masked_crc32c(header[:8]) != struct.unpack("<I", header[8:])[0]:
                raise errors.DataLossError(None, None, "corrupted record at %d in %s" % (offset, path))
            (length,) = struct.unpack("<Q", header[:8])
            body = f.read(length + 4)
            if len(body) < length + 4 or masked_crc32c(body[:length]) != struct.unpack("<I", body[length:])[0]:
                raise errors.DataLossError(None, None, "corrupted record at %d in %s" % (offset, path))
            yield "%s:%d" % (path, offset), body[:length]
            offset += 16 + length


def text_lines(path, skip_header_lines=0, compression=""):
    """('path:line number', line) for each line after the header lines (numbers count from 1)."""
    with _open(path, compression) as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # a final newline ends the last line; it does not start a new one
    for number, line in enumerate(lines, start=1):
        if number > skip_header_lines:
            yield "%s:%d" % (path, number), line.replace(b"\r", b"")


def fixed_length_records(path, record_bytes, header_bytes=0, footer_bytes=0, hop_bytes=0, compression="",
                         exact=False):
    """('path:index', record) for each record_bytes record between header and footer (hop_bytes apart if > 0).

    exact: the body must hold a whole number of records (FixedLengthRecordDataset); the reader drops a short tail."""
    if record_bytes <= 0:
        raise errors.InvalidArgumentError(None, None, "record_bytes must be > 0, got %d" % record_bytes)
    with _open(path, compression) as f:
        data = f.read()
    end = len(data) - footer_bytes
    body = end - header_bytes
    if exact and body % record_bytes:
        raise errors.InvalidArgumentError(
            None, None, 'Excluding the header (%d bytes) and footer (%d bytes), input file "%s" has body length %d '
            "bytes, which is not an exact multiple of the record length (%d bytes)." % (
                header_bytes, footer_bytes, path, body, record_bytes))
    step = hop_bytes if hop_bytes > 0 else record_bytes
    index, start = 0, header_bytes
    while start + record_bytes <= end:
        yield "%s:%d" % (path, index), data[start:start + record_bytes]
        index += 1
        start += step


def whole_file(path):
    """(path, contents) once."""
    with _open(path, "") as f:
        yield path, f.read()
