"""The RNN drivers: dynamic_rnn, static_rnn and their bidirectional forms (TF1 semantics).

When the number of time steps is known when the graph is built, lens unrolls the time loop
(one cell call per step, variables shared through the cell's scope): the plan then runs with
no loop overhead. An unknown number of steps runs in one tf.while_loop (loop.py). With
sequence_length, outputs past a sequence's end are zeros and its state stops updating.
"""
import numbers

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops.core import identity
from lens.ops.indexing import reverse
from lens.ops.logic import greater_equal, where
from lens.ops.rnn_ops import reverse_sequence
from lens.rnn import nest
from lens.rnn.cell_base import assert_like_rnncell, zero_state_tensors
from lens.ops.variable_scope import variable_scope

__all__ = ["dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn"]


def _transpose_batch_time(x):
    """Swap the first two axes ([batch, time, ...] <-> [time, batch, ...])."""
    ndims = x.shape.ndims
    if ndims is None:
        raise ValueError("dynamic_rnn needs inputs of known rank, got %s with unknown shape; give the "
                         "placeholder a shape like [batch, time, depth]." % x.name)
    if ndims < 2:
        raise ValueError("Expected input tensor %s to have rank at least 2, but saw shape: %s" % (x.name, x.shape))
    return A.transpose(x, [1, 0] + list(range(2, ndims)))


def _unstack_time(x, steps):
    """x [time, ...] as a list of steps (one step via squeeze: lens's Unpack kernel mishandles num=1)."""
    if steps == 1:
        return [A.squeeze(x, [0])]
    return A.unstack(x, num=steps, axis=0)


def _prepare_sequence_length(sequence_length, batch_static):
    """sequence_length as an int32 vector named 'sequence_length', checked against the batch size."""
    if sequence_length is None:
        return None
    lengths = convert_to_tensor(sequence_length, name="sequence_length")
    if not lengths.dtype.is_integer:
        raise TypeError("sequence_length must be an integer vector (one length per batch entry), got dtype %s"
                        % lengths.dtype.name)
    lengths = A.cast(lengths, _dt.int32)
    if lengths.shape.ndims not in (None, 1):
        raise ValueError("sequence_length must be a vector of length batch_size, but saw shape: %s"
                         % lengths.shape)
    n = lengths.shape[0].value if lengths.shape.ndims == 1 else None
    if n is not None and batch_static is not None and n != batch_static:
        raise ValueError("sequence_length has %d entries but the batch size is %d; give one length per "
                         "batch entry" % (n, batch_static))
    return identity(lengths, name="sequence_length")


def _batch_size(first_step_input):
    """The static batch size of a [batch, ...] tensor, else a scalar tensor of it."""
    b = first_step_input.shape[0].value if first_step_input.shape.ndims else None
    return b if b is not None else A.shape(first_step_input)[0]


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        try:
            nest.assert_same_structure(cell.state_size, initial_state)
        except ValueError:
            raise ValueError("initial_state must be nested like the cell's state_size %s, got %s"
                             % (cell.state_size, initial_state)) from None
        return initial_state
    if not dtype:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    return cell.zero_state(batch_size, dtype)


