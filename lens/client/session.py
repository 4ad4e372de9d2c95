"""Session: runs pruned, compiled plans of a graph; holds variable values and RNG state."""
import collections
import threading

import numpy as np

from lens.framework import errors, run_deadline
from lens.framework.graph import Graph, Operation, Tensor, get_default_graph
from lens.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from lens.framework.sparse_tensor import SparseTensor, SparseTensorValue
from lens.client.fetches import fetch_key as _fetch_key
from lens.client.plan import RegionCompiler, VariableStore, compile_plan, translate_error
from lens.client import fp_errors
from lens.client import eager_runtime as _eager_runtime  # noqa: F401 - registers the eager executor
from lens.framework.eager import EagerGraph
from lens.framework.default_session import _default_session_stack, get_default_session  # noqa: F401 - tf.get_default_session


_RUN_INTERCEPTOR = []  # lens.dbg's DebugEvent dumping, while enabled
_DEBUG_RUNNER = []  # lens.dbg registers the runner for RunOptions.debug_options (the client can't import it)


def register_debug_options_runner(fn):
    """Set fn(session, fetches, feed_dict, options, run_metadata) to run debug-watched steps."""
    _DEBUG_RUNNER[:] = [fn]


def register_run_interceptor(fn):
    """Set fn(session, fetches, feed_dict, options, run_metadata) to run every plain
    Session.run from now on (tfdbg2's enable_dump_debug_info); None removes it."""
    _RUN_INTERCEPTOR[:] = [fn] if fn is not None else []


_TARGET_RUNTIMES = {}  # target prefix -> factory(session, target); lens.distributed fills "grpc://"


def register_target_runtime(prefix, factory):
    """Run sessions whose target starts with prefix through factory(session, target): an object with
    run(fetches, feed_dict, options, run_metadata), placer() and close()."""
    _TARGET_RUNTIMES[prefix] = factory


def _target_runtime(session, target):
    """The runtime serving a non-local target (TF's session factories), or InvalidArgumentError."""
    if isinstance(target, bytes):
        target = target.decode()
    for prefix, factory in _TARGET_RUNTIMES.items():
        if isinstance(target, str) and target.startswith(prefix):
            return factory(session, target)
    raise errors.InvalidArgumentError(
        None, None, "No session factory registered for the given session options: {target: %r} "
        "Registered factories are {DIRECT_SESSION%s}. Use target '' for this process, or a "
        "tf.train.Server's .target ('grpc://host:port') with lens.distributed loaded."
        % (target, "".join(", " + p for p in sorted(_TARGET_RUNTIMES))))


def _plain(session):
    """True when run() with no options may go straight to a cached plan: no config timeout and
    no other runtime (a cluster target) deciding how this session's runs go."""
    config = session._config
    return getattr(session, "_remote", None) is None and not (
        config is not None and config.operation_timeout_in_ms > 0)


def _debug_runner():
    if not _DEBUG_RUNNER:
        raise RuntimeError("RunOptions.debug_options asks for tensor watches, but the debugger is not loaded: "
                           "import lens.dbg (from lens import dbg as tf_debug) before running")
    return _DEBUG_RUNNER[0]


class _Context(RegionCompiler):
    """What kernels of one session may touch: variable values, RNG streams, resources."""

    def __init__(self, graph, session):
        self.graph = graph
        self.session = session
        self.variables = VariableStore()
        self.rngs = {}
        self.resources = {}

    def rng(self, op):
        """The session's random stream for op (seeded by graph and op seeds as TF1)."""
        gen = self.rngs.get(op)
        if gen is None:
            seed, seed2 = op._attrs.get("seed", 0), op._attrs.get("seed2", 0)
            entropy = None if (seed == 0 and seed2 == 0) else [seed, seed2]
            gen = self.rngs[op] = np.random.default_rng(entropy)
        return gen


