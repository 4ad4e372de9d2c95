"""tf.image's codecs on Pillow: DecodePng / DecodeJpeg / DecodeGif / DecodeBmp / DecodeImage /
DecodeAndCropJpeg, EncodePng / EncodeJpeg, ExtractJpegShape (16-bit colour PNGs, which Pillow
narrows to 8 bits, are unfiltered here)."""
import io
import struct
import threading
import zlib

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.logic import equal
from lens.ops.string_ops import substr

_PNG, _GIF, _BMP = b"\x89PNG", b"GIF8", b"BM"
_TRUNCATED_LOCK = threading.Lock()


def _pil():
    from PIL import Image, ImageFile, ImageSequence
    return Image, ImageFile, ImageSequence


def _bytes(v):
    v = v.item() if isinstance(v, np.ndarray) else v
    return v.encode() if isinstance(v, str) else bytes(v)


def _scalar_string(op, v):
    if np.ndim(v) != 0:
        raise errors.InvalidArgumentError(None, op, "contents must be scalar, got shape %s" % list(np.shape(v)))
    return _bytes(v)


# ---- channel handling -------------------------------------------------------------------------
def _to_channels(img, channels, op):
    """A Pillow image as an [h, w, c] uint8 array with TF's channel rule (0 keeps the file's)."""
    mode = img.mode
    if channels == 0:
        if mode in ("L", "1", "I;16", "I;16B", "I"):
            target = "L"
        elif mode == "LA" or (mode == "P" and "transparency" in img.info):
            target = "LA" if mode == "LA" else "RGBA"
        elif mode in ("RGBA", "PA"):
            target = "RGBA"
        else:
            target = "RGB"
    else:
        target = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[channels]
    arr = np.asarray(img.convert(target))
    return arr[:, :, None] if arr.ndim == 2 else arr


def _check_channels(channels, allowed, what):
    if channels not in allowed:
        raise ValueError("channels must be one of %s for %s, got %r" % (sorted(allowed), what, channels))


# ---- PNG --------------------------------------------------------------------------------------
def _png_header(data):
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    return width, height, depth, color, interlace


def _unfilter(raw, height, stride, bpp):
    """PNG scanlines unfiltered (None, Sub, Up, Average, Paeth) into a (height, stride) uint8 array."""
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    pos = 0
    for y in range(height):
        ftype = raw[pos]
        line = np.frombuffer(raw, np.uint8, stride, pos + 1).astype(np.int32)
        pos += stride + 1
        if ftype == 0:
            cur = line
        elif ftype == 2:
            cur = (line + prev) & 0xFF
        else:
            cur = line.copy()
            for x in range(stride):
                left = cur[x - bpp] if x >= bpp else 0
                if ftype == 1:
                    pred = left
                elif ftype == 3:
                    pred = (left + prev[x]) >> 1
                else:
                    up, ul = prev[x], (prev[x - bpp] if x >= bpp else 0)
                    p = left + up - ul
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                    pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                cur[x] = (cur[x] + pred) & 0xFF
        out[y] = cur
        prev = cur
    return out


def _decode_png16(data, op):
    """A 16-bit truecolour (+alpha) PNG as [h, w, 3 or 4] uint16 (Pillow keeps only 8 bits of these)."""
    width, height, _, color, interlace = _png_header(data)
    if interlace:
        raise errors.InvalidArgumentError(None, op, "interlaced 16-bit colour PNGs are not decoded by lens")
    pos, idat = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    chans = 4 if color == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    rows = _unfilter(raw, height, width * chans * 2, chans * 2)
    return rows.view(">u2").astype(np.uint16).reshape(height, width, chans)


