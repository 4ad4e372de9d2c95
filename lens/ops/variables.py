"""TF1 reference variables: `v`, `v/read`, `v/Assign`, `v/initial_value`; assign ops; initializers."""
import threading
import weakref

import numpy as np

from lens.framework import errors, dtypes as _dt
from lens.framework.convert import convert_to_tensor, register_tensor_conversion_function
from lens.framework.graph import GraphKeys, Tensor, get_default_graph, name_scope, shape_text
from lens.framework.registry import register_op
from lens.framework.eager import executing_eagerly
from lens.framework.default_session import get_default_session
from lens.framework.tensor_shape import as_shape


# ------------------------------------------------------------------ kernels
def _variable_make(op, ctx):
    name = op.name
    store = ctx.variables
    return lambda: store[name]


register_op("VariableV2", make=_variable_make, not_differentiable=True, stateful=True)


# Arrays whose producer hands them over (RestoreV2's freshly read tensors): the first Assign keeps
# one instead of copying it, so restoring a checkpoint costs one read, not a read plus a copy.
_HANDED_OVER = weakref.WeakValueDictionary()


def hand_over(arr):
    """Mark a freshly made array no one else holds as adoptable by Assign; returns it. A read-only view
    (RestoreV2's view of a mapped checkpoint file) is adoptable too: in-place updaters copy views first."""
    if isinstance(arr, np.ndarray) and ((arr.base is None and arr.flags.owndata) or not arr.flags.writeable):
        _HANDED_OVER[id(arr)] = arr
    return arr


