"""tf.nn.rnn_cell / tf.contrib.rnn: the TF1 cells, LSTMStateTuple and the RNN drivers."""
from lens.rnn.cell_base import LSTMStateTuple, RNNCell
from lens.rnn.cells import BasicLSTMCell, BasicRNNCell, GRUCell, LSTMCell
from lens.rnn.rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn
from lens.rnn.stacked import stack_bidirectional_dynamic_rnn
from lens.rnn.wrappers import DeviceWrapper, DropoutWrapper, MultiRNNCell, ResidualWrapper

# TF1 splits the base into RNNCell and LayerRNNCell; in lens one class does both.
LayerRNNCell = RNNCell

__all__ = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell",
           "DropoutWrapper", "ResidualWrapper", "DeviceWrapper", "LSTMStateTuple", "static_rnn",
           "static_bidirectional_rnn", "dynamic_rnn", "bidirectional_dynamic_rnn",
           "stack_bidirectional_dynamic_rnn"]