def _decode_png(data, channels, dtype, op):
    Image = _pil()[0]
    if not data.startswith(_PNG):
        raise errors.InvalidArgumentError(None, op, "Invalid PNG data, size %d" % len(data))
    try:
        _, _, depth, color, _ = _png_header(data)
        if depth == 16 and color in (2, 6):
            arr = _decode_png16(data, op)
        else:
            img = Image.open(io.BytesIO(data))
            img.load()
            if depth == 16 and img.mode.startswith("I"):
                arr = np.asarray(img).astype(np.uint16)[:, :, None]
            else:
                arr = _to_channels(img, 0, op)
    except (OSError, SyntaxError, ValueError, zlib.error, struct.error) as e:
        raise errors.InvalidArgumentError(None, op, "Invalid PNG data, size %d (%s)" % (len(data), e)) from None
    if dtype == np.uint16 and arr.dtype == np.uint8:
        arr = arr.astype(np.uint16) * 257
    elif dtype == np.uint8 and arr.dtype == np.uint16:
        arr = (arr >> 8).astype(np.uint8)
    return _channels_of_array(arr, channels)


def _channels_of_array(arr, channels):
    """arr [h, w, c] converted to channels (1: ITU-R 601 luma as libpng, 3: gray repeated, 4: alpha max)."""
    c = arr.shape[-1]
    if channels in (0, c):
        return arr
    top = np.iinfo(arr.dtype).max
    color = arr[..., :3] if c >= 3 else np.repeat(arr[..., :1], 3, -1)
    alpha = arr[..., 3:4] if c == 4 else arr[..., 1:2] if c == 2 else np.full(arr.shape[:2] + (1,), top, arr.dtype)
    if channels == 1:
        if c < 3:
            return arr[..., :1]
        # TF asks libpng for 0.299 / 0.587 luma, which libpng fixes to these /32768 and truncates
        w = np.array([9797, 19234, 3737], np.int64)
        return ((color.astype(np.int64) * w).sum(-1, keepdims=True) >> 15).astype(arr.dtype)
    if channels == 3:
        return np.ascontiguousarray(color)
    return np.concatenate([color, alpha], -1)


