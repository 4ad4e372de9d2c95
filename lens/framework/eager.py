"""Eager execution's switch and op-creation hook: in eager mode every op runs as it is created.

TF1 semantics: eager mode is process-wide and chosen at program start (`enable_eager_execution`
before any graph op exists). The switch replaces the global default graph with an `EagerGraph`,
whose `_create_op` hands each new op to the executor the client registers (`register_executor`)
and returns `EagerTensor`s carrying the values. Graph mode never touches this module on its hot
paths: plain `Graph._create_op` is unchanged, and `with tf.Graph().as_default():` inside an eager
program builds an ordinary graph (as TF's `executing_eagerly()` is False there).
"""
import contextlib
import threading

import numpy as np

from lens.framework import graph as _graph
from lens.framework.graph import Graph, Operation, Tensor
from lens.framework.registry import get_op_def
from lens.framework.tensor_shape import as_shape, unknown_shape

_UNKNOWN = unknown_shape()

_STATE = {"eager": False}
_EXECUTOR = []    # the client's fn(op) -> list of output values (runs the op's kernel at once)
_RECORDERS = []   # active gradient tapes' fn(op), called after each eager op


def register_executor(fn):
    """The client sets fn(op) -> output values: how an eager op runs."""
    _EXECUTOR[:] = [fn]


def add_recorder(fn):
    """Start calling fn(op) after each eager op (a GradientTape while it records)."""
    _RECORDERS.append(fn)


def remove_recorder(fn):
    """Stop calling fn."""
    if fn in _RECORDERS:
        _RECORDERS.remove(fn)


def release_variable(graph, key):
    """Drop a dead eager variable's value and store key."""
    if _EXECUTOR:
        _EXECUTOR[0].release_variable(graph, key)


def eager_mode_enabled():
    """True once enable_eager_execution() ran (even inside a `with tf.Graph().as_default():`)."""
    return _STATE["eager"]


def executing_eagerly():
    """True when ops run at once: eager mode is on and no explicit graph is the default."""
    return _STATE["eager"] and type(_graph.get_default_graph()) is EagerGraph


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Switch the process to eager execution (TF1: only at program start)."""
    if _STATE["eager"]:
        return
    g = _graph._global_default_graph
    if _graph._default_graph_stack.stack or (g is not None and g._ops):
        raise ValueError("tf.enable_eager_execution must be called at program startup.")
    if not _EXECUTOR:
        raise RuntimeError("Eager execution needs the lens executor: `import lens` first.")
    _STATE["eager"] = True
    _graph._DEFAULT_GRAPH_CLASS[0] = EagerGraph
    _graph._global_default_graph = EagerGraph()


def disable_eager_execution():
    """Back to graph mode with a fresh default graph (call it before building anything)."""
    _STATE["eager"] = False
    _graph._DEFAULT_GRAPH_CLASS[0] = Graph
    if not _graph._default_graph_stack.stack:
        _graph._global_default_graph = Graph()


class EagerTensor(Tensor):
    """A tensor with a value: the output of an op that already ran (TF's EagerTensor)."""

    __slots__ = ("_value", "_var")

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for a 0-d tensor, as TF's)."""
        v = _value_of(self)
        return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(_value_of(self))
        return v if dtype is None else v.astype(dtype)

    @property
    def shape(self):
        """The shape of the value."""
        return self._shape

    def eval(self, feed_dict=None, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, is .numpy() "
                                  "what you're looking for?")

    def __repr__(self):
        return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (
            _shape_tuple(self), self._dtype.base_dtype.name, _numpy_text(self, repr))

    def __str__(self):
        return "tf.Tensor(%s, shape=%s, dtype=%s)" % (
            _numpy_text(self, str), _shape_tuple(self), self._dtype.base_dtype.name)

    def __bool__(self):
        return bool(_value_of(self))

    def __float__(self):
        return float(_value_of(self))

    def __int__(self):
        return int(_value_of(self))

    def __index__(self):
        return int(_value_of(self))

    def __len__(self):
        v = _value_of(self)
        if np.ndim(v) == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return len(v)

    def __iter__(self):
        v = _value_of(self)
        if np.ndim(v) == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(len(v)))

    def __format__(self, spec):
        return format(self.numpy(), spec) if spec else str(self)


def _numpy_text(t, fmt):
    # As TF prints it: a value spanning lines starts on its own line.
    text = fmt(_value_of(t))
    return "\n" + text if "\n" in text else text


def _shape_tuple(t):
    return tuple(np.shape(_value_of(t)))


def _value_of(t):
    if t._var is not None:    # a variable's handle: read its current value
        return _EXECUTOR[0].read_variable(t._var)
    return t._value


def value_of(t):
    """The value an eager tensor carries (a variable handle's current value)."""
    return _value_of(t)


class VariableRef:
    """What the executor returns for a ref output: the variable's store key and static shape."""

    __slots__ = ("key", "shape")

    def __init__(self, key, shape):
        self.key, self.shape = key, shape


