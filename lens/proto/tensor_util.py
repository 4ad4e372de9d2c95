"""NumPy arrays <-> TensorProto, following TF1's make_tensor_proto / MakeNdarray encoding rules."""
import numpy as np

from lens.proto import tensor_pb2, tensor_shape_pb2, types_pb2

DT = types_pb2.DataType

# numpy dtype -> DataType (the canonical direction for encoding).
NP_TO_DT = {
    np.dtype(np.float32): DT.Value("DT_FLOAT"),
    np.dtype(np.float64): DT.Value("DT_DOUBLE"),
    np.dtype(np.int32): DT.Value("DT_INT32"),
    np.dtype(np.uint8): DT.Value("DT_UINT8"),
    np.dtype(np.int16): DT.Value("DT_INT16"),
    np.dtype(np.int8): DT.Value("DT_INT8"),
    np.dtype(np.complex64): DT.Value("DT_COMPLEX64"),
    np.dtype(np.int64): DT.Value("DT_INT64"),
    np.dtype(np.bool_): DT.Value("DT_BOOL"),
    np.dtype(np.uint16): DT.Value("DT_UINT16"),
    np.dtype(np.complex128): DT.Value("DT_COMPLEX128"),
    np.dtype(np.float16): DT.Value("DT_HALF"),
    np.dtype(np.uint32): DT.Value("DT_UINT32"),
    np.dtype(np.uint64): DT.Value("DT_UINT64"),
    np.dtype(object): DT.Value("DT_STRING"),
}

# DataType -> numpy dtype used when decoding. Quantized types decode to their storage
# integers; bfloat16 has no numpy type, so it decodes to float32 (exact widening).
DT_TO_NP = {dt: npd for npd, dt in NP_TO_DT.items()}
DT_TO_NP.update({
    DT.Value("DT_QINT8"): np.dtype(np.int8),
    DT.Value("DT_QUINT8"): np.dtype(np.uint8),
    DT.Value("DT_QINT16"): np.dtype(np.int16),
    DT.Value("DT_QUINT16"): np.dtype(np.uint16),
    DT.Value("DT_QINT32"): np.dtype(np.int32),
    DT.Value("DT_BFLOAT16"): np.dtype(np.float32),
})

# Element types TF stores as raw bytes in tensor_content (when the values fill the shape).
_CONTENT_TYPES = frozenset(DT.Value(n) for n in (
    "DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16", "DT_INT8", "DT_INT64",
    "DT_QINT8", "DT_QUINT8", "DT_QINT16", "DT_QUINT16", "DT_QINT32", "DT_UINT32", "DT_UINT64"))
_QUANTIZED = frozenset(DT.Value(n) for n in (
    "DT_QINT8", "DT_QUINT8", "DT_QINT16", "DT_QUINT16", "DT_QINT32"))
_INT_VAL_TYPES = frozenset(DT.Value(n) for n in (
    "DT_INT32", "DT_UINT8", "DT_UINT16", "DT_INT16", "DT_INT8")) | _QUANTIZED


def base_dtype(dt):
    """Strip the _REF (+100) from a DataType value."""
    return dt - 100 if dt > 100 else dt


def as_datatype_enum(dtype):
    """DataType value from an enum int, a name ('float32', 'DT_FLOAT'), a numpy dtype or a DType."""
    if hasattr(dtype, "as_datatype_enum"):
        return dtype.as_datatype_enum
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        if int(dtype) in DT.values():
            return int(dtype)
        raise TypeError("unknown DataType value %d" % dtype)
    if isinstance(dtype, str) and dtype.upper().startswith("DT_"):
        return DT.Value(dtype.upper())
    if isinstance(dtype, str) and dtype in ("string", "str"):
        return DT.Value("DT_STRING")
    if isinstance(dtype, str) and dtype in ("half",):
        return DT.Value("DT_HALF")
    if isinstance(dtype, str) and dtype == "bfloat16":
        return DT.Value("DT_BFLOAT16")
    try:
        npd = np.dtype(dtype)
    except TypeError:
        raise TypeError("cannot interpret %r as a tensor dtype; pass a numpy dtype, a name like "
                        "'float32' or a DataType value" % (dtype,)) from None
    if npd.kind in "SU":
        return DT.Value("DT_STRING")
    if npd not in NP_TO_DT:
        raise TypeError("numpy dtype %s has no TensorFlow DataType" % npd)
    return NP_TO_DT[npd]


