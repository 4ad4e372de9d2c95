"""Queues (FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue, PriorityQueue) against Python's semantics."""
import threading
import time

import numpy as np
import pytest

import lens as tf

TIMEOUT = 5.0


def in_thread(fn):
    """Start fn in a daemon thread; returns (thread, results list with its value or exception class)."""
    out = []

    def run():
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the test checks the class
            out.append(type(e))
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def finish(t):
    t.join(TIMEOUT)
    assert not t.is_alive(), "a queue op hung"


def test_fifo_order_batches_and_names():
    q = tf.FIFOQueue(10, [tf.float32, tf.int32], shapes=[[2], []])
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int32, [None])
    enq_many = q.enqueue_many((x, y))
    enq = q.enqueue(([9.0, 9.5], 9))
    dq, dm, du = q.dequeue(), q.dequeue_many(2), q.dequeue_up_to(10)
    assert enq.name == "fifo_queue_enqueue" and enq_many.name == "fifo_queue_EnqueueMany"
    assert dq[0].name == "fifo_queue_Dequeue:0" and q.is_closed().name == "fifo_queue_Is_Closed:0"
    assert dm[0].shape.as_list() == [2, 2] and dm[1].shape.as_list() == [2]
    assert du[0].shape.as_list() == [None, 2]
    xs = np.arange(10, dtype=np.float32).reshape(5, 2)
    ys = np.arange(5, dtype=np.int32)
    with tf.Session() as s:
        s.run(enq_many, {x: xs, y: ys})
        assert s.run(q.size()) == 5
        a, b = s.run(dq)
        np.testing.assert_array_equal(a, xs[0])
        assert b == 0
        a, b = s.run(dm)
        np.testing.assert_array_equal(a, xs[1:3])
        np.testing.assert_array_equal(b, ys[1:3])
        s.run(enq)
        s.run(q.close())
        assert s.run(q.is_closed())
        a, b = s.run(du)      # closed: what is left (3 elements) although 10 were asked for
        np.testing.assert_array_equal(a, np.concatenate([xs[3:], [[9.0, 9.5]]]))
        np.testing.assert_array_equal(b, [3, 4, 9])


def test_closed_queue_errors_at_once():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    enq = q.enqueue(1)
    with tf.Session() as s:
        s.run(enq)
        s.run(q.close())
        with pytest.raises(tf.errors.CancelledError, match="is closed"):
            s.run(enq)
        with pytest.raises(tf.errors.OutOfRangeError, match=r"insufficient elements \(requested 2, current size 1\)"):
            s.run(q.dequeue_many(2))
        assert s.run(q.dequeue()) == 1
        # At once, not blocked: a blocked dequeue would end in DeadlineExceededError instead.
        no_wait = tf.RunOptions(timeout_in_ms=10000)
        with pytest.raises(tf.errors.OutOfRangeError, match="is closed and has insufficient elements"):
            s.run(q.dequeue(), options=no_wait)
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(q.dequeue_up_to(3), options=no_wait)
        assert s.run(q.dequeue_many(0)).shape == (0,)


def test_blocking_across_threads():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    enq = q.enqueue_many([[1, 2, 3, 4, 5]])
    dq = q.dequeue()
    with tf.Session() as s:
        t, out = in_thread(lambda: s.run(enq))
        time.sleep(0.1)
        assert t.is_alive()                       # blocked: the queue holds 2 of 5
        got = [int(s.run(dq)) for _ in range(5)]  # each dequeue makes room for the next enqueue
        finish(t)
        assert got == [1, 2, 3, 4, 5] and out == [None]
        t, out = in_thread(lambda: s.run(dq))     # blocked on an empty queue until an element comes
        time.sleep(0.1)
        assert t.is_alive()
        s.run(q.enqueue(7))
        finish(t)
        assert out == [7]
        t, out = in_thread(lambda: s.run(dq))     # close wakes a blocked dequeue with OutOfRangeError
        time.sleep(0.1)
        s.run(q.close())
        finish(t)
        assert out == [tf.errors.OutOfRangeError]


