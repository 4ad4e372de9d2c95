"""TF1 recurrent networks: cells (tf.nn.rnn_cell / tf.contrib.rnn) and the rnn drivers."""
# The namespaces resolve "lens.rnn.rnn_cell" as an attribute of this package.
from lens.rnn import rnn_cell

__all__ = ["rnn_cell"]
