"""tf.layers.Layer: TF1's variable-scoped layer (names like `dense/kernel`, `conv2d_1/bias`, reuse)."""
import re

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, Tensor, get_default_graph
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.variable_scope import variable_scope

__all__ = ["Layer", "InputSpec"]


def to_snake_case(name):
    """'MaxPooling2D' -> 'max_pooling2d', 'Dense' -> 'dense' (TF's layer base names)."""
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


class InputSpec:
    """Expected rank of a layer's input (checked when the layer is called)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype, self.shape, self.ndim = dtype, shape, ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


class Layer:
    """Base layer: owns a variable scope, creates its weights on first call, then reuses them."""

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, _scope=None, **kwargs):
        self.trainable = trainable
        self.built = False
        self._reuse = _reuse
        self._scope = _scope
        self._base_name = name or to_snake_case(type(self).__name__)
        self._name = name
        self._dtype = None if dtype is None else _dt.as_dtype(dtype)
        self._trainable_weights, self._non_trainable_weights = [], []
        self._updates, self._losses = [], []
        self.input_spec = None

    # -- properties TF1 exposes
    name = property(lambda self: self._name or self._base_name, doc="The layer's name.")
    dtype = property(lambda self: self._dtype, doc="The dtype of the layer's weights.")
    scope_name = property(lambda self: self._scope.name if self._scope else None, doc="Variable scope name.")
    trainable_weights = property(lambda self: list(self._trainable_weights) if self.trainable else [],
                                 doc="Trainable variables.")
    trainable_variables = trainable_weights
    non_trainable_weights = property(
        lambda self: list(self._non_trainable_weights) + ([] if self.trainable else list(self._trainable_weights)),
        doc="Non-trainable variables.")
    non_trainable_variables = non_trainable_weights
    weights = property(lambda self: self.trainable_weights + self.non_trainable_weights, doc="All variables.")
    variables = weights
    updates = property(lambda self: list(self._updates), doc="Update ops created by the layer.")
    losses = property(lambda self: list(self._losses), doc="Losses added by the layer (regularizers).")

    def build(self, input_shape):
        """Create the layer's variables (subclasses); called once with the input's static shape."""
        self.built = True

    def call(self, inputs, **kwargs):
        """The layer's computation (subclasses)."""
        return inputs

    def compute_output_shape(self, input_shape):
        """Static output shape (subclasses that know it)."""
        raise NotImplementedError("%s does not compute its output shape statically" % type(self).__name__)

    def _set_scope(self):
        if self._scope is None or isinstance(self._scope, str):
            # A reused layer, or one the functional API named (its `_scope`), enters its name as
            # is: a second tf.layers.dense(x, n, name="fc") without reuse finds fc/kernel taken,
            # as in TF1. A new unnamed one gets a unique default name.
            if self._reuse or self._scope is not None:
                with variable_scope(self._scope or self._base_name) as scope:
                    self._scope = scope
            else:
                with variable_scope(None, default_name=self._base_name) as scope:
                    self._scope = scope
            if self._name is None:
                self._name = scope.name.rsplit("/", 1)[-1]

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True,
                   constraint=None, **kwargs):
        """Get or create `<scope>/<name>` (regularizer losses go to REGULARIZATION_LOSSES)."""
        from lens.ops.variable_scope import get_variable
        dtype = _dt.as_dtype(dtype or self._dtype or _dt.float32)
        with variable_scope(self._scope, reuse=self.built or self._reuse, auxiliary_name_scope=False):
            known = set(id(v) for v in get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES))
            v = get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                             trainable=trainable and self.trainable, constraint=constraint)
        if id(v) not in known and regularizer is not None:
            losses = get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES)
            if losses:
                self._losses.append(losses[-1])
        (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        return v

    def add_update(self, updates, inputs=None):
        """Record update ops and put them in UPDATE_OPS (TF1's legacy-layer behaviour)."""
        updates = updates if isinstance(updates, (list, tuple)) else [updates]
        g = get_default_graph()
        for u in updates:
            self._updates.append(u)
            g.add_to_collection(GraphKeys.UPDATE_OPS, u)

    def add_loss(self, losses, inputs=None):
        """Record losses and put them in REGULARIZATION_LOSSES."""
        losses = losses if isinstance(losses, (list, tuple)) else [losses]
        g = get_default_graph()
        for l in losses:
            self._losses.append(l)
            g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, l)

    def _check_input(self, x):
        spec = self.input_spec
        nd = x.shape.ndims
        if spec is None or nd is None:
            return
        if spec.ndim is not None and nd != spec.ndim:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=%d, found ndim=%d. "
                             "Full shape received: %s" % (self.name, spec.ndim, nd, x.shape))
        if spec.min_ndim is not None and nd < spec.min_ndim:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected min_ndim=%d, found "
                             "ndim=%d. Full shape received: %s" % (self.name, spec.min_ndim, nd, x.shape))

    def __call__(self, inputs, *args, **kwargs):
        """Build on first call (inside the layer's scope), then run call()."""
        self._set_scope()
        g = get_default_graph()
        x = inputs if isinstance(inputs, (list, tuple)) else convert_to_tensor(inputs, name="inputs")
        if isinstance(x, Tensor):
            self._check_input(x)
            if self._dtype is None and x.dtype.is_floating:
                self._dtype = x.dtype.base_dtype
        with variable_scope(self._scope, reuse=self.built or self._reuse, auxiliary_name_scope=False):
            with g.name_scope(self._scope.original_name_scope or None):
                if not self.built:
                    self.build(x.shape if isinstance(x, Tensor) else [t.shape for t in x])
                    self.built = True
                return self.call(x, *args, **kwargs)

    apply = __call__


def blend(pred, when_true, when_false):
    """when_true if the bool tensor pred holds else when_false, by arithmetic (both sides computed).

    Used for a tensor `training` flag: the result and its gradient match a cond, and the
    update ops stay plain ops (a moving average with momentum 1 when not training)."""
    t = when_true.dtype.base_dtype
    p = A.cast(pred, t)
    return M.add(M.multiply(p, when_true), M.multiply(M.subtract(convert_to_tensor(1, dtype=t), p), when_false))


def static_bool(value):
    """True/False for Python bools and constant bool tensors, None for a runtime flag."""
    if isinstance(value, bool):
        return value
    if isinstance(value, Tensor):
        from lens.ops.shapes import const_value
        v = const_value(value)
        return None if v is None else bool(v)
    if value is None:
        return False
    return bool(value)
