"""tf.audio: DecodeWav / EncodeWav for 16-bit PCM WAV files (TF's sample conversions: int16 / 32768 when
decoding, round(x * 32768) clipped to int16 when encoding)."""
import struct

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape


def _chunks(data, op):
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise errors.InvalidArgumentError(None, op, "Header mismatch: Expected RIFF/WAVE but found %r" % data[:12])
    pos = 12
    while pos + 8 <= len(data):
        kind, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        yield kind, data[pos + 8:pos + 8 + size]
        pos += 8 + size + (size & 1)


def _decode(op, contents, want_channels, want_samples):
    data = contents.item() if isinstance(contents, np.ndarray) else contents
    fmt, pcm = None, None
    for kind, body in _chunks(bytes(data), op):
        if kind == b"fmt ":
            fmt = struct.unpack("<HHIIHH", body[:16])
        elif kind == b"data":
            pcm = body
    if fmt is None or pcm is None:
        raise errors.InvalidArgumentError(None, op, "WAV data is missing its fmt or data chunk")
    tag, channels, rate, _, _, bits = fmt
    if tag not in (1, 0xFFFE) or bits != 16:
        raise errors.InvalidArgumentError(None, op, "Can only read 16-bit PCM WAV files, got format %d with %d bits"
                                          % (tag, bits))
    samples = np.frombuffer(pcm[:len(pcm) // (2 * channels) * 2 * channels], "<i2").reshape(-1, channels)
    out_c = channels if want_channels == -1 else want_channels
    out_n = len(samples) if want_samples == -1 else want_samples
    audio = np.zeros((out_n, out_c), np.float32)
    n = min(out_n, len(samples))
    src = np.minimum(np.arange(out_c), channels - 1)   # missing channels repeat the last one
    audio[:n] = samples[:n][:, src] * np.float32(1.0 / 32768)
    return [audio, np.int32(rate)]


def _encode(op, audio, rate):
    a = np.asarray(audio, np.float32)
    if a.ndim != 2:
        raise errors.InvalidArgumentError(None, op, "audio must be 2-dimensional [samples, channels], got shape %s"
                                          % list(a.shape))
    pcm = np.clip(np.round(np.clip(a, -1.0, 1.0) * 32768.0), -32768, 32767).astype("<i2")
    channels, rate = a.shape[1], int(rate)
    body = pcm.tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * 2, channels * 2, 16)
    wav = b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(body)) + b"WAVE" + \
        b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(body)) + body
    return np.array(wav, dtype=object)


register_op("DecodeWav", make=lambda op, ctx: (lambda c: _decode(op, c, op._attrs["desired_channels"],
                                                                   op._attrs["desired_samples"])),
            not_differentiable=True,
            shape=lambda op: [TensorShape([None if op._attrs["desired_samples"] < 0 else op._attrs["desired_samples"],
                                           None if op._attrs["desired_channels"] < 0
                                           else op._attrs["desired_channels"]]), TensorShape([])])
register_op("EncodeWav", make=lambda op, ctx: (lambda a, r: _encode(op, a, r)), not_differentiable=True,
            shape=lambda op: [TensorShape([])])


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """(audio [samples, channels] float32 in [-1, 1), sample_rate int32) of a 16-bit PCM WAV string."""
    with name_scope(name, "DecodeWav", [contents]) as scope:
        c = convert_to_tensor(contents, dtype=_dt.string, name="contents")
        audio, rate = apply_op("DecodeWav", [(c, "contents")], {"desired_channels": int(desired_channels),
                                                                "desired_samples": int(desired_samples)},
                               name=scope, dtypes=[_dt.float32, _dt.int32], same_dtype=False)
        return audio, rate


def encode_wav(audio, sample_rate, name=None):
    """A 16-bit PCM WAV string of [samples, channels] float32 audio."""
    with name_scope(name, "EncodeWav", [audio, sample_rate]) as scope:
        a = convert_to_tensor(audio, dtype=_dt.float32, name="audio")
        r = convert_to_tensor(sample_rate, dtype=_dt.int32, name="sample_rate")
        return apply_op("EncodeWav", [(a, "audio"), (r, "sample_rate")], {}, name=scope, dtypes=[_dt.string],
                        same_dtype=False)
