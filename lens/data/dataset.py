"""tf.data.Dataset: graph-building API; every transformation adds one dataset op, as in TF1."""

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.data import structure as nest
from lens.data.functions import TracedFunction
from lens.data.iterator import Iterator, _attrs
from lens.data.eager_iterator import EagerIterator
from lens.framework.eager import executing_eagerly
from lens.data.ops import RESOURCE, VARIANT
from lens.data.options import Options
from lens.data.padding import padded_batch_inputs
from lens.data.static_args import _int64, _static_bool, _static_int
from lens.framework.graph import Tensor, get_default_graph
from lens.framework.tensor_shape import TensorShape


def _compatible_shape(a, b):
    """The most specific shape both a and b satisfy."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


class Dataset:
    """A sequence of elements, each a nested structure of tensors (TF1's tf.data.Dataset)."""

    def __init__(self, variant_tensor, output_types, output_shapes):
        self._variant_tensor = variant_tensor
        self._types = output_types
        self._shapes = output_shapes

    output_types = property(lambda self: self._types, doc="Structure of component DTypes.")
    output_shapes = property(lambda self: self._shapes, doc="Structure of component TensorShapes.")
    output_classes = property(lambda self: nest.map_structure(lambda _: Tensor, self._types),
                              doc="Structure of component classes (all Tensor).")

    def _chain(self, op_type, extra, types=None, shapes=None, attrs=None, inputs=None):
        """A new dataset op fed by this one (plus extra parameter tensors); it keeps this one's options."""
        out = _new(op_type, (inputs or [self._variant_tensor]) + list(extra),
                   self._types if types is None else types,
                   self._shapes if shapes is None else shapes, attrs)
        out._options = getattr(self, "_options", None)
        return out

    def with_options(self, options):
        """The same elements, with options merged over this dataset's (later values win)."""
        if not isinstance(options, Options):
            raise TypeError("options must be a tf.data.Options, got %r" % (options,))
        out = Dataset(self._variant_tensor, self._types, self._shapes)
        out._options = self.options().merge(options)
        return out

    def options(self):
        """The options set on this dataset and the ones it was made from (a tf.data.Options)."""
        mine = getattr(self, "_options", None)
        return Options() if mine is None else Options().merge(mine)

    # ---------------------------------------------------------------- sources
    @staticmethod
    def from_tensors(tensors):
        """A dataset with the single element `tensors`."""
        comps = _components(tensors)
        return _new("TensorDataset", nest.flatten(comps), _types_of(comps), _shapes_of(comps), {})

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset whose elements are the slices of `tensors` along their first dimension."""
        comps = _components(tensors)
        flat = nest.flatten(comps)
        first = None
        for t in flat:
            if t.shape.ndims == 0:
                raise ValueError("from_tensor_slices needs tensors of rank >= 1 to slice; %s is a "
                                 "scalar (use from_tensors for a single element)" % t.name)
            if t.shape.ndims is not None:
                d = t.shape.as_list()[0]
                if first is not None and d is not None and d != first:
                    raise ValueError("Dimensions %d and %d are not compatible: all tensors given to "
                                     "from_tensor_slices need the same number of rows" % (first, d))
                first = d if d is not None else first
        shapes = nest.map_structure(lambda t: TensorShape(None) if t.shape.ndims is None
                                    else TensorShape(t.shape.dims[1:]), comps)
        return _new("TensorSliceDataset", flat, _types_of(comps), shapes, {})

    @staticmethod
    def range(*args):
        """int64 elements like Python's range(stop) / range(start, stop[, step])."""
        if not 1 <= len(args) <= 3:
            raise ValueError("Dataset.range takes 1 to 3 arguments (stop | start, stop[, step]), got %d"
                             % len(args))
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
        ins = [_int64(start, "start"), _int64(stop, "stop"), _int64(step, "step")]
        return _new("RangeDataset", ins, _dt.int64, TensorShape([]), {})

    @staticmethod
    def zip(datasets):
        """Elements of a nested structure of datasets side by side (ends with the shortest)."""
        flat = nest.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError("Dataset.zip takes a (nested) tuple or dict of datasets, got %r inside"
                                % type(d).__name__)
        types = nest.map_structure(lambda d: d.output_types, datasets)
        shapes = nest.map_structure(lambda d: d.output_shapes, datasets)
        return _new("ZipDataset", [d._variant_tensor for d in flat], types, shapes, {})

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """Elements yielded by generator() (called afresh for each pass), converted to output_types."""
        if not callable(generator):
            raise TypeError("`generator` must be callable (a function returning an iterator)")
        types = nest.normalize_types(output_types)
        shapes = nest.normalize_shapes(output_shapes, types)
        call = (lambda: generator(*args)) if args else generator
        g = get_default_graph()
        attrs = {"_fn": call, "output_types": nest.flatten(types), "output_shapes": nest.flatten(shapes)}
        op = g._create_op("GeneratorDataset", [], [VARIANT], attrs, "GeneratorDataset", shapes=[[]],
                          frames_skip=3)
        return Dataset(op._outputs[0], types, shapes)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """The files matching a glob pattern (sorted; shuffled unless shuffle=False)."""
        import glob
        patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
        files = sorted({f for p in patterns for f in glob.glob(p if isinstance(p, str) else p.decode())})
        if not files:
            raise ValueError("No files matched pattern: %s" % ", ".join(map(str, patterns)))
        ds = Dataset.from_tensor_slices(np.array([f.encode() for f in files], dtype=object))
        return ds if shuffle is False else ds.shuffle(len(files), seed=seed)

    # ---------------------------------------------------------------- transformations
    def concatenate(self, dataset):
        """This dataset's elements followed by dataset's (same structure and types)."""
        nest.assert_same_structure(self._types, dataset.output_types, "concatenate()")
        if nest.flatten(self._types) != nest.flatten(dataset.output_types):
            raise TypeError("Two datasets to concatenate have different types %s and %s"
                            % (self._types, dataset.output_types))
        shapes = nest.pack_as(self._types, [_compatible_shape(a, b) for a, b in zip(
            nest.flatten(self._shapes), nest.flatten(dataset.output_shapes))])
        return self._chain("ConcatenateDataset", [dataset._variant_tensor], shapes=shapes)

    def map(self, map_func, num_parallel_calls=None):
        """map_func (written with lens ops) applied to each element."""
        fn = TracedFunction(map_func, "Dataset.map()", self._types, self._shapes)
        return self._chain("MapDataset", [], fn.output_types, fn.output_shapes, {"_fn": fn, "f": fn.name})

    def filter(self, predicate):
        """The elements for which predicate (lens ops -> scalar bool) is true."""
        fn = TracedFunction(predicate, "Dataset.filter()", self._types, self._shapes)
        out = fn.outputs
        if len(out) != 1 or out[0].dtype.base_dtype is not _dt.bool or not out[0].shape.is_compatible_with([]):
            raise ValueError("`predicate` return type must be convertible to a scalar boolean tensor. "
                             "Was %s." % (fn.output_types,))
        return self._chain("FilterDataset", [], attrs={"_fn": fn, "predicate": fn.name})

    def flat_map(self, map_func):
        """map_func maps each element to a dataset; their elements are concatenated."""
        fn = TracedFunction(map_func, "Dataset.flat_map()", self._types, self._shapes, returns_dataset=True)
        return self._chain("FlatMapDataset", [], fn.dataset.output_types, fn.dataset.output_shapes,
                           {"_fn": fn, "f": fn.name})

    def interleave(self, map_func, cycle_length, block_length=1, num_parallel_calls=None):
        """Like flat_map, reading cycle_length inner datasets round robin, block_length at a time."""
        fn = TracedFunction(map_func, "Dataset.interleave()", self._types, self._shapes,
                            returns_dataset=True)
        return self._chain("InterleaveDataset", [_int64(cycle_length, "cycle_length"),
                                                 _int64(block_length, "block_length")],
                           fn.dataset.output_types, fn.dataset.output_shapes, {"_fn": fn, "f": fn.name})

    def batch(self, batch_size, drop_remainder=False):
        """Consecutive elements stacked into batches (the last may be smaller unless dropped)."""
        n, drop = _static_int(batch_size), _static_bool(drop_remainder)
        dim = n if drop and n is not None else None
        shapes = nest.map_structure(lambda s: TensorShape([dim]).concatenate(s), self._shapes)
        return self._chain("BatchDatasetV2", [_int64(batch_size, "batch_size"),
                                              convert_to_tensor(drop_remainder, _dt.bool, name="drop_remainder")],
                           shapes=shapes)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
        """Batches whose components are padded to padded_shapes (None/-1: the longest in the batch)."""
        ins, shapes = padded_batch_inputs(self, batch_size, padded_shapes, padding_values, drop_remainder)
        return self._chain("PaddedBatchDatasetV2", ins, shapes=shapes,
                           attrs={"_n_components": len(nest.flatten(self._types))})

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """Elements in random order, drawn from a buffer of buffer_size (seeded like random ops)."""
        from lens.ops.random import get_seed
        s1, s2 = get_seed(seed)
        ins = [_int64(buffer_size, "buffer_size"), _int64(s1 or 0, "seed"), _int64(s2 or 0, "seed2")]
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        return self._chain("ShuffleDataset", ins, attrs={"reshuffle_each_iteration": reshuffle})

    def repeat(self, count=None):
        """The dataset count times (None or -1: forever)."""
        return self._chain("RepeatDataset", [_int64(-1 if count is None else count, "count")])

    def take(self, count):
        """At most count elements (-1: all)."""
        return self._chain("TakeDataset", [_int64(count, "count")])

    def skip(self, count):
        """All but the first count elements (-1: none)."""
        return self._chain("SkipDataset", [_int64(count, "count")])

    def prefetch(self, buffer_size):
        """The same elements (lens runs the pipeline in the calling thread)."""
        return self._chain("PrefetchDataset", [_int64(buffer_size, "buffer_size")])

    def cache(self, filename=""):
        """The same elements; the first full pass is kept in memory and replayed afterwards."""
        return self._chain("CacheDataset", [convert_to_tensor(filename, _dt.string, name="filename")])

    def apply(self, transformation_func):
        """transformation_func(self), which must return a Dataset."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("`transformation_func` must return a Dataset, got %r" % type(out).__name__)
        return out

    # ---------------------------------------------------------------- iterators
    def make_one_shot_iterator(self):
        """An iterator that starts by itself and goes through the dataset once."""
        if executing_eagerly():
            return EagerIterator(self)
        _check_capturable(self._variant_tensor)
        g = self._variant_tensor.graph
        op = g._create_op("OneShotIterator", [self._variant_tensor], [RESOURCE],
                          _attrs(self._types, self._shapes), "OneShotIterator", shapes=[[]], frames_skip=3)
        return Iterator(op._outputs[0], None, self._types, self._shapes)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator that starts (and restarts) when its `initializer` op runs."""
        g = self._variant_tensor.graph
        with g.as_default():
            it = Iterator.from_structure(self._types, self._shapes, shared_name)
            it._initializer = it.make_initializer(self, name="MakeIterator")
        return it

    def __iter__(self):
        if executing_eagerly():
            return EagerIterator(self)
        raise RuntimeError("__iter__() is only supported inside of tf.function or when eager execution "
                           "is enabled; in graph mode use dataset.make_one_shot_iterator().get_next().")

    def __repr__(self):
        return "<DatasetV1Adapter shapes: %s, types: %s>" % (self._shapes, self._types)


def _new(op_type, inputs, types, shapes, attrs):
    """Create a dataset op (output: one scalar variant) and wrap it."""
    from lens.framework.convert import graph_of
    g = graph_of(inputs)
    attrs = dict(attrs or {}, output_types=nest.flatten(types), output_shapes=nest.flatten(shapes))
    op = g._create_op(op_type, inputs, [VARIANT], attrs, op_type, shapes=[[]], frames_skip=4)
    return Dataset(op._outputs[0], types, shapes)


def _components(tensors):
    """Convert the leaves of a structure to tensors named tensors/component_<i>, as TF1 does."""
    if isinstance(tensors, list):
        tensors = convert_to_tensor(tensors) if not any(isinstance(x, Tensor) for x in nest.flatten(tensors)) \
            else _stack(tensors)
    g = get_default_graph()
    with g.name_scope("tensors"):
        flat = [convert_to_tensor(t, name="component_%d" % i) for i, t in enumerate(nest.flatten(tensors))]
    return nest.pack_as(tensors, flat)


def _stack(tensors):
    from lens.ops.array import stack
    return stack(tensors)


def _types_of(comps):
    return nest.map_structure(lambda t: t.dtype.base_dtype, comps)


def _shapes_of(comps):
    return nest.map_structure(lambda t: t.shape, comps)


def _check_capturable(variant):
    """One-shot iterators cannot depend on placeholders or variables (TF1 refuses them too)."""
    seen, stack = set(), [variant.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in ("Placeholder", "VariableV2", "Variable"):
            raise ValueError("Failed to create a one-shot iterator for a dataset. "
                             "`Dataset.make_one_shot_iterator()` does not support datasets that capture "
                             "stateful objects, such as a `Variable` or a placeholder (%s, type %s). In "
                             "these cases, use `Dataset.make_initializable_iterator()`."
                             % (op.name, op.type))
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