# ---- JPEG / GIF / BMP -------------------------------------------------------------------------
def _open_jpeg(data, op, ratio=1, recover=False, channels=0):
    Image, ImageFile, _ = _pil()
    if not data.startswith(b"\xff\xd8\xff"):
        raise errors.InvalidArgumentError(None, op, "Invalid JPEG data or crop window, data size %d" % len(data))
    try:
        img = Image.open(io.BytesIO(data))
        _gray_draft(img, channels)
        if ratio != 1:   # libjpeg's DCT scaling, as TF's ratio (the output rounds up)
            img.draft(img.mode, (img.size[0] // ratio, img.size[1] // ratio))
        if recover:
            with _TRUNCATED_LOCK:
                old, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, True
                try:
                    img.load()
                finally:
                    ImageFile.LOAD_TRUNCATED_IMAGES = old
        else:
            img.load()
        return img
    except (OSError, SyntaxError, ValueError) as e:
        raise errors.InvalidArgumentError(None, op, "Invalid JPEG data or crop window, data size %d (%s)"
                                          % (len(data), e)) from None


def _jpeg_channels(img, channels):
    if channels == 0:
        channels = 1 if img.mode == "L" else 3
    return _to_channels(img, channels, None)


def _gray_draft(img, channels):
    """Ask libjpeg for luma directly when one channel is wanted (as TF's decoder does)."""
    if channels == 1 and img.mode != "L":
        img.draft("L", img.size)



def _decode_gif(data, op):
    Image, _, ImageSequence = _pil()
    if not data.startswith(_GIF):
        raise errors.InvalidArgumentError(None, op, "Invalid GIF data (size %d), could not decode" % len(data))
    try:
        img = Image.open(io.BytesIO(data))
        frames = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(img)]
    except (OSError, SyntaxError, ValueError) as e:
        raise errors.InvalidArgumentError(None, op, "Invalid GIF data (size %d): %s" % (len(data), e)) from None
    return np.stack(frames)


def _decode_bmp_raw(data, channels):
    """24- and 32-bit uncompressed BMPs read directly (Pillow drops a 32-bit BMP's alpha): None otherwise."""
    if len(data) < 54:
        return None
    offset, = struct.unpack("<I", data[10:14])
    width, height, _, bpp, compression = struct.unpack("<iiHHI", data[18:34])
    if bpp not in (24, 32) or compression not in (0, 3) or width <= 0 or height == 0:
        return None
    c = bpp // 8
    row = (width * c + 3) // 4 * 4
    rows = np.frombuffer(data, np.uint8, row * abs(height), offset).reshape(abs(height), row)
    px = rows[:, :width * c].reshape(abs(height), width, c)
    if height > 0:   # bottom-up rows
        px = px[::-1]
    bgr = px[:, :, [2, 1, 0] + ([3] if c == 4 else [])]
    channels = channels or c
    return _channels_of_array(np.ascontiguousarray(bgr), channels)


def _decode_bmp(data, channels, op):
    Image = _pil()[0]
    if not data.startswith(_BMP):
        raise errors.InvalidArgumentError(None, op, "Invalid BMP data, size %d" % len(data))
    try:
        raw = _decode_bmp_raw(data, channels)
    except (ValueError, struct.error):
        raise errors.InvalidArgumentError(None, op, "Invalid BMP data, size %d" % len(data)) from None
    if raw is not None:
        return raw
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except (OSError, SyntaxError, ValueError) as e:
        raise errors.InvalidArgumentError(None, op, "Invalid BMP data, size %d (%s)" % (len(data), e)) from None
    if channels == 0:
        channels = 4 if img.mode == "RGBA" else 1 if img.mode in ("L", "1") else 3
    return _to_channels(img, channels, op)


def _decode_image(data, channels, dtype, expand, op):
    if data.startswith(b"\xff\xd8\xff"):
        arr = _jpeg_channels(_open_jpeg(data, op, channels=channels), channels)
    elif data.startswith(_PNG):
        arr = _decode_png(data, channels, np.uint16 if dtype == np.uint16 else np.uint8, op)
    elif data.startswith(_GIF):
        if channels not in (0, 3):
            raise errors.InvalidArgumentError(None, op, "channels must be 0 or 3 for GIF, got %d" % channels)
        arr = _decode_gif(data, op)
        if not expand:
            arr = arr[0]
    elif data.startswith(_BMP):
        arr = _decode_bmp(data, channels, op)
    else:
        raise errors.InvalidArgumentError(None, op, "Unknown image file format. One of JPEG, PNG, GIF, BMP required.")
    if dtype == np.float32:
        return (arr / np.float32(np.iinfo(arr.dtype).max)).astype(np.float32)
    if dtype == np.uint16 and arr.dtype == np.uint8:
        return arr.astype(np.uint16) * 257
    return arr


# ---- kernels ----------------------------------------------------------------------------------
def _png_make(op, ctx):
    dtype = op._attrs["dtype"].as_numpy_dtype
    return lambda c: _decode_png(_scalar_string(op, c), op._attrs["channels"], dtype, op)


def _jpeg_make(op, ctx):
    a = op._attrs

    def run(c):
        img = _open_jpeg(_scalar_string(op, c), op, a["ratio"], a["try_recover_truncated"], a["channels"])
        return _jpeg_channels(img, a["channels"])
    return run


def _crop_jpeg_make(op, ctx):
    a = op._attrs

    def run(c, window):
        img = _open_jpeg(_scalar_string(op, c), op, 1, a["try_recover_truncated"], a["channels"])
        y, x, h, w = [int(v) for v in np.ravel(window)]
        if h <= 0 or w <= 0 or y < 0 or x < 0 or y + h > img.size[1] or x + w > img.size[0]:
            raise errors.InvalidArgumentError(None, op, "Invalid JPEG data or crop window, data size %d: crop "
                                              "window %s outside the %dx%d image" % (len(_bytes(c)), [y, x, h, w],
                                                                                     img.size[1], img.size[0]))
        return np.ascontiguousarray(_jpeg_channels(img, a["channels"])[y:y + h, x:x + w])
    return run


def _shape_make(op, ctx):
    out = op._attrs["output_type"].as_numpy_dtype

    def run(c):
        img = _open_jpeg(_scalar_string(op, c), op)
        return np.array([img.size[1], img.size[0], 1 if img.mode == "L" else 3], out)
    return run


def _image_make(op, ctx):
    a = op._attrs
    return lambda c: _decode_image(_scalar_string(op, c), a["channels"], a["dtype"].as_numpy_dtype,
                                   a["expand_animations"], op)


def _check_image(op, image, allowed):
    image = np.asarray(image)
    if image.ndim != 3:
        raise errors.InvalidArgumentError(None, op, "image must be 3-dimensional [height, width, channels], got "
                                          "shape %s" % list(image.shape))
    if image.shape[-1] not in allowed:
        raise errors.InvalidArgumentError(None, op, "image must have %s channels, got %d"
                                          % (" or ".join(map(str, allowed)), image.shape[-1]))
    return image


def _encode_png_make(op, ctx):
    level = op._attrs["compression"]

    def run(image):
        Image = _pil()[0]
        x = _check_image(op, image, (1, 2, 3, 4))
        buf = io.BytesIO()
        if x.dtype == np.uint16:
            if x.shape[-1] != 1:   # Pillow writes 16-bit gray only: build the PNG by hand
                return np.array(_png16_bytes(x, level), dtype=object)
            Image.fromarray(x[:, :, 0].astype(">u2").astype(np.uint16), "I;16").save(
                buf, "PNG", compress_level=6 if level < 0 else level)
        else:
            mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[x.shape[-1]]
            img = Image.fromarray(x[:, :, 0] if mode == "L" else x, mode)
            img.save(buf, "PNG", compress_level=6 if level < 0 else level)
        return np.array(buf.getvalue(), dtype=object)
    return run


def _png16_bytes(x, level):
    """A 16-bit 2/3/4-channel PNG (filter None on every row)."""
    h, w, c = x.shape
    color = {2: 4, 3: 2, 4: 6}[c]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), x.astype(">u2").view(np.uint8).reshape(h, w * c * 2)], 1)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", w, h, 16, color, 0, 0, 0)
    data = zlib.compress(rows.tobytes(), 6 if level < 0 else level)
    return _PNG + b"\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def _encode_jpeg_make(op, ctx):
    a = op._attrs

    def run(image):
        Image = _pil()[0]
        x = _check_image(op, image, (1, 3))
        fmt = a["format"]
        if fmt == "grayscale" and x.shape[-1] != 1 or fmt == "rgb" and x.shape[-1] != 3:
            raise errors.InvalidArgumentError(None, op, "format %r needs %d channels, got %d"
                                              % (fmt, 1 if fmt == "grayscale" else 3, x.shape[-1]))
        img = Image.fromarray(x[:, :, 0], "L") if x.shape[-1] == 1 else Image.fromarray(x, "RGB")
        kw = {"quality": int(a["quality"]), "progressive": bool(a["progressive"]),
              "optimize": bool(a["optimize_size"]), "subsampling": 2 if a["chroma_downsampling"] else 0}
        if a["density_unit"] == "in":
            kw["dpi"] = (a["x_density"], a["y_density"])
        if a["xmp_metadata"]:
            kw["xmp"] = a["xmp_metadata"].encode() if isinstance(a["xmp_metadata"], str) else a["xmp_metadata"]
        buf = io.BytesIO()
        img.save(buf, "JPEG", **kw)
        return np.array(buf.getvalue(), dtype=object)
    return run


