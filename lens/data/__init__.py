"""tf.data: Dataset, Iterator, TFRecordDataset, TextLineDataset and the TF1 iterator helpers."""
from lens.data import ops as _ops  # noqa: F401 - registers the dataset and iterator op types
from lens.data.dataset import Dataset
from lens.data.iterator import Iterator
from lens.data.readers import TFRecordDataset, TextLineDataset
from lens.data.fixed_length import FixedLengthRecordDataset
from lens.data import experimental
from lens.data.experimental import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from lens.data.options import Options, ThreadingOptions

__all__ = ["Dataset", "Iterator", "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset", "AUTOTUNE",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Options", "ThreadingOptions",
           "experimental", "make_one_shot_iterator",
           "make_initializable_iterator", "get_output_types", "get_output_shapes", "get_output_classes"]


def make_one_shot_iterator(dataset):
    """dataset.make_one_shot_iterator() (tf.compat.v1.data spelling)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """dataset.make_initializable_iterator() (tf.compat.v1.data spelling)."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    """The structure of component dtypes."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    """The structure of component static shapes."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    """The structure of component classes."""
    return dataset_or_iterator.output_classes
