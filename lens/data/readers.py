"""File-reading datasets: TFRecordDataset and TextLineDataset (one scalar string per record/line)."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.data.dataset import Dataset, _new
from lens.framework.graph import Tensor
from lens.framework.tensor_shape import TensorShape


def _filenames_tensor(filenames):
    if isinstance(filenames, Tensor):
        if filenames.dtype.base_dtype is not _dt.string:
            raise TypeError("`filenames` must be a tf.string tensor, got %s" % filenames.dtype.name)
        t = filenames
    else:
        import os
        if isinstance(filenames, (str, bytes, os.PathLike)):
            filenames = [filenames]
        filenames = [os.fspath(f) for f in filenames]
        if not filenames:
            raise ValueError("`filenames` is empty: give at least one file")
        t = convert_to_tensor(filenames, _dt.string, name="filenames")
    if t.shape.ndims not in (None, 0, 1):
        raise ValueError("`filenames` must be a scalar or a vector of strings, got shape %s" % t.shape)
    return t


def _reader(op_type, filenames, compression_type, buffer_size):
    ins = [_filenames_tensor(filenames),
           convert_to_tensor(compression_type or "", _dt.string, name="compression_type"),
           convert_to_tensor(-1 if buffer_size is None else buffer_size, _dt.int64, name="buffer_size")]
    return _new(op_type, ins, _dt.string, TensorShape([]), {})


class TFRecordDataset(Dataset):
    """The records of one or more TFRecord files (compression_type None, 'ZLIB' or 'GZIP')."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        ds = _reader("TFRecordDataset", filenames, compression_type, buffer_size)
        super().__init__(ds._variant_tensor, ds.output_types, ds.output_shapes)


class TextLineDataset(Dataset):
    """The lines of one or more text files, without their line terminators."""

    def __init__(self, filenames, compression_type=None, buffer_size=None):
        ds = _reader("TextLineDataset", filenames, compression_type, buffer_size)
        super().__init__(ds._variant_tensor, ds.output_types, ds.output_shapes)
