"""tf.data.experimental.bucket_by_sequence_length and assert_cardinality."""
import bisect

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, as_shape
from lens.data import structure as nest
from lens.data.functions import TracedFunction
from lens.data.static_args import _int64
from lens.data.values import DatasetValue, _invalid

__all__ = ["bucket_by_sequence_length", "assert_cardinality"]


class BucketBySequenceLength(DatasetValue):
    """Elements grouped by length bucket; a bucket is emitted (padded) as soon as it holds its batch size."""

    def __init__(self, inp, length_fn, boundaries, batch_sizes, shapes, pad_values, to_boundary, drop, no_padding):
        self.inp, self.length_fn = inp, length_fn
        self.boundaries, self.batch_sizes = boundaries, batch_sizes
        self.shapes, self.pad_values = shapes, pad_values
        self.to_boundary, self.drop, self.no_padding = to_boundary, drop, no_padding

    def iterate(self):
        buckets = {}
        for e in self.inp.iterate():
            length = int(np.asarray(self.length_fn(e)).reshape(-1)[0])
            b = bisect.bisect_right(self.boundaries, length)
            if self.to_boundary and b >= len(self.boundaries):
                raise _invalid("assertion failed: [When pad_to_bucket_boundary=True, elements must have length < "
                               "max(bucket_boundaries).] (an element of length %d)" % length)
            buckets.setdefault(b, []).append(e)
            if len(buckets[b]) == self.batch_sizes[b]:
                yield self._batch(b, buckets.pop(b))
        if not self.drop:
            for b in sorted(buckets):        # TF keeps its groups in key order
                yield self._batch(b, buckets[b])

    def _batch(self, bucket, elements):
        out = []
        for c in range(len(elements[0])):
            parts = [np.asarray(e[c]) for e in elements]
            if self.no_padding:
                if len({p.shape for p in parts}) != 1:
                    raise _invalid("Cannot batch tensors with different shapes in component %d (no_padding=True): "
                                   "%s" % (c, sorted({p.shape for p in parts})))
                out.append(np.stack(parts))
                continue
            filler = self.boundaries[bucket] - 1 if self.to_boundary else None
            want = [filler if d is None else d for d in self.shapes[c]]
            target = [max(p.shape[d] for p in parts) if w is None else w for d, w in enumerate(want)]
            batch = np.full([len(parts)] + target, self.pad_values[c], dtype=parts[0].dtype)
            for i, p in enumerate(parts):
                if any(s > t for s, t in zip(p.shape, target)):
                    raise _invalid("Attempted to pad to a smaller size than the input element: %s into %s"
                                   % (list(p.shape), target))
                batch[(i,) + tuple(slice(0, s) for s in p.shape)] = p
            out.append(batch)
        return tuple(out)


class AssertCardinality(DatasetValue):
    """The input's elements, failing when there are more or fewer than expected."""

    def __init__(self, inp, expected):
        self.inp, self.expected = inp, int(expected)

    def _fail(self, what, n):
        plural = "element" if self.expected == 1 else "elements"
        return errors.FailedPreconditionError(
            None, None, "Input dataset was expected to contain %d %s but contained %s %d %s." % (
                self.expected, plural, what, n, "element" if n == 1 else "elements"))

    def cardinality(self):
        """What the dataset promises (TF's cardinality() answers it too)."""
        return self.expected

    def iterate(self):
        n = 0
        for e in self.inp.iterate():
            n += 1
            if self.expected >= 0 and n > self.expected:
                raise self._fail("at least", n)
            yield e
        if self.expected >= 0 and n < self.expected:
            raise self._fail("only", n)


def _bucket_make(op, ctx):
    a = op._attrs["_fn"].bucketing       # the settings ride on the traced function (Python-only, off the GraphDef)
    fn = op._attrs["_fn"].runner(ctx, op)
    return lambda d: BucketBySequenceLength(d, fn, a["_boundaries"], a["_batch_sizes"], a["_shapes"], a["_pads"],
                                            a["_to_boundary"], a["_drop"], a["_no_padding"])


register_op("GroupByWindowDataset", make=_bucket_make, not_differentiable=True, shape=lambda op: [()])
register_op("AssertCardinalityDataset", make=lambda op, ctx: lambda d, n: AssertCardinality(d, n),
            not_differentiable=True, shape=lambda op: [()])


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """A transformation batching elements of similar length (element_length_func -> int) into padded batches."""
    def apply(dataset):
        boundaries, sizes = [int(b) for b in bucket_boundaries], [int(s) for s in bucket_batch_sizes]
        if len(sizes) != len(boundaries) + 1:
            raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1")
        if boundaries != sorted(boundaries):
            raise ValueError("bucket_boundaries must be sorted, got %s" % boundaries)
        fn = TracedFunction(element_length_func, "bucket_by_sequence_length()", dataset.output_types,
                            dataset.output_shapes)
        flat_types = nest.flatten(dataset.output_types)
        in_shapes = [as_shape(s) for s in nest.flatten(padded_shapes)] if padded_shapes is not None else \
            nest.flatten(dataset.output_shapes)
        shapes = [[None if d is None or d == -1 else int(d) for d in s.as_list()] for s in in_shapes]
        if padding_values is None:
            pads = [b"" if t is _dt.string else 0 for t in flat_types]
        else:
            pads = [np.asarray(v).item() if not isinstance(v, (bytes, str)) else v
                    for v in nest.flatten(padding_values)]
        out_shapes = nest.pack_as(dataset.output_types, [
            TensorShape([None] + ([None] * len(s) if no_padding and padded_shapes is None else s)) for s in shapes])
        fn.bucketing = {"_boundaries": boundaries, "_batch_sizes": sizes, "_shapes": shapes, "_pads": pads,
                        "_to_boundary": bool(pad_to_bucket_boundary), "_drop": bool(drop_remainder),
                        "_no_padding": bool(no_padding)}
        attrs = {"_fn": fn, "key_func": fn.name}
        if no_padding:
            out_shapes = nest.map_structure(lambda s: TensorShape([None]).concatenate(s), dataset.output_shapes)
        return dataset._chain("GroupByWindowDataset", [], shapes=out_shapes, attrs=attrs)
    return apply


def assert_cardinality(expected_cardinality):
    """A transformation failing (FailedPreconditionError) when the dataset has another number of elements."""
    def apply(dataset):
        return dataset._chain("AssertCardinalityDataset", [_int64(expected_cardinality, "cardinality")])
    return apply
