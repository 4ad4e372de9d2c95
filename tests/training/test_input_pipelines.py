"""Queue runners, input producers and the batchers of tf.train, checked against plain Python."""
import os
import threading
import time

import numpy as np
import pytest

import lens as tf

TIMEOUT = 5.0


def drain(sess, fetches):
    """Run fetches until OutOfRangeError; the list of results."""
    out = []
    while True:
        try:
            out.append(sess.run(fetches))
        except tf.errors.OutOfRangeError:
            return out


def run_pipeline(fetches, init_locals=True):
    """Start the queue runners under a coordinator, drain fetches, stop and join; the results."""
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        if init_locals:
            sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out = drain(sess, fetches)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=TIMEOUT)
        assert not any(t.is_alive() for t in threads)
    return out


def test_string_input_producer_epochs_and_names():
    q = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    assert q.name == "input_producer" and isinstance(q, tf.FIFOQueue)
    qr = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    assert len(qr) == 1 and qr[0].queue is q
    assert "input_producer/fraction_of_32_full" in [o.name for o in tf.get_default_graph().get_operations()]
    got = run_pipeline(q.dequeue())
    assert got == [b"a", b"b", b"c"] * 2


def test_shuffled_producer_covers_each_epoch():
    q = tf.train.range_input_producer(6, num_epochs=3, shuffle=True, seed=4)
    got = [int(v) for v in run_pipeline(q.dequeue())]
    assert len(got) == 18
    for epoch in range(3):
        assert sorted(got[6 * epoch:6 * epoch + 6]) == list(range(6))
    assert got[:6] != list(range(6)) or got[6:12] != list(range(6))


def test_slice_input_producer_and_batch():
    xs = np.arange(10, dtype=np.float32).reshape(5, 2)
    ys = np.arange(5, dtype=np.int64)
    x, y = tf.train.slice_input_producer([xs, ys], num_epochs=2, shuffle=False)
    bx, by = tf.train.batch([x, y], 3, allow_smaller_final_batch=True)
    assert bx.name == "batch:0" and bx.shape.as_list() == [None, 2]
    got = run_pipeline([bx, by])
    flat = np.concatenate([b for _, b in got])
    np.testing.assert_array_equal(flat, np.tile(ys, 2))
    np.testing.assert_array_equal(np.concatenate([a for a, _ in got]), np.tile(xs, (2, 1)))
    assert [len(b) for _, b in got] == [3, 3, 3, 1]


def test_batch_shapes_dicts_and_full_batches():
    v = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
    out = tf.train.batch({"v": v, "sq": v * v}, 2)
    assert sorted(out) == ["sq", "v"] and out["v"].shape.as_list() == [2]
    got = run_pipeline(out)
    assert [r["v"].tolist() for r in got] == [[0, 1], [2, 3], [4, 5]]        # the 7th is dropped
    assert [r["sq"].tolist() for r in got] == [[0, 1], [4, 9], [16, 25]]


def test_dynamic_pad_batch():
    n = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue() + 1
    row = tf.fill(tf.expand_dims(n, 0), n)
    (b,) = [tf.train.batch([row], 2, dynamic_pad=True)]
    got = run_pipeline(b)
    assert [g.tolist() for g in got] == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    with pytest.raises(ValueError, match="fully defined"):
        tf.train.batch([row], 2)


