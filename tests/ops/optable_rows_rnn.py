"""Op-table rows for the RNN support ops (ReverseSequence), with NumPy references written here."""
import numpy as np

from lens.ops.rnn_ops import reverse_sequence
from optable_lib import FIX, F, Row


def _np_reverse_sequence(x, lengths, seq_axis, batch_axis):
    """Per batch entry, reverse the first lengths[b] steps along seq_axis (a plain loop)."""
    out = np.array(x, copy=True)
    for b, n in enumerate(np.asarray(lengths)):
        src = np.take(x, b, axis=batch_axis)
        dst_axis = seq_axis if seq_axis < batch_axis else seq_axis - 1
        part = np.take(src, np.arange(n), axis=dst_axis)
        moved = np.flip(part, axis=dst_axis)
        index = [slice(None)] * x.ndim
        index[batch_axis] = b
        index[seq_axis] = slice(0, n)
        out[tuple(index)] = moved
    return out


ROWS = [
    Row("ReverseSequence",
        lambda x: reverse_sequence(x, [2, 0, 4], seq_axis=1, batch_axis=0),
        lambda x: _np_reverse_sequence(x, [2, 0, 4], 1, 0),
        [[F(3, 4, 2)]]),
    Row("ReverseSequence",
        lambda x, n: reverse_sequence(x, n, seq_axis=0, batch_axis=1),
        lambda x, n: _np_reverse_sequence(x, n, 0, 1),
        [[F(5, 3, 2), FIX([5, 1, 3], "int64")], [F(4, 2), FIX([3, 4], "int32")]],
        label="ReverseSequence_time_major_fed_lengths"),
]