def _variable_quality_make(op, ctx):
    def run(image, quality):
        Image = _pil()[0]
        x = _check_image(op, image, (1, 3))
        q = int(np.clip(int(quality), 0, 100))
        img = Image.fromarray(x[:, :, 0], "L") if x.shape[-1] == 1 else Image.fromarray(x, "RGB")
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=q)
        return np.array(buf.getvalue(), dtype=object)
    return run


def _hwc_shape(channels, rank=3):
    return lambda op: [TensorShape([None] * (rank - 1) + [channels or None])]


register_op("DecodePng", make=_png_make, not_differentiable=True,
            shape=lambda op: _hwc_shape(op._attrs["channels"])(op))
register_op("DecodeJpeg", make=_jpeg_make, not_differentiable=True,
            shape=lambda op: _hwc_shape(op._attrs["channels"])(op))
register_op("DecodeAndCropJpeg", make=_crop_jpeg_make, not_differentiable=True,
            shape=lambda op: _hwc_shape(op._attrs["channels"])(op))
register_op("DecodeBmp", make=lambda op, ctx: (lambda c: _decode_bmp(_scalar_string(op, c), op._attrs["channels"], op)),
            not_differentiable=True, shape=lambda op: _hwc_shape(op._attrs["channels"])(op))
register_op("DecodeGif", make=lambda op, ctx: (lambda c: _decode_gif(_scalar_string(op, c), op)),
            not_differentiable=True, shape=lambda op: [TensorShape([None, None, None, 3])])