def _as_bytes(x):
    """Encode one string element (str as UTF-8)."""
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, np.bytes_):
        return bytes(x)
    raise TypeError("string tensor element %r (%s) is neither str nor bytes; convert it first"
                    % (x, type(x).__name__))


def _to_array(values, dt):
    """Convert Python/NumPy values to an ndarray, preferring float32/int32 for Python numbers."""
    if isinstance(values, (np.ndarray, np.generic)):
        arr = np.asarray(values)
        if arr.dtype.kind in "SU":
            arr = arr.astype(object)
        if dt is not None and dt != DT.Value("DT_STRING") and dt in DT_TO_NP:
            arr = arr.astype(DT_TO_NP[dt])
        return arr
    if values is None:
        raise ValueError("None values not supported in a tensor; pass a number, string or array")
    if dt == DT.Value("DT_STRING") or _looks_like_strings(values):
        arr = np.empty(np.shape(np.array(values, dtype=object)), dtype=object)
        arr[...] = np.array(values, dtype=object)
        return arr
    try:
        arr = np.array(values, dtype=DT_TO_NP.get(dt) if dt is not None else None)
    except ValueError as exc:
        raise ValueError("values are not a dense tensor (ragged nesting?): %r (%s)"
                         % (values, exc)) from None
    if arr.dtype == object:
        raise ValueError("values are not a dense tensor (ragged nesting?): %r" % (values,))
    if dt is None:
        # Python floats become float32 and Python ints int32 when they fit, as in TF1.
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        elif arr.dtype == np.int64:
            small = arr.astype(np.int32)
            if np.array_equal(small, arr):
                arr = small
    return arr


def _looks_like_strings(values):
    """True when the first leaf of a nested list is str/bytes."""
    while isinstance(values, (list, tuple)) and values:
        values = values[0]
    return isinstance(values, (str, bytes))


def make_tensor_shape_proto(shape):
    """TensorShapeProto from a list of ints (None/-1 for unknown) or None for unknown rank."""
    if shape is None:
        return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d is None else int(d))
             for d in shape])


def make_tensor_proto(values, dtype=None, shape=None):
    """Build a TensorProto; a shape larger than the values stores them unbroadcast, as TF does."""
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    dt = None if dtype is None else base_dtype(as_datatype_enum(dtype))
    arr = _to_array(values, dt)
    arr_dt = as_datatype_enum(arr.dtype)
    if dt is None:
        dt = arr_dt
    elif dt not in _QUANTIZED and dt != DT.Value("DT_BFLOAT16") and arr_dt != dt:
        raise TypeError("values of type %s cannot be stored as %s" % (arr.dtype, DT.Name(dt)))
    if shape is None:
        shape = list(arr.shape)
        shape_size = arr.size
    else:
        shape = [int(d) for d in shape]
        shape_size = int(np.prod(shape, dtype=np.int64))
        if arr.size > shape_size:
            raise ValueError("too many values for shape %s: needed at most %d, got %d"
                             % (shape, shape_size, arr.size))
    proto = tensor_pb2.TensorProto(dtype=dt, tensor_shape=make_tensor_shape_proto(shape))
    flat = arr.ravel()
    if arr.size == shape_size and dt in _CONTENT_TYPES and shape_size > 1:
        proto.tensor_content = np.ascontiguousarray(flat).astype(flat.dtype.newbyteorder("<"),
                                                                 copy=False).tobytes()
        return proto
    _append_values(proto, dt, flat)
    return proto


