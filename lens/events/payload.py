"""Image and audio bytes left in the event file: a reference read back when a page asks.

The store keeps a FileRef (file, record offset and length, which value of the event, which
item of a tensor) instead of the encoded bytes of a large image or clip in a local event file.
Reading it back checks the record's length and data CRCs, so a file that changed since is
refused (OSError) rather than served as the wrong picture.
"""

import struct

from lens.events import values as V
from lens.events.crc_batch import masked_crc
from lens.events.framing import HEADER

REF_MIN = 1024  # payloads smaller than this stay in memory (a reference costs ~100 bytes)


class FileRef:
    """Where one payload's bytes live in a local event file."""

    __slots__ = ("path", "offset", "length", "value", "kind", "item")

    def __init__(self, path, offset, length, value, kind, item=0):
        self.path, self.offset, self.length = str(path), int(offset), int(length)
        self.value, self.kind, self.item = int(value), str(kind), int(item)

    def __reduce__(self):  # plain values only, for the cache's restricted loader
        return (FileRef, (self.path, self.offset, self.length, self.value, self.kind, self.item))

    def __eq__(self, other):
        return isinstance(other, FileRef) and self.__reduce__() == other.__reduce__()

    def __hash__(self):
        return hash(self.__reduce__()[1])

    def load(self):
        """The payload's bytes, read from the file now."""
        from lens.proto import event_pb2

        with open(self.path, "rb") as f:
            f.seek(self.offset)
            raw = f.read(HEADER + self.length + 4)
        data = raw[HEADER:HEADER + self.length]
        if len(raw) != HEADER + self.length + 4 or \
                struct.unpack("<Q", raw[:8])[0] != self.length or \
                masked_crc(data) != struct.unpack("<I", raw[-4:])[0]:
            raise OSError("%s changed since it was read: the record at offset %d is gone; "
                          "reload the board" % (self.path, self.offset))
        value = event_pb2.Event.FromString(data).summary.value[self.value]
        if self.kind == "image":
            return bytes(value.image.encoded_image_string)
        if self.kind == "audio":
            return bytes(value.audio.encoded_audio_string)
        array = V.tensor_to_ndarray(value.tensor)
        if self.kind == "image_tensor":
            return V.image_from_tensor(array)[self.item][2]
        return bytes(audio_clips(array)[self.item][0])


def audio_clips(array):
    """A TF2 audio tensor as rows whose first entry is a clip's encoded bytes."""
    import numpy as np

    return np.asarray(array, dtype=object).reshape(-1, array.shape[-1] if array.ndim > 1 else 1)


def resolve(data):
    """bytes for a payload that is bytes or a FileRef."""
    return data.load() if isinstance(data, FileRef) else data
