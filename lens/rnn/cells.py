"""The concrete TF1 cells: BasicRNNCell, BasicLSTMCell, LSTMCell (peepholes, projection, clipping), GRUCell."""
import logging

from lens.ops import init_ops
from lens.framework.convert import convert_to_tensor
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import clip_by_value, split
from lens.ops.linalg import matmul
from lens.ops.nn import bias_add
from lens.ops.slicing import slice as _slice
from lens.rnn.cell_base import LSTMStateTuple, RNNCell, activation_fn, check_input_depth

_log = logging.getLogger(__name__)


def _gates(inputs, state, kernel, bias):
    """matmul(concat([inputs, state], 1), kernel) + bias, written as TF1's cells write it."""
    return bias_add(matmul(A.concat([inputs, state], 1), kernel), bias)


class BasicRNNCell(RNNCell):
    """output = new_state = activation(W [inputs, state] + b)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = num_units
        self._activation = activation_fn(activation)

    state_size = property(lambda self: self._num_units, doc="num_units.")
    output_size = property(lambda self: self._num_units, doc="num_units.")

    def build(self, inputs_shape):
        depth = check_input_depth(self, inputs_shape)
        self._kernel = self.add_variable("kernel", [depth + self._num_units, self._num_units])
        self._bias = self.add_variable("bias", [self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self._dtype))

    def call(self, inputs, state):
        out = self._activation(_gates(inputs, state, self._kernel, self._bias))
        return out, out


class BasicLSTMCell(RNNCell):
    """The LSTM of Zaremba et al. without peepholes; forget_bias is added to the forget gate."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        if not state_is_tuple:
            _log.warning("%s: Using a concatenated state is slower and will soon be deprecated. "
                         "Use state_is_tuple=True.", self)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation_fn(activation)

    @property
    def state_size(self):
        """LSTMStateTuple(num_units, num_units), or 2 * num_units when not state_is_tuple."""
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units, doc="num_units.")

    def build(self, inputs_shape):
        depth = check_input_depth(self, inputs_shape)
        self._kernel = self.add_variable("kernel", [depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_variable("bias", [4 * self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self._dtype))

    def call(self, inputs, state):
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = split(state, 2, axis=1)
        i, j, f, o = split(_gates(inputs, h, self._kernel, self._bias), 4, axis=1)
        forget_bias = convert_to_tensor(self._forget_bias, dtype=f.dtype.base_dtype)
        new_c = M.add(M.multiply(c, M.sigmoid(M.add(f, forget_bias))),
                      M.multiply(M.sigmoid(i), self._activation(j)))
        new_h = M.multiply(self._activation(new_c), M.sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else A.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """LSTM with optional peepholes (w_*_diag), cell clipping and an output projection."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation_fn(activation)

    @property
    def state_size(self):
        """LSTMStateTuple(num_units, num_proj or num_units), or their sum when not state_is_tuple."""
        m = self._num_proj or self._num_units
        return LSTMStateTuple(self._num_units, m) if self._state_is_tuple else self._num_units + m

    output_size = property(lambda self: self._num_proj or self._num_units, doc="num_proj or num_units.")

    def build(self, inputs_shape):
        depth = check_input_depth(self, inputs_shape)
        n, m = self._num_units, self._num_proj or self._num_units
        self._kernel = self.add_variable("kernel", [depth + m, 4 * n], initializer=self._initializer)
        self._bias = self.add_variable("bias", [4 * n], initializer=init_ops.zeros_initializer(dtype=self._dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_variable("w_f_diag", [n], initializer=self._initializer)
            self._w_i_diag = self.add_variable("w_i_diag", [n], initializer=self._initializer)
            self._w_o_diag = self.add_variable("w_o_diag", [n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable("projection/kernel", [n, self._num_proj],
                                                  initializer=self._initializer)

    def _clip(self, t, bound):
        return clip_by_value(t, -bound, bound) if bound is not None else t

    def call(self, inputs, state):
        n, m_size = self._num_units, self._num_proj or self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = _slice(state, [0, 0], [-1, n])
            m_prev = _slice(state, [0, n], [-1, m_size])
        i, j, f, o = split(_gates(inputs, m_prev, self._kernel, self._bias), 4, axis=1)
        forget_bias = convert_to_tensor(self._forget_bias, dtype=f.dtype.base_dtype)
        if self._use_peepholes:
            f = M.add(f, M.multiply(self._w_f_diag, c_prev))
            i = M.add(i, M.multiply(self._w_i_diag, c_prev))
        c = M.add(M.multiply(M.sigmoid(M.add(f, forget_bias)), c_prev),
                  M.multiply(M.sigmoid(i), self._activation(j)))
        c = self._clip(c, self._cell_clip)
        if self._use_peepholes:
            o = M.add(o, M.multiply(self._w_o_diag, c))
        m = M.multiply(M.sigmoid(o), self._activation(c))
        if self._num_proj is not None:
            m = self._clip(matmul(m, self._proj_kernel), self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else A.concat([c, m], 1)
        return m, new_state


class GRUCell(RNNCell):
    """Gated recurrent unit: reset and update gates ('gates/'), candidate ('candidate/')."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = num_units
        self._activation = activation_fn(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    state_size = property(lambda self: self._num_units, doc="num_units.")
    output_size = property(lambda self: self._num_units, doc="num_units.")

    def build(self, inputs_shape):
        depth = check_input_depth(self, inputs_shape)
        n = self._num_units
        # TF1 starts the gate bias at 1.0 so the cell initially keeps its state.
        gate_bias_init = self._bias_initializer or init_ops.constant_initializer(1.0, dtype=self._dtype)
        cand_bias_init = self._bias_initializer or init_ops.zeros_initializer(dtype=self._dtype)
        self._gate_kernel = self.add_variable("gates/kernel", [depth + n, 2 * n],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable("gates/bias", [2 * n], initializer=gate_bias_init)
        self._candidate_kernel = self.add_variable("candidate/kernel", [depth + n, n],
                                                   initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable("candidate/bias", [n], initializer=cand_bias_init)

    def call(self, inputs, state):
        r, u = split(M.sigmoid(_gates(inputs, state, self._gate_kernel, self._gate_bias)), 2, axis=1)
        candidate = _gates(inputs, M.multiply(r, state), self._candidate_kernel, self._candidate_bias)
        c = self._activation(candidate)
        one = convert_to_tensor(1, dtype=u.dtype.base_dtype)
        new_h = M.add(M.multiply(u, state), M.multiply(M.subtract(one, u), c))
        return new_h, new_h