def _append_values(proto, dt, flat):
    """Fill the typed repeated field that TF uses for this dtype."""
    name = DT.Name(dt)
    if name == "DT_STRING":
        proto.string_val.extend(_as_bytes(x) for x in flat)
    elif name == "DT_HALF":
        proto.half_val.extend(flat.astype(np.float16).view(np.uint16).tolist())
    elif name == "DT_BFLOAT16":
        bits = flat.astype(np.float32).view(np.uint32)
        # Round to nearest even when dropping the low 16 bits.
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        proto.half_val.extend(rounded.astype(np.uint16).tolist())
    elif name == "DT_FLOAT":
        proto.float_val.extend(flat.tolist())
    elif name == "DT_DOUBLE":
        proto.double_val.extend(flat.tolist())
    elif dt in _INT_VAL_TYPES:
        proto.int_val.extend(flat.tolist())
    elif name == "DT_INT64":
        proto.int64_val.extend(flat.tolist())
    elif name == "DT_UINT32":
        proto.uint32_val.extend(flat.tolist())
    elif name == "DT_UINT64":
        proto.uint64_val.extend(flat.tolist())
    elif name == "DT_BOOL":
        proto.bool_val.extend(flat.tolist())
    elif name in ("DT_COMPLEX64", "DT_COMPLEX128"):
        pairs = np.stack([flat.real, flat.imag], axis=-1).ravel().tolist()
        (proto.scomplex_val if name == "DT_COMPLEX64" else proto.dcomplex_val).extend(pairs)
    else:
        raise TypeError("cannot store elements of %s in a TensorProto" % name)


def _fill(values, count, npd):
    """Expand stored values to count elements: one value broadcasts, a short list pads with its last."""
    arr = np.asarray(values, dtype=npd)
    if arr.size == count:
        return arr
    if arr.size == 0:
        return np.zeros(count, dtype=npd)
    if arr.size > count:
        raise ValueError("TensorProto holds %d values but its shape has only %d elements"
                         % (arr.size, count))
    return np.concatenate([arr, np.repeat(arr[-1:], count - arr.size)])


def make_ndarray(proto):
    """Decode a TensorProto to an ndarray of its shape (strings as an object array of bytes)."""
    shape = [d.size for d in proto.tensor_shape.dim]
    count = int(np.prod(shape, dtype=np.int64))
    dt = base_dtype(proto.dtype)
    if dt not in DT_TO_NP:
        raise TypeError("cannot decode a TensorProto of dtype %s to numpy" % DT.Name(proto.dtype))
    npd = DT_TO_NP[dt]
    name = DT.Name(dt)
    if proto.tensor_content:
        if name == "DT_STRING":
            raise ValueError("a DT_STRING TensorProto cannot use tensor_content")
        if name == "DT_BFLOAT16":
            bits = np.frombuffer(proto.tensor_content, dtype="<u2").astype(np.uint32) << 16
            return bits.view(np.float32).reshape(shape)
        raw = np.frombuffer(proto.tensor_content, dtype=npd.newbyteorder("<"))
        return raw.astype(npd).reshape(shape)
    if name == "DT_STRING":
        vals = list(proto.string_val) or ([b""] if count else [])  # an empty tensor holds no string
        if len(vals) > count:
            raise ValueError("TensorProto holds %d strings but its shape has only %d elements"
                             % (len(vals), count))
        flat = np.empty(count, dtype=object)
        if count:
            flat[:] = vals + [vals[-1]] * (count - len(vals))
        return flat.reshape(shape)
    if name == "DT_HALF":
        bits = _fill(proto.half_val, count, np.uint16)
        return bits.view(np.float16).reshape(shape)
    if name == "DT_BFLOAT16":
        bits = _fill(proto.half_val, count, np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    if name in ("DT_COMPLEX64", "DT_COMPLEX128"):
        src = proto.scomplex_val if name == "DT_COMPLEX64" else proto.dcomplex_val
        pairs = np.asarray(src, dtype=np.float64).reshape(-1, 2)
        # Assign parts separately: real + 1j*imag would turn 0+inf*j into nan+inf*j.
        vals = np.empty(len(pairs), dtype=npd)
        vals.real, vals.imag = pairs[:, 0], pairs[:, 1]
        return _fill(vals, count, npd).reshape(shape)
    field = {"DT_FLOAT": "float_val", "DT_DOUBLE": "double_val", "DT_INT64": "int64_val",
             "DT_UINT32": "uint32_val", "DT_UINT64": "uint64_val", "DT_BOOL": "bool_val"}
    src = getattr(proto, field[name]) if name in field else proto.int_val
    return _fill(src, count, npd).reshape(shape)