register_op("DecodeImage", make=_image_make, not_differentiable=True,
            shape=lambda op: [TensorShape(None)])
def _webp_make(op, ctx):
    channels = op._attrs["channels"]

    def run(c):
        Image, _, ImageSequence = _pil()
        data = _scalar_string(op, c)
        if not (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
            raise errors.InvalidArgumentError(None, op, "Invalid WebP data, size %d" % len(data))
        try:
            img = Image.open(io.BytesIO(data))
            frames = list(ImageSequence.Iterator(img))
            if len(frames) > 1:   # animations decode as [frames, h, w, 4] RGBA
                if channels not in (0, 4):
                    raise errors.InvalidArgumentError(None, op, "WebP animations decode to 4 channels only, got "
                                                      "channels=%d" % channels)
                return np.stack([np.asarray(f.convert("RGBA")) for f in frames])
            img.load()
        except (OSError, SyntaxError, ValueError) as e:
            raise errors.InvalidArgumentError(None, op, "Invalid WebP data, size %d (%s)" % (len(data), e)) from None
        native = 4 if img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info else 3
        if channels not in (0, native):
            raise errors.InvalidArgumentError(None, op, "The number of channels (%d) must match the WebP image's (%d)"
                                              % (channels, native))
        return np.asarray(img.convert("RGBA" if native == 4 else "RGB"))[None]
    return run


register_op("DecodeWebP", make=_webp_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None, None, None, op._attrs["channels"] or None])])
register_op("ExtractJpegShape", make=_shape_make, not_differentiable=True, shape=lambda op: [TensorShape([3])])
register_op("EncodePng", make=_encode_png_make, not_differentiable=True, shape=lambda op: [TensorShape([])])
register_op("EncodeJpegVariableQuality", make=_variable_quality_make, not_differentiable=True,
            shape=lambda op: [TensorShape([])])
register_op("EncodeJpeg", make=_encode_jpeg_make, not_differentiable=True, shape=lambda op: [TensorShape([])])


# ---- wrappers ---------------------------------------------------------------------------------
def _contents(contents):
    return convert_to_tensor(contents, dtype=_dt.string, name="contents")


def _decode(op_type, contents, attrs, dtype, name, extra=()):
    with name_scope(name, op_type, [contents]) as scope:
        ins = [(_contents(contents), "contents")] + list(extra)
        return apply_op(op_type, ins, attrs, name=scope, dtypes=[dtype], same_dtype=False)


