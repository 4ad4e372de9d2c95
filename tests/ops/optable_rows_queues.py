"""Op-table rows for queues, readers, file ops and CountUpTo: self-checking rows against plain Python."""
import atexit
import os
import shutil
import tempfile

import numpy as np

import lens as tf
from optable_lib import custom, dataset_elements


def _tmpdir():
    d = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, d, True)
    return d


def _run(fetch_fn, feeds_fn=None, before=None):
    """Build fetch_fn() in a fresh graph and run it (after the ops from before(), if given)."""
    with tf.Graph().as_default(), tf.Session() as s:
        fetches = fetch_fn()
        if before is not None:
            for op in before():
                s.run(op)
        return s.run(fetches)


def _queue_rows():
    def fifo():
        with tf.Graph().as_default(), tf.Session() as s:
            q = tf.FIFOQueue(5, [tf.int32], shapes=[[]])
            s.run(q.enqueue(3))                                      # QueueEnqueueV2
            s.run(q.enqueue_many([[4, 5, 6]]))                      # QueueEnqueueManyV2
            assert s.run(q.size()) == 4                             # QueueSizeV2
            assert s.run(q.dequeue()) == 3                          # QueueDequeueV2
            assert s.run(q.dequeue_many(2)).tolist() == [4, 5]      # QueueDequeueManyV2
            s.run(q.close())                                        # QueueCloseV2
            assert s.run(q.is_closed())                             # QueueIsClosedV2
            assert s.run(q.dequeue_up_to(9)).tolist() == [6]        # QueueDequeueUpToV2

    def shuffle():
        with tf.Graph().as_default(), tf.Session() as s:
            q = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[[]], seed=3)
            s.run(q.enqueue_many([list(range(8))]))
            assert sorted(s.run(q.dequeue_many(8)).tolist()) == list(range(8))

    def padding():
        with tf.Graph().as_default(), tf.Session() as s:
            q = tf.PaddingFIFOQueue(5, [tf.float32], shapes=[[None]])
            s.run(q.enqueue([[1.0]]))
            s.run(q.enqueue([[2.0, 3.0]]))
            np.testing.assert_array_equal(s.run(q.dequeue_many(2)), [[1.0, 0.0], [2.0, 3.0]])

    def priority():
        with tf.Graph().as_default(), tf.Session() as s:
            q = tf.PriorityQueue(5, [tf.int32], shapes=[[]])
            s.run(q.enqueue_many(([3, 1, 2], [30, 10, 20])))
            p, v = s.run(q.dequeue_many(3))
            assert p.tolist() == [1, 2, 3] and v.tolist() == [10, 20, 30]

    rows = [custom(t, fifo, label=t) for t in (
        "FIFOQueueV2", "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueSizeV2", "QueueDequeueV2",
        "QueueDequeueManyV2", "QueueCloseV2", "QueueIsClosedV2", "QueueDequeueUpToV2")]
    return rows + [custom("RandomShuffleQueueV2", shuffle), custom("PaddingFIFOQueueV2", padding),
                   custom("PriorityQueueV2", priority)]


def _count_up_to():
    def check():
        with tf.Graph().as_default(), tf.Session() as s:
            v = tf.Variable(3, dtype=tf.int32)
            c = tf.count_up_to(v, 5)
            s.run(v.initializer)
            assert [s.run(c), s.run(c)] == [3, 4] and s.run(v) == 5
    return [custom("CountUpTo", check)]


def _file_rows():
    d = _tmpdir()

    def files():
        for name in ("b.txt", "a.txt", "c.bin"):
            with open(os.path.join(d, name), "wb") as f:
                f.write(name.encode() * 2)
        got = _run(lambda: tf.matching_files(os.path.join(d, "*.txt")))
        assert got.tolist() == [os.path.join(d, n).encode() for n in ("a.txt", "b.txt")]

    def read():
        path = os.path.join(d, "r.bin")
        with open(path, "wb") as f:
            f.write(b"\x00payload\xff")
        assert _run(lambda: tf.read_file(path)) == b"\x00payload\xff"

    def write():
        path = os.path.join(d, "sub", "w.txt")
        _run(lambda: tf.write_file(path, "written"))
        with open(path, "rb") as f:
            assert f.read() == b"written"
    return [custom("MatchingFiles", files), custom("ReadFile", read), custom("WriteFile", write)]


