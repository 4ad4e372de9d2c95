"""tf.nn's RNN entry points (the implementations live in lens/rnn/)."""
from lens.rnn.rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn

__all__ = ["dynamic_rnn", "bidirectional_dynamic_rnn", "static_rnn", "static_bidirectional_rnn"]
