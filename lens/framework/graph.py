"""Graph, Operation and Tensor with TF1 semantics (naming, scopes, collections, defaults)."""
import contextlib
import linecache
import re
import sys
import threading

from lens.framework import registry
from lens.framework.graph_io import graph_to_graph_def, op_to_node_def
from lens.framework.default_session import (_clear_default_session_stack, _eval_using_default_session,
                                              _run_using_default_session)
from lens.framework.tensor_shape import as_shape, unknown_shape

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


class Tensor:
    """A symbolic handle to one output of an Operation."""

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "_name", "__weakref__")
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = unknown_shape()
        self._consumers = []
        self._name = None

    @property
    def op(self):
        """The Operation that produces this tensor."""
        return self._op

    @property
    def value_index(self):
        """Index of this tensor among its op's outputs."""
        return self._value_index

    @property
    def dtype(self):
        """The DType of the elements."""
        return self._dtype

    @property
    def graph(self):
        """The Graph of this tensor."""
        return self._op.graph

    @property
    def name(self):
        """'op_name:index'."""
        if self._name is None:
            self._name = "%s:%d" % (self._op.name, self._value_index)
        return self._name

    @property
    def device(self):
        """Device of the producing op."""
        return self._op.device

    @property
    def shape(self):
        """The static TensorShape (possibly partially known)."""
        return self._shape

    def get_shape(self):
        """Alias of shape."""
        return self._shape

    def set_shape(self, shape):
        """Refine the static shape; ValueError if incompatible."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self):
        """Operations that take this tensor as an input."""
        return list(self._consumers)

    def eval(self, feed_dict=None, session=None):
        """Evaluate in the given or default session."""
        return _eval_using_default_session(self, feed_dict, self.graph, session)

    def _as_node_def_input(self):
        return self._op.name if self._value_index == 0 else self.name

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def __str__(self):
        return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self._shape, self._dtype.name)

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not "
                        "None:` instead of `if t:` to test if a tensor is defined, and use "
                        "lens ops such as tf.cond to execute subgraphs conditioned on its value.")

    def __iter__(self):
        shape = self._shape
        if shape.ndims is None or shape.ndims == 0 or shape[0].value is None:
            raise TypeError("Tensor objects are only iterable when their first dimension is known.")
        return (self[i] for i in range(shape[0].value))

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors (%s). Use tf.shape." % self.name)


class Operation:
    """A node of the graph: an op type applied to input tensors, producing output tensors."""

    __slots__ = ("_graph", "_name", "_type", "_inputs", "_outputs", "_control_inputs", "_device",
                 "_attrs", "_frames", "_id", "_op_def", "_control_outputs", "_colocation",
                 "__weakref__", "_original_op")

    def __init__(self, graph, name, op_type, inputs, control_inputs, attrs, output_dtypes):
        self._graph = graph
        self._name = name
        self._type = op_type
        self._inputs = list(inputs)
        self._control_inputs = list(control_inputs)
        self._device = ""
        self._attrs = dict(attrs or {})
        self._outputs = [Tensor(self, i, dt) for i, dt in enumerate(output_dtypes)]
        self._frames = None
        self._id = None
        self._op_def = registry.get_op_def(op_type)
        self._control_outputs = []
        self._colocation = []
        self._original_op = None

    name = property(lambda self: self._name, doc="The op's unique name.")
    type = property(lambda self: self._type, doc="The op type, e.g. 'MatMul'.")
    graph = property(lambda self: self._graph, doc="The Graph of this op.")
    outputs = property(lambda self: list(self._outputs), doc="Output tensors.")
    control_inputs = property(lambda self: list(self._control_inputs), doc="Ops that must run first.")
    device = property(lambda self: self._device, doc="The device string (may be empty).")

    @property
    def inputs(self):
        """Input tensors."""
        return list(self._inputs)

    @property
    def _control_outputs_list(self):
        return self._control_outputs

    def values(self):
        """The output tensors as a tuple."""
        return tuple(self._outputs)

    def get_attr(self, name):
        """The value of an attribute; ValueError naming the op if absent."""
        if name == "_class" and self._colocation:
            return [b"loc:@" + n.encode() for n in self._colocation]
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError("Operation %r has no attr named %r." % (self._name, name)) from None

    def _set_attr(self, name, value):
        self._attrs[name] = value

    def _set_device(self, device):
        self._device = device or ""

    def colocation_groups(self):
        """The 'loc:@name' groups this op belongs to."""
        return [b"loc:@" + n.encode() for n in (self._colocation or [self._name])]

    @property
    def node_def(self):
        """A NodeDef protobuf describing this op."""
        return op_to_node_def(self)

    @property
    def traceback(self):
        """Where the op was created: (filename, lineno, function, line) tuples, outermost first."""
        out = []
        for filename, lineno, func in reversed(self._frames or ()):
            out.append((filename, lineno, func, linecache.getline(filename, lineno).strip()))
        return out

    def run(self, feed_dict=None, session=None):
        """Run this op in the given or default session."""
        _run_using_default_session(self, feed_dict, self._graph, session)

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self._name, self._type)

    def __str__(self):
        return str(self.node_def)


def _inferred_shapes(op):
    """op's shape function's answer; its ValueError names the op and input shapes, as TF's do."""
    try:
        return op._op_def.shape(op)
    except ValueError as e:
        msg = str(e)
        if "'%s'" % op._name in msg or "{{node %s}}" % op._name in msg:
            raise
        raise ValueError("%s for '{{node %s}} = %s(%s)' with input shapes: %s."
                         % (msg.rstrip("."), op._name, op._type,
                            ", ".join(t._as_node_def_input() for t in op._inputs),
                            ", ".join(shape_text(t._shape) for t in op._inputs))) from None


