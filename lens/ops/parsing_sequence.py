"""tf.io.parse_single_sequence_example / parse_sequence_example and FixedLenSequenceFeature: SequenceExample
protos into context features (FixedLenFeature / VarLenFeature) and per-step feature lists
(FixedLenSequenceFeature -> dense [steps, ...], VarLenFeature -> SparseTensor [steps, n])."""
import collections

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape, as_shape
from lens.ops.parsing import _KIND_NAMES, _KINDS, FixedLenFeature, VarLenFeature, _values_of

__all__ = ["FixedLenSequenceFeature", "parse_single_sequence_example", "parse_sequence_example"]


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature list whose every step holds shape values of dtype (allow_missing: absent lists are empty)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class _Context:
    """Makes a SequenceExample's context look like an Example for parsing._values_of."""

    def __init__(self, features):
        self.features = features


class _Step:
    def __init__(self, feature):
        self.features = type("F", (), {"feature": {"v": feature}})()


def _split(features, what):
    dense, sparse = [], []
    for key in sorted(features or {}):
        f = features[key]
        if isinstance(f, VarLenFeature):
            sparse.append((key, _dt.as_dtype(f.dtype)))
        elif isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            if what == "context" and isinstance(f, FixedLenSequenceFeature):
                raise ValueError("Context feature %r must be a FixedLenFeature or VarLenFeature" % key)
            if what == "sequence" and isinstance(f, FixedLenFeature):
                raise ValueError("Sequence feature %r must be a FixedLenSequenceFeature or VarLenFeature" % key)
            dense.append((key, _dt.as_dtype(f.dtype), as_shape(f.shape), f))
        else:
            raise ValueError("Unsupported %s feature %r: %r" % (what, key, f))
    return dense, sparse


def _sparse_triple(per_row_lists, dtype, lead):
    """SparseTensor parts from nested value lists: lead = the shape of the leading (row) dims."""
    idx, vals = [], []
    longest = 0
    for pos, values in per_row_lists:
        longest = max(longest, len(values))
        for j, v in enumerate(values):
            idx.append(list(pos) + [j])
            vals.append(v)
    values = np.array(vals, dtype=object) if dtype is _dt.string else np.asarray(vals, dtype=dtype.as_numpy_dtype)
    if dtype is _dt.string and not vals:
        values = np.zeros([0], dtype=object)
    return (np.asarray(idx, np.int64).reshape(-1, len(lead) + 1), values,
            np.asarray(list(lead) + [longest], np.int64))


def _steps(seq, key, dtype, where):
    """The per-step value arrays of feature list key (None when the list is absent)."""
    lists = seq.feature_lists.feature_list
    if key not in lists:
        return None
    return [_values_of(_Step(f), "v", dtype, where) for f in lists[key].feature]


def _parse_all(serialized, ctx_dense, ctx_sparse, seq_dense, seq_sparse, batch):
    from google.protobuf.message import DecodeError
    from lens.proto.example_pb2 import SequenceExample
    protos = []
    for i, s in enumerate(serialized):
        try:
            protos.append(SequenceExample.FromString(bytes(s)))
        except (DecodeError, TypeError) as e:
            raise errors.InvalidArgumentError(None, None, "Could not parse example input, value %d: %s" % (i, e)) \
                from None
    n = len(protos)
    outs = []
    for key, dtype in ctx_sparse:
        rows = []
        for i, p in enumerate(protos):
            v = _values_of(_Context(p.context), key, dtype, "example %d" % i)
            rows.append(((i,) if batch else (), [] if v is None else list(v)))
        outs.append(_sparse_triple(rows, dtype, [n] if batch else []))
    for key, dtype, shape, f in ctx_dense:
        size = shape.num_elements()
        arr = np.empty([n] + shape.as_list(), dtype=dtype.as_numpy_dtype)
        for i, p in enumerate(protos):
            v = _values_of(_Context(p.context), key, dtype, "example %d" % i)
            if v is None:
                if f.default_value is None:
                    raise errors.InvalidArgumentError(None, None, "Name: example %d, Context feature '%s' is required "
                                                      "but could not be found." % (i, key))
                v = np.broadcast_to(np.asarray(f.default_value, dtype=arr.dtype), shape.as_list())
            elif v.size != size:
                raise errors.InvalidArgumentError(None, None, "Name: example %d, Key: %s.  Number of values != "
                                                  "expected.  Values size: %d but output shape: %s"
                                                  % (i, key, v.size, shape.as_list()))
            arr[i] = np.asarray(v).reshape(shape.as_list())
        outs.append(arr if batch else arr[0])
    for key, dtype in seq_sparse:
        rows, longest_steps = [], 0
        for i, p in enumerate(protos):
            steps = _steps(p, key, dtype, "example %d" % i) or []
            longest_steps = max(longest_steps, len(steps))
            rows += [(((i, t) if batch else (t,)), list(v)) for t, v in enumerate(steps)]
        outs.append(_sparse_triple(rows, dtype, ([n] if batch else []) + [longest_steps]))
    lengths = []
    for key, dtype, shape, f in seq_dense:
        size = shape.num_elements()
        per = []
        for i, p in enumerate(protos):
            steps = _steps(p, key, dtype, "example %d" % i)
            if steps is None:
                if not f.allow_missing:
                    raise errors.InvalidArgumentError(None, None, "Name: example %d, Feature list '%s' is required but "
                                                      "could not be found.  Did you mean to include it in "
                                                      "feature_list_dense_missing_assumed_empty or "
                                                      "feature_list_dense_defaults?" % (i, key))
                steps = []
            for t, v in enumerate(steps):
                if v.size != size:
                    raise errors.InvalidArgumentError(None, None, "Name: example %d, Key: %s, Index: %d.  Number of %s "
                                                      "values != expected.  values size: %d but output shape: %s"
                                                      % (i, key, t, _KIND_NAMES[_KINDS[dtype.name]], v.size,
                                                         shape.as_list()))
            per.append([np.asarray(v).reshape(shape.as_list()) for v in steps])
        longest = max([len(s) for s in per] + [0])
        fill = f.default_value if f.default_value is not None else (b"" if dtype is _dt.string else 0)
        arr = np.empty([n, longest] + shape.as_list(), dtype=dtype.as_numpy_dtype)
        arr[...] = np.asarray(fill, dtype=arr.dtype) if dtype is not _dt.string else fill
        for i, steps in enumerate(per):
            for t, v in enumerate(steps):
                arr[i, t] = v
        outs.append(arr if batch else arr[0])
        lengths.append(np.asarray([len(s) for s in per], np.int64))
    flat = []
    for o in outs:
        flat.extend(o if isinstance(o, tuple) else [o])
    return flat + (lengths if batch else [])


