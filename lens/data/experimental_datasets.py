"""More of tf.data.experimental: unbatch, scan, take_while, unique, enumerate/Counter, parallel_interleave,
sample/choose_from_datasets, get_single_element, cardinality, CsvDataset, TFRecordWriter, feature datasets."""
import collections

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph
from lens.framework.tensor_shape import TensorShape
from lens.data import experimental_values as _values  # noqa: F401 - registers the op types
from lens.data import structure as nest
from lens.data.dataset import Dataset, _new
from lens.data.functions import TracedFunction
from lens.data.readers import TFRecordDataset, TextLineDataset, _filenames_tensor
from lens.data.static_args import _int64
from lens.ops.string_csv import decode_csv
from lens.ops.parsing import parse_example

__all__ = ["INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality", "unbatch", "scan", "take_while", "unique",
           "enumerate_dataset", "Counter", "parallel_interleave", "sample_from_datasets", "choose_from_datasets",
           "get_single_element", "RandomDataset", "CsvDataset", "TFRecordWriter", "parse_example_dataset",
           "make_batched_features_dataset"]

INFINITE_CARDINALITY = _values.INFINITE
UNKNOWN_CARDINALITY = _values.UNKNOWN


def cardinality(dataset):
    """An int64 scalar: the number of elements, INFINITE_CARDINALITY, or UNKNOWN_CARDINALITY (e.g. after filter)."""
    g = dataset._variant_tensor.graph
    op = g._create_op("DatasetCardinality", [dataset._variant_tensor], [_dt.int64], {}, "DatasetCardinality",
                      shapes=[[]], frames_skip=3)
    return op._outputs[0]


def unbatch():
    """A transformation splitting each element along its first dimension."""
    def apply(dataset):
        shapes = nest.map_structure(lambda s: s[1:] if s.ndims else TensorShape(None), dataset.output_shapes)
        return dataset._chain("UnbatchDataset", [], shapes=shapes)
    return apply


def scan(initial_state, scan_func):
    """A transformation threading a state: scan_func(state, element) -> (new_state, output_element)."""
    def apply(dataset):
        g = get_default_graph()
        with g.name_scope("initial_state"):
            init = nest.map_structure(lambda v: convert_to_tensor(v), initial_state)
        state_types = nest.map_structure(lambda t: t.dtype.base_dtype, init)
        state_shapes = nest.map_structure(lambda t: t.shape, init)
        fn = TracedFunction(scan_func, "tf.data.experimental.scan()", (state_types, dataset.output_types),
                            (state_shapes, dataset.output_shapes))
        if not isinstance(fn.structure, tuple) or len(fn.structure) != 2:
            raise TypeError("The scan function must return a pair of (new_state, output_element), got %r"
                            % (fn.structure,))
        new_types, out_types = fn.output_types
        if nest.flatten(new_types) != nest.flatten(state_types):
            raise TypeError("The element types for the new state must match the initial state. Expected %s; got %s."
                            % (state_types, new_types))
        flat_init = nest.flatten(init)
        return dataset._chain("ScanDataset", flat_init, out_types, fn.output_shapes[1],
                              {"_fn": fn, "f": fn.name, "_n_state": len(flat_init)})
    return apply


def take_while(predicate):
    """A transformation keeping elements while predicate (a scalar bool) holds."""
    def apply(dataset):
        fn = TracedFunction(predicate, "tf.data.experimental.take_while()", dataset.output_types,
                            dataset.output_shapes)
        out = fn.outputs
        if len(out) != 1 or out[0].dtype.base_dtype is not _dt.bool:
            raise ValueError("`predicate` must return a scalar boolean tensor.")
        return dataset._chain("TakeWhileDataset", [], attrs={"_fn": fn, "predicate": fn.name})
    return apply


def unique():
    """A transformation keeping the first occurrence of each element (int32, int64 or string scalars)."""
    def apply(dataset):
        flat = nest.flatten(dataset.output_types)
        if len(flat) != 1 or flat[0] not in (_dt.int32, _dt.int64, _dt.string):
            raise TypeError("`tf.data.experimental.unique()` only supports inputs with a single `tf.int32`, "
                            "`tf.int64`, or `tf.string` component.")
        return dataset._chain("UniqueDataset", [])
    return apply


def enumerate_dataset(start=0):
    """A transformation pairing each element with its index (int64, from start)."""
    def apply(dataset):
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), dataset))
    return apply


def Counter(start=0, step=1, dtype=_dt.int64):  # noqa: N802 - TF's name
    """An endless dataset start, start + step, ... (scalars of dtype)."""
    with get_default_graph().name_scope("counter"):
        start = convert_to_tensor(start, dtype=dtype, name="start")
        step = convert_to_tensor(step, dtype=dtype, name="step")
        # The step rides in the dataset (dataset functions cannot capture outer tensors in lens).
        return Dataset.from_tensors(step).repeat(None).apply(scan(start, lambda state, s: (state + s, state)))


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """A transformation like Dataset.interleave (lens reads in the calling thread: the order is the
    deterministic one, which sloppy=True also allows)."""
    def apply(dataset):
        return dataset.interleave(map_func, cycle_length, block_length)
    return apply


def _directed(selector, datasets):
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    types = datasets[0].output_types
    for d in datasets[1:]:
        if nest.flatten(d.output_types) != nest.flatten(types):
            raise TypeError("Datasets must have the same structure and types: %s vs %s" % (types, d.output_types))
    shapes = datasets[0].output_shapes
    return _new("DirectedInterleaveDataset", [selector._variant_tensor] + [d._variant_tensor for d in datasets],
                types, shapes, {})