def shape_text(shape):
    """A shape as TF prints it in shape errors: [2,3], [?,3] or ? when the rank is unknown."""
    if shape.ndims is None:
        return "?"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def _raise_cross_graph(t, inputs, graph, op_type):
    """ValueError naming a tensor from another graph and one from the op's graph (TF's wording)."""
    mine = next((i for i in inputs if i._op._graph is graph), None)
    other = "Tensor %s" % mine if mine is not None else "the %s op being created" % op_type
    raise ValueError("%s must be from the same graph as %s (the inputs of one op must all be in one "
                     "graph: build them under the same `with graph.as_default():`)." % (t, other))


def _capture_frames(skip):
    """Cheap creation traceback: (file, line, func) innermost first, lens frames dropped."""
    f = sys._getframe(skip)
    frames = []
    while f is not None:
        code = f.f_code
        frames.append((code.co_filename, f.f_lineno, code.co_name))
        f = f.f_back
    return frames


class _ControlDependencies:
    """One level of control_dependencies(): its control inputs and the ops created inside."""

    def __init__(self, control_inputs, clear):
        self.control_inputs = control_inputs
        self.clear = clear
        self.seen = set()


class Graph:
    """A TF1 dataflow graph: ops, names, scopes, collections, seeds and devices."""

    def __init__(self):
        self._lock = threading.RLock()
        self._ops_by_name = {}
        self._ops = []
        self._names_in_use = {}
        self._name_stack = ""
        self._control_stack = []
        self._device_stack = []
        self._colocation_stack = []
        self._collections = {}
        self._seed = None
        self._finalized = False
        self._gradient_override_map = {}
        self._version = 0
        self._attr_scope = {}
        self._var_scope_store = None
        self._building_function = False
        self._unfeedable = set()
        self._unfetchable = set()

    # ---------------------------------------------------------------- naming
    def unique_name(self, name, mark_as_used=True):
        """Prefix name with the current name scope and make it unique ('add', 'add_1', ...)."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = "%s_%d" % (base, i)
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = "%s_%d" % (name, i - 1)
        return name

    def get_name_scope(self):
        """The current name scope without a trailing slash."""
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Enter a name scope: relative names are uniquified, 'a/b/' is absolute, None resets."""
        if name:
            if not isinstance(name, str):
                name = name.decode() if isinstance(name, bytes) else str(name)
            if not _VALID_SCOPE_NAME.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
            new_stack = name[:-1] if name.endswith("/") else self.unique_name(name)
        else:
            new_stack = ""
        old = self._name_stack
        self._name_stack = new_stack
        try:
            yield new_stack + "/" if new_stack else ""
        finally:
            self._name_stack = old

    # ---------------------------------------------------------------- ops
    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None, attrs=None,
                  op_def=None, compute_shapes=True, compute_device=True, shapes=None):
        """Add an op (TF1's signature); names ending in '/' are used as-is."""
        return self._create_op(op_type, inputs, dtypes or [], attrs, name, shapes)

    def _create_op(self, op_type, inputs, output_dtypes, attrs=None, name=None, shapes=None,
                   control_inputs=(), frames_skip=3):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError("Input to %s must be a Tensor, got %r" % (op_type, t))
            if t._op._graph is not self:
                _raise_cross_graph(t, inputs, self, op_type)
        name = name or op_type
        if name.endswith("/"):
            name = name[:-1]
            # Absolute names still claim their name so later scopes and ops don't collide.
            self._names_in_use.setdefault(name.lower(), 1)
        else:
            name = self.unique_name(name)
        if not _VALID_OP_NAME.match(name):
            raise ValueError("'%s' is not a valid node name" % name)
        if name in self._ops_by_name:
            raise ValueError("Duplicate node name in graph: '%s'" % name)
        op = Operation(self, name, op_type, inputs, (), attrs, output_dtypes)
        if op_type in self._gradient_override_map:
            op._attrs["_gradient_op_type"] = self._gradient_override_map[op_type]
        if shapes is not None:
            for t, s in zip(op._outputs, shapes):
                t._shape = as_shape(s)
        elif op._op_def.shape is not None:
            for t, s in zip(op._outputs, _inferred_shapes(op)):
                t._shape = as_shape(s)
        op._frames = _capture_frames(frames_skip)
        self._add_op(op, control_inputs)
        return op

    def _add_op(self, op, extra_control_inputs=()):
        with self._lock:
            op._id = len(self._ops)
            self._ops.append(op)
            self._ops_by_name[op._name] = op
            self._version += 1
        for t in op._inputs:
            t._consumers.append(op)
        controls = self._control_dependencies_for_inputs([t._op for t in op._inputs])
        op._add_control_inputs(list(controls) + [c for c in extra_control_inputs])
        for level in self._control_stack:
            level.seen.add(op)
        self._apply_device_and_colocation(op)

    def _apply_device_and_colocation(self, op):
        if self._colocation_stack:
            target = self._colocation_stack[-1]
            op._colocation = list(target._colocation or [target._name])
            op._device = target._device
            return
        device = ""
        for spec in self._device_stack:
            if spec is None:
                device = ""
            elif callable(spec):
                device = spec(op) or ""
                if not isinstance(device, str):
                    device = device.to_string()
            else:
                device = _merge_device(device, spec)
        op._device = device

    def get_operations(self):
        """All ops in creation order."""
        return list(self._ops)

    def get_operation_by_name(self, name):
        """The op with that name; KeyError naming it if absent."""
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        """The tensor 'op:i'; KeyError/ValueError naming it if absent."""
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolve a Tensor, Operation, or name string in this graph."""
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError("Tensor %s is not an element of this graph." % obj.name)
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError("Operation %s is not an element of this graph." % obj.name)
            return obj
        if hasattr(obj, "_as_graph_element"):
            return self.as_graph_element(obj._as_graph_element(), allow_tensor, allow_operation)
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                op_name, _, idx = obj.rpartition(":")
                try:
                    idx = int(idx)
                except ValueError:
                    raise ValueError("The name %r looks a like a Tensor name, but is not a valid "
                                     "one. Tensor names must be of the form \"<op_name>:<output_index>\"."
                                     % obj) from None
                if op_name not in self._ops_by_name:
                    raise KeyError("The name %r refers to a Tensor which does not exist. The "
                                   "operation, %r, does not exist in the graph." % (obj, op_name))
                op = self._ops_by_name[op_name]
                if idx >= len(op._outputs) or idx < 0:
                    raise KeyError("The name %r refers to a Tensor which does not exist. The "
                                   "operation, %r, exists but only has %d outputs."
                                   % (obj, op_name, len(op._outputs)))
                return op._outputs[idx]
            if ":" in obj:
                raise ValueError("Name %r appears to refer to a Tensor, not an Operation." % obj)
            if not allow_operation:
                raise ValueError("The name %r refers to an Operation, not a Tensor. Tensor names "
                                 "must be of the form \"<op_name>:<output_index>\"." % obj)
            if obj not in self._ops_by_name:
                raise KeyError("The name %r refers to an Operation not in the graph." % obj)
            return self._ops_by_name[obj]
        kinds = " or ".join(k for k, ok in (("Tensor", allow_tensor), ("Operation", allow_operation)) if ok)
        raise TypeError("Can not convert a %s into a %s." % (type(obj).__name__, kinds))

    def _get_op_by_name_or_none(self, name):
        return self._ops_by_name.get(name)

    @property
    def version(self):
        """Number of ops created so far."""
        return self._version

    @property
    def seed(self):
        """The graph-level random seed."""
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    @property
    def finalized(self):
        """True after finalize()."""
        return self._finalized

    def finalize(self):
        """Make the graph read-only."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    # ---------------------------------------------------------------- defaults
    def as_default(self):
        """Context manager making this the default graph."""
        return _default_graph_stack.get_controller(self)

    # ---------------------------------------------------------------- collections
    def add_to_collection(self, name, value):
        """Append value to the named collection."""
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        """Append value to several collections."""
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        """The collection's list itself (created if missing)."""
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        """A copy of the collection, filtered by a scope regex on `.name` if given."""
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [v for v in items if hasattr(v, "name") and pattern.match(v.name)]

    def get_all_collection_keys(self):
        """Names of non-empty collections."""
        return [k for k, v in self._collections.items() if v]

    def clear_collection(self, name):
        """Remove a collection."""
        self._collections.pop(name, None)

    # ---------------------------------------------------------------- control deps / devices
    def _control_dependencies_for_inputs(self, input_ops):
        ret = []
        for level in self._control_stack:
            if level.clear:
                ret = []
            if any(op in level.seen for op in input_ops):
                continue
            ret.extend(c for c in level.control_inputs if c not in input_ops and c not in ret)
        return ret

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run after control_inputs; None clears the enclosing ones."""
        if control_inputs is None:
            level = _ControlDependencies([], clear=True)
        else:
            ops = []
            for c in control_inputs:
                if hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                    c = c._as_graph_element()
                if isinstance(c, Tensor):
                    c = c.op
                if not isinstance(c, Operation):
                    raise TypeError("Can not convert a %s into a Operation or Tensor." % type(c).__name__)
                if c.graph is not self:
                    raise ValueError("Control input %s must be from the same graph." % c.name)
                if c not in ops:
                    ops.append(c)
            level = _ControlDependencies(ops, clear=False)
        self._control_stack.append(level)
        try:
            yield
        finally:
            self._control_stack.remove(level)

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Ops created inside are placed on this device (string, DeviceSpec, function or None)."""
        spec = device_name_or_function
        if spec is not None and not callable(spec) and not isinstance(spec, str):
            spec = spec.to_string()
        self._device_stack.append(spec)
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside share op's device and colocation group."""
        if op is None:
            saved, self._colocation_stack = self._colocation_stack, []
            try:
                yield
            finally:
                self._colocation_stack = saved
            return
        if hasattr(op, "_as_graph_element") and not isinstance(op, (Tensor, Operation)):
            op = op._as_graph_element()
        if isinstance(op, Tensor):
            op = op.op
        self._colocation_stack.append(op)
        try:
            yield
        finally:
            self._colocation_stack.pop()

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Use other registered gradients for some op types, inside the context."""
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    # ---------------------------------------------------------------- serialization
    def as_graph_def(self, from_version=None, add_shapes=False):
        """A GraphDef protobuf of this graph."""
        return graph_to_graph_def(self, from_version, add_shapes)

    @property
    def graph_def_versions(self):
        """The VersionDef of GraphDefs made from this graph."""
        return self.as_graph_def().versions

    def prevent_feeding(self, tensor):
        """Mark tensor as not feedable: a feed_dict holding it raises ValueError."""
        self._unfeedable.add(tensor)

    def prevent_fetching(self, op):
        """Mark op (and so its outputs) as not fetchable: fetching it raises ValueError."""
        self._unfetchable.add(op)

    def is_feedable(self, tensor):
        """False for tensors passed to prevent_feeding."""
        return tensor not in self._unfeedable

    def is_fetchable(self, tensor_or_op):
        """False for ops passed to prevent_fetching, and for their outputs."""
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    def __repr__(self):
        return "<lens.Graph object at %#x>" % id(self)


def _merge_device(outer, inner):
    """Merge a partial device spec over an enclosing one (full merge lives in devices.py)."""
    try:
        from lens.framework.devices import merge_device_strings
    except ImportError:
        return inner or outer
    return merge_device_strings(outer, inner)


class _DefaultGraphStack(threading.local):
    """The per-thread stack of default graphs, with a global fallback."""

    def __init__(self):
        self.stack = []

    def get_default(self):
        if self.stack:
            return self.stack[-1]
        global _global_default_graph
        if _global_default_graph is None:
            _global_default_graph = _DEFAULT_GRAPH_CLASS[0]()
        return _global_default_graph

    @contextlib.contextmanager
    def get_controller(self, graph):
        self.stack.append(graph)
        try:
            yield graph
        finally:
            self.stack.remove(graph)


_default_graph_stack = _DefaultGraphStack()
_global_default_graph = None
# The class of the global default graph: lens.framework.eager swaps in its EagerGraph.
_DEFAULT_GRAPH_CLASS = [Graph]


def get_default_graph():
    """The current default graph."""
    return _default_graph_stack.get_default()


def reset_default_graph():
    """Replace the global default graph with a new empty one."""
    global _global_default_graph
    if _default_graph_stack.stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you "
                             "need a cleared graph, exit the nesting and create a new graph.")
    _clear_default_session_stack()
    _global_default_graph = _DEFAULT_GRAPH_CLASS[0]()


def _get_graph_from_inputs(values):
    for v in values or ():
        g = getattr(v, "graph", None)
        if isinstance(g, Graph):
            return g
    return get_default_graph()


class name_scope:  # noqa: N801 - TF's name
    """TF1's tf.name_scope(name, default_name=None, values=None)."""

    def __init__(self, name, default_name=None, values=None):
        self._name = default_name if name is None else name
        self._default_name = default_name
        self._values = values
        self._ctx = None

    def __enter__(self):
        g = _get_graph_from_inputs(self._values)
        if self._values is not None and g is not get_default_graph():
            self._graph_ctx = g.as_default()
            self._graph_ctx.__enter__()
        else:
            self._graph_ctx = None
        if self._name is None and self._values is not None:
            raise ValueError("At least one of name (%s) and default_name (%s) must be provided."
                             % (self._name, self._default_name))
        self._ctx = g.name_scope(self._name)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        if self._graph_ctx is not None:
            self._graph_ctx.__exit__(*exc)
        return False


def control_dependencies(control_inputs):
    """tf.control_dependencies on the default graph."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    """tf.device on the default graph."""
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):
    """tf.colocate_with on the default graph."""
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name, value):
    """Add value to a collection of the default graph."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    """Add value to several collections of the default graph."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    """A collection of the default graph."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    """The list of a collection of the default graph."""
    return get_default_graph().get_collection_ref(key)


def get_name_scope():
    """The default graph's current name scope."""
    return get_default_graph().get_name_scope()


def create_op(op_type, inputs, output_dtypes, attrs=None, name=None, shapes=None):
    """Add an op to the default graph (or the graph of its inputs); returns the Operation."""
    g = inputs[0]._op._graph if inputs else get_default_graph()
    return g._create_op(op_type, inputs, output_dtypes, attrs, name, shapes, frames_skip=3)


class GraphKeys:
    """Standard collection names (TF1)."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


def is_tensor_like(x):
    """True for Tensors and objects that convert to one implicitly (Variables)."""
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")
