"""tf.io codecs: encode_base64/decode_base64 (web-safe), decode_compressed, serialize_tensor/parse_tensor,
decode_json_example."""
import base64
import binascii
import gzip
import zlib

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.registry import register_op
from lens.framework.tensor_shape import unknown_shape
from lens.proto import tensor_util

__all__ = ["encode_base64", "decode_base64", "decode_compressed", "serialize_tensor", "parse_tensor",
           "decode_json_example"]


def _bytes(v):
    return v if isinstance(v, bytes) else str(v).encode()


def _elementwise(fn):
    """A kernel applying fn(bytes) -> bytes to every element of a string array."""
    def kernel(x):
        arr = np.asarray(x, dtype=object)
        out = np.empty(arr.shape, dtype=object)
        for i, v in np.ndenumerate(arr):
            out[i] = fn(_bytes(v))
        return out
    return kernel


def _b64encode(pad):
    def enc(v):
        s = base64.urlsafe_b64encode(v)
        return s if pad else s.rstrip(b"=")
    return enc


def _b64decode(op):
    def dec(v):
        try:
            return base64.urlsafe_b64decode(v + b"=" * (-len(v) % 4))
        except (binascii.Error, ValueError):
            raise errors.InvalidArgumentError(None, op, "Invalid character found in base64: %r" % v[:40]) from None
    return dec


def _decompress(kind, op):
    def run(v):
        try:
            if kind == "ZLIB":
                return zlib.decompress(v)
            if kind == "GZIP":
                return gzip.decompress(v)
            return v
        except (zlib.error, OSError, EOFError) as e:
            raise errors.DataLossError(None, op, "decode_compressed(%s) failed: %s" % (kind, e)) from None
    return run


def _same(op):
    return [op._inputs[0].shape]


register_op("EncodeBase64", make=lambda op, ctx: _elementwise(_b64encode(op._attrs.get("pad", False))),
            not_differentiable=True, shape=_same)
register_op("DecodeBase64", make=lambda op, ctx: _elementwise(_b64decode(op)), not_differentiable=True, shape=_same)
register_op("DecodeCompressed", make=lambda op, ctx: _elementwise(_decompress(op._attrs["compression_type"], op)),
            not_differentiable=True, shape=_same)


def _serialize_make(op, ctx):
    return lambda x: np.array(tensor_util.make_tensor_proto(np.asarray(x)).SerializeToString(), dtype=object)


def _tf_name(dtype):
    """TF's DataTypeString spelling (float, double, int32, ...)."""
    return {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


def _parse_make(op, ctx):
    out_type = op._attrs["out_type"]

    def run(serialized):
        from lens.proto import tensor_pb2
        proto = tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(_bytes(np.asarray(serialized, dtype=object)[()]))
        except Exception:  # noqa: BLE001 - any decode failure is TF's InvalidArgumentError
            raise errors.InvalidArgumentError(None, op, "Could not parse `serialized` as TensorProto") from None
        if proto.dtype != out_type.as_datatype_enum:
            raise errors.InvalidArgumentError(None, op, "Type mismatch between parsed tensor (%s) and dtype (%s)"
                                              % (_tf_name(_dt.as_dtype(proto.dtype)), _tf_name(out_type)))
        return tensor_util.make_ndarray(proto)
    return run


register_op("SerializeTensor", make=_serialize_make, not_differentiable=True, shape=lambda op: [()])
register_op("ParseTensor", make=_parse_make, not_differentiable=True, shape=lambda op: [unknown_shape()])


def _json_make(op, ctx):
    from google.protobuf import json_format
    from lens.proto import example_pb2

    def one(v):
        try:
            return json_format.Parse(v.decode(), example_pb2.Example()).SerializeToString()
        except (json_format.ParseError, UnicodeDecodeError) as e:
            raise errors.InvalidArgumentError(None, op, "Error while parsing JSON: %s" % e) from None
    return _elementwise(one)


register_op("DecodeJSONExample", make=_json_make, not_differentiable=True, shape=_same)


def _string(x, name):
    return convert_to_tensor(x, dtype=_dt.string, name=name)


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's name
    """Web-safe base64 ('-' and '_') of each string; '=' padding only when pad."""
    return apply_op("EncodeBase64", [(_string(input, "input"), "input")], {"pad": bool(pad)},
                    name=name or "EncodeBase64", dtypes=[_dt.string])


def decode_base64(input, name=None):  # noqa: A002
    """The bytes of each web-safe base64 string (padding optional)."""
    return apply_op("DecodeBase64", [(_string(input, "input"), "input")], name=name or "DecodeBase64",
                    dtypes=[_dt.string])


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002
    """Each string decompressed ('' none, 'ZLIB', 'GZIP')."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise ValueError("compression_type must be '', 'ZLIB' or 'GZIP', got %r" % (compression_type,))
    return apply_op("DecodeCompressed", [(_string(bytes, "bytes"), "bytes")], {"compression_type": compression_type},
                    name=name or "DecodeCompressed", dtypes=[_dt.string])


def serialize_tensor(tensor, name=None):
    """A scalar string: the tensor as a serialized TensorProto."""
    t = convert_to_tensor(tensor, name="tensor")
    return apply_op("SerializeTensor", [(t, "tensor")], {"T": t.dtype.base_dtype}, name=name or "SerializeTensor",
                    dtypes=[_dt.string])


def parse_tensor(serialized, out_type, name=None):
    """The tensor inside a serialized TensorProto (InvalidArgumentError when its dtype is not out_type)."""
    out_type = _dt.as_dtype(out_type)
    return apply_op("ParseTensor", [(_string(serialized, "serialized"), "serialized")], {"out_type": out_type},
                    name=name or "ParseTensor", dtypes=[out_type])


def decode_json_example(json_examples, name=None):
    """Each JSON-encoded tf.train.Example as a serialized binary Example."""
    return apply_op("DecodeJSONExample", [(_string(json_examples, "json_examples"), "json_examples")],
                    name=name or "DecodeJSONExample", dtypes=[_dt.string])