def test_close_cancels_pending_enqueues_only_when_asked():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as s:
        s.run(q.enqueue(1))
        t, out = in_thread(lambda: s.run(q.enqueue(2)))
        time.sleep(0.1)
        s.run(q.close())                          # pending enqueue survives a plain close
        time.sleep(0.1)
        assert t.is_alive()
        assert s.run(q.dequeue()) == 1            # ... and completes once there is room
        finish(t)
        assert s.run(q.dequeue()) == 2
    q2 = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as s:
        s.run(q2.enqueue(1))
        t, out = in_thread(lambda: s.run(q2.enqueue(2)))
        time.sleep(0.1)
        s.run(q2.close(cancel_pending_enqueues=True))
        finish(t)
        assert out == [tf.errors.CancelledError]


def test_session_close_cancels_blocked_ops():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    dq = q.dequeue()
    s = tf.Session()
    t, out = in_thread(lambda: s.run(dq))
    time.sleep(0.1)
    s.close()
    finish(t)
    assert out == [tf.errors.CancelledError]


def test_each_session_has_its_own_queue():
    q = tf.FIFOQueue(3, tf.int32, shapes=[[]])
    enq = q.enqueue(5)
    with tf.Session() as a, tf.Session() as b:
        a.run(enq)
        a.run(enq)
        assert a.run(q.size()) == 2 and b.run(q.size()) == 0


def test_random_shuffle_queue():
    q = tf.RandomShuffleQueue(20, 3, tf.int32, shapes=[[]], seed=7)
    enq = q.enqueue_many([np.arange(10, dtype=np.int32)])
    dq = q.dequeue()

    def drain(s):
        s.run(enq)
        first = [int(s.run(dq)) for _ in range(7)]     # 10 - 7 = 3 = min_after_dequeue are left
        t, out = in_thread(lambda: s.run(dq))
        time.sleep(0.1)
        assert t.is_alive()                             # a dequeue would go below min_after_dequeue
        s.run(q.close())
        finish(t)
        rest = out + [int(s.run(dq)) for _ in range(2)]
        return first + [int(v) for v in rest]

    with tf.Session() as s:
        a = drain(s)
    with tf.Session() as s:
        b = drain(s)
    assert sorted(a) == list(range(10))                 # every element once
    assert a == b                                       # a seeded queue repeats its order
    assert a != list(range(10))


def test_padding_fifo_queue_pads_like_numpy():
    q = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], []])
    v = tf.placeholder(tf.int32, [None])
    w = tf.placeholder(tf.string, [])
    enq = q.enqueue((v, w))
    rows = [[1], [1, 2, 3], [4, 5]]
    with tf.Session() as s:
        for i, r in enumerate(rows):
            s.run(enq, {v: r, w: b"s%d" % i})
        got, names = s.run(q.dequeue_many(3))
    want = np.zeros((3, 3), np.int32)
    for i, r in enumerate(rows):
        want[i, :len(r)] = r
    np.testing.assert_array_equal(got, want)
    assert list(names) == [b"s0", b"s1", b"s2"]
    with pytest.raises(ValueError, match="Shapes must be provided"):
        tf.PaddingFIFOQueue(5, [tf.int32], shapes=None)


def test_priority_queue_dequeues_smallest_first():
    q = tf.PriorityQueue(10, [tf.string], shapes=[[]])
    p = tf.placeholder(tf.int64, [None])
    v = tf.placeholder(tf.string, [None])
    enq = q.enqueue_many((p, v))
    pri = [5, 1, 4, 2, 3]
    vals = [b"e", b"a", b"d", b"b", b"c"]
    with tf.Session() as s:
        s.run(enq, {p: pri, v: vals})
        got_p, got_v = s.run(q.dequeue_many(5))
    order = sorted(range(5), key=lambda i: pri[i])
    assert got_p.tolist() == [pri[i] for i in order] and got_v.tolist() == [vals[i] for i in order]