def decode_png(contents, channels=0, dtype=_dt.uint8, name=None):
    """A PNG-encoded scalar string as [height, width, channels] uint8 or uint16."""
    _check_channels(channels, {0, 1, 2, 3, 4}, "decode_png")
    dtype = _dt.as_dtype(dtype)
    if dtype not in (_dt.uint8, _dt.uint16):
        raise TypeError("dtype must be uint8 or uint16 for decode_png, got %s" % dtype.name)
    return _decode("DecodePng", contents, {"channels": channels, "dtype": dtype}, dtype, name)


def _check_upscaling(fancy_upscaling, what):
    """Pillow always upsamples chroma smoothly: say so rather than decode differently from what was asked."""
    if not fancy_upscaling:
        raise ValueError("%s: fancy_upscaling=False is not supported by lens's Pillow decoder; "
                         "leave it True (TensorFlow's default)" % what)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """A JPEG-encoded scalar string as [height, width, channels] uint8 (ratio 1, 2, 4, 8 downscales while
    decoding; dct_method is a hint, and libjpeg's accurate integer DCT with fancy upsampling is used)."""
    _check_channels(channels, {0, 1, 3}, "decode_jpeg")
    _check_upscaling(fancy_upscaling, "decode_jpeg")
    if ratio not in (1, 2, 4, 8):
        raise ValueError("ratio must be 1, 2, 4 or 8 for decode_jpeg, got %r" % (ratio,))
    attrs = {"channels": channels, "ratio": ratio, "fancy_upscaling": bool(fancy_upscaling),
             "try_recover_truncated": bool(try_recover_truncated),
             "acceptable_fraction": float(acceptable_fraction), "dct_method": dct_method}
    return _decode("DecodeJpeg", contents, attrs, _dt.uint8, name)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """decode_jpeg of the crop_window [y, x, height, width] only."""
    _check_channels(channels, {0, 1, 3}, "decode_and_crop_jpeg")
    _check_upscaling(fancy_upscaling, "decode_and_crop_jpeg")
    if ratio != 1:
        raise ValueError("decode_and_crop_jpeg: lens decodes at ratio 1 only, got %r" % (ratio,))
    attrs = {"channels": channels, "ratio": ratio, "fancy_upscaling": bool(fancy_upscaling),
             "try_recover_truncated": bool(try_recover_truncated),
             "acceptable_fraction": float(acceptable_fraction), "dct_method": dct_method}
    window = convert_to_tensor(crop_window, dtype=_dt.int32, name="crop_window")
    return _decode("DecodeAndCropJpeg", contents, attrs, _dt.uint8, name, [(window, "crop_window")])


def decode_gif(contents, name=None):
    """A GIF-encoded scalar string as [num_frames, height, width, 3] uint8 (frames composited)."""
    return _decode("DecodeGif", contents, {}, _dt.uint8, name)


def decode_bmp(contents, channels=0, name=None):
    """A BMP-encoded scalar string as [height, width, channels] uint8."""
    _check_channels(channels, {0, 1, 3, 4}, "decode_bmp")
    return _decode("DecodeBmp", contents, {"channels": channels}, _dt.uint8, name)


def decode_image(contents, channels=None, dtype=_dt.uint8, name=None, expand_animations=True):
    """Any of JPEG, PNG, GIF, BMP by its first bytes (GIFs 4-D unless expand_animations=False)."""
    dtype = _dt.as_dtype(dtype)
    if dtype not in (_dt.uint8, _dt.uint16, _dt.float32):
        raise ValueError("dtype must be uint8, uint16 or float32 for decode_image, got %s" % dtype.name)
    channels = channels or 0
    _check_channels(channels, {0, 1, 3, 4}, "decode_image")
    attrs = {"channels": channels, "dtype": dtype, "expand_animations": bool(expand_animations)}
    return _decode("DecodeImage", contents, attrs, dtype, name or "decode_image")


