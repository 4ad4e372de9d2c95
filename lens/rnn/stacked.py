"""tf.contrib.rnn.stack_bidirectional_dynamic_rnn: bidirectional layers, each fed the previous layer's outputs."""
from lens.ops import array as A
from lens.rnn.rnn import bidirectional_dynamic_rnn
from lens.ops.variable_scope import variable_scope

__all__ = ["stack_bidirectional_dynamic_rnn"]


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None,
                                    dtype=None, sequence_length=None, parallel_iterations=None, time_major=False,
                                    scope=None, swap_memory=False):
    """Stacked bidirectional_dynamic_rnn; returns (outputs with fw/bw concatenated, states_fw, states_bw)."""
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list) or not isinstance(cells_bw, list):
        raise ValueError("cells_fw and cells_bw must be lists of RNNCells, one per layer.")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth (got %d and %d)."
                         % (len(cells_fw), len(cells_bw)))
    for what, states in (("initial_states_fw", initial_states_fw), ("initial_states_bw", initial_states_bw)):
        if states is not None and (not isinstance(states, (list, tuple)) or len(states) != len(cells_fw)):
            raise ValueError("%s must be a list with one state per layer (%d layers)." % (what, len(cells_fw)))
    states_fw, states_bw = [], []
    prev_layer = inputs
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with variable_scope("cell_%d" % i):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, prev_layer,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, dtype=dtype, time_major=time_major)
                prev_layer = A.concat(list(outputs), 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)
