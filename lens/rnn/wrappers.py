"""Cells built from cells: MultiRNNCell (stacking), DropoutWrapper, ResidualWrapper, DeviceWrapper."""
import numbers
import zlib

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.shapes import const_value
from lens.ops.slicing import slice as _slice
from lens.rnn import nest
from lens.rnn.cell_base import LSTMStateTuple, RNNCell, assert_like_rnncell
from lens.framework.tensor_shape import TensorShape
from lens.ops.variable_scope import variable_scope


class MultiRNNCell(RNNCell):
    """A stack of cells: the output of cell i is the input of cell i + 1 (scopes cell_0, cell_1, ...)."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_sequence(cells):
            raise TypeError("cells must be a list or tuple, but saw: %s." % (cells,))
        for i, cell in enumerate(cells):
            assert_like_rnncell("cells[%d]" % i, cell)
        if len(set(id(c) for c in cells)) < len(cells):
            import logging
            logging.getLogger(__name__).warning(
                "At least two cells provided to MultiRNNCell are the same object and will share weights.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_sequence(c.state_size) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set. "
                             "State sizes are: %s" % str([c.state_size for c in self._cells]))

    @property
    def state_size(self):
        """Tuple of each cell's state_size (or their sum when not state_is_tuple)."""
        if self._state_is_tuple:
            return tuple(c.state_size for c in self._cells)
        return sum(c.state_size for c in self._cells)

    output_size = property(lambda self: self._cells[-1].output_size, doc="The last cell's output size.")

    def _sub_cells(self):
        return self._cells

    def zero_state(self, batch_size, dtype):
        """Each cell's zero_state, as a tuple."""
        if not self._state_is_tuple:
            return super().zero_state(batch_size, dtype)
        with name_scope(type(self).__name__ + "ZeroState"):
            return tuple(c.zero_state(batch_size, dtype) for c in self._cells)

    def call(self, inputs, state):
        cur, new_states, pos = inputs, [], 0
        if self._state_is_tuple and (not nest.is_sequence(state) or len(state) != len(self._cells)):
            raise ValueError("Expected state to be a tuple of length %d, but received: %s"
                             % (len(self._cells), state))
        for i, cell in enumerate(self._cells):
            with variable_scope("cell_%d" % i):
                if self._state_is_tuple:
                    cur_state = state[i]
                else:
                    cur_state = _slice(state, [0, pos], [-1, cell.state_size])
                    pos += cell.state_size
                cur, new_state = cell(cur, cur_state)
                new_states.append(new_state)
        return cur, (tuple(new_states) if self._state_is_tuple else A.concat(new_states, 1))


def _default_state_filter(substate):
    """Drop out an LSTM's h but not its c; everything else is dropped out."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


class _WrapperBase(RNNCell):
    """A cell that delegates sizes, zero_state and variables to the cell it wraps."""

    def __init__(self, cell):
        super().__init__()
        assert_like_rnncell("cell", cell)
        self._cell = cell

    state_size = property(lambda self: self._cell.state_size, doc="The wrapped cell's state size.")
    output_size = property(lambda self: self._cell.output_size, doc="The wrapped cell's output size.")
    wrapped_cell = property(lambda self: self._cell, doc="The wrapped cell.")

    def _sub_cells(self):
        return [self._cell]

    def zero_state(self, batch_size, dtype):
        """The wrapped cell's zero_state."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)