def test_shuffle_batch_and_join_keep_every_element():
    v = tf.train.range_input_producer(20, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.shuffle_batch([v], 4, capacity=12, min_after_dequeue=5, seed=1, allow_smaller_final_batch=True)
    assert b.name == "shuffle_batch:0"
    names = [o.name for o in tf.get_default_graph().get_operations()]
    assert "shuffle_batch/fraction_over_5_of_7_full" in names
    got = np.concatenate(run_pipeline(b)).tolist()
    assert sorted(got) == list(range(20)) and got != list(range(20))
    with pytest.raises(ValueError, match="capacity 5 must be bigger than min_after_dequeue 5"):
        tf.train.shuffle_batch([v], 2, capacity=5, min_after_dequeue=5)


def test_batch_join_mixes_sources():
    tf.reset_default_graph()
    a = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue() + 100
    out = tf.train.batch_join([[a], [b]], 2, allow_smaller_final_batch=True)
    assert out.name == "batch_join:0"
    assert sorted(np.concatenate(run_pipeline(out)).tolist()) == [0, 1, 2, 100, 101, 102]
    tf.reset_default_graph()
    a = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue() * 10
    out = tf.train.shuffle_batch_join([[a], [b]], 2, capacity=8, min_after_dequeue=2, seed=3,
                                      allow_smaller_final_batch=True)
    assert sorted(np.concatenate(run_pipeline(out)).tolist()) == sorted([0, 1, 2, 3, 0, 10, 20, 30])


def test_maybe_batch_filters_like_python():
    v = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
    out = tf.train.maybe_batch([v], tf.equal(v % 3, 0), 2, allow_smaller_final_batch=True)
    assert np.concatenate(run_pipeline(out)).tolist() == [x for x in range(10) if x % 3 == 0]
    tf.reset_default_graph()
    xs = tf.constant(np.arange(8))
    out = tf.train.maybe_batch([xs], xs > 4, 10, enqueue_many=True, allow_smaller_final_batch=True)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert sess.run(out).tolist() == [5, 6, 7, 5, 6, 7, 5, 6, 7, 5][:10]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=TIMEOUT)
    tf.reset_default_graph()
    v = tf.train.range_input_producer(30, num_epochs=1, shuffle=False).dequeue()
    out = tf.train.maybe_shuffle_batch([v], 3, 10, 2, v < 6, seed=2, allow_smaller_final_batch=True)
    assert sorted(np.concatenate(run_pipeline(out)).tolist()) == list(range(6))
    with pytest.raises(ValueError, match="cannot be a vector"):
        tf.train.maybe_batch([v], [True], 2)


def test_limit_epochs_and_match_filenames_once(tmp_path):
    t = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=2)
    for name in ("b.csv", "a.csv", "c.txt"):
        (tmp_path / name).write_text("x")
    files = tf.train.match_filenames_once(str(tmp_path / "*.csv"))
    assert files in tf.local_variables()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert [sess.run(t).tolist(), sess.run(t).tolist()] == [[1, 2], [1, 2]]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(t)
        assert sess.run(files).tolist() == [str(tmp_path / n).encode() for n in ("a.csv", "b.csv")]
    assert tf.train.limit_epochs(t) is t
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        tf.train.limit_epochs(t, 0)


def test_runner_without_coordinator_records_errors():
    q = tf.FIFOQueue(2, tf.float32, shapes=[[]])
    p = tf.placeholder(tf.float32, [])
    qr = tf.train.QueueRunner(q, [q.enqueue(p)])      # an enqueue that cannot run (unfed placeholder)
    with tf.Session() as sess:
        threads = qr.create_threads(sess, start=False)
        old = threading.excepthook
        threading.excepthook = lambda args: None      # the thread re-raises, as TF's does
        try:
            for th in threads:
                th.start()
                th.join(TIMEOUT)
        finally:
            threading.excepthook = old
        assert [type(e) for e in qr.exceptions_raised] == [tf.errors.InvalidArgumentError]


def test_coordinator_stop_and_session_close_end_the_threads():
    q = tf.train.range_input_producer(10 ** 6, shuffle=False, capacity=4)
    d = q.dequeue()
    sess = tf.Session()
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    assert len(threads) == 2                          # the enqueue thread and the close-on-stop thread
    assert [sess.run(d) for _ in range(3)] == [0, 1, 2]
    time.sleep(0.05)                                  # the runner is now blocked on a full queue
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=TIMEOUT)
    assert not any(t.is_alive() for t in threads)
    # A second start in a new session, then Session.close() alone: the blocked enqueue is cancelled.
    sess.close()
    sess2 = tf.Session()
    coord2 = tf.train.Coordinator()
    threads2 = tf.train.start_queue_runners(sess2, coord2)
    assert sess2.run(d) == 0
    sess2.close()
    for t in threads2:
        if t.name.endswith("close_on_stop"):
            continue
        t.join(TIMEOUT)
        assert not t.is_alive()
    coord2.request_stop()
    with pytest.raises((tf.errors.CancelledError, RuntimeError)):
        coord2.join(threads2, stop_grace_period_secs=TIMEOUT)
    assert not any(t.is_alive() for t in threads2)


def test_monitored_session_runs_queue_runners():
    x = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.batch([x], 2, allow_smaller_final_batch=True)
    got = []
    with tf.train.MonitoredSession() as sess:
        while not sess.should_stop():
            got.append(sess.run(b).tolist())
    assert got == [[0, 1], [2, 3], [4]]
    assert not [t for t in threading.enumerate() if t.name.startswith("QueueRunnerThread")]