def _reader_rows():
    d = _tmpdir()
    text = os.path.join(d, "t.txt")
    with open(text, "wb") as f:
        f.write(b"header\nl1\nl2\n")
    binary = os.path.join(d, "b.bin")
    with open(binary, "wb") as f:
        f.write(b"H" + bytes(range(8)) + b"FF")
    rec = os.path.join(d, "r.tfrecord")
    with tf.python_io.TFRecordWriter(rec) as w:
        for r in (b"x", b"yz"):
            w.write(r)

    def reading(reader, path, n):
        with tf.Graph().as_default(), tf.Session() as s:
            q = tf.FIFOQueue(3, tf.string, shapes=[[]])
            s.run(q.enqueue_many([[path]]))
            s.run(q.close())
            k, v = reader().read_up_to(q, n)
            return [(a.decode(), b) for a, b in zip(*s.run([k, v]))]

    def tfrecord():
        assert reading(tf.TFRecordReader, rec, 5) == [(rec + ":0", b"x"), (rec + ":17", b"yz")]

    def textline():
        assert reading(lambda: tf.TextLineReader(skip_header_lines=1), text, 5) == [
            (text + ":2", b"l1"), (text + ":3", b"l2")]

    def fixed():
        got = reading(lambda: tf.FixedLengthRecordReader(3, header_bytes=1, footer_bytes=2), binary, 5)
        assert got == [(binary + ":0", bytes([0, 1, 2])), (binary + ":1", bytes([3, 4, 5]))]

    def whole():
        with open(text, "rb") as f:
            assert reading(tf.WholeFileReader, text, 1) == [(text, f.read())]

    def identity():
        assert reading(tf.IdentityReader, "work", 1) == [("work", b"work")]

    def single_and_counters():
        with tf.Graph().as_default(), tf.Session() as s:
            q = tf.FIFOQueue(3, tf.string, shapes=[[]])
            s.run(q.enqueue_many([[text, text]]))
            r = tf.TextLineReader()
            k, v = r.read(q)
            got = [s.run(v) for _ in range(3)]
            assert got == [b"header", b"l1", b"l2"]
            assert s.run([r.num_records_produced(), r.num_work_units_completed()]) == [3, 0]
            s.run(v)                                # the 4th record opens the 2nd file (the 1st is done)
            assert s.run(r.num_work_units_completed()) == 1
            s.run(r.reset())
            assert s.run(r.num_records_produced()) == 0

    return [custom("TFRecordReaderV2", tfrecord), custom("TextLineReaderV2", textline),
            custom("FixedLengthRecordReaderV2", fixed), custom("WholeFileReaderV2", whole),
            custom("IdentityReaderV2", identity), custom("ReaderReadUpToV2", textline, label="ReaderReadUpToV2"),
            custom("ReaderReadV2", single_and_counters), custom("ReaderNumRecordsProducedV2", single_and_counters),
            custom("ReaderNumWorkUnitsCompletedV2", single_and_counters),
            custom("ReaderResetV2", single_and_counters)]


