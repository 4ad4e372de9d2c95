"""TFRecordDataset and TextLineDataset over real files (TensorBoard's own writer as an oracle)."""
import gzip

import numpy as np
import pytest

import lens as tf
from lens import errors
from tests.ops.optable_lib import dataset_elements


def test_tfrecord_dataset_reads_tensorboards_writer(tmp_path):
    from tensorboard.summary.writer.record_writer import RecordWriter
    path = tmp_path / "a.tfrecord"
    records = [b"", b"x" * 1000, b"\x00\xff binary"]
    with open(path, "wb") as f:
        w = RecordWriter(f)
        for r in records:
            w.write(r)
        w.flush()
    ds = tf.data.TFRecordDataset(str(path))
    assert ds.output_types == tf.string and ds.output_shapes.as_list() == []
    assert dataset_elements(ds) == records


def test_tfrecord_dataset_many_files_gzip_and_lens_writer(tmp_path):
    paths = []
    for k in range(2):
        p = str(tmp_path / ("f%d.gz" % k))
        with tf.python_io.TFRecordWriter(p, tf.python_io.TFRecordOptions("GZIP")) as w:
            for i in range(3):
                w.write(b"%d-%d" % (k, i))
        paths.append(p)
    got = dataset_elements(tf.data.TFRecordDataset(paths, compression_type="GZIP"))
    assert got == [b"0-0", b"0-1", b"0-2", b"1-0", b"1-1", b"1-2"]
    # Filenames may also come from a fed placeholder.
    names = tf.placeholder(tf.string, [None])
    it = tf.data.TFRecordDataset(names, compression_type="GZIP").make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {names: paths[1:]})
        assert sess.run(nxt) == b"1-0"


def test_tfrecord_dataset_reports_corruption_and_missing_files(tmp_path):
    p = tmp_path / "bad.tfrecord"
    with tf.python_io.TFRecordWriter(str(p)) as w:
        w.write(b"hello world")
    data = bytearray(p.read_bytes())
    data[14] ^= 0xFF
    p.write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match="CRC"):
        dataset_elements(tf.data.TFRecordDataset(str(p)))
    tf.reset_default_graph()
    with pytest.raises(errors.NotFoundError, match="missing"):
        dataset_elements(tf.data.TFRecordDataset(str(tmp_path / "missing.tfrecord")))
    with pytest.raises(ValueError, match="empty"):
        tf.data.TFRecordDataset([])


def test_text_line_dataset_strips_terminators(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    a.write_bytes(b"first\nsecond\r\n\nmid\rcr\nlast-no-newline")
    with gzip.open(b, "wb") as f:
        f.write("über\n".encode())
    assert dataset_elements(tf.data.TextLineDataset(str(a))) == [b"first", b"second", b"", b"midcr",
                                                           b"last-no-newline"]
    tf.reset_default_graph()
    assert dataset_elements(tf.data.TextLineDataset([str(b)], compression_type="GZIP")) == ["über".encode()]


def test_text_lines_through_map_and_batch(tmp_path):
    p = tmp_path / "nums.txt"
    p.write_text("".join("%d\n" % i for i in range(5)))
    ds = tf.data.TextLineDataset(str(p)).map(lambda s: tf.size(tf.reshape(s, [1]))).batch(2)
    got = dataset_elements(ds)
    assert [g.tolist() for g in got] == [[1, 1], [1, 1], [1]]
    np.testing.assert_equal(got[0].dtype, np.int32)
