"""tf.data.experimental: AUTOTUNE, shuffle_and_repeat, map_and_batch, ignore_errors, make_csv_dataset."""
import collections
import csv
import io

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.registry import register_op
from lens.data.dataset import Dataset
from lens.data.readers import TextLineDataset
from lens.data.values import DatasetValue
from lens.events import gfile
from lens.ops.string_csv import decode_csv
from lens.data.experimental_datasets import *  # noqa: F401,F403 - the rest of tf.data.experimental
from lens.data.experimental_datasets import __all__ as _more
from lens.data.bucketing import assert_cardinality, bucket_by_sequence_length
from lens.data.experimental_more import *  # noqa: F401,F403 - Reducer, group_by_reducer, from_list, SqlDataset, ...
from lens.data.experimental_more import __all__ as _more2
from lens.data.options import (AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions, DistributeOptions,  # noqa: F401
                               ExternalStatePolicy, OptimizationOptions, ThreadingOptions)

__all__ = ["AUTOTUNE", "shuffle_and_repeat", "map_and_batch", "ignore_errors", "make_csv_dataset", "AutoShardPolicy",
           "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions", "ExternalStatePolicy", "OptimizationOptions",
           "ThreadingOptions", "assert_cardinality", "bucket_by_sequence_length"] + list(_more) + list(_more2)

AUTOTUNE = -1


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation: shuffle (a new order each epoch) then repeat count times (None: forever)."""
    def apply(dataset):
        return dataset.shuffle(buffer_size, seed=seed, reshuffle_each_iteration=True).repeat(count)
    return apply


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """A transformation: map(map_func) then batch(batch_size, drop_remainder)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually exclusive.")

    def apply(dataset):
        return dataset.map(map_func).batch(batch_size, drop_remainder=drop_remainder)
    return apply


class IgnoreErrors(DatasetValue):
    """The input's elements, skipping those whose computation failed with an error."""

    def __init__(self, inp):
        self.inp = inp

    def iterate(self):
        it = self.inp.iterate()
        while True:
            try:
                yield next(it)
            except StopIteration:
                return
            except errors.OutOfRangeError:
                return
            except errors.OpError:
                continue    # a failed map (or parse) leaves the input iterator usable: go on


register_op("IgnoreErrorsDataset", make=lambda op, ctx: IgnoreErrors, not_differentiable=True,
            shape=lambda op: [()])


def ignore_errors(log_warning=False):
    """A transformation dropping the elements whose computation raises an error."""
    def apply(dataset):
        return dataset._chain("IgnoreErrorsDataset", [], attrs={"log_warning": bool(log_warning)})
    return apply


# ------------------------------------------------------------------ make_csv_dataset
_INFER_ORDER = [_dt.int32, _dt.int64, _dt.float32, _dt.float64, _dt.string]


def _fits(value, dtype):
    if dtype is _dt.string:
        return True
    try:
        if dtype in (_dt.int32, _dt.int64):
            v = int(value)
            return dtype is _dt.int64 or -2**31 <= v < 2**31
        float(value)
        return dtype is _dt.float64 or abs(float(value)) <= np.finfo(np.float32).max
    except ValueError:
        return False


def _infer_types(rows, n_cols, na_value):
    """Per column, the narrowest of int32, int64, float32, float64, string that fits every sampled value."""
    types = []
    for c in range(n_cols):
        level = 0
        for row in rows:
            v = row[c] if c < len(row) else ""
            if v == "" or v == na_value:
                continue
            while not _fits(v, _INFER_ORDER[level]):
                level += 1
        types.append(_INFER_ORDER[level])
    return types


def _read_rows(filename, field_delim, use_quote_delim, limit):
    with gfile.GFile(filename, "r") as f:
        text = f.read()
    reader = csv.reader(io.StringIO(text), delimiter=field_delim,
                        quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)
    rows = []
    for row in reader:
        rows.append(row)
        if len(rows) >= limit:
            break
    return rows


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False):
    """Batches of (features: OrderedDict column name -> tensor, label) read from CSV files."""
    filenames = gfile.glob(file_pattern)
    if not filenames:
        raise ValueError("No files match `file_pattern` %s." % (file_pattern,))
    if compression_type:
        raise ValueError("make_csv_dataset in lens reads uncompressed CSV files; got compression_type=%r"
                         % compression_type)
    first = _read_rows(filenames[0], field_delim, use_quote_delim, 1)
    if column_names is None:
        if not header:
            raise ValueError("Cannot infer column names without a header line.")
        column_names = first[0]
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Cannot have duplicate column names.")
    if select_columns is not None:
        select = [column_names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
        if any(isinstance(c, str) and c not in column_names for c in select_columns):
            raise ValueError("select_columns %s are not all in column_names %s" % (select_columns, column_names))
        select = sorted(select)
    else:
        select = list(range(len(column_names)))
    names = [column_names[i] for i in select]
    if label_name is not None and label_name not in names:
        raise ValueError("`label_name` provided must be one of the columns: %s" % names)
    if column_defaults is None:
        rows = []
        for fn in filenames:
            rows += _read_rows(fn, field_delim, use_quote_delim, num_rows_for_inference + int(header))[int(header):]
            if len(rows) >= num_rows_for_inference:
                break
        types = _infer_types(rows[:num_rows_for_inference], len(column_names), na_value)
        column_defaults = [[""] if types[i] is _dt.string else np.zeros([1], types[i].as_numpy_dtype)
                           for i in select]
    elif len(column_defaults) != len(select):
        raise ValueError("column_defaults has %d entries but %d columns are read" % (len(column_defaults), len(select)))

    cols = select if select_columns is not None else None

    def per_file(filename):
        lines = TextLineDataset(filename).skip(1 if header else 0)
        ds = lines.map(lambda line: tuple(decode_csv(line, column_defaults, field_delim=field_delim,
                                                     use_quote_delim=use_quote_delim, na_value=na_value,
                                                     select_cols=cols)))
        return ds.apply(globals()["ignore_errors"]()) if ignore_errors else ds

    def to_features(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    files = Dataset.from_tensor_slices(np.array([f.encode() for f in filenames], dtype=object))
    if shuffle:
        files = files.shuffle(len(filenames), seed=shuffle_seed)
    ds = files.interleave(per_file, cycle_length=num_parallel_reads or 1)
    if num_epochs != 1 and shuffle:
        ds = ds.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
    elif shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    elif num_epochs != 1:
        ds = ds.repeat(num_epochs)
    # As TF: an endless dataset (num_epochs None) gives only full batches.
    return ds.batch(batch_size, drop_remainder=num_epochs is None).map(to_features)