def _dataset_rows():
    d = _tmpdir()
    path = os.path.join(d, "f.bin")
    data = bytes(range(20))
    with open(path, "wb") as f:
        f.write(data)

    def fixed():
        with tf.Graph().as_default():
            got = dataset_elements(tf.data.FixedLengthRecordDataset(path, 4, header_bytes=2, footer_bytes=2))
        assert [bytes(g) for g in got] == [data[i:i + 4] for i in range(2, 18, 4)]

    def ignore():
        with tf.Graph().as_default():
            ds = tf.data.Dataset.from_tensor_slices(np.array([b"1", b"x", b"2.5"], dtype=object))
            ds = ds.map(tf.string_to_number).apply(tf.data.experimental.ignore_errors())
            got = dataset_elements(ds)
        assert [float(g) for g in got] == [1.0, 2.5]
    E = tf.data.experimental
    D = tf.data.Dataset

    def elements(ds):
        return [np.asarray(e).tolist() if not isinstance(e, tuple) else tuple(np.asarray(c).tolist() for c in e)
                for e in dataset_elements(ds)]

    def in_graph(fn):
        def check():
            with tf.Graph().as_default():
                fn()
        return check

    def unbatch():
        m = np.arange(12).reshape(3, 2, 2)
        assert elements(D.from_tensor_slices(m).apply(E.unbatch())) == [list(r) for r in m.reshape(6, 2).tolist()]

    def scan():
        xs = [3, 1, 4, 1, 5]
        running = list(np.cumsum([0] + xs[:-1]))
        assert elements(D.from_tensor_slices(np.array(xs, np.int64)).apply(
            E.scan(np.int64(0), lambda s, x: (s + x, s)))) == running

    def take_while():
        assert elements(D.range(10).apply(E.take_while(lambda x: x * x < 20))) == [0, 1, 2, 3, 4]

    def unique():
        xs = [4, 2, 4, 7, 2, 9]
        assert elements(D.from_tensor_slices(np.array(xs, np.int64)).apply(E.unique())) == list(dict.fromkeys(xs))

    def directed():
        choice = D.from_tensor_slices(np.array([1, 0, 1, 1, 0], np.int64))
        assert elements(E.choose_from_datasets([D.range(2), D.range(10, 13)], choice)) == [10, 0, 11, 12, 1]

    def random():
        a = elements(E.RandomDataset(seed=5).take(4))
        b = elements(E.RandomDataset(seed=5).take(4))
        assert a == b and len(set(a)) == 4 and all(0 <= v < 2 ** 63 for v in a)

    def cardinality():
        with tf.Session() as s:
            got = s.run([E.cardinality(D.range(10).batch(4)), E.cardinality(D.range(3).repeat()),
                         E.cardinality(D.range(5).filter(lambda x: x > 2)), E.cardinality(D.range(9).skip(4).take(3))])
        assert got == [3, E.INFINITE_CARDINALITY, E.UNKNOWN_CARDINALITY, 3]

    def single():
        with tf.Session() as s:
            assert s.run(E.get_single_element(D.from_tensors(np.int32(7)))) == 7

    def to_tfrecord():
        path = os.path.join(_tmpdir(), "w.tfrecord")
        records = [b"one", b"", b"three"]
        write = E.TFRecordWriter(path).write(D.from_tensor_slices(np.array(records, dtype=object)))
        with tf.Session() as s:
            s.run(write)
        assert list(tf.python_io.tf_record_iterator(path)) == records

    def bucket():
        lengths = [2, 5, 1, 4, 3, 1]
        rows = np.zeros((6, 5), np.int64)
        for i, n in enumerate(lengths):
            rows[i, :n] = i + 1
        ds = D.from_tensor_slices((rows, np.array(lengths, np.int64))).map(lambda r, n: r[:n])
        got = elements(ds.apply(E.bucket_by_sequence_length(lambda r: tf.shape(r)[0], [3], [2, 2])))
        # short rows (< 3) pair up as they come, long ones too; batches are padded to their longest row
        assert got == [[[1, 1], [3, 0]], [[2, 2, 2, 2, 2], [4, 4, 4, 4, 0]], [[6]], [[5, 5, 5]]]

    def reducer():
        xs = [4, 9, 1, 6, 7, 2]
        r = E.Reducer(lambda k: np.int64(0), lambda s, x: s + x, lambda s: s)
        got = elements(D.from_tensor_slices(np.array(xs, np.int64)).apply(E.group_by_reducer(lambda x: x % 2, r)))
        assert got == [sum(x for x in xs if x % 2 == 0), sum(x for x in xs if x % 2 == 1)]     # keys in order

    def from_list():
        assert elements(E.from_list([[1, 2], [3], [4, 5, 6]])) == [[1, 2], [3], [4, 5, 6]]

    def sql():
        import sqlite3
        db = os.path.join(_tmpdir(), "q.db")
        conn = sqlite3.connect(db)
        conn.execute("create table t (n integer, s text)")
        conn.executemany("insert into t values (?, ?)", [(3, "c"), (1, "a"), (2, None)])
        conn.commit()
        want = [(n, (s or "").encode()) for n, s in conn.execute("select n, s from t order by n")]
        conn.close()
        got = elements(E.SqlDataset("sqlite", db, "select n, s from t order by n", (tf.int64, tf.string)))
        assert [tuple(g) for g in got] == want

    def assert_card():
        assert elements(D.range(2).apply(E.assert_cardinality(2))) == [0, 1]
        try:
            elements(D.range(3).apply(E.assert_cardinality(2)))
            raise AssertionError("a third element passed assert_cardinality(2)")
        except tf.errors.FailedPreconditionError as e:
            assert "expected to contain 2 elements but contained at least 3 elements" in str(e)

    return [custom("FixedLengthRecordDatasetV2", fixed), custom("IgnoreErrorsDataset", ignore),
            custom("UnbatchDataset", in_graph(unbatch)), custom("ScanDataset", in_graph(scan)),
            custom("TakeWhileDataset", in_graph(take_while)), custom("UniqueDataset", in_graph(unique)),
            custom("DirectedInterleaveDataset", in_graph(directed)), custom("RandomDataset", in_graph(random)),
            custom("DatasetCardinality", in_graph(cardinality)), custom("DatasetToSingleElement", in_graph(single)),
            custom("DatasetToTFRecord", in_graph(to_tfrecord)),
            custom("GroupByWindowDataset", in_graph(bucket)), custom("AssertCardinalityDataset", in_graph(assert_card)),
            custom("GroupByReducerDataset", in_graph(reducer)), custom("ListDataset", in_graph(from_list)),
            custom("SqlDataset", in_graph(sql))]


