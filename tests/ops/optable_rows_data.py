"""Op-table rows for tf.data and Example parsing: each builds its op and checks it against NumPy."""
import atexit
import os
import shutil
import tempfile

import numpy as np

import lens as tf
import lens.data  # noqa: F401 - registers the dataset and iterator op types
from optable_lib import custom, dataset_elements

def _row(op_type, build, reference):
    """A row: build() returns a dataset whose elements must equal reference() (compared as arrays)."""
    def check():
        with tf.Graph().as_default() as g:
            got = dataset_elements(build())
            types = {o.type for o in g.get_operations()}
            assert op_type in types, "the check built %s, no %s op" % (sorted(types), op_type)
        exp = reference()
        assert len(got) == len(exp), "%s: %d elements, NumPy reference has %d" % (op_type, len(got), len(exp))
        for i, (a, b) in enumerate(zip(got, exp)):
            for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
                np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg="%s element %d" % (op_type, i))
    return custom(op_type, check)


_M = np.arange(12, dtype=np.float32).reshape(4, 3)
_DS = lambda: tf.data.Dataset  # noqa: E731


def _slices():
    return _DS().from_tensor_slices(_M)


def _write(kind, tmp):
    d = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, d, True)
    path = os.path.join(d, "f")
    if kind == "tfrecord":
        with tf.python_io.TFRecordWriter(path) as w:
            for r in tmp:
                w.write(r)
    else:
        with open(path, "wb") as f:
            f.write(b"\n".join(tmp) + b"\n")
    return path


def _padded_ref():
    rows = [np.full(n, n, np.int64) for n in range(1, 4)]
    out = np.zeros((3, 3), np.int64)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return [out]


def _iterator_rows():
    def v2():
        with tf.Graph().as_default() as g:
            it = _DS().range(3).make_initializable_iterator()
            nxt = it.get_next()
            types = {o.type for o in g.get_operations()}
            assert {"IteratorV2", "MakeIterator", "IteratorGetNext"} <= types
            with tf.Session() as sess:
                sess.run(it.initializer)
                assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
                sess.run(it.initializer)
                assert sess.run(nxt) == 0
    def handles():
        with tf.Graph().as_default():
            it = _DS().range(5, 8).make_one_shot_iterator()
            h = tf.placeholder(tf.string, [])
            fed = tf.data.Iterator.from_string_handle(h, it.output_types, it.output_shapes).get_next()
            with tf.Session() as sess:
                hv = sess.run(it.string_handle())
                assert isinstance(hv, bytes)
                assert [sess.run(fed, {h: hv}) for _ in range(3)] == [5, 6, 7]
    return [custom("IteratorV2", v2), custom("MakeIterator", v2, "MakeIterator"),
            custom("IteratorGetNext", v2, "IteratorGetNext"),
            custom("OneShotIterator", handles), custom("IteratorToStringHandle", handles),
            custom("IteratorFromStringHandleV2", handles)]


def _parse_rows():
    def example(x, y):
        ex = tf.train.Example()
        ex.features.feature["x"].float_list.value.extend(x)
        ex.features.feature["y"].int64_list.value.extend(y)
        return ex.SerializeToString()
    feats = {"x": tf.FixedLenFeature([2], tf.float32), "y": tf.VarLenFeature(tf.int64)}

    def single():
        with tf.Graph().as_default():
            p = tf.parse_single_example(example([1.0, 2.0], [4, 5]), feats)
            with tf.Session() as sess:
                got = sess.run(p)
            np.testing.assert_array_equal(got["x"], np.float32([1.0, 2.0]))
            np.testing.assert_array_equal(got["y"].values, [4, 5])
            np.testing.assert_array_equal(got["y"].indices, [[0], [1]])

    def batch():
        with tf.Graph().as_default():
            p = tf.parse_example([example([1.0, 2.0], [4]), example([3.0, 4.0], [])], feats)
            with tf.Session() as sess:
                got = sess.run(p)
            np.testing.assert_array_equal(got["x"], np.float32([[1, 2], [3, 4]]))
            np.testing.assert_array_equal(got["y"].dense_shape, [2, 1])
    return [custom("ParseSingleExample", single), custom("ParseExample", batch)]


ROWS = [
    _row("TensorSliceDataset", _slices, lambda: list(_M)),
    _row("TensorDataset", lambda: _DS().from_tensors((_M, 3)), lambda: [(_M, 3)]),
    _row("RangeDataset", lambda: _DS().range(3, 10, 3), lambda: list(np.arange(3, 10, 3))),
    _row("ZipDataset", lambda: _DS().zip((_slices(), _DS().range(9))), lambda: list(zip(_M, range(4)))),
    _row("ConcatenateDataset", lambda: _DS().range(2).concatenate(_DS().range(2)), lambda: [0, 1, 0, 1]),
    _row("MapDataset", lambda: _slices().map(lambda r: tf.reduce_sum(r * r)), lambda: list((_M * _M).sum(1))),
    _row("FilterDataset", lambda: _DS().range(9).filter(lambda x: x > 5), lambda: [6, 7, 8]),
    _row("FlatMapDataset", lambda: _DS().range(3).flat_map(lambda x: _DS().range(x)), lambda: [0, 0, 1]),
    _row("InterleaveDataset", lambda: _DS().range(2).interleave(lambda x: _DS().from_tensors(x).repeat(3), 2),
         lambda: [0, 1, 0, 1, 0, 1]),
    _row("BatchDatasetV2", lambda: _slices().batch(3), lambda: [_M[:3], _M[3:]]),
    _row("PaddedBatchDatasetV2", lambda: _DS().range(1, 4).map(
        lambda n: tf.fill(tf.expand_dims(tf.cast(n, tf.int32), 0), n)).padded_batch(3, [None]), _padded_ref),
    _row("ShuffleDataset", lambda: _DS().range(5).shuffle(1, seed=1), lambda: list(range(5))),
    _row("RepeatDataset", lambda: _DS().range(2).repeat(2), lambda: [0, 1, 0, 1]),
    _row("TakeDataset", lambda: _slices().take(2), lambda: list(_M[:2])),
    _row("SkipDataset", lambda: _slices().skip(3), lambda: list(_M[3:])),
    _row("PrefetchDataset", lambda: _slices().prefetch(1), lambda: list(_M)),
    _row("CacheDataset", lambda: _DS().range(2).cache().repeat(2), lambda: [0, 1, 0, 1]),
    _row("GeneratorDataset", lambda: _DS().from_generator(lambda: iter(range(3)), tf.int64), lambda: [0, 1, 2]),
    _row("TFRecordDataset", lambda: tf.data.TFRecordDataset(_write("tfrecord", [b"a", b"bc"])),
         lambda: [np.array(b"a", object), np.array(b"bc", object)]),
    _row("TextLineDataset", lambda: tf.data.TextLineDataset(_write("text", [b"x", b"yz"])),
         lambda: [np.array(b"x", object), np.array(b"yz", object)]),
] + _iterator_rows() + _parse_rows()
