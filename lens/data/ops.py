"""Registry entries of the dataset and iterator op types (kernels build values.py objects)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.data import values as V
from lens.data import values_io as VIO
from lens.framework.registry import register_op

# TF types dataset tensors as `variant` and iterators as `resource`; until lens's dtypes
# grow those two, dataset values ride in object-typed (string) tensors.
VARIANT = getattr(_dt, "variant", _dt.string)
RESOURCE = getattr(_dt, "resource", _dt.string)


def _dataset_op(op_type, build):
    """Register a dataset op whose kernel is build(op, ctx, *input_values) -> DatasetValue."""
    def make(op, ctx):
        return lambda *args: build(op, ctx, *args)
    register_op(op_type, make=make, not_differentiable=True, shape=lambda op: [()])


def _fn(op, ctx):
    return op._attrs["_fn"].runner(ctx, op)


def _n_args(op):
    return op._attrs["_n_args"]


_dataset_op("TensorDataset", lambda op, ctx, *c: V.Tensors(c))
_dataset_op("TensorSliceDataset", lambda op, ctx, *c: V.TensorSlices(c))
_dataset_op("RangeDataset", lambda op, ctx, a, b, c: V.Range(a, b, c))
_dataset_op("ZipDataset", lambda op, ctx, *ds: V.Zip(ds))
_dataset_op("ConcatenateDataset", lambda op, ctx, a, b: V.Concatenate(a, b))
_dataset_op("MapDataset", lambda op, ctx, d: V.Map(d, _fn(op, ctx)))
_dataset_op("FilterDataset", lambda op, ctx, d: V.Filter(d, _fn(op, ctx)))
_dataset_op("FlatMapDataset", lambda op, ctx, d: V.FlatMap(d, _fn(op, ctx)))
_dataset_op("InterleaveDataset", lambda op, ctx, d, c, b: V.Interleave(d, _fn(op, ctx), c, b))
_dataset_op("BatchDatasetV2", lambda op, ctx, d, n, drop: V.Batch(d, n, drop))
_dataset_op("RepeatDataset", lambda op, ctx, d, n: V.Repeat(d, n))
_dataset_op("TakeDataset", lambda op, ctx, d, n: V.Take(d, n))
_dataset_op("SkipDataset", lambda op, ctx, d, n: V.Skip(d, n))
_dataset_op("PrefetchDataset", lambda op, ctx, d, n: d)  # single-threaded: prefetching changes nothing visible
_dataset_op("CacheDataset", lambda op, ctx, d, filename: V.Cache(d))
_dataset_op("TFRecordDataset", lambda op, ctx, files, comp, buf: VIO.TFRecords(files, comp))
_dataset_op("TextLineDataset", lambda op, ctx, files, comp, buf: VIO.TextLines(files, comp))


def _padded_batch(op, ctx, d, n, *rest):
    k = op._attrs["_n_components"]
    shapes, values, drop = rest[:k], rest[k:2 * k], rest[2 * k]
    return V.PaddedBatch(d, n, shapes, values, drop)


_dataset_op("PaddedBatchDatasetV2", _padded_batch)


def _shuffle(op, ctx, d, buffer_size, seed, seed2):
    seeds = (int(seed), int(seed2))
    deterministic = seeds != (0, 0)
    key = ("shuffle_rng", op)
    if op._attrs["reshuffle_each_iteration"]:
        # One stream per session: every pass (repeat, re-initialization) gets a new order,
        # and a seeded graph replays the same sequence of orders in a new session.
        if key not in ctx.resources:
            ctx.resources[key] = np.random.default_rng(list(seeds) if deterministic else None)
        rng = ctx.resources[key]
        return V.Shuffle(d, buffer_size, lambda: rng)
    fixed = list(seeds) if deterministic else np.random.default_rng().integers(2**31, size=2).tolist()
    return V.Shuffle(d, buffer_size, lambda: np.random.default_rng(fixed))


_dataset_op("ShuffleDataset", _shuffle)


def _generator(op, ctx):
    gen_fn, types, shapes = op._attrs["_fn"], op._attrs["output_types"], op._attrs["output_shapes"]
    return lambda: VIO.FromGenerator(gen_fn, types, shapes)


register_op("GeneratorDataset", make=_generator, not_differentiable=True, shape=lambda op: [()],
            stateful=True)


# ------------------------------------------------------------------ iterators
def _key(handle):
    h = np.asarray(handle, dtype=object)[()]
    return h.decode() if isinstance(h, bytes) else str(h)


def _iterator_make(op, ctx):
    handle = np.array(op._attrs.get("shared_name") or op.name, dtype=object)
    return lambda: handle


def _one_shot_make(op, ctx):
    handle = np.array(op.name, dtype=object)

    def run(dataset):
        slot = ("iterator", op.name)
        if slot not in ctx.resources:  # built on first use, never re-initialized
            ctx.resources[slot] = iter(dataset.iterate())
        return handle
    return run


def _make_iterator_make(op, ctx):
    def run(dataset, handle):
        ctx.resources[("iterator", _key(handle))] = iter(dataset.iterate())
    return run


def _get_next_make(op, ctx):
    single = len(op._outputs) == 1

    def run(handle):
        key = _key(handle)
        it = ctx.resources.get(("iterator", key))
        if it is None:
            raise errors.FailedPreconditionError(
                None, None, "GetNext() failed because the iterator %r has not been initialized. "
                "Ensure that you have run the initializer operation for this iterator before getting "
                "the next element (sess.run(iterator.initializer))." % key)
        try:
            element = next(it)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None
        return element[0] if single else element
    return run


register_op("IteratorV2", make=_iterator_make, not_differentiable=True, shape=lambda op: [()],
            stateful=True)
register_op("OneShotIterator", make=_one_shot_make, not_differentiable=True, shape=lambda op: [()],
            stateful=True)
register_op("MakeIterator", make=_make_iterator_make, not_differentiable=True, stateful=True)
register_op("IteratorGetNext", make=_get_next_make, not_differentiable=True, stateful=True)
register_op("IteratorToStringHandle", fn=lambda h: np.array(_key(h).encode(), dtype=object),
            not_differentiable=True, shape=lambda op: [()])
register_op("IteratorFromStringHandleV2", fn=lambda s: np.array(_key(s), dtype=object),
            not_differentiable=True, shape=lambda op: [()])