class _FetchMapper:
    """Flattens a fetch structure to graph elements and rebuilds results into it."""

    def __init__(self, graph, fetches):
        self.elements = []
        self.build = self._flatten(graph, fetches)

    def _flatten(self, graph, f):
        if isinstance(f, (SparseTensor, IndexedSlices)):
            # Composite values come back as their *Value namedtuples (TF's fetch conversion).
            parts = [f.indices, f.values, f.dense_shape] if isinstance(f, SparseTensor) else \
                [f.values, f.indices, f.dense_shape]
            subs = [None if p is None else self._flatten(graph, p) for p in parts]
            cls = SparseTensorValue if isinstance(f, SparseTensor) else IndexedSlicesValue
            return lambda r: cls(*[None if s is None else s(r) for s in subs])
        if isinstance(f, (list, tuple)) and not hasattr(f, "_as_graph_element"):
            subs = [self._flatten(graph, x) for x in f]
            t = type(f)
            if t is list:
                return lambda r: [s(r) for s in subs]
            if t is tuple:
                return lambda r: tuple(s(r) for s in subs)
            return lambda r: t(*[s(r) for s in subs])
        if isinstance(f, dict):
            keys = list(f)
            subs = [self._flatten(graph, f[k]) for k in keys]
            t = type(f)
            make = (lambda items: t(items)) if t is not collections.defaultdict else \
                (lambda items: t(f.default_factory, items))
            return lambda r: make(zip(keys, [s(r) for s in subs]))
        if f is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        try:
            el = graph.as_graph_element(f, allow_tensor=True, allow_operation=True)
        except TypeError:
            raise TypeError("Fetch argument %r has invalid type %r, must be a string or Tensor. "
                            "(Can not convert a %s into a Tensor or Operation.)"
                            % (f, type(f), type(f).__name__)) from None
        except ValueError as e:
            raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (f, e)) from None
        except KeyError as e:   # TF1 reports an unknown name as a ValueError here
            raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (f, e.args[0])) from None
        if not graph.is_fetchable(el):
            op = el.op if isinstance(el, Tensor) else el
            raise ValueError("Operation %r has been marked as not fetchable (graph.prevent_fetching); "
                             "fetch another tensor instead of %s." % (op.name, el.name))
        self.elements.append(el)
        if isinstance(el, Operation):
            return lambda r: None
        idx = sum(1 for e in self.elements if isinstance(e, Tensor)) - 1
        return lambda r: r[idx]


class _Feed:
    """One fed tensor: its placeholder-style checks and conversion."""

    __slots__ = ("tensor", "np_dtype", "dtype", "shape", "check_shape", "float_target", "known")

    def __init__(self, tensor):
        self.tensor = tensor
        self.np_dtype = tensor.dtype.base_dtype.as_numpy_dtype
        self.dtype = np.dtype(self.np_dtype)
        self.shape = tensor.shape.as_tuple()
        self.check_shape = self.shape is not None and any(d is not None for d in self.shape) \
            or (self.shape == ())
        # (axis, size) of every known dimension: all a fed array's shape is checked against.
        self.known = tuple((i, d) for i, d in enumerate(self.shape or ()) if d is not None)
        self.float_target = self.np_dtype is not np.object_ and self.dtype.kind == "f"

    def convert(self, value):
        t = type(value)
        if t is np.ndarray and (value.dtype is self.dtype or value.dtype == self.dtype):
            return value if not self.check_shape else self._check_shape(value)
        if t is float and self.float_target:
            arr = np.array(value, self.np_dtype)    # what asarray then astype would give
            return arr if not self.check_shape or self.shape == () else self._check_shape(arr)
        if isinstance(value, Tensor):
            raise TypeError("The value of a feed cannot be a tf.Tensor object (feeding %s). "
                            "Acceptable feed values include Python scalars, strings, lists, "
                            "numpy ndarrays." % self.tensor.name)
        if isinstance(value, int) and not isinstance(value, bool) and self.tensor.dtype.is_integer:
            info = np.iinfo(self.np_dtype)
            if not info.min <= value <= info.max:
                raise TypeError("Type of feed value %d for tensor %r is not compatible with its type %s "
                                "(it holds [%d, %d]). Declare the placeholder with a larger type "
                                "(e.g. int64)." % (value, self.tensor.name,
                                                    self.tensor.dtype.base_dtype.name, info.min, info.max))
        if self.np_dtype is np.object_:
            arr = np.asarray(value, dtype=object)
        elif type(value) is np.ndarray and value.dtype == self.np_dtype:
            arr = value
        else:
            try:
                arr = np.asarray(value)
                if arr.dtype != self.np_dtype:
                    if arr.dtype.kind in "SUO" or (arr.dtype.kind == "f" and self.tensor.dtype.is_integer
                                                   and np.any(arr != np.round(arr))):
                        raise ValueError
                    arr = arr.astype(self.np_dtype)
            except (ValueError, TypeError):
                raise ValueError("Cannot feed value %r to tensor %r: it does not convert to %s."
                                 % (value, self.tensor.name, self.tensor.dtype.base_dtype.name)) from None
        return arr if not self.check_shape else self._check_shape(arr)

    def _check_shape(self, arr):
        shp = arr.shape
        if len(shp) == len(self.shape):
            for axis, size in self.known:
                if shp[axis] != size:
                    break
            else:
                return arr
        raise ValueError("Cannot feed value of shape %r for Tensor %r, which has shape %r"
                         % (shp, self.tensor.name, str(self.tensor.shape)))


