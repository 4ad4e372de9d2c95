"""Op-table rows for tf.io's codecs, against Python's base64, zlib/gzip, json and NumPy."""
import base64
import gzip
import json
import zlib

import numpy as np

import lens as tf
from optable_lib import custom


def _run(fetch_fn):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(fetch_fn())


_RAW = [b"", b"a", b"hi?", bytes(range(250, 256)), b"lens queue" * 3]


def _b64():
    got = _run(lambda: tf.io.encode_base64(tf.constant(_RAW)))
    assert got.tolist() == [base64.urlsafe_b64encode(v).rstrip(b"=") for v in _RAW]
    padded = _run(lambda: tf.io.encode_base64(tf.constant(_RAW), pad=True))
    assert padded.tolist() == [base64.urlsafe_b64encode(v) for v in _RAW]


def _unb64():
    enc = np.array([base64.urlsafe_b64encode(v).rstrip(b"=") for v in _RAW], dtype=object).reshape(5, 1)
    assert _run(lambda: tf.io.decode_base64(tf.constant(enc))).ravel().tolist() == _RAW
    try:
        _run(lambda: tf.io.decode_base64("not base64!"))
        raise AssertionError("bad base64 was accepted")
    except tf.errors.InvalidArgumentError:
        pass


def _decompress():
    data = b"compress me " * 20
    for kind, packed in (("ZLIB", zlib.compress(data)), ("GZIP", gzip.compress(data)), ("", data)):
        assert _run(lambda: tf.io.decode_compressed(tf.constant(packed), kind)) == data


def _serialize():
    from lens.proto import tensor_pb2
    for value, dtype in ((np.arange(6, dtype=np.float32).reshape(2, 3), tf.float32),
                         (np.array([b"x", b"yz"], dtype=object), tf.string), (np.int64(-7), tf.int64)):
        ser = _run(lambda: tf.io.serialize_tensor(tf.constant(value)))
        proto = tensor_pb2.TensorProto.FromString(ser)           # a real TensorProto
        assert proto.dtype == dtype.as_datatype_enum
        assert [d.size for d in proto.tensor_shape.dim] == list(np.shape(value))
        back = _run(lambda: tf.io.parse_tensor(ser, dtype))
        np.testing.assert_array_equal(np.asarray(back), np.asarray(value))
    try:
        _run(lambda: tf.io.parse_tensor(tf.io.serialize_tensor([1.0]), tf.int32))
        raise AssertionError("a float tensor parsed as int32")
    except tf.errors.InvalidArgumentError as e:
        assert "Type mismatch between parsed tensor (float) and dtype (int32)" in str(e)


def _json():
    doc = {"features": {"feature": {"a": {"int64List": {"value": ["3", "4"]}},
                                    "b": {"bytesList": {"value": [base64.b64encode(b"hi").decode()]}}}}}
    ser = _run(lambda: tf.io.decode_json_example(json.dumps(doc)))
    ex = tf.train.Example.FromString(ser)
    assert list(ex.features.feature["a"].int64_list.value) == [3, 4]
    assert list(ex.features.feature["b"].bytes_list.value) == [b"hi"]


ROWS = [custom("EncodeBase64", _b64), custom("DecodeBase64", _unb64), custom("DecodeCompressed", _decompress),
        custom("SerializeTensor", _serialize), custom("ParseTensor", _serialize), custom("DecodeJSONExample", _json)]
