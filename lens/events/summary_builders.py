"""Pure functions that build serialized Summary bytes as TF1's summary kernels do (no engine)."""
import struct

import numpy as np

from lens.events import media
from lens.events.histogram import histogram_proto
from lens.proto import event_pb2, summary_pb2, tensor_pb2, tensor_util

Summary = summary_pb2.Summary
_F32 = struct.Struct("<f").pack
_SCALAR_HEADS = {}   # tag -> the bytes of Summary{value{tag, simple_value}} before the float
_KNOWN_HEADS = set()    # those heads: any head + 4 bytes is a well-formed scalar Summary


def is_scalar_bytes(data):
    """True when bytes are a Summary scalar() put together (a known head and a float): a
    well-formed Summary without metadata, so a writer needs no parse to trust them."""
    return len(data) > 4 and data[:-4] in _KNOWN_HEADS


def _len_prefix(n):
    """The varint of a length below 2**14 (tags are short; longer ones take the proto path)."""
    return bytes((n,)) if n < 0x80 else bytes(((n & 0x7F) | 0x80, n >> 7))


def _scalar_head(tag):
    """Summary{value{tag, simple_value}}'s bytes up to the float: the outer value's key and
    length, the tag's key, length and UTF-8, simple_value's key (field 2, fixed32). None when
    the tag is empty (proto3 leaves it out) or too long for two-byte lengths."""
    raw = tag.encode("utf-8")
    inner = b"\n" + _len_prefix(len(raw)) + raw + b"\x15" if raw and len(raw) < 0x3F00 else None
    head = None if inner is None else b"\n" + _len_prefix(len(inner) + 4) + inner
    if len(_SCALAR_HEADS) > 10000:
        _SCALAR_HEADS.clear()
        _KNOWN_HEADS.clear()
    _SCALAR_HEADS[tag] = head
    if head is not None:
        _KNOWN_HEADS.add(head)
    return head
_FLOAT_IMAGE_TYPES = (np.float16, np.float32, np.float64)


def _tag_str(tag):
    """Tags arrive as str or bytes (string tensors); the proto wants str."""
    if isinstance(tag, (bytes, np.bytes_)):
        return bytes(tag).decode("utf-8")
    if isinstance(tag, np.ndarray) and tag.shape == ():
        return _tag_str(tag.item())
    if not isinstance(tag, str):
        raise TypeError("summary tag must be a string, got %r (%s)" % (tag, type(tag).__name__))
    return tag


def scalar(tag, value):
    """Summary with one simple_value (stored as float32, as in TF)."""
    if type(tag) is str and type(value) in (float, int):
        # Fast path for the training-loop case: plain Python numbers, no NumPy round trip.
        # A finite value is packed after the tag's cached head: the bytes the proto would give
        # (float32 rounding as its setter's cast; a value past float32's range, an inf or a NaN
        # take the proto path below, whose conversion owns those cases).
        head = _SCALAR_HEADS.get(tag, False)
        if head is False:
            head = _scalar_head(tag)
        if head is not None and value - value == 0:
            try:
                return head + _F32(value)
            except (OverflowError, struct.error):   # past float32's range; a huge int
                pass
        summ = Summary()
        v = summ.value.add()
        v.tag = tag
        v.simple_value = value
        return summ.SerializeToString()
    tag = _tag_str(tag)
    arr = np.asarray(value)
    if arr.size != 1:
        raise ValueError("scalar summary %r needs a single value, got shape %s; reduce it first "
                         "(e.g. tf.reduce_mean)" % (tag, list(arr.shape)))
    if arr.dtype.kind not in "biuf":
        raise TypeError("scalar summary %r needs a real number, got %s" % (tag, arr.dtype))
    return Summary(value=[Summary.Value(tag=tag, simple_value=float(arr.reshape(())))]
                   ).SerializeToString()


def histogram(tag, values):
    """Summary with a HistogramProto over TF1's default buckets; NaN/inf raise ValueError."""
    tag = _tag_str(tag)
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError("histogram summary %r needs real numbers, got %s" % (tag, arr.dtype))
    flat = arr.astype(np.float64).ravel()
    if not np.isfinite(flat).all():
        bad = flat[~np.isfinite(flat)][0]
        raise ValueError("Nan in summary histogram for: %s (found %r; histograms need finite "
                         "values — check the tensor for NaN/inf first)" % (tag, bad))
    return Summary(value=[Summary.Value(tag=tag, histo=histogram_proto(flat))]
                   ).SerializeToString()


def _media_tags(base, kind, count, max_outputs):
    """TF1's tags: 'base/kind' when max_outputs is 1, else 'base/kind/i'."""
    if max_outputs == 1:
        return ["%s/%s" % (base, kind)] * count
    return ["%s/%s/%d" % (base, kind, i) for i in range(count)]