class _SeqSpec:
    def __init__(self, ctx_dense, ctx_sparse, seq_dense, seq_sparse):
        self.parts = (ctx_dense, ctx_sparse, seq_dense, seq_sparse)


def _make(op, ctx):
    batch = op.type == "ParseSequenceExampleV2"
    ctx_dense, ctx_sparse, seq_dense, seq_sparse = op._attrs["_spec"].parts

    def run(serialized):
        arr = np.asarray(serialized, dtype=object)
        if arr.ndim != (1 if batch else 0):
            raise errors.InvalidArgumentError(None, op, "%s needs a %s string, got shape %s"
                                              % (op.type, "vector of" if batch else "scalar", list(arr.shape)))
        outs = _parse_all(arr.reshape(-1), ctx_dense, ctx_sparse, seq_dense, seq_sparse, batch)
        return outs[0] if len(outs) == 1 else tuple(outs)
    return run


def _shapes(op):
    batch = op.type == "ParseSequenceExampleV2"
    ctx_dense, ctx_sparse, seq_dense, seq_sparse = op._attrs["_spec"].parts
    lead = [None] if batch else []
    out = []
    for _ in ctx_sparse:
        out += [TensorShape([None, len(lead) + 1]), TensorShape([None]), TensorShape([len(lead) + 1])]
    out += [TensorShape(lead + s.as_list()) for _, _, s, _ in ctx_dense]
    for _ in seq_sparse:
        out += [TensorShape([None, len(lead) + 2]), TensorShape([None]), TensorShape([len(lead) + 2])]
    out += [TensorShape(lead + [None] + s.as_list()) for _, _, s, _ in seq_dense]
    if batch:
        out += [TensorShape([None])] * len(seq_dense)
    return out


register_op("ParseSingleSequenceExample", make=_make, shape=_shapes, not_differentiable=True)
register_op("ParseSequenceExampleV2", make=_make, shape=_shapes, not_differentiable=True)


def _build(op_type, serialized, context_features, sequence_features, name):
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    ctx_dense, ctx_sparse = _split(context_features, "context")
    seq_dense, seq_sparse = _split(sequence_features, "sequence")
    g = get_default_graph()
    with g.name_scope(name or op_type) as scope:
        ser = convert_to_tensor(serialized, _dt.string, name="serialized")
        types = []
        for _, dt in ctx_sparse:
            types += [_dt.int64, dt, _dt.int64]
        types += [dt for _, dt, _, _ in ctx_dense]
        for _, dt in seq_sparse:
            types += [_dt.int64, dt, _dt.int64]
        types += [dt for _, dt, _, _ in seq_dense]
        if op_type == "ParseSequenceExampleV2":
            types += [_dt.int64] * len(seq_dense)
        op = g._create_op(op_type, [ser], types, {"_spec": _SeqSpec(ctx_dense, ctx_sparse, seq_dense, seq_sparse)},
                          scope, frames_skip=4)
    outs = list(op._outputs)
    context, sequence, lengths = {}, {}, {}
    for key, _ in ctx_sparse:
        context[key] = SparseTensor(outs.pop(0), outs.pop(0), outs.pop(0))
    for key, *_ in ctx_dense:
        context[key] = outs.pop(0)
    for key, _ in seq_sparse:
        sequence[key] = SparseTensor(outs.pop(0), outs.pop(0), outs.pop(0))
    for key, *_ in seq_dense:
        sequence[key] = outs.pop(0)
    for key, *_ in seq_dense:
        if outs:
            lengths[key] = outs.pop(0)
    return context, sequence, lengths


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """(context, feature_lists) dicts parsed from one serialized SequenceExample (a scalar string)."""
    context, sequence, _ = _build("ParseSingleSequenceExample", serialized, context_features, sequence_features,
                                  name)
    return context, sequence


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """(context, feature_lists, lengths) for a vector of SequenceExamples; dense feature lists are padded to the
    longest example (with default_value, else 0 / '') and lengths gives each example's step count."""
    return _build("ParseSequenceExampleV2", serialized, context_features, sequence_features, name)
