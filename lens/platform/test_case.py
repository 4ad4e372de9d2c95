"""tf.test.TestCase: unittest.TestCase with a fresh default graph per test, sessions and array assertions."""
import contextlib
import re
import tempfile
import threading
import unittest

import numpy as np

from lens.framework import errors
from lens.framework.graph import Tensor, get_default_graph, reset_default_graph
from lens.client.session import Session
from lens.platform import test_util

__all__ = ["TestCase"]


def _as_array(a):
    """A NumPy view of an array-like (tensors must be evaluated first)."""
    if isinstance(a, Tensor):
        raise TypeError("assert* methods compare values: evaluate the tensor %s first (self.evaluate(t))" % a.name)
    return np.asarray(a)


class TestCase(unittest.TestCase):
    """Each test starts on a fresh default graph; session()/cached_session() run it; evaluate() fetches values."""

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._cached_session = None
        self._tempdir = None
        self._threads = []

    def setUp(self):
        reset_default_graph()
        np.random.seed(87654321)

    def tearDown(self):
        for thread in self._threads:
            thread.check_termination()
        self._close_cached()

    def _close_cached(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    def get_temp_dir(self):
        """A temporary directory unique to this test."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(dir=test_util.get_temp_dir())
        return self._tempdir

    # ---------------------------------------------------------------- sessions
    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A new Session on graph (default: the default graph), its default session inside the block."""
        if force_gpu:
            raise unittest.SkipTest("force_gpu=True needs a GPU; lens runs on the CPU")
        graph = graph or get_default_graph()
        sess = Session(graph=graph, config=config)
        with graph.as_default(), sess.as_default():
            try:
                yield sess
            finally:
                sess.close()

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """The same Session for the whole test (made on first use), its default session inside the block."""
        if force_gpu:
            raise unittest.SkipTest("force_gpu=True needs a GPU; lens runs on the CPU")
        graph = graph or get_default_graph()
        if self._cached_session is None or self._cached_session.graph is not graph:
            self._close_cached()
            self._cached_session = Session(graph=graph, config=config)
        with graph.as_default(), self._cached_session.as_default():
            yield self._cached_session

    test_session = cached_session

    def evaluate(self, tensors):
        """tensors' values (any structure) in the default session, or in this test's cached session."""
        from lens.framework.default_session import get_default_session
        sess = get_default_session()
        if sess is not None:
            return sess.run(tensors)
        with self.cached_session() as sess:
            return sess.run(tensors)

    def checkedThread(self, target, args=None, kwargs=None):  # noqa: N802 - TF's name
        """A thread whose exception fails the test at join() (or at tearDown if never joined)."""
        thread = _CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # ---------------------------------------------------------------- assertions
    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """Same structure; every array element-wise close (|a - b| <= atol + rtol * |b|)."""
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertEqual(sorted(a), sorted(b), msg)
            for k in a:
                self.assertAllClose(a[k], b[k], rtol, atol, msg)
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and (
                any(isinstance(x, (dict, list, tuple, np.ndarray)) for x in a) and len(a) == len(b)):
            for x, y in zip(a, b):
                self.assertAllClose(x, y, rtol, atol, msg)
            return
        x, y = _as_array(a), _as_array(b)
        self.assertEqual(x.shape, y.shape, "Shape mismatch: expected %s, got %s. %s" % (y.shape, x.shape, msg or ""))
        if not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
            bad = ~np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
            where = tuple(int(i) for i in np.argwhere(bad)[0]) if x.ndim else ()
            self.fail("Arrays are not close (rtol=%g, atol=%g): %d of %d elements differ; first at index %s: %r vs "
                      "%r. %s" % (rtol, atol, bad.sum(), bad.size, where, x[bad].ravel()[0], y[bad].ravel()[0],
                                  msg or ""))

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,  # noqa: N802
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """assertAllClose with tolerances widened for float32 and float16 inputs."""
        x, y = _as_array(a), _as_array(b)
        if x.dtype == np.float32 or y.dtype == np.float32:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if x.dtype == np.float16 or y.dtype == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(x, y, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, **kwargs):  # noqa: N802
        """Fails when a and b are all close."""
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """Same shape and every element equal."""
        x, y = _as_array(a), _as_array(b)
        if x.shape != y.shape and x.size == y.size == 1:
            x, y = x.reshape(()), y.reshape(())
        self.assertEqual(x.shape, y.shape, "Shape mismatch: expected %s, got %s. %s" % (y.shape, x.shape, msg or ""))
        same = (x == y) if x.dtype != object else np.vectorize(lambda p, q: p == q)(x, y)
        if not np.all(same):
            bad = ~np.asarray(same, dtype=bool)
            self.fail("Arrays are not equal: %d of %d elements differ; first: %r vs %r. %s"
                      % (bad.sum(), bad.size, x[bad].ravel()[0], y[bad].ravel()[0], msg or ""))

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        """Fails when a and b are equal everywhere."""
        try:
            self.assertAllEqual(a, b, msg)
        except AssertionError:
            return
        raise AssertionError("The two values are equal at all elements. %s" % (msg or ""))

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        """Every element > comparison_target."""
        self.assertTrue(np.all(_as_array(a) > comparison_target), "not all elements > %r" % (comparison_target,))

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        """Every element >= comparison_target."""
        self.assertTrue(np.all(_as_array(a) >= comparison_target), "not all elements >= %r" % (comparison_target,))

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        """Every element < comparison_target."""
        self.assertTrue(np.all(_as_array(a) < comparison_target), "not all elements < %r" % (comparison_target,))

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        """Every element <= comparison_target."""
        self.assertTrue(np.all(_as_array(a) <= comparison_target), "not all elements <= %r" % (comparison_target,))

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False):
        """Every element within [lower_bound, upper_bound] (or the open variants)."""
        t = _as_array(target)
        low = t > lower_bound if open_lower_bound else t >= lower_bound
        high = t < upper_bound if open_upper_bound else t <= upper_bound
        self.assertTrue(np.all(low & high), "elements outside %s%r, %r%s" % (
            "(" if open_lower_bound else "[", lower_bound, upper_bound, ")" if open_upper_bound else "]"))

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        """Every element is one of expected_set."""
        extra = set(_as_array(target).ravel().tolist()) - set(np.asarray(list(expected_set)).ravel().tolist())
        self.assertFalse(extra, "elements %s not in %s" % (sorted(extra), expected_set))

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        """Two 1-D float lists of equal length, element-wise within err."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        """|f1 - f2| <= err."""
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err, "%f != %f +/- %f%s" % (f1, f2, err, " (%s)" % msg if msg
                                                                              else ""))

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        """Arrays element-wise within err."""
        self.assertTrue(np.allclose(ndarray1, ndarray2, atol=err), msg=msg)

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):  # noqa: N802
        """The array's shape equals the tensor's static shape."""
        self.assertAllEqual(np.shape(np_array), tf_tensor.shape.as_list(), msg=msg)

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        """The array's dtype is expected_dtype."""
        self.assertEqual(np.asarray(target).dtype, np.dtype(getattr(expected_dtype, "as_numpy_dtype",
                                                                    expected_dtype)))

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        """Two device strings name the same device."""
        from lens.framework.devices import DeviceSpec
        self.assertEqual(DeviceSpec.from_string(device1 or "").to_string(),
                         DeviceSpec.from_string(device2 or "").to_string(), msg)

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        """actual starts with expected_start."""
        if not actual.startswith(expected_start):
            self.fail("Did not start with %r: %r%s" % (expected_start, actual, " : %s" % msg if msg else ""))

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):  # noqa: N802
        """message equals the expected proto (a message or its text format)."""
        from google.protobuf import text_format
        expected = expected_message_maybe_ascii
        if isinstance(expected, str):
            expected = text_format.Parse(expected, type(message)())
        self.assertEqual(text_format.MessageToString(expected), text_format.MessageToString(message), msg)

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        """The block raises exception_type whose message matches the regex (or satisfies the predicate)."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            predicate = lambda e: re.search(expected_err_re_or_predicate, str(e)) is not None  # noqa: E731
        try:
            yield
        except exception_type as e:
            if not predicate(e):
                raise AssertionError("Exception of type %s: %s does not match %r"
                                     % (type(e).__name__, e, expected_err_re_or_predicate)) from e
        else:
            self.fail(exception_type.__name__ + " not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        """The block raises a tf.errors.OpError matching the regex (or predicate)."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)


class _CheckedThread:
    """A thread that records its exception; join() (or the test's tearDown) fails the test with it."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        self._testcase, self._target = testcase, target
        self._args, self._kwargs = args or (), kwargs or {}
        self._exception = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._joined = False

    def _run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - reported at join
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._thread.join()
        self._joined = True
        if self._exception is not None:
            self._testcase.fail("Error in checkedThread: %s" % self._exception)

    def is_alive(self):
        return self._thread.is_alive()

    def check_termination(self):
        if not self._joined and self._thread.is_alive():
            self._testcase.fail("A checked thread was not joined.")


