"""tf.test's functions: main, get_temp_dir, the build queries, the gradient checker, assert_equal_graph_def."""
import functools
import os
import sys
import tempfile
import time

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.default_session import get_default_session
from lens.ops.core import placeholder
from lens.ops.gradients import gradients
from lens.platform import tf_logging

__all__ = ["main", "get_temp_dir", "is_gpu_available", "is_built_with_cuda", "is_built_with_gpu_support",
           "is_built_with_rocm", "is_built_with_xla", "gpu_device_name", "test_src_dir_path", "compute_gradient",
           "compute_gradient_error", "assert_equal_graph_def", "Benchmark", "StubOutForTesting",
           "disable_with_predicate", "with_eager_op_as_function"]

_temp_dir = []


def main(argv=None):
    """Run the tests of the __main__ module (absl's test runner, as TF1's tf.test.main)."""
    from absl.testing import absltest
    return absltest.main(argv=argv)


def get_temp_dir():
    """A temporary directory for this test process (created once, under TEST_TMPDIR when set)."""
    if not _temp_dir:
        base = os.environ.get("TEST_TMPDIR") or tempfile.gettempdir()
        _temp_dir.append(tempfile.mkdtemp(dir=base))
    return _temp_dir[0]


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """False: lens runs on the CPU only."""
    return False


def is_built_with_cuda():
    """False: lens has no CUDA kernels."""
    return False


def is_built_with_gpu_support():
    """False: lens has no GPU kernels."""
    return False


def is_built_with_rocm():
    """False: lens has no ROCm kernels."""
    return False


def is_built_with_xla():
    """False: lens does not compile with XLA."""
    return False


def gpu_device_name():
    """'' (no GPU device)."""
    return ""


def test_src_dir_path(relative_path):
    """relative_path under the directory that holds the lens package (e.g. 'lens/board/static')."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, relative_path)


def disable_with_predicate(pred, skip_message):
    """A test-method decorator skipping the test (with skip_message) when pred() is true."""
    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)
        return wrapper
    return decorator


def with_eager_op_as_function(cls=None, only_as_function=False):
    """The class itself (TF 2.21's decorator also returns it unchanged; usable with or without arguments)."""
    if cls is not None:
        return cls
    return lambda c: c


# ------------------------------------------------------------------ gradient checker (TF1's gradient_checker)
def _jacobians(sess, x, x_shape, x_value, y, y_shape, delta, feed):
    """(theoretical, numerical) Jacobians of y with respect to x, each of shape [x size, y size]."""
    x_size, y_size = int(np.prod(x_shape)), int(np.prod(y_shape))
    dtype = x.dtype.base_dtype.as_numpy_dtype
    dy = placeholder(y.dtype.base_dtype, y_shape)
    grad = gradients(y, x, grad_ys=dy)[0]
    theory = np.zeros((x_size, y_size), dtype=dtype)
    if grad is not None:
        for j in range(y_size):
            onehot = np.zeros(y_size, dtype=y.dtype.base_dtype.as_numpy_dtype)
            onehot[j] = 1
            g = sess.run(grad, {**feed, x: x_value, dy: onehot.reshape(y_shape)})
            if hasattr(g, "indices"):      # an IndexedSlicesValue (gather-like gradients)
                g = _dense(g, x_shape)
            theory[:, j] = np.asarray(g).reshape(-1)
    numeric = np.zeros((x_size, y_size), dtype=dtype)
    flat = x_value.reshape(-1).astype(dtype)
    for i in range(x_size):
        saved = flat[i]
        flat[i] = saved + delta
        y_pos = sess.run(y, {**feed, x: flat.reshape(x_shape)})
        flat[i] = saved - delta
        y_neg = sess.run(y, {**feed, x: flat.reshape(x_shape)})
        flat[i] = saved
        numeric[i, :] = ((np.asarray(y_pos) - np.asarray(y_neg)) / (2 * delta)).reshape(-1)
    return theory, numeric


def _dense(sliced, shape):
    """An IndexedSlicesValue summed into a dense array."""
    out = np.zeros(shape, dtype=np.asarray(sliced.values).dtype)
    np.add.at(out, np.asarray(sliced.indices), np.asarray(sliced.values))
    return out


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """(theoretical, numerical) Jacobians of y w.r.t. x (or a list of them for a list of x), in the default session."""
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient must run with a default session: use `with tf.Session():`")
    if init_targets is not None:
        for target in init_targets:
            sess.run(target)
    xs = x if isinstance(x, (list, tuple)) else [x]
    shapes = x_shape if isinstance(x, (list, tuple)) else [x_shape]
    inits = x_init_value if isinstance(x, (list, tuple)) else [x_init_value]
    if inits is None:
        inits = [None] * len(xs)
    out = []
    for xi, shape, init in zip(xs, shapes, inits):
        if not xi.dtype.base_dtype.is_floating and xi.dtype.base_dtype not in (_dt.complex64, _dt.complex128):
            raise TypeError("compute_gradient needs floating-point x; %s is %s" % (xi.name, xi.dtype.name))
        if init is None:
            init = np.random.random_sample(shape).astype(xi.dtype.base_dtype.as_numpy_dtype)
        init = np.asarray(init, dtype=xi.dtype.base_dtype.as_numpy_dtype)
        if init.shape != tuple(shape):
            raise ValueError("x_init_value has shape %s but x_shape is %s" % (init.shape, tuple(shape)))
        out.append(_jacobians(sess, xi, tuple(shape), init.copy(), y, tuple(y_shape), delta,
                              dict(extra_feed_dict or {})))
    return out if isinstance(x, (list, tuple)) else out[0]


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                           extra_feed_dict=None):
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    pairs = grads if isinstance(grads, list) else [grads]
    return max((float(np.max(np.abs(t - n))) if t.size else 0.0) for t, n in pairs)