def test_start_queue_runners_needs_a_session():
    with pytest.raises(ValueError, match="No default session"):
        tf.train.start_queue_runners()
    with pytest.raises(ValueError, match="required"):
        tf.train.QueueRunner(None, [])


def test_reader_pipeline_end_to_end(tmp_path):
    paths = []
    for i in range(2):
        p = str(tmp_path / ("part%d.tfrecord" % i))
        with tf.python_io.TFRecordWriter(p) as w:
            for j in range(3):
                w.write(b"%d-%d" % (i, j))
        paths.append(p)
    files = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
    key, value = tf.TFRecordReader().read(files)
    keys, values = tf.train.batch([key, value], 4, allow_smaller_final_batch=True)
    got = run_pipeline(values)
    assert np.concatenate(got).tolist() == [b"%d-%d" % (i, j) for i in range(2) for j in range(3)]
    assert os.path.basename(paths[0]) == "part0.tfrecord"


def test_looper_thread_and_coordinator_looper():
    coord = tf.train.Coordinator()
    calls = []
    looper = coord.looper(0.01, calls.append, args=("tick",))
    time.sleep(0.1)
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=TIMEOUT)
    assert 3 <= len(calls) and set(calls) == {"tick"}

    class Failing(tf.train.LooperThread):
        def run_loop(self):
            raise ValueError("boom")
    coord = tf.train.Coordinator()
    Failing(coord, None).start()
    with pytest.raises(ValueError, match="boom"):
        coord.join(stop_grace_period_secs=TIMEOUT)      # the loop's error stops the coordinator
    with pytest.raises(ValueError, match="must be a Coordinator"):
        tf.train.LooperThread(object(), 1.0)


def test_sparse_tensors_go_through_batch(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    lists = [[3], [], [1, 4, 1], [5, 9]]
    with tf.python_io.TFRecordWriter(path) as w:
        for i, vals in enumerate(lists):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "tokens": tf.train.Feature(int64_list=tf.train.Int64List(value=vals))})).SerializeToString())
    _, record = tf.TFRecordReader().read(tf.train.string_input_producer([path], num_epochs=1, shuffle=False))
    parsed = tf.parse_single_example(record, {"id": tf.FixedLenFeature([], tf.int64),
                                              "tokens": tf.VarLenFeature(tf.int64)})
    batch = tf.train.batch(parsed, 2, allow_smaller_final_batch=True)
    assert isinstance(batch["tokens"], tf.SparseTensor) and batch["tokens"].indices.shape.as_list() == [None, 2]
    got = run_pipeline(batch)
    assert [b["id"].tolist() for b in got] == [[0, 1], [2, 3]]
    for b, rows in zip(got, (lists[:2], lists[2:])):
        sp = b["tokens"]
        want_idx = [[r, k] for r, vals in enumerate(rows) for k in range(len(vals))]
        assert sp.indices.tolist() == want_idx and sp.values.tolist() == [v for vals in rows for v in vals]
        assert sp.dense_shape.tolist() == [2, max(len(v) for v in rows)]


def test_tf1_training_program_on_a_queue_pipeline(tmp_path):
    """The TF1 tutorial shape: files -> reader -> parse -> shuffle_batch -> train in MonitoredTrainingSession."""
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = xs @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3
    path = str(tmp_path / "train.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for x, y in zip(xs, ys):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
                "y": tf.train.Feature(float_list=tf.train.FloatList(value=[y]))})).SerializeToString())
    files = tf.train.string_input_producer([path], num_epochs=20, seed=3)
    _, record = tf.TFRecordReader().read(files)
    ex = tf.parse_single_example(record, {"x": tf.FixedLenFeature([3], tf.float32),
                                          "y": tf.FixedLenFeature([1], tf.float32)})
    bx, by = tf.train.shuffle_batch([ex["x"], ex["y"]], 16, capacity=64, min_after_dequeue=16, num_threads=2, seed=4)
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(bx, w) + b - by))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    steps = 0
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path / "ckpt"), save_summaries_steps=None,
                                           save_checkpoint_secs=None, log_step_count_steps=None) as sess:
        while not sess.should_stop():               # ends when the 20 epochs run out (OutOfRangeError)
            _, last = sess.run([train, loss])
            steps += 1
    assert 70 <= steps <= 80                        # 20 epochs x 64 examples / 16, less the final partial batch
    assert last < 0.01
    assert not [t for t in threading.enumerate() if t.name.startswith("QueueRunnerThread") and t.is_alive()]
