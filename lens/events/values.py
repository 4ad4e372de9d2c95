"""Turn Summary.Value protos into what the store keeps: TensorProto decoding, histograms,
images, audio, text, and the nine-point compressed histograms of the Distributions dashboard."""

import numpy as np

BASIS_POINTS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)

# DataType enum value -> (numpy dtype, TensorProto field holding *_val)
_DTYPES = {
    1: (np.float32, "float_val"), 2: (np.float64, "double_val"), 3: (np.int32, "int_val"),
    4: (np.uint8, "int_val"), 5: (np.int16, "int_val"), 6: (np.int8, "int_val"),
    7: (object, "string_val"), 9: (np.int64, "int64_val"), 10: (np.bool_, "bool_val"),
    17: (np.uint16, "int_val"), 19: (np.float16, "half_val"), 22: (np.uint32, "uint32_val"),
    23: (np.uint64, "uint64_val"),
}


# Summary.Value kinds TensorBoard converts to tensors, and the plugin each one then belongs to.
LEGACY_PLUGINS = {"simple_value": "scalars", "histo": "histograms", "image": "images",
                  "audio": "audio"}


def initial_metadata(value):
    """The SummaryMetadata TensorBoard keeps for a tag whose first value is `value`, or None.

    A legacy value (simple_value, histo, image, audio) gets its plugin, its own display name or
    else the tag, and its description; a tensor value keeps the metadata written with it."""
    kind = value.WhichOneof("value")
    plugin = LEGACY_PLUGINS.get(kind)
    if plugin is None:
        return value.metadata if value.HasField("metadata") else None
    from lens.proto import summary_pb2

    meta = summary_pb2.SummaryMetadata(
        display_name=value.metadata.display_name or value.tag,
        summary_description=value.metadata.summary_description)
    meta.plugin_data.plugin_name = plugin
    return meta


def tensor_to_ndarray(tensor):
    """NumPy array of a TensorProto (numeric, bool, half or string dtypes)."""
    if tensor.dtype not in _DTYPES:
        raise ValueError("unsupported tensor dtype %d in an event file" % tensor.dtype)
    dtype, field = _DTYPES[tensor.dtype]
    shape = tuple(d.size for d in tensor.tensor_shape.dim)
    count = int(np.prod(shape)) if shape else 1
    if dtype is object:
        flat = np.array(list(tensor.string_val), dtype=object)
    elif tensor.tensor_content:
        flat = np.frombuffer(tensor.tensor_content, dtype=np.dtype(dtype).newbyteorder("<"))
    elif field == "half_val":
        flat = np.array(tensor.half_val, dtype=np.uint16).view(np.float16)
    else:
        flat = np.array(getattr(tensor, field), dtype=dtype)
    if flat.size == count:
        return flat.reshape(shape)
    if flat.size == 1 or flat.size == 0:
        # One value (or none = zero) broadcast to the whole shape, as TensorFlow reads it.
        fill = flat[0] if flat.size else (b"" if dtype is object else 0)
        return np.full(shape, fill, dtype=dtype)
    raise ValueError("tensor holds %d values but its shape %s needs %d"
                     % (flat.size, list(shape), count))


def histo_dict(histo):
    """A HistogramProto as the provider's histogram dict."""
    return {"min": histo.min, "max": histo.max, "num": histo.num, "sum": histo.sum,
            "sum_squares": histo.sum_squares, "bucket_limit": list(histo.bucket_limit),
            "bucket": list(histo.bucket)}


def histo_from_tensor(array):
    """A TF2-style [k, 3] (left, right, count) histogram tensor as a histogram dict."""
    array = np.asarray(array, dtype=np.float64).reshape(-1, 3)
    if len(array) == 0:
        return {"min": 0.0, "max": 0.0, "num": 0.0, "sum": 0.0, "sum_squares": 0.0,
                "bucket_limit": [], "bucket": []}
    left, right, count = array[:, 0], array[:, 1], array[:, 2]
    centers = (left + right) / 2
    return {"min": float(left[0]), "max": float(right[-1]), "num": float(count.sum()),
            "sum": float((centers * count).sum()),
            "sum_squares": float((centers * centers * count).sum()),
            "bucket_limit": right.tolist(), "bucket": count.tolist()}


def histo_tensor(array):
    """A TF2 histogram tensor kept as written: a [k, 3] array of (left, right, count)."""
    array = np.asarray(array)
    if array.dtype.kind not in "biuf" or (array.size and array.shape[-1] != 3):
        raise ValueError("a histogram tensor must be numbers of shape [k, 3], got %s %s"
                         % (array.dtype, list(array.shape)))
    return array.reshape(-1, 3)


def legacy_buckets(histo):
    """A HistogramProto dict as [k, 3] float32 (left, right, count), as TensorBoard reads it.

    Empty buckets at both ends go (inner empty buckets stay), then the histogram's min and max
    replace the outer edges, so no edge is +-DBL_MAX; all empty gives shape [0, 3]."""
    counts = np.asarray(histo["bucket"], dtype=np.float64)
    full = np.flatnonzero(counts > 0)
    if not len(full):
        return np.zeros((0, 3), np.float32)
    first, last = int(full[0]), int(full[-1])
    inner = list(histo["bucket_limit"][first:last])
    return np.array([[histo["min"]] + inner, inner + [histo["max"]], counts[first:last + 1]],
                    dtype=np.float32).T


def compress_buckets(buckets, basis_points=BASIS_POINTS):
    """[(bp, value)]: the value below which bp/10000 of a [k, 3] histogram's weight lies.

    Inside the bucket where the cumulative weight passes bp the value is interpolated linearly
    between its left edge (the first bucket's left edge when nothing lies below) and its right
    edge; zero-weight buckets are skipped; past the data every point is the last right edge."""
    buckets = np.asarray(buckets, dtype=np.float64).reshape(-1, 3)
    if not len(buckets):
        return [(bp, 0.0) for bp in basis_points]
    lowest, highest = buckets[0, 0], buckets[-1, 1]
    rights, counts = buckets[:, 1], buckets[:, 2]
    cum = np.cumsum(counts * basis_points[-1] / (counts.sum() or 1.0))
    out = []
    for bp in basis_points:
        i = int(np.searchsorted(cum, bp, side="right"))
        while i < len(cum) and cum[i] == (cum[i - 1] if i else 0.0):
            i += 1  # a bucket without weight cannot hold the point
        if i >= len(cum):
            out.append((bp, float(highest)))
            continue
        below = cum[i - 1] if i else 0.0
        left = lowest if below == 0 else max(rights[i - 1], lowest)
        right = min(rights[i], highest)
        out.append((bp, float(left + (bp - below) * (right - left) / (cum[i] - below))))
    return out


def image_from_tensor(array):
    """[(width, height, encoded)] from a TF2 images tensor [width, height, png, png, ...]."""
    flat = list(np.asarray(array, dtype=object).reshape(-1))
    if len(flat) < 2:
        return []
    width, height = int(flat[0] or 0), int(flat[1] or 0)
    return [(width, height, bytes(blob)) for blob in flat[2:]]


def sniff_image(data):
    """MIME type of encoded image bytes."""
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data.startswith(b"GIF8"):
        return "image/gif"
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"BM"):
        return "image/bmp"
    return "application/octet-stream"


def text_array(array):
    """String tensor values decoded to a NumPy array of str."""
    array = np.asarray(array, dtype=object)
    decode = np.vectorize(lambda b: b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b),
                          otypes=[object])
    return decode(array).astype(str) if array.size else array.astype(str)