def _sparse_map_rows():
    from lens.ops import sparse_map_ops as smo

    def check():
        with tf.Graph().as_default(), tf.Session() as s:
            a = tf.SparseTensor([[0], [2]], [1.0, 2.0], [3])
            b = tf.SparseTensor([[1]], [5.0], [4])
            many = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [7.0, 8.0, 9.0], [2, 3])
            h = [smo.add_sparse_to_tensors_map(a, shared_name="m"), smo.add_sparse_to_tensors_map(b, shared_name="m")]
            hm = smo.add_many_sparse_to_tensors_map(many, shared_name="m")
            handles = s.run(h + [hm])
            taken = smo.take_many_sparse_from_tensors_map(h[0].op, tf.constant(handles[:2], tf.int64), rank=2)
            got = s.run(taken)
            assert got.indices.tolist() == [[0, 0], [0, 2], [1, 1]] and got.values.tolist() == [1.0, 2.0, 5.0]
            assert got.dense_shape.tolist() == [2, 4]                 # the largest shape per dimension
            rows = s.run(smo.take_many_sparse_from_tensors_map(h[0].op, tf.constant(handles[2], tf.int64)))
            assert rows.indices.tolist() == many_indices() and rows.values.tolist() == [7.0, 8.0, 9.0]
            try:
                s.run(taken)                                          # taken handles are gone from the map
                raise AssertionError("a taken handle was found again")
            except tf.errors.InvalidArgumentError:
                pass

    def many_indices():
        return [[0, 1], [1, 0], [1, 2]]
    return [custom(t, check) for t in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap",
                                       "TakeManySparseFromTensorsMap")]


def _accumulator_rows():
    def dense():
        with tf.Graph().as_default(), tf.Session() as s:
            acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
            s.run(acc.apply_grad([1.0, 2.0]))
            s.run(acc.apply_grad([3.0, 6.0]))
            s.run(acc.apply_grad([9.0, 9.0], local_step=-1))          # stale
            assert s.run(acc.num_accumulated()) == 2
            np.testing.assert_allclose(s.run(acc.take_grad(2)), [2.0, 4.0])
            s.run(acc.set_global_step(0))
            s.run(acc.apply_grad([1.0, 1.0]))
            assert s.run(acc.num_accumulated()) == 1

    def sparse():
        with tf.Graph().as_default(), tf.Session() as s:
            acc = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 1], reduction_type="SUM")
            s.run(acc.apply_grad([1, 3], [[1.0], [2.0]]))
            s.run(acc.apply_grad([1], [[5.0]], local_step=-1))         # stale
            s.run(acc.apply_grad([1], [[4.0]]))
            assert s.run(acc.num_accumulated()) == 2
            idx, val, shape = s.run(acc.take_grad(2))
            assert idx.tolist() == [1, 3] and val.tolist() == [[5.0], [2.0]] and shape.tolist() == [4, 1]
            s.run(acc.set_global_step(7))
    dense_types = ("ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
                   "ResourceAccumulatorTakeGradient", "ResourceAccumulatorNumAccumulated",
                   "ResourceAccumulatorSetGlobalStep")
    return [custom(t, dense) for t in dense_types] + [custom(t.replace("ResourceConditional", "SparseConditional")
                                                             .replace("Resource", "Sparse"), sparse)
                                                      for t in dense_types]


ROWS = (_sparse_map_rows() + _accumulator_rows() + _queue_rows() + _count_up_to() + _file_rows() + _reader_rows()
        + _dataset_rows())