def choose_from_datasets(datasets, choice_dataset):
    """Elements of datasets[i] for each int64 i of choice_dataset (exhausted datasets are skipped)."""
    if choice_dataset.output_types != _dt.int64 or choice_dataset.output_shapes.ndims != 0:
        raise TypeError("`choice_dataset` must be a dataset of scalar `tf.int64` tensors.")
    return _directed(choice_dataset, datasets)


def sample_from_datasets(datasets, weights=None, seed=None):
    """Elements drawn at random from datasets (with probabilities weights, uniform by default)."""
    datasets = list(datasets)
    n = len(datasets)
    w = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError("`weights` must have one entry per dataset: %d datasets, %s weights" % (n, w.shape))
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError("`weights` must be non-negative and not all zero, got %s" % w.tolist())
    selector = RandomDataset(seed).map(lambda r: _categorical(r, w / w.sum()))
    return _directed(selector, datasets)


def _categorical(r, probs):
    """The index whose cumulative probability first exceeds r / 2**63 (a uniform draw)."""
    from lens.ops.math import truediv
    from lens.ops.array import cast
    from lens.ops.reduce import reduce_sum
    u = truediv(cast(r, _dt.float64), float(2 ** 63))
    cum = convert_to_tensor(np.cumsum(probs)[:-1], _dt.float64)
    return reduce_sum(cast(u >= cum, _dt.int64))


class RandomDataset(Dataset):
    """An endless dataset of pseudo-random int64 scalars (seeded like random ops)."""

    def __init__(self, seed=None):
        from lens.ops.random import get_seed
        s1, s2 = get_seed(seed)
        ds = _new("RandomDataset", [_int64(s1 or 0, "seed"), _int64(s2 or 0, "seed2")], _dt.int64,
                  TensorShape([]), {})
        super().__init__(ds._variant_tensor, ds.output_types, ds.output_shapes)


def get_single_element(dataset):
    """The tensors of the dataset's only element (InvalidArgumentError at run time when it has 0 or 2+)."""
    g = dataset._variant_tensor.graph
    types, shapes = nest.flatten(dataset.output_types), nest.flatten(dataset.output_shapes)
    op = g._create_op("DatasetToSingleElement", [dataset._variant_tensor], types, {"output_types": types,
                      "output_shapes": shapes}, "DatasetToSingleElement", shapes=shapes, frames_skip=3)
    return nest.pack_as(dataset.output_types, list(op._outputs))


class TFRecordWriter:
    """Writes a dataset of scalar strings to a TFRecord file when the op from write() runs."""

    def __init__(self, filename, compression_type=None):
        self._filename = convert_to_tensor(filename, _dt.string, name="filename")
        self._compression = convert_to_tensor(compression_type or "", _dt.string, name="compression_type")

    def write(self, dataset):
        """An op writing every element of dataset (scalar tf.string) as one record."""
        if dataset.output_types != _dt.string or dataset.output_shapes.ndims not in (None, 0):
            raise TypeError("`dataset` must produce scalar `DT_STRING` tensors whereas it produces shape %s and "
                            "types %s" % (dataset.output_shapes, dataset.output_types))
        g = dataset._variant_tensor.graph
        return g._create_op("DatasetToTFRecord", [dataset._variant_tensor, self._filename, self._compression], [],
                            {}, "DatasetToTFRecord", frames_skip=3)


class CsvDataset(Dataset):
    """The rows of CSV files as tuples of scalars typed by record_defaults (after header lines, if header)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None):
        files = Dataset.from_tensor_slices(_filenames_tensor(filenames))
        if files.output_shapes.ndims != 0:
            files = Dataset.from_tensors(_filenames_tensor(filenames)).apply(unbatch())

        def rows(f):
            lines = TextLineDataset(f, compression_type=compression_type).skip(1 if header else 0)
            return lines.map(lambda line: tuple(decode_csv(line, record_defaults, field_delim=field_delim,
                                                           use_quote_delim=use_quote_delim, na_value=na_value,
                                                           select_cols=select_cols)))
        ds = files.flat_map(rows)
        super().__init__(ds._variant_tensor, ds.output_types, ds.output_shapes)


def parse_example_dataset(features, num_parallel_calls=1):
    """A transformation parsing batches of serialized Examples into dicts of tensors (tf.parse_example)."""
    def apply(dataset):
        return dataset.map(lambda serialized: parse_example(serialized, features))
    return apply


def make_batched_features_dataset(file_pattern, batch_size, features, reader=TFRecordDataset, label_key=None,
                                  reader_args=None, num_epochs=None, shuffle=True, shuffle_buffer_size=10000,
                                  shuffle_seed=None, prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False, drop_final_batch=False):
    """Batches of parsed Examples (dicts; (features, label) with label_key) read from the matching files."""
    ds = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    args = list(reader_args or [])
    ds = ds.interleave(lambda f: reader(f, *args), cycle_length=reader_num_threads or 1)
    if num_epochs != 1 and shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed).repeat(num_epochs)
    elif shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    elif num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=drop_final_batch).apply(parse_example_dataset(features))
    if label_key is None:
        return ds
    if label_key not in features:
        raise ValueError("The `label_key` provided (%r) must be one of the `features` keys." % label_key)

    def split(parsed):
        parsed = collections.OrderedDict(parsed)
        return parsed, parsed.pop(label_key)
    return ds.map(split)
