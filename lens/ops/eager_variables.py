"""Variables while executing eagerly: `tf.Variable` holds its value; reads and updates run at once.

The variable's handle is an EagerTensor standing for its entry in the eager context's variable
store, so the registered Assign / AssignAdd / Apply* kernels (which take the variable by handle)
update it as in a session. Every read is a recorded Identity of the handle, which is how a
GradientTape sees (and differentiates through) variable reads.
"""
import weakref

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import eager
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, get_default_graph, name_scope
from lens.framework.tensor_shape import as_shape
from lens.ops import variables as _variables
from lens.ops.variables import Variable, assign

_READ_HOOKS = []   # GradientTapes watching accessed variables: fn(variable) on each read


def add_read_hook(fn):
    """Call fn(variable) before each eager variable read (tapes auto-watch what they read)."""
    _READ_HOOKS.append(fn)


def remove_read_hook(fn):
    """Stop calling fn."""
    if fn in _READ_HOOKS:
        _READ_HOOKS.remove(fn)


class EagerVariable(Variable):
    """`tf.Variable` while executing eagerly (TF's eager ResourceVariable)."""

    def __init__(self, initial_value=None, trainable=True, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None,
                 aggregation=None, shape=None):
        if variable_def is not None:
            raise ValueError("variable_def is not supported when eager execution is enabled.")
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if callable(initial_value):
            initial_value = initial_value()
        g = get_default_graph()
        with name_scope(name, "Variable") as scope:
            init = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
            var_shape = as_shape(shape) if shape is not None else (
                init.shape if validate_shape else as_shape(None))
            base = init.dtype.base_dtype
            op = g._create_op("VariableV2", [], [base._as_ref],
                              {"shape": var_shape, "dtype": base, "container": "", "shared_name": ""},
                              scope, shapes=[var_shape], frames_skip=3)
            self._variable = op._outputs[0]
            self._user_name = (scope[:-1] if scope.endswith("/") else scope) + ":0"
            self._initializer_op = assign(self._variable, init, validate_shape=validate_shape,
                                          name="Assign").op
        self._initial_value = init
        self._trainable = trainable
        self._constraint = constraint
        self._caching_device = caching_device
        self._save_slice_info = None
        weakref.finalize(self, eager.release_variable, g, op._name)
        if collections and GraphKeys.GLOBAL_STEP in collections:
            # TF keeps no collections of eager variables, but for the global step (get_global_step).
            g.add_to_collection(GraphKeys.GLOBAL_STEP, self)

    name = property(lambda self: self._user_name, doc="'name:0' (as given: eager names are not uniquified).")
    dtype = property(lambda self: self._variable.dtype.base_dtype, doc="The value's dtype.")

    @property
    def _snapshot(self):
        return self._read()

    def _read(self):
        for hook in list(_READ_HOOKS):
            hook(self)
        from lens.ops.core import identity
        return identity(self._variable, name="Read/ReadVariableOp")

    def value(self):
        """A tensor of the current value."""
        return self._read()

    def read_value(self):
        """A tensor of the current value."""
        return self._read()

    def numpy(self):
        """The current value as a NumPy array."""
        return eager.value_of(self._variable)

    def __array__(self, dtype=None, copy=None):
        v = self.numpy()
        return v if dtype is None else v.astype(dtype)

    def eval(self, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, is .numpy() "
                                  "what you're looking for?")

    def load(self, value, session=None):
        """Set the value at once."""
        self.assign(value)

    def initialized_value(self):
        """The current value (an eager variable is initialized when made)."""
        return self._read()

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
            self.name, tuple(np.shape(self.numpy())), self.dtype.name, repr(self.numpy()))

    def __bool__(self):
        return bool(self.numpy())

    def __float__(self):
        return float(self.numpy())

    def __int__(self):
        return int(self.numpy())

    def __index__(self):
        return int(self.numpy())

    def __hash__(self):
        return id(self)


_ = _dt
_variables._EAGER_VARIABLE_CLASS[:] = [EagerVariable]