# ------------------------------------------------------------------ GraphDef comparison
def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """AssertionError describing the first differences between two GraphDefs (node order ignored)."""
    from lens.proto import graph_pb2
    for name, g in (("actual", actual), ("expected", expected)):
        if not isinstance(g, graph_pb2.GraphDef):
            raise TypeError("Expected tf.GraphDef for %s, got %s" % (name, type(g).__name__))
    a = {n.name: n for n in actual.node}
    e = {n.name: n for n in expected.node}
    problems = []
    if set(e) - set(a):
        problems.append("Found nodes in expected only: %s" % ", ".join(sorted(set(e) - set(a))))
    if set(a) - set(e):
        problems.append("Found nodes in actual only: %s" % ", ".join(sorted(set(a) - set(e))))
    for name in sorted(set(a) & set(e)):
        na, ne = a[name], e[name]
        if na.op != ne.op:
            problems.append("Node %s: op %s != %s" % (name, na.op, ne.op))
        if na.device != ne.device:
            problems.append("Node %s: device %r != %r" % (name, na.device, ne.device))
        if _inputs(na) != _inputs(ne):
            problems.append("Node %s: inputs %s != %s" % (name, list(na.input), list(ne.input)))
        keys = set(na.attr) | set(ne.attr)
        if checkpoint_v2:
            keys.discard("_class")
        for k in sorted(keys):
            if (k in na.attr) != (k in ne.attr) or (k in na.attr and na.attr[k] != ne.attr[k]):
                problems.append("Node %s: attr %r differs" % (name, k))
    if problems:
        raise AssertionError("GraphDefs differ: " + "; ".join(problems))


def _inputs(node):
    data = [i for i in node.input if not i.startswith("^")]
    return data, sorted(i for i in node.input if i.startswith("^"))


# ------------------------------------------------------------------ benchmarks and stubs
class Benchmark:
    """tf.test.Benchmark: time ops in a session and report the measurement."""

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None,
                         name=None, metrics=None):
        """Log one benchmark entry (name defaults to Class.method of the caller)."""
        if name is None:
            name = "%s.%s" % (type(self).__name__, sys._getframe(1).f_code.co_name)
        tf_logging.info("Benchmark [%s] iters: %s, wall_time: %s, cpu_time: %s, throughput: %s, extras: %s, "
                        "metrics: %s", name, iters, wall_time, cpu_time, throughput, extras, metrics)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10, store_trace=False,
                         store_memory_usage=True, name=None, extras=None, mbs=0):
        """Run op_or_tensor burn_iters times untimed, then min_iters times; report and return the median."""
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.perf_counter()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.perf_counter() - start)
        wall = float(np.median(deltas))
        extras = dict(extras or {})
        if mbs:
            extras["throughput_mbs"] = mbs / wall
        name = name or getattr(op_or_tensor, "name", None) or type(self).__name__
        self.report_benchmark(iters=min_iters, wall_time=wall, extras=extras, name=name)
        return {"iters": min_iters, "wall_time": wall, "extras": extras, "name": name}

    def evaluate(self, tensors):
        """tensors' values in the default session."""
        sess = get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate needs a default session")
        return sess.run(tensors)


class StubOutForTesting:
    """Replace attributes for a test and put them back with UnsetAll/CleanUp (or on leaving a with block)."""

    def __init__(self):
        self.cache = []
        self.stubs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.CleanUp()

    def CleanUp(self):  # noqa: N802 - TF's name
        """Undo every replacement."""
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802
        """Replace obj.attr_name (found through the class hierarchy) with new_attr."""
        old = getattr(obj, attr_name)
        self.stubs.append((obj, attr_name, old, attr_name in vars(obj) if hasattr(obj, "__dict__") else True))
        setattr(obj, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802
        """Undo every SmartSet, newest first."""
        for obj, attr_name, old, own in reversed(self.stubs):
            if own:
                setattr(obj, attr_name, old)
            else:
                delattr(obj, attr_name)
        self.stubs = []

    def Set(self, parent, child_name, new_child):  # noqa: N802
        """Replace parent.child_name with new_child."""
        old = getattr(parent, child_name)
        self.cache.append((parent, old, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802
        """Undo every Set, newest first."""
        for parent, old, child_name in reversed(self.cache):
            setattr(parent, child_name, old)
        self.cache = []

