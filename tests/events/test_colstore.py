"""Column files: several series in one file (a record batch each) read back exactly, and a
damaged shared file refused for every series it holds."""

import os

import numpy as np
import pytest

from lens.events import colstore
from lens.events.summary import block_summary


def _stretch(n, dtype, seed):
    rng = np.random.default_rng(seed)
    return (np.sort(rng.integers(-5, 10**9, n)).astype(np.int64), rng.random(n) * 1e9,
            rng.standard_normal(n).astype(dtype))


def _fresh(chunk):
    """The chunk as a restarted board sees it: from its entry, CRC not yet checked."""
    return colstore.Chunk.from_entry(os.path.dirname(chunk.path), chunk.entry())


def test_stretches_share_a_file_per_value_type_and_read_back(tmp_path):
    stretches = [_stretch(3000, np.float32, 0), _stretch(10, np.float64, 1),
                 _stretch(1, np.float32, 2), _stretch(2500, np.float64, 3)]
    chunks = colstore.write_chunks(str(tmp_path), stretches)
    assert len({c.path for c in chunks}) == 2 and len(os.listdir(tmp_path)) == 2
    assert [c.batch for c in chunks] == [0, 0, 1, 1]
    for chunk, (steps, walls, values) in zip(chunks, stretches):
        got = _fresh(chunk).columns()
        for column, want in zip(got, (steps, walls, values)):
            assert column.dtype == want.dtype
            np.testing.assert_array_equal(column, want)
        assert chunk.first_step == steps[0] and chunk.last_step == steps[-1]
        np.testing.assert_array_equal(chunk.summary["min"], block_summary(values)["min"])


def test_a_damaged_shared_file_is_refused_for_every_series_in_it(tmp_path):
    chunks = colstore.write_chunks(str(tmp_path), [_stretch(500, np.float32, s) for s in range(3)])
    path = chunks[0].path
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 1
    open(path, "wb").write(bytes(data))
    for chunk in chunks:
        with pytest.raises(colstore.ChunkError, match="CRC"):
            _fresh(chunk).columns()


def test_an_entry_naming_a_batch_the_file_lacks_is_refused(tmp_path):
    chunk = colstore.write_chunk(str(tmp_path), *_stretch(100, np.float32, 0))
    entry = dict(chunk.entry(), batch=1)
    with pytest.raises(colstore.ChunkError, match="batch"):
        colstore.Chunk.from_entry(str(tmp_path), entry).columns()
