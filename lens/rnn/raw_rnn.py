"""tf.nn.raw_rnn: an RNN driven by a user loop_fn (next inputs, states, emits and finishing decided per
step), as one tf.while_loop writing the emitted outputs into TensorArrays (TF1.15's semantics: finished
entries emit zeros and keep their state)."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.ops import array as A
from lens.ops.logic import logical_or, where
from lens.ops.reduce import reduce_all
from lens.ops.variable_scope import variable_scope
from lens.rnn import nest


def _copy_where(finished, new, old):
    """new where the batch entry is still running, old where it finished."""
    def pick(n, o):
        cond = finished
        while cond.shape.ndims is not None and n.shape.ndims is not None and cond.shape.ndims < n.shape.ndims:
            cond = A.expand_dims(cond, -1)
        if n.shape.ndims:
            cond = A.broadcast_to(cond, A.shape(n))
        return where(cond, o, n)
    return nest.map_structure(pick, new, old)


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """(emit_ta, final_state, final_loop_state): run cell while any batch entry is unfinished, with
    loop_fn(time, cell_output, cell_state, loop_state) -> (finished, next_input, next_cell_state,
    emit_output, next_loop_state) choosing each step's inputs and emits."""
    from lens.ops.control_flow import while_loop
    from lens.ops.tensor_array import TensorArray
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    with variable_scope(scope or "rnn"):
        time = convert_to_tensor(0, dtype=_dt.int32, name="time")
        finished, next_input, state, emit_structure, loop_state = loop_fn(time, None, None, None)
        finished = convert_to_tensor(finished, dtype=_dt.bool)
        flat_input = nest.flatten(next_input)
        batch = A.shape(flat_input[0])[0]
        if emit_structure is None:
            emit_structure = nest.map_structure(
                lambda size: A.zeros(A.concat([A.reshape(batch, [1]), convert_to_tensor(
                    [size] if isinstance(size, int) else list(size), dtype=_dt.int32)], 0), dtype=flat_input[0].dtype),
                cell.output_size)
        zeros_emit = nest.map_structure(A.zeros_like, emit_structure)
        flat_emit = nest.flatten(emit_structure)
        tas = [TensorArray(dtype=e.dtype.base_dtype, size=0, dynamic_size=True, element_shape=e.shape)
               for e in flat_emit]
        has_loop_state = loop_state is not None
        loop_vars = [time, finished, next_input, state, tas, loop_state if has_loop_state else A.zeros([])]

        def cond(time, finished, *_):
            return _not_all(finished)

        def body(time, finished, current_input, current_state, tas, current_loop_state):
            output, cell_state = cell(current_input, current_state)
            nest.assert_same_structure(current_state, cell_state)
            nxt_finished, nxt_input, nxt_state, emit, nxt_loop_state = loop_fn(
                time + 1, output, cell_state, current_loop_state if has_loop_state else None)
            nxt_finished = convert_to_tensor(nxt_finished, dtype=_dt.bool)
            emit = output if emit is None else emit
            nest.assert_same_structure(emit_structure, emit)
            emit = _copy_where(finished, emit, zeros_emit)
            nxt_state = _copy_where(finished, nxt_state, current_state)
            tas = [ta.write(time, e) for ta, e in zip(tas, nest.flatten(emit))]
            return [time + 1, logical_or(finished, nxt_finished), nxt_input, nxt_state, tas,
                    nxt_loop_state if has_loop_state else current_loop_state]
        _, _, _, final_state, final_tas, final_loop_state = while_loop(
            cond, body, loop_vars, parallel_iterations=parallel_iterations or 32, swap_memory=swap_memory)
        emit_ta = nest.pack_sequence_as(emit_structure, final_tas)
        return emit_ta, final_state, final_loop_state if has_loop_state else None


def _not_all(finished):
    from lens.ops.logic import logical_not
    return logical_not(reduce_all(finished))