def _frozen(a, dtype):
    # One atomic pop: of two Assigns racing in the parallel executor only one adopts the array (ids are
    # unique among live objects, and an entry dies with its array).
    if _HANDED_OVER and _HANDED_OVER.pop(id(a), None) is a and a.dtype == dtype:
        a.flags.writeable = False
        return a
    arr = np.array(a, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


def _assign_make(op, ctx):
    name = op._inputs[0].op.name
    store = ctx.variables
    dtype = op._inputs[0].dtype.base_dtype.as_numpy_dtype
    validate = op._attrs.get("validate_shape", True)
    shape = op._inputs[0].shape

    def assign(value):
        if validate and name in store and np.shape(value) != store[name].shape:
            raise errors.InvalidArgumentError(
                None, op, "Assign requires shapes of both tensors to match. lhs shape= %s rhs shape= %s"
                % (list(store[name].shape), list(np.shape(value))))
        if validate and shape.ndims is not None and not shape.is_compatible_with(np.shape(value)):
            raise errors.InvalidArgumentError(
                None, op, "Assign requires shapes of both tensors to match. lhs shape= %s rhs shape= %s"
                % (shape, list(np.shape(value))))
        arr = store[name] = _frozen(value, dtype)
        return arr
    return assign


def _update_make(ufunc):
    def make(op, ctx):
        name = op._inputs[0].op.name
        store = ctx.variables

        def update(delta):
            cur = store[name]
            if np.shape(delta) != cur.shape and np.broadcast_shapes(np.shape(delta), cur.shape) != cur.shape:
                raise errors.InvalidArgumentError(None, op, "Shapes %s and %s are not compatible"
                                                  % (list(cur.shape), list(np.shape(delta))))
            if cur.base is None:
                # In place, as TF1's ref variables: no copy of large weights every step.
                cur.flags.writeable = True
                ufunc(cur, delta, out=cur, casting="unsafe")
                cur.flags.writeable = False
                return cur
            new = store[name] = _frozen(ufunc(cur, delta), cur.dtype)
            return new
        return update
    return make


def _assign_shape(op):
    """The variable's shape merged with the value's (TF's build-time check) unless validate_shape=False."""
    ref, value = op._inputs[0].shape, op._inputs[1].shape
    if not op._attrs.get("validate_shape", True):
        return [value]
    if ref.ndims is not None and value.ndims is not None:
        if ref.ndims != value.ndims:
            raise ValueError("Shapes must be equal rank, but are %d and %d (assigning to variable %s; "
                             "pass validate_shape=False to change its shape)"
                             % (ref.ndims, value.ndims, op._inputs[0].op.name))
        for i, (a, b) in enumerate(zip(ref.as_list(), value.as_list())):
            if a is not None and b is not None and a != b:
                raise ValueError("Dimension %d in both shapes must be equal, but are %d and %d. Shapes are "
                                 "%s and %s (assigning to variable %s; pass validate_shape=False to "
                                 "change its shape)" % (i, a, b, shape_text(ref), shape_text(value),
                                                        op._inputs[0].op.name))
    return [ref.merge_with(value)]


register_op("Assign", make=_assign_make, handle_inputs=(0,), not_differentiable=True, stateful=True,
            shape=_assign_shape)
register_op("AssignAdd", make=_update_make(np.add), handle_inputs=(0,), not_differentiable=True,
            stateful=True, shape=lambda op: [op._inputs[0].shape])
register_op("AssignSub", make=_update_make(np.subtract), handle_inputs=(0,), not_differentiable=True,
            stateful=True, shape=lambda op: [op._inputs[0].shape])


def _is_init_make(op, ctx):
    name = op._inputs[0].op.name
    store = ctx.variables
    return lambda: np.bool_(name in store)


register_op("IsVariableInitialized", make=_is_init_make, handle_inputs=(0,), not_differentiable=True,
            stateful=True)


_COUNT_LOCK = threading.Lock()  # queue-runner threads may count the same epoch variable at once


def _count_up_to_make(op, ctx):
    name, limit = op._inputs[0].op.name, op._attrs["limit"]
    store = ctx.variables

    def count():
        with _COUNT_LOCK:
            cur = store[name]
            if cur >= limit:
                raise errors.OutOfRangeError(None, op, "Reached limit of %d" % limit)
            store[name] = _frozen(cur + 1, cur.dtype)
            return cur
    return count


register_op("CountUpTo", make=_count_up_to_make, handle_inputs=(0,), not_differentiable=True, stateful=True,
            shape=lambda op: [op._inputs[0].shape])


def count_up_to(ref, limit, name=None):
    """Increment the int32/int64 variable ref until it reaches limit (then OutOfRangeError); returns the old value."""
    ref = _ref_of(ref)
    if ref.dtype.base_dtype not in (_dt.int32, _dt.int64):
        raise TypeError("Value passed to parameter 'ref' has DataType %s not in list of allowed values: int32, "
                        "int64" % ref.dtype.base_dtype.name)
    g = ref.graph
    with g.as_default(), name_scope(name, "CountUpTo", [ref]) as scope:
        with g.colocate_with(ref.op):
            op = g._create_op("CountUpTo", [ref], [ref.dtype.base_dtype],
                              {"T": ref.dtype.base_dtype, "limit": int(limit)}, scope, frames_skip=3)
    return op._outputs[0]


def _ref_op(op_type, ref, value, name, attrs=None):
    g = ref.graph
    with g.as_default(), name_scope(name, op_type, [ref, value]) as scope:
        v = convert_to_tensor(value, dtype=ref.dtype.base_dtype, name="value")
        with g.colocate_with(ref.op):
            op = g._create_op(op_type, [ref, v], [ref.dtype], attrs or {"T": ref.dtype.base_dtype},
                              scope, frames_skip=3)
    return op._outputs[0]


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """ref <- value; returns ref after the assignment."""
    ref = _ref_of(ref)
    return _ref_op("Assign", ref, value, name, {"T": ref.dtype.base_dtype, "use_locking": bool(use_locking),
                                                "validate_shape": validate_shape is not False})


def assign_add(ref, value, use_locking=None, name=None):
    """ref <- ref + value."""
    return _ref_op("AssignAdd", _ref_of(ref), value, name)


def assign_sub(ref, value, use_locking=None, name=None):
    """ref <- ref - value."""
    return _ref_op("AssignSub", _ref_of(ref), value, name)


def _ref_of(v):
    if isinstance(v, Variable):
        return v._variable
    if isinstance(v, Tensor) and v.dtype.is_ref_dtype:
        return v
    raise TypeError("Expected a Variable (or a ref tensor) to assign to, got %r" % (v,))


def is_variable_initialized(variable):
    """A bool tensor: has the variable been initialized in the running session?"""
    ref = _ref_of(variable)
    g = ref.graph
    with g.as_default(), g.colocate_with(ref.op):
        op = g._create_op("IsVariableInitialized", [ref], [_dt.bool], {"dtype": ref.dtype.base_dtype},
                          "IsVariableInitialized", frames_skip=3)
    return op._outputs[0]


# ------------------------------------------------------------------ Variable
_EAGER_VARIABLE_CLASS = []   # lens.ops.eager_variables registers the class eager code gets


class Variable:
    """A TF1 reference variable (`tf.Variable`)."""

    def __new__(cls, *args, **kwargs):
        # While executing eagerly tf.Variable makes a variable holding its value (TF's eager variable).
        if cls is Variable and _EAGER_VARIABLE_CLASS and executing_eagerly():
            cls = _EAGER_VARIABLE_CLASS[0]
        return object.__new__(cls)

    def __init__(self, initial_value=None, trainable=True, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None,
                 aggregation=None, shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError("collections argument to Variable constructor must be a list, tuple, "
                             "or set. Got %s of type %s" % (collections, type(collections)))
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        self._trainable = trainable
        self._constraint = constraint
        g = get_default_graph()
        with g.as_default(), g.control_dependencies(None), \
                name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
            if init_from_fn:
                with name_scope("Initializer"), g.device(None):
                    self._initial_value = convert_to_tensor(initial_value(), name="initial_value", dtype=dtype)
            else:
                self._initial_value = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
            init = self._initial_value
            if shape is not None:
                var_shape = as_shape(shape)
            elif validate_shape:
                var_shape = init.shape
                if not var_shape.is_fully_defined():
                    raise ValueError("initial_value must have a shape specified: %s" % init)
            else:
                var_shape = as_shape(None)
            base = init.dtype.base_dtype
            op = g._create_op("VariableV2", [], [base._as_ref],
                              {"shape": var_shape, "dtype": base, "container": "", "shared_name": ""},
                              scope, shapes=[var_shape], frames_skip=3)
            self._variable = op._outputs[0]
            self._initializer_op = assign(self._variable, init, validate_shape=validate_shape,
                                          name="Assign").op
            with g.device(op.device or None) if op.device else _nullcontext():
                from lens.ops.core import identity
                self._snapshot = identity(self._variable, name="read")
            self._caching_device = caching_device
        g.add_to_collections(collections, self)
        self._save_slice_info = None

    def _init_from_proto(self, variable_def, import_scope=None):
        """Rebuild the Python object from a VariableDef (its ops are already in the default graph)."""
        g = get_default_graph()

        def scoped(name):
            return (import_scope + "/" + name) if import_scope and name else name
        self._variable = g.as_graph_element(scoped(variable_def.variable_name))
        self._initializer_op = g.as_graph_element(scoped(variable_def.initializer_name))
        self._snapshot = g.as_graph_element(scoped(variable_def.snapshot_name))
        self._initial_value = (g.as_graph_element(scoped(variable_def.initial_value_name))
                               if variable_def.initial_value_name else None)
        self._trainable = variable_def.trainable
        self._constraint = None
        self._caching_device = None
        self._save_slice_info = None

    # -- identity
    name = property(lambda self: self._variable.name, doc="'name:0'.")
    op = property(lambda self: self._variable.op, doc="The VariableV2 op.")
    graph = property(lambda self: self._variable.graph, doc="The graph.")
    dtype = property(lambda self: self._variable.dtype, doc="The ref dtype (e.g. float32_ref).")
    device = property(lambda self: self._variable.device, doc="The device.")
    shape = property(lambda self: self._variable.shape, doc="The static shape.")
    initializer = property(lambda self: self._initializer_op, doc="The Assign op initializing it.")
    initial_value = property(lambda self: self._initial_value, doc="The initial value tensor.")
    trainable = property(lambda self: self._trainable, doc="Whether it is trained by optimizers.")
    constraint = property(lambda self: self._constraint, doc="Projection applied after updates.")

    def get_shape(self):
        """The static shape."""
        return self.shape

    def _as_graph_element(self):
        return self._variable

    def _ref(self):
        return self._variable

    def value(self):
        """The `v/read` snapshot tensor."""
        return self._snapshot

    def read_value(self):
        """A new Identity reading the variable (honours enclosing control dependencies)."""
        from lens.ops.core import identity
        return identity(self._variable, name="read")

    def initialized_value(self):
        """The value, initializing first if needed (runs the initializer when uninitialized)."""
        from lens.framework.convert import apply_op
        return apply_op("InitializedValue", [(self._variable, "ref"), (self._initial_value, "initial_value")],
                        name="InitializedValue", dtypes=[self.dtype.base_dtype], same_dtype=False)

    def eval(self, session=None):
        """The value in the given or default session."""
        return self._variable.eval(session=session)

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """An Assign op (tensor of the new value)."""
        t = assign(self._variable, value, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """An AssignAdd op."""
        t = assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """An AssignSub op."""
        t = assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def load(self, value, session=None):
        """Set the value in a session without adding ops (feeds the initializer)."""
        session = session or get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be established")
        session.run(self._initializer_op, {self._initial_value: value})

    def set_shape(self, shape):
        """Refine the static shape."""
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    def to_proto(self, export_scope=None):
        """The VariableDef (names of the variable, its initializer, snapshot and initial value)."""
        from lens.proto import variable_pb2

        def strip(name):
            if export_scope and name.startswith(export_scope + "/"):
                return name[len(export_scope) + 1:]
            return name
        vdef = variable_pb2.VariableDef(variable_name=strip(self._variable.name),
                                        initializer_name=strip(self._initializer_op.name),
                                        snapshot_name=strip(self._snapshot.name), trainable=self._trainable)
        if self._initial_value is not None:
            vdef.initial_value_name = strip(self._initial_value.name)
        return vdef

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """A Variable for the VariableDef's ops in the default graph."""
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def count_up_to(self, limit):
        """Increment this variable until it reaches limit (then OutOfRangeError); returns the old value."""
        return count_up_to(self._variable, limit)

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __bool__(self):
        raise TypeError("Using a tf.Variable as a Python bool is not allowed.")


VariableV1 = RefVariable = Variable


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def _init_value_make(op, ctx):
    name = op._inputs[0].op.name
    store = ctx.variables

    def run(initial):
        return store[name] if name in store else initial
    return run


register_op("InitializedValue", make=_init_value_make, handle_inputs=(0,), not_differentiable=True,
            stateful=True, shape=lambda op: [op._inputs[0].shape.merge_with(op._inputs[1].shape)])


def _variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError("Incompatible type conversion requested to type '%s' for variable of type '%s'"
                         % (dtype.name, v.dtype.name))
    return v._variable if as_ref else v._snapshot


register_tensor_conversion_function(Variable, _variable_to_tensor)


# ------------------------------------------------------------------ collections helpers
def global_variables(scope=None):
    """Variables in GLOBAL_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def trainable_variables(scope=None):
    """Variables in TRAINABLE_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    """Variables in LOCAL_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    """Variables in MODEL_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    """Variables in MOVING_AVERAGE_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """One op running the initializers of var_list (a NoOp when empty)."""
    from lens.ops.core import group, no_op
    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


def global_variables_initializer():
    """Initialize every global variable (`init`)."""
    return variables_initializer(global_variables(), name="init")


initialize_all_variables = global_variables_initializer


def local_variables_initializer():
    """Initialize every local variable (`init_1`-style name 'init')."""
    return variables_initializer(local_variables(), name="init")


initialize_local_variables = local_variables_initializer


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor naming the variables not yet initialized."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    refs = [v._variable for v in var_list]
    g = get_default_graph()
    with g.as_default(), name_scope(name) as scope:
        if not refs:
            from lens.framework.convert import constant
            return constant(np.array([], dtype=object), dtype=_dt.string, name=scope)
        by_device = {}
        for r in refs:
            by_device.setdefault(r.op.device, []).append(r)
        if len(by_device) == 1:
            op = g._create_op("ReportUninitialized", refs, [_dt.string], {"N": len(refs)}, scope, frames_skip=3)
        else:
            # One report beside each device's variables (a cluster's ps tasks hold them), joined.
            parts = [g._create_op("ReportUninitialized", rs, [_dt.string], {"N": len(rs)}, "ReportUninitialized",
                                  frames_skip=3)._outputs[0] for rs in by_device.values()]
            axis = convert_to_tensor(np.int32(0), name="axis")
            op = g._create_op("ConcatV2", parts + [axis], [_dt.string],
                              {"N": len(parts), "T": _dt.string, "Tidx": _dt.int32}, scope, frames_skip=3)
    return op._outputs[0]


def _report_make(op, ctx):
    names = [t.op.name for t in op._inputs]
    store = ctx.variables
    return lambda: np.array([n.encode() for n in names if n not in store], dtype=object)


register_op("ReportUninitialized", make=_report_make, handle_inputs=tuple(range(10000)),
            not_differentiable=True, stateful=True)


def assert_variables_initialized(var_list=None):
    """An op failing with FailedPreconditionError when any variable is uninitialized."""
    raise NotImplementedError("assert_variables_initialized is deprecated; use report_uninitialized_variables")