def image(tag, tensor, max_outputs=3, bad_color=media.DEFAULT_BAD_COLOR):
    """Summary with up to max_outputs PNG images from a [batch, h, w, c] tensor, c in {1, 3, 4}."""
    tag = _tag_str(tag)
    arr = np.asarray(tensor)
    if arr.ndim != 4 or arr.shape[3] not in (1, 3, 4):
        raise ValueError("image summary %r: tensor must be 4-D [batch, height, width, channels] "
                         "with 1, 3 or 4 channels, got shape %s" % (tag, list(arr.shape)))
    if arr.dtype != np.uint8 and arr.dtype.type not in _FLOAT_IMAGE_TYPES:
        raise TypeError("image summary %r: tensor must be uint8, float16, float32 or float64, "
                        "got %s" % (tag, arr.dtype))
    if max_outputs < 1:
        raise ValueError("image summary %r: max_outputs must be >= 1, got %d" % (tag, max_outputs))
    count = min(max_outputs, arr.shape[0])
    h, w, depth = arr.shape[1:]
    values = []
    for i, t in enumerate(_media_tags(tag, "image", count, max_outputs)):
        pixels = arr[i] if arr.dtype == np.uint8 else media.float_image_to_uint8(arr[i], bad_color)
        img = Summary.Image(height=h, width=w, colorspace=depth,
                            encoded_image_string=media.encode_png(pixels))
        values.append(Summary.Value(tag=t, image=img))
    return Summary(value=values).SerializeToString()


def audio(tag, tensor, sample_rate, max_outputs=3):
    """Summary with up to max_outputs 16-bit WAV clips from [batch, frames] or [batch, frames, ch]."""
    tag = _tag_str(tag)
    arr = np.asarray(tensor)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3 or arr.dtype.kind != "f":
        raise ValueError("audio summary %r: tensor must be float [batch, frames] or [batch, "
                         "frames, channels], got %s %s" % (tag, arr.dtype, list(np.shape(tensor))))
    rate = float(sample_rate)
    if not rate > 0:
        raise ValueError("audio summary %r: sample_rate must be > 0, got %r" % (tag, sample_rate))
    count = min(max_outputs, arr.shape[0])
    values = []
    for i, t in enumerate(_media_tags(tag, "audio", count, max_outputs)):
        clip = Summary.Audio(sample_rate=rate, num_channels=arr.shape[2],
                             length_frames=arr.shape[1], content_type="audio/wav",
                             encoded_audio_string=media.encode_wav(arr[i], rate))
        values.append(Summary.Value(tag=t, audio=clip))
    return Summary(value=values).SerializeToString()


def _tensor_proto(values):
    """TensorProto as TF's tensor-summary kernel stores it: strings in string_val, numbers raw."""
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    arr = np.asarray(values)
    if arr.dtype.kind in "USO":
        return tensor_util.make_tensor_proto(arr.astype(object))
    dt = tensor_util.as_datatype_enum(arr.dtype)
    proto = tensor_pb2.TensorProto(dtype=dt,
                                   tensor_shape=tensor_util.make_tensor_shape_proto(arr.shape))
    # TF's kernel always uses tensor_content for numbers, even for scalars.
    proto.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    return proto


def tensor_summary(tag, tensor, summary_metadata=None, display_name=None,
                   summary_description=None):
    """Summary with a whole tensor and optional metadata (plugin data, display name)."""
    tag = _tag_str(tag)
    value = Summary.Value(tag=tag, tensor=_tensor_proto(tensor))
    if summary_metadata is not None:
        if isinstance(summary_metadata, bytes):
            summary_metadata = summary_pb2.SummaryMetadata.FromString(summary_metadata)
        value.metadata.CopyFrom(summary_metadata)
    else:
        if display_name:
            value.metadata.display_name = display_name
        if summary_description:
            value.metadata.summary_description = summary_description
    return Summary(value=[value]).SerializeToString()


def text(tag, tensor):
    """Summary with a string tensor for the text plugin."""
    tag = _tag_str(tag)
    arr = np.asarray(tensor, dtype=object)
    for x in arr.ravel():
        if not isinstance(x, (str, bytes, np.str_, np.bytes_)):
            raise TypeError("text summary %r needs strings, got %r (%s)"
                            % (tag, x, type(x).__name__))
    meta = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(tag, tensor_util.make_tensor_proto(arr), summary_metadata=meta)


def merge(summaries):
    """One Summary holding every value of the inputs; a tag appearing twice is an error, as in TF."""
    seen = set()
    parts = []
    for i, item in enumerate(summaries):
        data = item.SerializeToString() if isinstance(item, Summary) else bytes(item)
        try:
            parsed = Summary.FromString(data)
        except Exception as exc:
            raise ValueError("merge: input %d is not a serialized Summary (%s)" % (i, exc)) from None
        for v in parsed.value:
            if v.tag in seen:
                raise ValueError("Duplicate tag %s found in summary inputs; give the summaries "
                                 "distinct names" % v.tag)
            seen.add(v.tag)
        # Concatenated Summary encodings are the encoding of the merged Summary.
        parts.append(data)
    return b"".join(parts)


def summary_iterator(path):
    """Yield every Event of an event file (corrupt records are skipped with a warning)."""
    from lens.events.records import iter_records

    for data in iter_records(path):
        yield event_pb2.Event.FromString(data)
