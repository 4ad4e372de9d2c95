"""RNNCell: TF1's cell interface, its variable-scope capture, zero_state and LSTMStateTuple."""
import collections
import contextlib
import numbers
import re

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import array as A
from lens.rnn import nest
from lens.framework.tensor_shape import TensorShape, as_shape
from lens.ops.variable_scope import get_variable, variable_scope


def _snake_case(name):
    """TF's layer base name from a class name: BasicLSTMCell -> basic_lstm_cell."""
    step = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", step).lower()


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """The (c, h) state of an LSTM cell: cell memory and hidden output."""
    __slots__ = ()

    @property
    def dtype(self):
        """The common dtype of c and h."""
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (c.dtype, h.dtype))
        return c.dtype


def assert_like_rnncell(cell_name, cell):
    """Raise TypeError naming what cell lacks to be used as an RNN cell."""
    missing = []
    for attr in ("output_size", "state_size"):
        if not hasattr(cell, attr):
            missing.append("'%s' property is missing" % attr)
    if not hasattr(cell, "zero_state"):
        missing.append("'zero_state' method is missing")
    if not callable(cell):
        missing.append("is not callable")
    if missing:
        raise TypeError("The argument %r (%s) is not an RNNCell: %s. Pass a cell such as "
                        "tf.nn.rnn_cell.BasicLSTMCell(num_units)." % (cell_name, cell, ", ".join(missing)))


def _size_dims(size):
    if isinstance(size, TensorShape):
        return size.as_list()
    if isinstance(size, numbers.Integral):
        return [int(size)]
    return as_shape(size).as_list()


def zero_state_tensors(state_size, batch_size, dtype):
    """Zeros of shape [batch_size] + size for each leaf of state_size (same nesting)."""
    dtype = _dt.as_dtype(dtype).base_dtype
    static_batch = batch_size if isinstance(batch_size, numbers.Integral) else None
    if static_batch is None and isinstance(batch_size, Tensor):
        from lens.ops.shapes import const_value
        value = const_value(batch_size)
        static_batch = int(value) if value is not None else None

    def one(size):
        dims = _size_dims(size)
        if static_batch is not None:
            return A.zeros([static_batch] + dims, dtype=dtype)
        b = convert_to_tensor(batch_size, dtype=_dt.int32, name="batch_size")
        shape = A.concat([A.reshape(b, [1]), convert_to_tensor(dims, dtype=_dt.int32)], 0)
        z = A.fill(shape, convert_to_tensor(0, dtype=dtype))
        z.set_shape([None] + dims)
        return z
    return nest.map_structure(one, state_size)


class RNNCell:
    """Abstract cell: `output, new_state = cell(inputs, state)`; variables live in the cell's scope."""

    def __init__(self, trainable=True, name=None, dtype=None, reuse=None, **kwargs):
        self._trainable = trainable
        self._base_name = name or _snake_case(type(self).__name__)
        self._dtype = _dt.as_dtype(dtype).base_dtype if dtype is not None else None
        self._reuse = reuse
        self._scope = None
        self._weights = []
        self.built = False

    @property
    def state_size(self):
        """Size(s) of the state: an int, TensorShape, or nested tuple of them."""
        raise NotImplementedError("Abstract method: a cell subclass defines state_size")

    @property
    def output_size(self):
        """Size of the cell's output."""
        raise NotImplementedError("Abstract method: a cell subclass defines output_size")

    @property
    def name(self):
        """The cell's scope name once called, else its base name."""
        return self._scope.name if self._scope is not None else self._base_name

    @property
    def dtype(self):
        """The dtype of the cell's variables (known after the first call or if given)."""
        return self._dtype

    @property
    def trainable_variables(self):
        """Trainable variables the cell (and any wrapped cells) created."""
        return [v for v in self.variables if v in self._trainable_set()]

    trainable_weights = trainable_variables

    @property
    def variables(self):
        """All variables the cell (and any wrapped cells) created."""
        out = list(self._weights)
        for sub in self._sub_cells():
            out.extend(v for v in sub.variables if v not in out)
        return out

    weights = variables

    def _trainable_set(self):
        from lens.framework.graph import GraphKeys, get_default_graph
        return set(get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES))

    def _sub_cells(self):
        return []

    def build(self, inputs_shape):
        """Create the cell's variables for inputs of this shape (first call only)."""

    def call(self, inputs, state):
        """The cell's step function; subclasses implement it."""
        raise NotImplementedError("Abstract method: a cell subclass implements call(inputs, state)")

    def add_variable(self, name, shape, dtype=None, initializer=None, trainable=None):
        """get_variable in the cell's scope, remembered in cell.variables."""
        v = get_variable(name, shape=shape, dtype=dtype or self._dtype, initializer=initializer,
                         trainable=self._trainable if trainable is None else trainable)
        if v not in self._weights:
            self._weights.append(v)
        return v

    add_weight = add_variable

    @contextlib.contextmanager
    def _cell_scope(self, scope):
        # The first call picks the scope (the given one, or a fresh `<base_name>` under the
        # current scope); later calls re-enter it with reuse, as TF1 layers do.
        if self._scope is not None:
            with variable_scope(self._scope, reuse=True):
                yield
            return
        if scope is not None:
            ctx = variable_scope(scope, reuse=self._reuse)
        elif self._reuse:
            ctx = variable_scope(self._base_name, reuse=self._reuse)
        else:
            ctx = variable_scope(None, default_name=self._base_name)
        with ctx as vs:
            self._scope = vs
            yield

    def __call__(self, inputs, state, scope=None):
        """Run one step: returns (output, new_state), creating variables on the first call."""
        with self._cell_scope(scope):
            if not nest.is_sequence(inputs):
                inputs = convert_to_tensor(inputs, name="inputs")
            if not self.built:
                first = nest.flatten(inputs)[0]
                if self._dtype is None:
                    self._dtype = first.dtype.base_dtype
                self.build(first.shape)
                self.built = True
            return self.call(inputs, state)

    def zero_state(self, batch_size, dtype):
        """Zero-filled state tensors of shape [batch_size, size] (nested like state_size)."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return zero_state_tensors(self.state_size, batch_size, dtype)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """zero_state with batch size and dtype taken from inputs when not given."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs)
            if batch_size is None:
                batch_size = inputs.shape[0].value
                if batch_size is None:
                    batch_size = A.shape(inputs)[0]
            dtype = dtype or inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("get_initial_state needs inputs, or both batch_size and dtype.")
        return self.zero_state(batch_size, dtype)


def check_input_depth(cell, inputs_shape):
    """The static depth of a cell's inputs; raise naming the cell when it is unknown."""
    shape = as_shape(inputs_shape)
    if shape.ndims is None or shape[-1].value is None:
        raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s (cell %s); give the input "
                         "placeholder a fixed last dimension." % (shape, type(cell).__name__))
    return shape[-1].value


def activation_fn(activation):
    """Resolve a cell's activation argument: None means tanh, strings name tf.nn functions."""
    from lens.ops import math as M
    if activation is None:
        return M.tanh
    if isinstance(activation, str):
        from lens.ops import nn
        table = {"tanh": M.tanh, "sigmoid": M.sigmoid, "relu": nn.relu, "elu": nn.elu,
                 "softsign": nn.softsign, "linear": lambda x: x}
        if activation not in table:
            raise ValueError("Unknown activation %r; use one of %s or pass a callable."
                             % (activation, sorted(table)))
        return table[activation]
    if not callable(activation):
        raise TypeError("activation must be callable (e.g. tf.tanh), got %r" % (activation,))
    return activation
