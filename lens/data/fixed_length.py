"""tf.data.FixedLengthRecordDataset: fixed-size records of binary files (after a header, before a footer)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.data import record_sources
from lens.data.dataset import Dataset, _new
from lens.data.readers import _filenames_tensor
from lens.data.values import DatasetValue, _invalid
from lens.data.values_io import _compression, _filenames


class FixedLengthRecords(DatasetValue):
    """record_bytes-long scalar strings from each file, in file order."""

    def __init__(self, filenames, header, record, footer, compression):
        self.files, self.compression = _filenames(filenames), _compression(compression)
        self.header, self.record, self.footer = int(header), int(record), int(footer)
        if self.record <= 0:
            raise _invalid("record_bytes must be > 0, got %d" % self.record)
        if self.header < 0 or self.footer < 0:
            raise _invalid("header_bytes and footer_bytes must be >= 0, got %d and %d" % (self.header, self.footer))

    def iterate(self):
        for path in self.files:
            for _, rec in record_sources.fixed_length_records(path, self.record, self.header, self.footer, 0,
                                                              self.compression, exact=True):
                yield (np.array(rec, dtype=object),)


register_op("FixedLengthRecordDatasetV2", make=lambda op, ctx: lambda f, h, r, ft, b, c: FixedLengthRecords(
    f, h, r, ft, c), not_differentiable=True, shape=lambda op: [()])


class FixedLengthRecordDataset(Dataset):
    """The record_bytes-long records of binary files, skipping header_bytes and footer_bytes of each."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None):
        if num_parallel_reads is not None and num_parallel_reads > 1:
            # As TF: files read num_parallel_reads at a time, their records interleaved one by one.
            files = Dataset.from_tensor_slices(_filenames_tensor(filenames))
            ds = files.interleave(lambda f: FixedLengthRecordDataset(f, record_bytes, header_bytes, footer_bytes,
                                                                     buffer_size, compression_type),
                                  cycle_length=num_parallel_reads)
            super().__init__(ds._variant_tensor, ds.output_types, ds.output_shapes)
            return
        ins = [_filenames_tensor(filenames),
               convert_to_tensor(header_bytes or 0, _dt.int64, name="header_bytes"),
               convert_to_tensor(record_bytes, _dt.int64, name="record_bytes"),
               convert_to_tensor(footer_bytes or 0, _dt.int64, name="footer_bytes"),
               convert_to_tensor(-1 if buffer_size is None else buffer_size, _dt.int64, name="buffer_size"),
               convert_to_tensor(compression_type or "", _dt.string, name="compression_type")]
        ds = _new("FixedLengthRecordDatasetV2", ins, _dt.string, TensorShape([]), {})
        super().__init__(ds._variant_tensor, ds.output_types, ds.output_shapes)