_SHAPES = {}   # shape tuple -> TensorShape (shapes repeat; TensorShapes are never changed in place)


def _shape_of(value):
    key = np.shape(value)
    shape = _SHAPES.get(key)
    if shape is None:
        if len(_SHAPES) > 4096:
            _SHAPES.clear()
        shape = _SHAPES[key] = as_shape(key)
    return shape


def eager_tensor(op, index, dtype, value):
    """An EagerTensor output `index` of op holding value (or standing for a variable)."""
    t = EagerTensor.__new__(EagerTensor)
    t._op, t._value_index, t._dtype, t._consumers, t._name = op, index, dtype, (), None
    if type(value) is VariableRef:
        t._value, t._var = None, value.key
        t._shape = as_shape(value.shape)
    else:
        t._value, t._var = value, None
        t._shape = _shape_of(value) if value is not None else _UNKNOWN
    return t


class _Scope:
    """A cheap name scope for eager ops (no generator): sets and restores the thread's stack."""

    __slots__ = ("graph", "name", "old")

    def __init__(self, graph, name):
        self.graph, self.name = graph, name

    def __enter__(self):
        g = self.graph
        self.old = old = g._name_stack
        name = self.name
        if not name:
            new = ""
        elif not isinstance(name, str):
            return self._slow_enter()
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = old + "/" + name if old else name
        g._name_stack = new
        return new + "/" if new else ""

    def _slow_enter(self):
        name = self.name.decode() if isinstance(self.name, bytes) else str(self.name)
        self.name = name
        return self.__enter__()

    def __exit__(self, *exc):
        self.graph._name_stack = self.old
        return False


class _AsDefault:
    """A cheap `graph.as_default()` for the eager graph (push, pop; no generator)."""

    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph

    def __enter__(self):
        _graph._default_graph_stack.stack.append(self.graph)
        return self.graph

    def __exit__(self, *exc):
        _graph._default_graph_stack.stack.remove(self.graph)
        return False


class EagerGraph(Graph):
    """The eager context's graph: ops run when created and are not kept (no growth)."""

    # Name scopes are per thread, as TF's eager context is.
    @property
    def _name_stack(self):
        return getattr(self._scopes, "stack", "")

    @_name_stack.setter
    def _name_stack(self, value):
        self.__dict__.setdefault("_scopes", threading.local()).stack = value

    @property
    def seed(self):
        """The global random seed."""
        return self._seed

    @seed.setter
    def seed(self, seed):
        # As TF's eager context: setting the seed restarts the random streams, so a seeded
        # program replays its random values after each tf.set_random_seed.
        self._seed = seed
        self.seed_epoch = getattr(self, "seed_epoch", 0) + 1

    def name_scope(self, name):
        """Enter a name scope (eager: scopes name nothing that is kept, so none is uniquified)."""
        if name and isinstance(name, str) and not _graph._VALID_SCOPE_NAME.match(name):
            raise ValueError("'%s' is not a valid scope name" % name)
        return _Scope(self, name)

    def as_default(self):
        """Make this the default graph inside the block."""
        return _AsDefault(self)

    def unique_name(self, name, mark_as_used=True):
        # Eager ops are not kept, so names are never taken (TF eager does not uniquify either).
        return self._name_stack + "/" + name if self._name_stack else name

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        # Eager ops run in program order: control dependencies are already satisfied.
        yield

    def finalize(self):
        pass

    def _create_op(self, op_type, inputs, output_dtypes, attrs=None, name=None, shapes=None,
                   control_inputs=(), frames_skip=3):
        for t in inputs:
            if not isinstance(t, EagerTensor):
                raise TypeError("Input to %s must be an eager tensor, got %r (a graph tensor cannot be "
                                "used while executing eagerly)" % (op_type, t))
        if op_type == "Placeholder":
            raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
        name = name or op_type
        name = name[:-1] if name.endswith("/") else self.unique_name(name)
        op = Operation.__new__(Operation)
        op._graph, op._name, op._type, op._inputs = self, name, op_type, list(inputs)
        op._control_inputs, op._device, op._attrs = [], "", dict(attrs or {})
        op._frames = op._id = op._original_op = None
        op._op_def = get_op_def(op_type)
        op._control_outputs, op._colocation = [], []
        # The outputs exist (dtypes, count) when the kernel factory looks at the op; values come after.
        outs = op._outputs = [eager_tensor(op, i, dt, None) for i, dt in enumerate(output_dtypes)]
        if op_type in self._gradient_override_map:
            op._attrs["_gradient_op_type"] = self._gradient_override_map[op_type]
        for t, value in zip(outs, _EXECUTOR[0](op)):
            if type(value) is VariableRef:
                t._var = value.key
                t._shape = as_shape(value.shape)
            else:
                t._value = value
                if value is not None:
                    t._shape = _shape_of(value)
        if _RECORDERS:
            for record in list(_RECORDERS):
                record(op)
        return op

