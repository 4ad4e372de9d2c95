"""tf.train.Example parsing: FixedLenFeature, VarLenFeature, parse_single_example, parse_example."""
import collections

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape, as_shape
from lens.ops.sparse_misc import sparse_merge

__all__ = ["FixedLenFeature", "VarLenFeature", "SparseFeature", "parse_single_example", "parse_example",
           "SparseTensor"]

_KINDS = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}
_KIND_NAMES = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with exactly prod(shape) values of dtype (float32, int64 or string)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values, parsed into a SparseTensor."""


class SparseFeature(collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size",
                                                             "already_sorted"])):
    """A SparseTensor [batch, size] built from an int64 index feature and a value feature of one Example."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


def _expand_sparse_features(features):
    """(features with each SparseFeature replaced by VarLenFeatures of its keys, the SparseFeatures)."""
    if not isinstance(features, dict):
        return features, []
    plain, merges = {}, []
    for key, f in features.items():
        if not isinstance(f, SparseFeature):
            plain[key] = f
            continue
        if not isinstance(f.index_key, str):
            raise ValueError("SparseFeature %r: lens supports one index_key (a string), got %r"
                             % (key, f.index_key))
        for k, dt in ((f.index_key, _dt.int64), (f.value_key, _dt.as_dtype(f.dtype))):
            given = features.get(k)
            if given is not None and not (isinstance(given, VarLenFeature) and _dt.as_dtype(given.dtype) is dt):
                raise ValueError("Conflicting features for %r: %s and the %s of SparseFeature %r"
                                 % (k, given, "index" if dt is _dt.int64 and k == f.index_key else "values", key))
            plain[k] = VarLenFeature(dt)
        merges.append((key, f))
    return plain, merges


def _merge_sparse_features(result, features, merges):
    """The SparseFeatures built from their parsed index and value SparseTensors (TF's sparse_merge)."""
    for key, f in merges:
        result[key] = sparse_merge(result[f.index_key], result[f.value_key], f.size,
                                   already_sorted=f.already_sorted)
    for key in [k for k in result if k not in features]:
        del result[key]
    return result


def _feature_dtype(feature, key):
    dt = _dt.as_dtype(feature.dtype)
    if dt.name not in _KINDS:
        raise ValueError("Unsupported dtype %s for feature %r: Example features are float32, int64 or "
                         "string" % (dt.name, key))
    return dt


def _specs(features):
    """Sorted (key, dtype, shape-or-None, default) for dense, then sparse features, as TF orders them."""
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature key -> FixedLenFeature/VarLenFeature")
    dense, sparse = [], []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, FixedLenFeature):
            shape = as_shape(f.shape)
            if not shape.is_fully_defined():
                raise ValueError("FixedLenFeature %r needs a fully defined shape, got %s" % (key, shape))
            dense.append((key, _feature_dtype(f, key), shape, f.default_value))
        elif isinstance(f, VarLenFeature):
            sparse.append((key, _feature_dtype(f, key)))
        else:
            raise ValueError("Unsupported feature type for %r: %r (use FixedLenFeature or VarLenFeature)"
                             % (key, type(f).__name__))
    return dense, sparse


class _Spec:
    """The parsed feature specs of one parse op (a Python-only attr: never written to a GraphDef)."""

    def __init__(self, dense, sparse):
        self.dense, self.sparse = dense, sparse


def _default_tensor(key, dtype, shape, default):
    if default is None:
        return convert_to_tensor(np.zeros([0], dtype=dtype.as_numpy_dtype), dtype, name="key_%s" % key)
    arr = np.asarray(default if dtype is not _dt.string else np.array(default, dtype=object))
    n = shape.num_elements()
    if arr.size != n and arr.size != 1:
        raise ValueError("default_value for feature %r has %d values; its shape %s needs %d"
                         % (key, arr.size, shape, n))
    return convert_to_tensor(np.broadcast_to(arr, shape.as_list()).copy() if arr.size == 1 else
                             arr.reshape(shape.as_list()), dtype, name="key_%s" % key)


def _values_of(example, key, dtype, where):
    """The values of feature key in a parsed Example, or None when absent."""
    fmap = example.features.feature
    if key not in fmap:
        return None
    feat = fmap[key]
    kind = feat.WhichOneof("kind")
    want = _KINDS[dtype.name]
    if kind is None:
        kind = want  # an empty Feature parses as an empty list of any type
    if kind != want:
        raise errors.InvalidArgumentError(None, None, "Name: %s, Feature: %s.  Data types don't match. Data "
                                          "type: %s but expected type: %s"
                                          % (where, key, _KIND_NAMES[kind], _KIND_NAMES[want]))
    vals = getattr(feat, want).value
    if dtype is _dt.string:
        return np.array(list(vals), dtype=object)
    return np.asarray(vals, dtype=dtype.as_numpy_dtype)


