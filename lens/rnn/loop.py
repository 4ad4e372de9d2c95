"""dynamic_rnn's time loop for an unknown number of steps: one tf.while_loop, outputs concatenated per step."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.ops import array as A
from lens.ops.logic import greater_equal, less, where
from lens.ops.math import add
from lens.rnn import nest
from lens.rnn.cell_base import zero_state_tensors
from lens.framework.tensor_shape import TensorShape


def _empty_accumulator(like_dims, batch_size, dtype):
    """A [0, batch, ...] tensor that each iteration grows by one step (lens has no TensorArray)."""
    if isinstance(batch_size, int):
        return A.zeros([0, batch_size] + like_dims, dtype=dtype)
    shape = A.concat([convert_to_tensor([0], dtype=_dt.int32), A.reshape(batch_size, [1]),
                      convert_to_tensor(like_dims, dtype=_dt.int32)], 0)
    acc = A.fill(shape, convert_to_tensor(0, dtype=dtype))
    acc.set_shape([0, None] + like_dims)
    return acc


def _loose_batch(shape):
    """A loop-variable shape invariant: the static shape, with the batch dimension left free if unknown."""
    return TensorShape(shape.as_list()) if shape.ndims is not None else TensorShape(None)


def while_steps(cell, flat_inputs, inputs_structure, state, sequence_length, batch_size):
    """Run cell over time-major flat_inputs in a while loop; returns (flat time-major outputs, state, structure)."""
    from lens.ops.control_flow import while_loop
    steps = A.shape(flat_inputs[0])[0]
    state_dtype = nest.flatten(state)[0].dtype.base_dtype
    zero_output = zero_state_tensors(cell.output_size, batch_size, state_dtype)
    flat_zero = nest.flatten(zero_output)
    accs = [_empty_accumulator(z.shape.as_list()[1:], batch_size, z.dtype.base_dtype) for z in flat_zero]
    flat_state = nest.flatten(state)

    def body(time, *loop_vars):
        cur_state = nest.pack_sequence_as(state, loop_vars[:len(flat_state)])
        acc = loop_vars[len(flat_state):]
        x_t = nest.pack_sequence_as(inputs_structure, [x[time] for x in flat_inputs])
        output, new_state = cell(x_t, cur_state)
        nest.assert_same_structure(cur_state, new_state)
        flat_out, flat_new = nest.flatten(output), nest.flatten(new_state)
        if sequence_length is not None:
            done = greater_equal(time, sequence_length)
            flat_out = [where(done, z, o) for z, o in zip(flat_zero, flat_out)]
            flat_new = [where(done, old, new) for old, new in zip(loop_vars[:len(flat_state)], flat_new)]
        grown = [A.concat([a, A.expand_dims(o, 0)], 0) for a, o in zip(acc, flat_out)]
        return [add(time, convert_to_tensor(1, dtype=_dt.int32))] + list(flat_new) + grown

    invariants = ([TensorShape([])] + [_loose_batch(s.shape) for s in flat_state]
                  + [TensorShape([None] + a.shape.as_list()[1:]) for a in accs])
    result = while_loop(lambda time, *_: less(time, steps), body,
                        [convert_to_tensor(0, dtype=_dt.int32, name="time")] + flat_state + accs,
                        shape_invariants=invariants)
    final_state = nest.pack_sequence_as(state, result[1:1 + len(flat_state)])
    return list(result[1 + len(flat_state):]), final_state, zero_output
