"""SparseTensors as strings: serialize_sparse / serialize_many_sparse (three TensorProtos per sparse value:
indices, values, dense_shape) and deserialize_many_sparse (a batch back into one SparseTensor)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape
from lens.ops.sparse_ops import I64, sp_op, sparse_input
from lens.proto.tensor_util import make_ndarray, make_tensor_proto
from lens.proto import tensor_pb2

__all__ = ["serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse"]


def _triple(indices, values, shape):
    return np.array([make_tensor_proto(np.asarray(indices, np.int64)).SerializeToString(),
                     make_tensor_proto(np.asarray(values)).SerializeToString(),
                     make_tensor_proto(np.asarray(shape, np.int64)).SerializeToString()], dtype=object)


def _serialize_make(op, ctx):
    return lambda indices, values, shape: _triple(indices, values, shape)


def _serialize_many_make(op, ctx):
    def run(indices, values, shape):
        indices, values, shape = np.asarray(indices, np.int64), np.asarray(values), np.asarray(shape, np.int64)
        if len(shape) < 2:
            raise errors.InvalidArgumentError(None, op, "Rank of input SparseTensor should be > 1, but saw rank: %d"
                                              % len(shape))
        out = np.empty((int(shape[0]), 3), dtype=object)
        for b in range(int(shape[0])):
            rows = indices[:, 0] == b
            out[b] = _triple(indices[rows][:, 1:], values[rows], shape[1:])
        return out
    return run


def _parse(op, blob, what):
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(bytes(blob))
    except Exception:  # noqa: BLE001 - any decode failure is bad input
        raise errors.InvalidArgumentError(None, op, "Could not parse serialized_sparse[%s]" % what) from None
    return make_ndarray(proto)


def _deserialize_make(op, ctx):
    dtype = op._attrs["dtype"]

    def run(serialized):
        ser = np.asarray(serialized, dtype=object)
        if ser.ndim != 2 or ser.shape[1] != 3:
            raise errors.InvalidArgumentError(None, op, "Serialized sparse should be a matrix with 3 columns, got "
                                              "shape %s" % list(ser.shape))
        parts = []
        for b in range(ser.shape[0]):
            ind, val, shp = (_parse(op, ser[b, k], "%d, %d" % (b, k)) for k in range(3))
            if val.dtype != np.dtype(dtype.as_numpy_dtype) and not (dtype is _dt.string and val.dtype == object):
                raise errors.InvalidArgumentError(None, op, "Requested SparseTensor of type %s but SparseTensor[%d]"
                                                  ".values.dtype() == %s" % (dtype.name, b, val.dtype))
            parts.append((ind.reshape(len(val), len(shp)).astype(np.int64), val, shp))
        if not parts:
            raise errors.InvalidArgumentError(None, op, "Serialized sparse should have at least one row")
        rank = len(parts[0][2])
        if any(len(p[2]) != rank for p in parts):
            raise errors.InvalidArgumentError(None, op, "Inconsistent rank across SparseTensors")
        shape = np.max(np.stack([p[2] for p in parts]), axis=0) if rank else np.zeros(0, np.int64)
        ind = np.concatenate([np.concatenate([np.full((len(p[1]), 1), b, np.int64), p[0]], 1)
                              for b, p in enumerate(parts)])
        val = np.concatenate([p[1] for p in parts])
        return ind, val.astype(object if dtype is _dt.string else dtype.as_numpy_dtype), \
            np.concatenate([[len(parts)], shape]).astype(np.int64)
    return run


register_op("SerializeSparse", make=_serialize_make, not_differentiable=True, shape=lambda op: [TensorShape([3])])
register_op("SerializeManySparse", make=_serialize_many_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None, 3])])
register_op("DeserializeManySparse", make=_deserialize_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None, None]), TensorShape([None]), TensorShape([None])])


def _serialize(op_type, sp_input, name, out_type):
    sp = sparse_input(sp_input)
    if _dt.as_dtype(out_type) is not _dt.string:
        raise TypeError("lens serializes SparseTensors to tf.string only, got out_type=%s" % out_type)
    with name_scope(name, op_type, [sp.values]) as scope:
        return sp_op(op_type, [(sp.indices, "sparse_indices"), (sp.values, "sparse_values"),
                               (sp.dense_shape, "sparse_shape")], [_dt.string], scope,
                     {"T": sp.dtype.base_dtype, "out_type": _dt.string})[0]


def serialize_sparse(sp_input, name=None, out_type=_dt.string):
    """A string vector [3]: the serialized indices, values and dense_shape of sp_input."""
    return _serialize("SerializeSparse", sp_input, name, out_type)


def serialize_many_sparse(sp_input, name=None, out_type=_dt.string):
    """A string matrix [N, 3]: one serialize_sparse row per entry of sp_input's first dimension."""
    return _serialize("SerializeManySparse", sp_input, name, out_type)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """One SparseTensor from a [N, 3] batch of serialized ones: batch index first, each dimension the
    largest of the batch."""
    dtype = _dt.as_dtype(dtype)
    with name_scope(name, "DeserializeManySparse", [serialized_sparse]) as scope:
        ind, val, shp = sp_op("DeserializeManySparse", [(serialized_sparse, "serialized_sparse")],
                              [I64, dtype, I64], scope, {"dtype": dtype})
    if rank is not None:
        ind.set_shape([None, rank])
        shp.set_shape([rank])
    return SparseTensor(ind, val, shp)