def _run_steps(cell, step_inputs, state, sequence_length, batch_size):
    """Call cell once per step; mask outputs to zeros and hold the state past each sequence's end."""
    outputs = []
    zero_output = None
    if sequence_length is not None:
        state_dtype = nest.flatten(state)[0].dtype
        with name_scope("zero_output"):
            zero_output = zero_state_tensors(cell.output_size, batch_size, state_dtype)
    for t, x_t in enumerate(step_inputs):
        output, new_state = cell(x_t, state)
        nest.assert_same_structure(state, new_state)
        if sequence_length is not None:
            with name_scope("mask_%d" % t if t else "mask"):
                done = greater_equal(convert_to_tensor(t, dtype=_dt.int32, name="time"), sequence_length)
                output = nest.map_structure(lambda z, o: where(done, z, o), zero_output, output)
                new_state = nest.map_structure(lambda old, new: where(done, old, new), state, new_state)
        outputs.append(output)
        state = new_state
    return outputs, state


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Run cell over inputs [batch, time, ...] (or [time, batch, ...]); returns (outputs, final_state)."""
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn"):
        flat = [convert_to_tensor(x, name="inputs") for x in nest.flatten(inputs)]
        if not time_major:
            flat = [_transpose_batch_time(x) for x in flat]
        for x in flat:
            if x.shape.ndims is None or x.shape.ndims < 3:
                raise ValueError("dynamic_rnn inputs must be [batch, time, depth] (or [time, batch, depth] with "
                                 "time_major=True), got %s with shape %s" % (x.name, x.shape))
        steps = [x.shape[0].value for x in flat]
        known = set(s for s in steps if s is not None)
        if len(known) > 1:
            raise ValueError("Time steps is not the same for all the elements in the input in a batch: %s" % steps)
        for x in flat:
            if any(d is None for d in x.shape.as_list()[2:]):
                raise ValueError("Input size (depth of inputs) must be accessible via shape inference, but saw "
                                 "value None (input %s, shape %s)." % (x.name, x.shape))
        batch_size = flat[0].shape[1].value
        if batch_size is None:
            batch_size = A.shape(flat[0])[1]
        sequence_length = _prepare_sequence_length(
            sequence_length, batch_size if isinstance(batch_size, numbers.Integral) else None)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if not known:
            # Unknown number of steps: a tf.while_loop instead of unrolling.
            from lens.rnn.loop import while_steps
            flat_out, final_state, out_like = while_steps(cell, flat, inputs, state, sequence_length, batch_size)
            if not time_major:
                flat_out = [_transpose_batch_time(o) for o in flat_out]
            return nest.pack_sequence_as(out_like, flat_out), final_state
        steps = [known.pop()] * len(flat)
        per_input = [_unstack_time(x, steps[0]) for x in flat]
        step_inputs = [nest.pack_sequence_as(inputs, [p[t] for p in per_input]) for t in range(steps[0])]
        outputs, final_state = _run_steps(cell, step_inputs, state, sequence_length, batch_size)
        flat_out = [A.stack(list(leaves), axis=0) for leaves in zip(*[nest.flatten(o) for o in outputs])]
        if not time_major:
            flat_out = [_transpose_batch_time(o) for o in flat_out]
        return nest.pack_sequence_as(outputs[0], flat_out), final_state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Run cell over a Python list of [batch, depth] inputs; returns (list of outputs, final_state)."""
    assert_like_rnncell("cell", cell)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence (a Python list of [batch, depth] tensors, one per step)")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with variable_scope(scope or "rnn"):
        inputs = [nest.map_structure(lambda x: convert_to_tensor(x, name="inputs"), x) for x in inputs]
        first = nest.flatten(inputs[0])[0]
        if first.shape.ndims is None or first.shape.ndims < 2:
            raise ValueError("static_rnn inputs must each be [batch, depth], got shape %s" % first.shape)
        for x in nest.flatten(inputs[0]):
            if any(d is None for d in x.shape.as_list()[1:]):
                raise ValueError("Input size (dimension %d of inputs) must be accessible via shape inference, "
                                 "but saw value None." % (x.shape.ndims - 1))
        batch_size = _batch_size(first)
        sequence_length = _prepare_sequence_length(
            sequence_length, batch_size if isinstance(batch_size, numbers.Integral) else None)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        return _run_steps(cell, inputs, state, sequence_length, batch_size)


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """dynamic_rnn forward and over the reversed sequences; returns ((out_fw, out_bw), (state_fw, state_bw))."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def rev(x):
        if sequence_length is None:
            return reverse(x, axis=[time_axis])
        return reverse_sequence(x, seq_lengths=sequence_length, seq_axis=time_axis, batch_axis=batch_axis)

    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                                              time_major=time_major, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            inputs_rev = nest.map_structure(rev, inputs)
            tmp, state_bw = dynamic_rnn(cell_bw, inputs_rev, sequence_length, initial_state_bw, dtype,
                                        time_major=time_major, scope=bw_scope)
    output_bw = nest.map_structure(rev, tmp)
    return (output_fw, output_bw), (state_fw, state_bw)


def _reverse_steps(steps, lengths):
    """Reverse a list of per-step tensors (each sequence within its length when lengths are given)."""
    if lengths is None:
        return list(reversed(steps))
    flat_steps = [nest.flatten(s) for s in steps]
    columns = []
    for leaves in zip(*flat_steps):
        stacked = A.stack(list(leaves), axis=0)
        columns.append(_unstack_time(reverse_sequence(stacked, lengths, seq_axis=0, batch_axis=1), len(leaves)))
    return [nest.pack_sequence_as(steps[0], [col[t] for col in columns]) for t in range(len(steps))]


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """static_rnn both ways; returns (outputs with fw and bw concatenated on depth, state_fw, state_bw)."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence (a Python list of [batch, depth] tensors, one per step)")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                             scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            lengths = None if sequence_length is None else A.cast(
                convert_to_tensor(sequence_length, name="sequence_length"), _dt.int32)
            tmp, state_bw = static_rnn(cell_bw, _reverse_steps(inputs, lengths), initial_state_bw, dtype,
                                       sequence_length, scope=bw_scope)
    output_bw = _reverse_steps(tmp, lengths)
    outputs = [nest.map_structure(lambda f, b: A.concat([f, b], 1), fw, bw) for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw
