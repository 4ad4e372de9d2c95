"""tf.test: TestCase run through unittest, the gradient checker against calculus, GraphDef comparison."""
import unittest

import numpy as np
import pytest

import lens as tf


class _Sample(tf.test.TestCase):
    """A TF1-style test case: the checks below run it and look at the outcome."""

    __test__ = False    # pytest leaves it alone; unittest runs it below

    def test_sessions_and_asserts(self):
        x = tf.constant([1.0, 2.0])
        y = x * 3.0
        with self.cached_session() as sess:
            self.assertIs(tf.get_default_session(), sess)
            self.assertAllClose(sess.run(y), [3.0, 6.0])
        with self.cached_session() as again:
            self.assertIs(again, sess)
        with self.session() as fresh:
            self.assertIsNot(fresh, sess)
            self.assertAllEqual(fresh.run(x), np.array([1.0, 2.0], np.float32))
        self.assertAllClose(self.evaluate({"y": y, "pair": (x, y)}), {"y": [3.0, 6.0], "pair": ([1, 2], [3, 6])})
        self.assertAllClose([1.0, 2.0], [1.0, 2.0 + 1e-7])
        self.assertNotAllClose([1.0], [1.1])
        self.assertAllInRange([1, 2, 3], 1, 3)
        self.assertAllGreater([2, 3], 1)
        self.assertAllLessEqual([2, 3], 3)
        self.assertAllInSet([1, 2, 1], {1, 2})
        self.assertArrayNear([1.0, 2.0], [1.05, 2.0], 0.1)
        self.assertShapeEqual(np.zeros((2,)), y)
        self.assertDTypeEqual(np.zeros(2, np.float32), tf.float32)
        self.assertStartsWith("queue_runner", "queue")
        with self.assertRaisesOpError("must feed"):
            self.evaluate(tf.placeholder(tf.float32) + 1.0)
        import os
        self.assertTrue(os.path.isdir(self.get_temp_dir()))

    def test_graph_is_fresh(self):
        self.assertEqual(tf.get_default_graph().get_operations(), [])
        tf.constant(1.0)

    def test_failing_close(self):
        self.assertAllClose([1.0, 2.0], [1.0, 2.5])

    def test_failing_equal(self):
        self.assertAllEqual([[1, 2]], [[1, 3]])


def test_test_case_through_unittest():
    names = ["test_sessions_and_asserts", "test_graph_is_fresh", "test_graph_is_fresh", "test_failing_close",
             "test_failing_equal"]
    result = unittest.TestResult()
    unittest.TestSuite([_Sample(n) for n in names]).run(result)
    assert result.errors == []
    failed = sorted(t._testMethodName for t, _ in result.failures)
    assert failed == ["test_failing_close", "test_failing_equal"]
    messages = "\n".join(m for _, m in result.failures)
    assert "1 of 2 elements differ" in messages and "2.5" in messages


def test_with_eager_op_as_function_keeps_the_class():
    assert tf.test.with_eager_op_as_function(_Sample) is _Sample
    assert tf.test.with_eager_op_as_function(only_as_function=True)(_Sample) is _Sample


def test_build_queries_and_paths():
    assert tf.test.is_gpu_available() is False and tf.test.is_built_with_cuda() is False
    assert tf.test.gpu_device_name() == "" and tf.test.is_built_with_gpu_support() is False
    import os
    assert os.path.isdir(tf.test.get_temp_dir())
    assert os.path.isfile(tf.test.test_src_dir_path("lens/__init__.py"))
    assert tf.resource_loader.get_data_files_path() == os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_path_to_datafile("x.txt") == os.path.join(os.path.dirname(__file__), "x.txt")
    assert tf.resource_loader.load_resource("lens/platform/__init__.py").startswith(b'"""')
    assert tf.resource_loader.readahead_file_path("p") == "p"


def test_gradient_checker_matches_calculus():
    x = tf.placeholder(tf.float64, [2, 3])
    y = tf.reduce_sum(tf.square(x), axis=1)
    x0 = np.arange(6, dtype=np.float64).reshape(2, 3) / 10
    with tf.Session():
        theory, numeric = tf.test.compute_gradient(x, [2, 3], y, [2], x_init_value=x0)
        err = tf.test.compute_gradient_error(x, [2, 3], y, [2], x_init_value=x0)
    want = np.zeros((6, 2))
    for i in range(6):
        want[i, i // 3] = 2 * x0.ravel()[i]                  # d(sum_j x_rj^2)/dx_ri = 2 x_ri
    np.testing.assert_allclose(theory, want)
    np.testing.assert_allclose(numeric, want, atol=1e-6)
    assert err < 1e-6
    with pytest.raises(ValueError, match="default session"):
        tf.test.compute_gradient(x, [2, 3], y, [2])


def test_assert_equal_graph_def():
    with tf.Graph().as_default() as g1:
        tf.add(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="c")
    with tf.Graph().as_default() as g2:
        tf.add(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="c")
    with tf.Graph().as_default() as g3:
        tf.subtract(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="c")
    tf.test.assert_equal_graph_def(g1.as_graph_def(), g2.as_graph_def())
    with pytest.raises(AssertionError, match="Node c: op Add != Sub"):
        tf.test.assert_equal_graph_def(g1.as_graph_def(), g3.as_graph_def())
    with pytest.raises(TypeError, match="tf.GraphDef"):
        tf.test.assert_equal_graph_def(g1, g2)


def test_benchmark_and_stubs():
    class Bench(tf.test.Benchmark):
        pass
    with tf.Session() as sess:
        out = Bench().run_op_benchmark(sess, tf.constant(1.0) + 1.0, burn_iters=1, min_iters=3)
    assert out["iters"] == 3 and out["wall_time"] > 0

    class Holder:
        value = 1
    with tf.test.StubOutForTesting() as stubs:
        stubs.Set(Holder, "value", 2)
        assert Holder.value == 2
    assert Holder.value == 1