def extract_jpeg_shape(contents, output_type=_dt.int32, name=None):
    """[height, width, channels] of a JPEG without decoding it."""
    output_type = _dt.as_dtype(output_type)
    return _decode("ExtractJpegShape", contents, {"output_type": output_type}, output_type, name)


def encode_png(image, compression=-1, name=None):
    """A [height, width, channels] uint8 or uint16 image as a PNG scalar string (compression -1..9)."""
    with name_scope(name, "EncodePng", [image]) as scope:
        x = convert_to_tensor(image, name="image")
        if x.dtype.base_dtype not in (_dt.uint8, _dt.uint16):
            raise TypeError("Value passed to parameter 'image' of EncodePng has DataType %s not in list of "
                            "allowed values: uint8, uint16" % x.dtype.base_dtype.name)
        if not -1 <= compression <= 9:
            raise ValueError("compression must be in [-1, 9], got %r" % (compression,))
        return apply_op("EncodePng", [(x, "image")], {"compression": int(compression), "T": x.dtype.base_dtype},
                        name=scope, dtypes=[_dt.string], same_dtype=False)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False, chroma_downsampling=True,
                density_unit="in", x_density=300, y_density=300, xmp_metadata="", name=None):  # noqa: A002
    """A [height, width, 1 or 3] uint8 image as a JPEG scalar string."""
    if format not in ("", "grayscale", "rgb"):
        raise ValueError("format must be '', 'grayscale' or 'rgb', got %r" % (format,))
    if density_unit not in ("in", "cm"):
        raise ValueError("density_unit must be 'in' or 'cm', got %r" % (density_unit,))
    if not 0 <= quality <= 100:
        raise ValueError("quality must be in [0, 100], got %r" % (quality,))
    with name_scope(name, "EncodeJpeg", [image]) as scope:
        x = convert_to_tensor(image, dtype=_dt.uint8, name="image")
        attrs = {"format": format, "quality": int(quality), "progressive": bool(progressive),
                 "optimize_size": bool(optimize_size), "chroma_downsampling": bool(chroma_downsampling),
                 "density_unit": density_unit, "x_density": int(x_density), "y_density": int(y_density),
                 "xmp_metadata": xmp_metadata}
        return apply_op("EncodeJpeg", [(x, "image")], attrs, name=scope, dtypes=[_dt.string], same_dtype=False)


def encode_jpeg_variable_quality(images, quality, name=None):
    """A [height, width, 1 or 3] uint8 image as a JPEG at a quality given by a tensor."""
    with name_scope(name, "EncodeJpegVariableQuality", [images, quality]) as scope:
        x = convert_to_tensor(images, dtype=_dt.uint8, name="images")
        q = convert_to_tensor(quality, dtype=_dt.int32, name="quality")
        return apply_op("EncodeJpegVariableQuality", [(x, "images"), (q, "quality")], {}, name=scope,
                        dtypes=[_dt.string], same_dtype=False)


def decode_webp(contents, channels=0, dtype=_dt.uint8, name=None):
    """A WebP-encoded scalar string as [frames, height, width, 3 or 4] uint8 (animations: 4 channels)."""
    _check_channels(channels, {0, 3, 4}, "decode_webp")
    if _dt.as_dtype(dtype) is not _dt.uint8:
        raise TypeError("dtype must be uint8 for decode_webp, got %s" % _dt.as_dtype(dtype).name)
    return _decode("DecodeWebP", contents, {"channels": channels, "dtype": _dt.uint8}, _dt.uint8, name)


def is_jpeg(contents, name=None):
    """True when a scalar string starts with JPEG's magic bytes (\\xff\\xd8\\xff)."""
    with name_scope(name, "is_jpeg", [contents]):
        head = substr(_contents(contents), 0, 3)
        return equal(head, b"\xff\xd8\xff", name="is_jpeg")
