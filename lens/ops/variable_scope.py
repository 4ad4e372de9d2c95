"""variable_scope and get_variable: TF1's variable sharing, reuse modes and naming."""
import contextlib
import enum

from lens.framework import dtypes as _dt
from lens.framework.eager import executing_eagerly
from lens.framework.graph import GraphKeys, get_default_graph, name_scope
from lens.framework.tensor_shape import as_shape
from lens.framework.sources import user_frames


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """A variable scope: name prefix, reuse mode and defaults for get_variable."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None,
                 partitioner=None, custom_getter=None, name_scope="", dtype=_dt.float32,
                 use_resource=None, constraint=None):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._constraint = constraint

    name = property(lambda self: self._name, doc="The scope's name.")
    original_name_scope = property(lambda self: self._name_scope, doc="The name scope it opened.")
    reuse = property(lambda self: self._reuse, doc="True, AUTO_REUSE or False/None.")
    initializer = property(lambda self: self._initializer, doc="Default initializer.")
    regularizer = property(lambda self: self._regularizer, doc="Default regularizer.")
    dtype = property(lambda self: self._dtype, doc="Default dtype.")
    caching_device = property(lambda self: self._caching_device, doc="Caching device.")
    partitioner = property(lambda self: self._partitioner, doc="Partitioner (unused by lens).")
    custom_getter = property(lambda self: self._custom_getter, doc="Custom getter.")
    constraint = property(lambda self: self._constraint, doc="Default constraint.")
    use_resource = property(lambda self: False, doc="lens uses reference variables.")

    def reuse_variables(self):
        """Reuse variables in this scope from now on."""
        self._reuse = True

    def set_initializer(self, initializer):
        """Set the default initializer."""
        self._initializer = initializer

    def set_regularizer(self, regularizer):
        """Set the default regularizer."""
        self._regularizer = regularizer

    def set_dtype(self, dtype):
        """Set the default dtype."""
        self._dtype = dtype

    def set_caching_device(self, caching_device):
        """Set the caching device."""
        self._caching_device = caching_device

    def set_custom_getter(self, custom_getter):
        """Set the custom getter."""
        self._custom_getter = custom_getter

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None, regularizer=None,
                     reuse=None, trainable=True, collections=None, caching_device=None,
                     partitioner=None, validate_shape=True, use_resource=None, custom_getter=None,
                     constraint=None, **kwargs):
        """get_variable relative to this scope."""
        full = self._name + "/" + name if self._name else name
        if initializer is None:
            initializer = self._initializer
        if regularizer is None:
            regularizer = self._regularizer
        if dtype is None:
            dtype = self._dtype
        if reuse is None or reuse is False:
            reuse = self._reuse
        getter = custom_getter or self._custom_getter
        with name_scope(None):
            if getter is not None:
                return getter(var_store.get_variable, full, shape=shape, dtype=dtype,
                              initializer=initializer, regularizer=regularizer, reuse=reuse,
                              trainable=trainable, collections=collections,
                              validate_shape=validate_shape, constraint=constraint)
            return var_store.get_variable(full, shape, dtype, initializer, regularizer, reuse,
                                          trainable, collections, validate_shape, constraint)


class _VariableStore:
    """All variables created by get_variable in one graph, by full name."""

    def __init__(self):
        self.vars = {}
        self.scope_counts = {}

    def get_variable(self, name, shape=None, dtype=_dt.float32, initializer=None, regularizer=None,
                     reuse=None, trainable=True, collections=None, validate_shape=True,
                     constraint=None, **kwargs):
        from lens.ops.variables import Variable
        dtype = _dt.as_dtype(dtype)
        shape = as_shape(shape)
        if name in self.vars:
            if reuse is None or reuse is False:
                v = self.vars[name]
                where = _where(v)
                raise ValueError("Variable %s already exists, disallowed. Did you mean to set "
                                 "reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined "
                                 "at:\n\n%s" % (name, where))
            v = self.vars[name]
            if not shape.is_compatible_with(v.shape):
                raise ValueError("Trying to share variable %s, but specified shape %s and found shape %s."
                                 % (name, shape, v.shape))
            if dtype.base_dtype is not v.dtype.base_dtype:
                raise ValueError("Trying to share variable %s, but specified dtype %s and found dtype %s."
                                 % (name, dtype.base_dtype.name, v.dtype.base_dtype.name))
            return v
        if reuse is True:
            raise ValueError("Variable %s does not exist, or was not created with tf.get_variable(). "
                             "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?" % name)
        init_is_value = initializer is not None and not callable(initializer)
        if not init_is_value and not shape.is_fully_defined():
            raise ValueError("Shape of a new variable (%s) must be fully defined, but instead was %s."
                             % (name, shape))
        if initializer is None:
            from lens.ops import init_ops
            initializer = (init_ops.glorot_uniform_initializer() if dtype.is_floating
                           else init_ops.zeros_initializer())
        if isinstance(initializer, type):
            initializer = initializer(dtype=dtype)
        if init_is_value:
            init_val = initializer
        else:
            shape_list = shape.as_list()

            def init_val():
                return initializer(shape_list, dtype=dtype.base_dtype, partition_info=None)
        v = Variable(initial_value=init_val, name=name + "/", trainable=trainable,
                     collections=collections, dtype=None if init_is_value else dtype.base_dtype,
                     validate_shape=validate_shape, constraint=constraint)
        if not executing_eagerly():   # TF1's eager get_variable shares nothing: each call makes one
            self.vars[name] = v
        if regularizer is not None:
            with name_scope(name + "/Regularizer/"):
                loss = regularizer(v)
            if loss is not None:
                get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


def _where(v):
    frames = v.op.traceback
    user = user_frames(frames) or frames
    return "\n".join('  File "%s", line %d, in %s\n    %s' % f for f in user[-3:])


def _store(graph=None):
    g = graph or get_default_graph()
    if g._var_scope_store is None:
        g._var_scope_store = (_VariableStore(), [VariableScope(False)])
    return g._var_scope_store


def get_variable_scope():
    """The current VariableScope."""
    return _store()[1][-1]


def _get_default_variable_store():
    return _store()[0]


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True,
                 use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                 aggregation=None):
    """Get an existing variable (reuse) or create a new one named `<scope>/<name>`."""
    store, _ = _store()
    return get_variable_scope().get_variable(
        store, name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=True if trainable is None else trainable, collections=collections,
        validate_shape=validate_shape, custom_getter=custom_getter, constraint=constraint)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, **kwargs):
    """get_variable in LOCAL_VARIABLES, not trainable."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape, dtype, initializer, regularizer, False, collections, **kwargs)


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None, regularizer=None,
                   caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                   use_resource=None, constraint=None, auxiliary_name_scope=True):
    """Open a variable scope (and a matching name scope)."""
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:
        reuse = None
    store, stack = _store()
    parent = stack[-1]
    g = get_default_graph()
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
        ns_ctx = g.name_scope(name_or_scope.original_name_scope) if auxiliary_name_scope else _null()
        base = name_or_scope
        inherit_reuse = name_or_scope.reuse
    else:
        if name_or_scope is not None:
            rel = name_or_scope
        else:
            rel = _unique_scope_name(store, parent.name, default_name)
        full = parent.name + "/" + rel if parent.name else rel
        ns_ctx = g.name_scope(rel) if auxiliary_name_scope else _null()
        base = parent
        inherit_reuse = parent.reuse
    with ns_ctx as ns:
        new = VariableScope(
            reuse=True if (reuse is True or inherit_reuse is True) else (reuse or inherit_reuse),
            name=full,
            initializer=initializer if initializer is not None else base.initializer,
            regularizer=regularizer if regularizer is not None else base.regularizer,
            caching_device=caching_device or base.caching_device,
            custom_getter=custom_getter or base.custom_getter,
            name_scope=ns if isinstance(ns, str) else (name_or_scope.original_name_scope
                                                       if isinstance(name_or_scope, VariableScope) else ""),
            dtype=dtype if dtype is not None else base.dtype,
            constraint=constraint or base.constraint)
        if parent.reuse is True and new.reuse is not True:
            new._reuse = True
        stack.append(new)
        # TF1 counts how often each scope name is open and forgets a scope's sub-scope counts
        # when it closes, so re-entering 'tower' names its default sub-scopes 'dense' again.
        store.scope_counts[full] = store.scope_counts.get(full, 0) + 1
        try:
            yield new
        finally:
            stack.pop()
            prefix = full + "/"
            for key in store.scope_counts:
                if key.startswith(prefix):
                    store.scope_counts[key] = 0


def _unique_scope_name(store, parent_name, default_name):
    """default_name, or default_name_N for the first N whose scope was not opened yet."""
    base = parent_name + "/" + default_name if parent_name else default_name
    if store.scope_counts.get(base, 0) == 0:
        return default_name
    idx = 1
    while store.scope_counts.get("%s_%d" % (base, idx), 0) > 0:
        idx += 1
    return "%s_%d" % (default_name, idx)


@contextlib.contextmanager
def _null():
    yield None


def variable_op_scope(values, name_or_scope, default_name=None, **kwargs):
    """Deprecated TF1 alias of variable_scope with values first."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)