def test_named_components_are_dicts():
    q = tf.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], []], names=["a", "b"])
    enq = q.enqueue({"a": 1, "b": 2.0})
    out = q.dequeue()
    assert sorted(out) == ["a", "b"]
    with tf.Session() as s:
        s.run(enq)
        assert s.run(out) == {"a": 1, "b": 2.0}
    with pytest.raises(ValueError, match="must enqueue a dictionary"):
        q.enqueue((1, 2.0))


def test_bad_input_errors():
    q = tf.FIFOQueue(2, [tf.int32], shapes=[[2]])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        q.enqueue([[1, 2, 3]])
    with pytest.raises(ValueError, match="Expected 1 components"):
        q.enqueue((1, 2))
    with pytest.raises(ValueError, match="fully defined"):
        tf.FIFOQueue(2, [tf.int32], shapes=[[None]])
    p = tf.placeholder(tf.int32)
    enq = q.enqueue([p])
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Shape mismatch in tuple component 0. Expected \[2\], got \[3\]"):
            s.run(enq, {p: [1, 2, 3]})


def test_queue_graph_def_and_not_differentiable():
    q = tf.FIFOQueue(4, [tf.float32], shapes=[[3]], name="inputs")
    x = tf.placeholder(tf.float32, [3])
    q.enqueue([x])
    y = q.dequeue() * 2.0
    node = [n for n in tf.get_default_graph().as_graph_def().node if n.name == "inputs"][0]
    assert node.op == "FIFOQueueV2" and node.attr["capacity"].i == 4
    assert [d.size for d in node.attr["shapes"].list.shape[0].dim] == [3]
    assert tf.gradients(y, x) == [None]               # no gradient flows through a queue


def test_count_up_to():
    v = tf.Variable(0, dtype=tf.int64)
    c = v.count_up_to(2)
    assert c.op.type == "CountUpTo"
    with tf.Session() as s:
        s.run(v.initializer)
        assert [s.run(c), s.run(c)] == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            s.run(c)
    with pytest.raises(TypeError, match="int32, int64"):
        tf.count_up_to(tf.Variable(0.0), 3)


def test_run_timeouts_end_blocked_queue_ops():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as s:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
            s.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=100))
        assert time.monotonic() - start >= 0.09  # it waited for the timeout, no less
        s.run(q.enqueue(1))
        assert s.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=100)) == 1
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=100)) as s:    # the session-wide default
        s.run(q.enqueue(1))
        with pytest.raises(tf.errors.DeadlineExceededError):
            s.run(q.enqueue(2))
        assert s.run(q.size()) == 1


def test_queue_from_list_picks_a_queue_per_run():
    q1 = tf.FIFOQueue(3, [tf.int32], shapes=[[]])
    q2 = tf.FIFOQueue(3, [tf.int32], shapes=[[2]])
    i = tf.placeholder(tf.int32, [])
    q = tf.QueueBase.from_list(i, [q1, tf.FIFOQueue(3, [tf.int32], shapes=[[]])])
    assert q.name == "GatherV2" and q.queue_ref.op.type == "GatherV2" and q.shapes[0].as_list() == []
    assert tf.QueueBase.from_list(i, [q1, q2]).shapes[0].ndims is None     # no common shape: unknown
    enq = q.enqueue(7)
    assert enq.name == "GatherV2_enqueue"
    with tf.Session() as s:
        s.run(enq, {i: 1})
        assert s.run(q1.size()) == 0 and s.run(q.size(), {i: 1}) == 1
        assert s.run(q.dequeue(), {i: 1}) == 7
    with pytest.raises(TypeError, match="matching component dtypes"):
        tf.QueueBase.from_list(i, [q1, tf.FIFOQueue(3, [tf.float32])])
    with pytest.raises(TypeError, match="A list of queues expected"):
        tf.QueueBase.from_list(i, [])