class _CompiledRun:
    """A cached plan for one (fetches, feeds) signature."""

    __slots__ = ("plan", "feeds", "feed_keys", "build", "copy")

    def __init__(self, plan, feeds, feed_keys, build):
        self.plan = plan
        self.feeds = feeds
        self.feed_keys = feed_keys
        self.build = build


class SessionContext:
    """`with sess:` makes the session and its graph the defaults, then closes the session."""

    def __enter__(self):
        self._default_graph_ctx = self.graph.as_default()
        self._default_graph_ctx.__enter__()
        self._default_ctx = self.as_default()
        self._default_ctx.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._default_ctx.__exit__(exc_type, exc, tb)
        self._default_graph_ctx.__exit__(exc_type, exc, tb)
        self.close()
        return False


class BaseSession(SessionContext):
    """TF1's Session API over lens's executor."""

    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = get_default_graph()
        if not isinstance(graph, Graph):
            raise TypeError("graph must be a tf.Graph, but got %s" % type(graph))
        if type(graph) is EagerGraph:
            raise RuntimeError("The Session graph is empty.  Add operations to the graph before calling "
                               "run(). (Eager execution is enabled: ops run as they are created and "
                               "tensors have their values, read them with .numpy(); to use a Session, "
                               "build a graph under `with tf.Graph().as_default():`.)")
        if config is not None:
            from lens.proto import config_pb2
            if not isinstance(config, config_pb2.ConfigProto):
                raise TypeError("config must be a tf.ConfigProto, but got %s" % type(config))
        self._graph = graph
        self._config = config
        self._placer = None     # made on the first compile: TF places the graph on the first run
        self._pool = None       # the inter-op thread pool, made when a plan is worth running in parallel
        self._target = target
        self._ctx = _Context(graph, self)
        self._runs = {}
        self._closed = False
        self._lock = threading.Lock()
        self._default_ctx = None
        self._default_graph_ctx = None
        self._run_hooks = []
        # A cluster target runs its partitions on the tasks' processes (lens.distributed).
        self._remote = _target_runtime(self, target) if target else None
        self._plain_runs = self._runs if _plain(self) else {}

    graph = property(lambda self: self._graph, doc="The Graph this session runs.")
    sess_str = property(lambda self: self._target, doc="The target string.")

    @property
    def graph_def(self):
        """The graph as a GraphDef protobuf."""
        return self._graph.as_graph_def()

    def list_devices(self):
        """Devices this session exposes."""
        from lens.framework.devices import session_devices
        return session_devices(self._config)

    def close(self):
        """Release the session's state; further runs raise RuntimeError."""
        self._closed = True
        self._runs.clear()
        if self._remote is not None:
            self._remote.close()
        # Kernels blocked on session resources (queues) must wake and fail with CancelledError.
        for resource in list(self._ctx.resources.values()):
            on_close = getattr(resource, "on_session_close", None)
            if on_close is not None:
                on_close()
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def as_default(self):
        """Context manager making this the default session (and its graph the default graph)."""
        return _default_session_stack.get_controller(self)

    def __del__(self):
        pass

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Run the ops needed for fetches; returns values in the fetches' structure."""
        if options is None and not _RUN_INTERCEPTOR:
            # A signature already run plainly: straight to its plan. _plain_runs is _runs itself
            # when nothing else (a config timeout, a cluster target) decides how runs go, else
            # always empty; close() clears it. Keys with structured feeds never match here.
            compiled = self._plain_runs.get((_fetch_key(fetches), tuple(feed_dict) if feed_dict else ()))
            if compiled is not None:
                return self._execute(compiled, feed_dict, None)
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        timeout_ms = (options.timeout_in_ms if options is not None else 0) or (
            self._config.operation_timeout_in_ms if self._config is not None else 0)
        if timeout_ms > 0 and not run_deadline.active():
            # Blocking kernels (queue dequeues) give up with DeadlineExceededError at the deadline.
            with run_deadline.within(timeout_ms):
                return self.run(fetches, feed_dict, options, run_metadata)
        if feed_dict and any(type(k) is not Tensor and isinstance(k, (tuple, list, SparseTensor))
                             for k in feed_dict):
            feed_dict = _flatten_feeds(feed_dict)
        if self._remote is not None:
            return self._remote.run(fetches, feed_dict, options, run_metadata)
        if options is not None:
            debug = getattr(options, "debug_options", None)
            if debug is not None and len(debug.debug_tensor_watch_opts):
                # Watches requested through RunOptions (tfdbg hooks): the debugger runs this one.
                return _debug_runner()(self, fetches, feed_dict, options, run_metadata)
            if getattr(options, "trace_level", 0):
                from lens.client.tracing import traced_run
                return traced_run(self, fetches, feed_dict, options, run_metadata)
        if _RUN_INTERCEPTOR:
            return _RUN_INTERCEPTOR[0](self, fetches, feed_dict, options, run_metadata)
        key = (_fetch_key(fetches), tuple(feed_dict) if feed_dict else ())
        compiled = self._runs.get(key)
        if compiled is None:
            compiled = self._compile(fetches, feed_dict, None)
            self._runs[key] = compiled
        return self._execute(compiled, feed_dict, None)

    def _run_watched(self, fetches, feed_dict, options, run_metadata, watch):
        """Run with watch.on_output called after each op that watch.selects (for the debugger)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        key = (_fetch_key(fetches), tuple(feed_dict) if feed_dict else (), "watch", watch.key)
        compiled = self._runs.get(key)
        if compiled is None:
            compiled = self._compile(fetches, feed_dict, watch)
            self._runs[key] = compiled
        return self._execute(compiled, feed_dict, watch)

    def _execute(self, compiled, feed_dict, hook):
        if compiled.feeds:
            vals = [feed.convert(feed_dict[k]) for feed, k in zip(compiled.feeds, compiled.feed_keys)]
        else:
            vals = ()
        quiet = fp_errors.ignore()  # TF kernels give inf/nan silently; so do we
        try:
            out = compiled.plan.fn(vals, self._ctx.variables, hook)
        except Exception as e:  # noqa: BLE001 - re-raised as the TF error class
            err = translate_error(e, compiled.plan)
            if err is None:
                raise
            raise err.with_traceback(None) from None
        finally:
            fp_errors.restore(quiet)
        return compiled.build([_fetched(v) for v in out])

    def _compile(self, fetches, feed_dict, watch, trace=False):
        mapper = _FetchMapper(self._graph, fetches)
        feeds, feed_keys, fed = [], [], []
        for k in (feed_dict or ()):
            t = self._resolve_feed(k)
            feeds.append(_Feed(t))
            feed_keys.append(k)
            fed.append(t)
        self._place()
        plan = compile_plan(mapper.elements, fed, self._ctx, watch=watch, trace=trace)
        for op in plan.ops:
            if op._type == "Placeholder":
                shape = op._attrs.get("shape")
                raise errors.InvalidArgumentError(
                    op.node_def, op,
                    "You must feed a value for placeholder tensor '%s' with dtype %s%s\n\t [[node %s ]]"
                    % (op.name, op._attrs["dtype"].name,
                       "" if shape is None or shape.ndims is None else " and shape %s" % _shape_str(shape),
                       op.name))
        if watch is None:
            plan = self._maybe_parallel(plan, mapper.elements, fed, trace)
        return _CompiledRun(plan, feeds, feed_keys, mapper.build)

    def _place(self):
        """Assign devices to ops added since the last run (raises TF's placement errors)."""
        if self._placer is None:
            from lens.framework.devices import Placer
            self._placer = self._remote.placer() if self._remote is not None else \
                Placer(self._graph, self._config)
        self._placer.place_new_ops()

    def _maybe_parallel(self, plan, targets, fed, trace):
        """The parallel executor's plan when the graph has enough independent work, else plan."""
        from lens.client import parallel
        threads = parallel.pool_size(self._config)
        intra = self._config.intra_op_parallelism_threads if self._config is not None else 0
        if threads >= 2 and intra == 0 and parallel.split_within_ops(plan.ops):
            plan.fn = parallel.share_chunks(plan.fn)    # big kernels share their chunks instead
            return plan
        if threads < 2 or not parallel.worth_parallel(plan.ops):
            if intra > 0:
                plan.fn = parallel.limit_blas(plan.fn, intra)
            return plan
        if self._pool is None:
            self._pool = parallel.ExecutorPool(threads)
        return parallel.ParallelPlan(plan.ops, targets, fed, self._ctx, self._pool, threads, trace, intra)

    def _device_of(self, op):
        """The full device name op was placed on in this session."""
        return self._placer.assigned[op]

    def _resolve_feed(self, k):
        t = self._feed_tensor(k)
        if not self._graph.is_feedable(t):
            raise ValueError("Tensor %s may not be fed (graph.prevent_feeding marked it)." % t.name)
        return t

    def _feed_tensor(self, k):
        if isinstance(k, Tensor):
            if k.graph is not self._graph:
                raise TypeError("Cannot interpret feed_dict key as Tensor: Tensor %s is not an element "
                                "of this graph (the session runs another graph)." % k)
            return k
        if hasattr(k, "_as_graph_element"):
            return k._as_graph_element()
        if isinstance(k, str):
            try:
                return self._graph.as_graph_element(k, allow_tensor=True, allow_operation=False)
            except (KeyError, ValueError) as e:
                raise TypeError("Cannot interpret feed_dict key as Tensor: %s" % e) from None
        raise TypeError("Cannot interpret feed_dict key as Tensor: The name %r is not a Tensor "
                        "or tensor name." % (k,))

    def partial_run_setup(self, fetches, feeds=None):
        """Not supported by lens."""
        raise errors.UnimplementedError(None, None, "partial_run is not supported by lens")

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function running fetches with positional feed values (fast path)."""
        feed_list = list(feed_list or [])

        def call(*args, **kwargs):
            return self.run(fetches, dict(zip(feed_list, args)) if feed_list else None)
        return call


def _flatten_feeds(feed_dict):
    """Expand structured feed keys (e.g. an LSTMStateTuple of placeholders) into one key each."""
    flat = {}

    def add(key, value):
        if isinstance(key, SparseTensor):
            # A sparse feed: a SparseTensorValue or an (indices, values, dense_shape) triple.
            if not isinstance(value, (tuple, list)) or len(value) != 3:
                raise TypeError("The value fed to SparseTensor %s must be a SparseTensorValue or an "
                                "(indices, values, dense_shape) triple, got %r" % (key.values.name, value))
            add(key.indices, value[0])
            add(key.values, value[1])
            add(key.dense_shape, value[2])
        elif type(key) is not Tensor and isinstance(key, (tuple, list)):
            if len(key) != len(value):
                raise ValueError("Feed key %r has %d elements but its value has %d"
                                 % (key, len(key), len(value)))
            for k, v in zip(key, value):
                add(k, v)
        else:
            flat[key] = value
    for key, value in feed_dict.items():
        add(key, value)
    return flat


def _fetched(v):
    """What run returns for one value: numpy scalars for 0-d, bytes for strings, private copies."""
    if type(v) is np.ndarray:
        if v.ndim == 0:
            v = v[()]
            return bytes(v) if isinstance(v, bytes) else v
        return v if v.flags.writeable else v.copy()
    if isinstance(v, bytes):
        return bytes(v)
    if isinstance(v, (bool, int, float, str)):
        return np.asarray(v)[()]
    return v


def _shape_str(shape):
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


class Session(BaseSession):
    """A TF1 Session: `with tf.Session() as sess: sess.run(...)`."""

    @staticmethod
    def reset(target, containers=None, config=None):
        """No shared resources exist in lens; kept for API compatibility."""


class InteractiveSession(BaseSession):
    """A session that installs itself as the default session on construction."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._explicitly_closed = False
        self._default_ctx = self.as_default()
        self._default_ctx.__enter__()
        self._default_graph_ctx = self._graph.as_default()
        self._default_graph_ctx.__enter__()

    def close(self):
        """Close and stop being the default session."""
        super().close()
        if self._default_ctx is not None:
            try:
                self._default_graph_ctx.__exit__(None, None, None)
                self._default_ctx.__exit__(None, None, None)
            except (ValueError, AssertionError, IndexError):
                pass
            self._default_ctx = None