class DropoutWrapper(_WrapperBase):
    """Dropout on a cell's inputs, outputs and (filtered) state; variational = one mask per sequence."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super().__init__(cell)
        self._input_keep_prob = self._checked_prob("input_keep_prob", input_keep_prob)
        self._output_keep_prob = self._checked_prob("output_keep_prob", output_keep_prob)
        self._state_keep_prob = self._checked_prob("state_keep_prob", state_keep_prob)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._state_filter = dropout_state_filter_visitor or _default_state_filter
        self._seed = seed
        self._variational = variational_recurrent
        self._noise = {}
        self._calls = 0
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            self._var_dtype = _dt.as_dtype(dtype).base_dtype
            if self._should_dropout(self._input_keep_prob):
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is "
                                     "unknown, input_size must be provided")
                self._noise["input"] = self._make_noise("input", input_size)
            self._noise["state"] = self._make_noise("state", cell.state_size)
            self._noise["output"] = self._make_noise("output", cell.output_size)

    @staticmethod
    def _checked_prob(attr, p):
        if isinstance(p, numbers.Real):
            if not 0.0 <= p <= 1.0:
                raise ValueError("Parameter %s must be between 0 and 1: %g" % (attr, p))
            return float(p)
        t = convert_to_tensor(p, name=attr)
        v = const_value(t)
        if v is not None and not 0.0 <= float(v) <= 1.0:
            raise ValueError("Parameter %s must be between 0 and 1: %g" % (attr, float(v)))
        return t

    @staticmethod
    def _should_dropout(p):
        return not isinstance(p, float) or p < 1

    def _gen_seed(self, salt, index):
        if self._seed is None:
            return None
        # The call count is mixed in so each unrolled time step draws a fresh mask, as each iteration
        # of TF1's while loop does (lens unrolls the loop into one dropout op per step).
        key = "%s_%d_%d" % (salt, index, self._calls)
        return (self._seed + zlib.crc32(key.encode())) % (2 ** 31 - 1)

    def _make_noise(self, salt, sizes):
        from lens.ops.random import random_uniform

        def one(i, size):
            dims = size.as_list() if isinstance(size, TensorShape) else [int(size)]
            return random_uniform([1] + dims, seed=self._gen_seed(salt + "_noise", i), dtype=self._var_dtype)
        leaves = nest.flatten(sizes)
        return nest.pack_sequence_as(sizes, [one(i, s) for i, s in enumerate(leaves)])

    def _dropout(self, values, salt, keep_prob, filter_fn=None):
        """Apply dropout leafwise to values (only where filter_fn allows)."""
        from lens.ops.nn import dropout
        leaves = nest.flatten(values)
        noise = nest.flatten(self._noise[salt]) if self._variational else None

        def drop(i, v):
            if self._variational:
                keep = convert_to_tensor(keep_prob, dtype=v.dtype.base_dtype)
                binary = M.floor(M.add(keep, noise[i]))
                return M.multiply(M.real_div(v, keep), binary)
            return dropout(v, keep_prob=keep_prob, seed=self._gen_seed(salt, i))
        mask = nest.flatten(_filter_mask(values, filter_fn)) if filter_fn else [True] * len(leaves)
        return nest.pack_sequence_as(values, [drop(i, v) if m else v for i, (v, m) in enumerate(zip(leaves, mask))])

    def __call__(self, inputs, state, scope=None):
        """Dropout on inputs, run the wrapped cell, dropout on its output and new state."""
        if self._should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = self._cell(inputs, state, scope=scope)
        if self._should_dropout(self._state_keep_prob):
            new_state = self._dropout(new_state, "state", self._state_keep_prob, self._state_filter)
        if self._should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        self._calls += 1
        return output, new_state


def _filter_mask(state, visitor):
    """A structure like state with True where a leaf should get dropout (TF1's shallow traversal)."""
    def visit(sub):
        decision = visitor(sub)
        if isinstance(decision, bool):
            if not decision:
                return nest.map_structure(lambda _: False, sub)
            if not nest.is_sequence(sub):
                return True
            return nest.pack_sequence_as(sub, nest.flatten([visit(s) for s in sub]))
        if not nest.is_sequence(decision) or len(decision) != len(sub):
            raise ValueError("dropout_state_filter_visitor returned %r for %r: return a bool or a structure "
                             "of bools like the substate" % (decision, sub))
        parts = [visit(s) if d else nest.map_structure(lambda _: False, s) for s, d in zip(sub, decision)]
        return nest.pack_sequence_as(sub, nest.flatten(parts))
    return visit(state)


class ResidualWrapper(_WrapperBase):
    """output = inputs + cell output (inputs and outputs must have the same depth)."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn

    def __call__(self, inputs, state, scope=None):
        """Run the wrapped cell and add its inputs to its output."""
        output, new_state = self._cell(inputs, state, scope=scope)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, output), new_state
        return nest.map_structure(M.add, inputs, output), new_state


class DeviceWrapper(_WrapperBase):
    """Runs the wrapped cell (lens has one CPU device, so the device is recorded only)."""

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def __call__(self, inputs, state, scope=None):
        """Run the wrapped cell."""
        return self._cell(inputs, state, scope=scope)