def _parse(serialized, dense, sparse, defaults):
    """Parse a vector of serialized Examples into dense arrays and sparse triples."""
    from lens.proto.example_pb2 import Example
    from google.protobuf.message import DecodeError
    batch = len(serialized)
    examples = []
    for i, s in enumerate(serialized):
        try:
            examples.append(Example.FromString(bytes(s)))
        except (DecodeError, TypeError) as e:
            raise errors.InvalidArgumentError(None, None, "Could not parse example input, value %d: %r "
                                              "(%s); feed serialized tf.train.Example protos"
                                              % (i, bytes(s)[:40], e)) from None
    dense_out = []
    for (key, dtype, shape, _), default in zip(dense, defaults):
        n = shape.num_elements()
        out = np.empty([batch] + shape.as_list(), dtype=dtype.as_numpy_dtype)
        for i, ex in enumerate(examples):
            vals = _values_of(ex, key, dtype, "example %d" % i)
            if vals is None:
                if np.size(default) == 0 and n != 0:
                    raise errors.InvalidArgumentError(
                        None, None, "Name: example %d, Feature: %s (data type: %s) is required but could "
                        "not be found; give FixedLenFeature a default_value to make it optional"
                        % (i, key, _KIND_NAMES[_KINDS[dtype.name]]))
                out[i] = default
            elif vals.size != n:
                raise errors.InvalidArgumentError(
                    None, None, "Name: example %d, Key: %s, Index: 0.  Number of %s values != expected.  "
                    "Values size: %d but output shape: %s" % (i, key, _KIND_NAMES[_KINDS[dtype.name]],
                                                              vals.size, shape.as_list()))
            else:
                out[i] = vals.reshape(shape.as_list())
        dense_out.append(out)
    sparse_out = []
    for key, dtype in sparse:
        per = [_values_of(ex, key, dtype, "example %d" % i) for i, ex in enumerate(examples)]
        per = [np.zeros([0], dtype=dtype.as_numpy_dtype) if v is None else v for v in per]
        lengths = np.array([v.size for v in per], dtype=np.int64)
        rows = np.repeat(np.arange(batch, dtype=np.int64), lengths)
        cols = np.arange(lengths.sum(), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        values = np.concatenate(per) if per else np.zeros([0], dtype=dtype.as_numpy_dtype)
        sparse_out.append((np.stack([rows, cols], axis=1),
                           values.astype(dtype.as_numpy_dtype) if dtype is not _dt.string else values,
                           np.array([batch, lengths.max() if batch else 0], dtype=np.int64)))
    return dense_out, sparse_out


def _text_key(k):
    return k.decode() if isinstance(k, bytes) else k


def _const_text(t):
    from lens.ops.shapes import const_value
    value = const_value(t)
    if value is None:
        raise errors.UnimplementedError(None, None, "%s: lens parses Examples only with constant feature "
                                        "keys; %s is computed" % (t.op.name, t.name))
    return _text_key(np.asarray(value, dtype=object).item())


def _spec_of(op):
    """The op's _Spec; rebuilt from its attrs and key inputs for an op imported from a GraphDef."""
    spec = op._attrs.get("_spec")
    if spec is not None:
        return spec
    a = op._attrs
    if op.type == "ParseExample":  # TF's layout: serialized, names, sparse keys, dense keys, defaults
        ns, nd = a.get("Nsparse", 0), a.get("Ndense", 0)
        sparse_keys = [_const_text(t) for t in op._inputs[2:2 + ns]]
        dense_keys = [_const_text(t) for t in op._inputs[2 + ns:2 + ns + nd]]
    else:
        sparse_keys, dense_keys = [_text_key(k) for k in a.get("sparse_keys", [])], \
            [_text_key(k) for k in a.get("dense_keys", [])]
    dense = [(k, _dt.as_dtype(t), as_shape(s), None)
             for k, t, s in zip(dense_keys, a.get("Tdense", []), a.get("dense_shapes", []))]
    sparse = [(k, _dt.as_dtype(t)) for k, t in zip(sparse_keys, a.get("sparse_types", []))]
    spec = _Spec(dense, sparse)
    op._attrs["_spec"] = spec
    return spec


def _parse_make(op, ctx):
    dense, sparse = _spec_of(op).dense, _spec_of(op).sparse
    single = op.type == "ParseSingleExample"

    skip = 1 + len(sparse) + len(dense) if op.type == "ParseExample" else 0  # names and key inputs

    def run(serialized, *rest):
        defaults = rest[skip:]
        arr = np.asarray(serialized, dtype=object)
        if single and arr.ndim != 0:
            raise errors.InvalidArgumentError(None, None, "parse_single_example needs a scalar string, got "
                                              "shape %s; use parse_example for a batch" % list(arr.shape))
        if not single and arr.ndim != 1:
            raise errors.InvalidArgumentError(None, None, "parse_example needs a vector of strings, got "
                                              "shape %s" % list(arr.shape))
        dense_out, sparse_out = _parse(arr.reshape(-1), dense, sparse, defaults)
        if single:
            dense_out = [d[0] for d in dense_out]
            sparse_out = [(ind[:, 1:], val, shp[1:]) for ind, val, shp in sparse_out]
        outs = [s[0] for s in sparse_out] + [s[1] for s in sparse_out] + [s[2] for s in sparse_out] + dense_out
        return outs[0] if len(outs) == 1 else tuple(outs)
    return run


def _parse_shapes(op):
    dense, sparse = _spec_of(op).dense, _spec_of(op).sparse
    batch = [] if op.type == "ParseSingleExample" else [op._inputs[0].shape.as_list()[0]
                                                        if op._inputs[0].shape.ndims == 1 else None]
    rank = len(batch) + 1
    return ([TensorShape([None, rank])] * len(sparse) + [TensorShape([None])] * len(sparse)
            + [TensorShape([rank])] * len(sparse) + [TensorShape(batch + s.as_list()) for _, _, s, _ in dense])


register_op("ParseExample", make=_parse_make, shape=_parse_shapes, not_differentiable=True)
register_op("ParseSingleExample", make=_parse_make, shape=_parse_shapes, not_differentiable=True)


def _build(op_type, serialized, features, name):
    dense, sparse = _specs(features)
    g = get_default_graph()
    with g.name_scope(name or op_type) as scope:
        ser = convert_to_tensor(serialized, _dt.string, name="serialized")
        want_rank = 0 if op_type == "ParseSingleExample" else 1
        if ser.shape.ndims is not None and ser.shape.ndims != want_rank:
            raise ValueError("%s needs a %s string tensor, got shape %s"
                             % ("parse_single_example" if want_rank == 0 else "parse_example",
                                "scalar" if want_rank == 0 else "vector (batch) of", ser.shape))
        attrs = {"_spec": _Spec(dense, sparse), "Tdense": [d[1] for d in dense],
                 "sparse_types": [dt for _, dt in sparse], "dense_shapes": [d[2] for d in dense]}
        if op_type == "ParseExample":
            # TF's ParseExample: serialized, names, then the keys as string inputs, then the defaults.
            keys = [convert_to_tensor(np.zeros([0], dtype=object), _dt.string, name="names")]
            keys += [convert_to_tensor(k, _dt.string, name="sparse_keys_%d" % i) for i, (k, _) in enumerate(sparse)]
            keys += [convert_to_tensor(k, _dt.string, name="dense_keys_%d" % i) for i, (k, *_) in enumerate(dense)]
            attrs.update(Nsparse=len(sparse), Ndense=len(dense))
        else:
            keys = []
            attrs.update(num_sparse=len(sparse), dense_keys=[k for k, *_ in dense],
                         sparse_keys=[k for k, _ in sparse])
        defaults = [_default_tensor(k, dt, s, d) for k, dt, s, d in dense]
        out_types = [_dt.int64] * len(sparse) + [dt for _, dt in sparse] + [_dt.int64] * len(sparse) + \
            [dt for _, dt, _, _ in dense]
        op = g._create_op(op_type, [ser] + keys + defaults, out_types, attrs, scope, frames_skip=4)
    outs, ns = op._outputs, len(sparse)
    result = {}
    for j, (key, _) in enumerate(sparse):
        result[key] = SparseTensor(outs[j], outs[ns + j], outs[2 * ns + j])
    for j, (key, *_) in enumerate(dense):
        result[key] = outs[3 * ns + j]
    return result


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parse one serialized tf.train.Example (scalar string) into a dict of tensors."""
    plain, merges = _expand_sparse_features(features)
    return _merge_sparse_features(_build("ParseSingleExample", serialized, plain, name), features, merges)


def parse_example(serialized, features, name=None, example_names=None):
    """Parse a batch (vector) of serialized tf.train.Examples; dense features gain a batch dimension."""
    plain, merges = _expand_sparse_features(features)
    return _merge_sparse_features(_build("ParseExample", serialized, plain, name), features, merges)
