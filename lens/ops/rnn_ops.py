"""ReverseSequence: reverse each batch entry's first seq_lengths[b] steps (used by bidirectional RNNs)."""
import numpy as np

from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape

__all__ = ["reverse_sequence"]


def _axes(op, ndim):
    return op._attrs["seq_dim"] % ndim, op._attrs["batch_dim"] % ndim


def _reverse_sequence_make(op, ctx):
    def run(x, lengths):
        x = np.asarray(x)
        seq, batch = _axes(op, x.ndim)
        lengths = np.asarray(lengths).astype(np.int64)
        steps, batch_size = x.shape[seq], x.shape[batch]
        if lengths.shape != (batch_size,):
            raise errors.InvalidArgumentError(
                None, op, "seq_lengths has shape %s but the input's batch dimension %d has size %d; give one "
                "length per batch entry" % (list(lengths.shape), batch, batch_size))
        bad = (lengths < 0) | (lengths > steps)
        if bad.any():
            b = int(np.argmax(bad))
            raise errors.InvalidArgumentError(
                None, op, "seq_lengths[%d] = %d is not in [0, %d] (the input's size along seq_axis %d)"
                % (b, lengths[b], steps, seq))
        t = np.arange(steps)
        # src[b, t]: the step that lands at t (reversed inside the length, untouched past it).
        src = np.where(t[None, :] < lengths[:, None], lengths[:, None] - 1 - t[None, :], t[None, :])
        if seq < batch:
            src = src.T
        idx_shape = [1] * x.ndim
        idx_shape[batch], idx_shape[seq] = batch_size, steps
        idx = np.broadcast_to(src.reshape(idx_shape), x.shape)
        return np.take_along_axis(x, idx, axis=seq)
    return run


def _reverse_sequence_shape(op):
    x, lengths = op._inputs[0].shape, op._inputs[1].shape
    if lengths.ndims not in (None, 1):
        raise ValueError("Shape must be rank 1 but is rank %d for '%s' (op: 'ReverseSequence'): seq_lengths "
                         "is one length per batch entry" % (lengths.ndims, op.name))
    if x.ndims is None:
        return [x]
    seq, batch = _axes(op, x.ndims)
    dims = x.as_list()
    n = lengths[0].value if lengths.ndims == 1 else None
    if n is not None and dims[batch] is not None and n != dims[batch]:
        raise ValueError("Dimensions must be equal, but are %d and %d for '%s' (op: 'ReverseSequence'): "
                         "seq_lengths has %d entries but the batch dimension has size %d"
                         % (dims[batch], n, op.name, n, dims[batch]))
    if dims[batch] is None:
        dims[batch] = n
    return [TensorShape(dims)]


def _reverse_sequence_grad(op, grad):
    # Reversing the same prefixes again undoes the permutation.
    return [reverse_sequence(grad, op._inputs[1], seq_axis=op._attrs["seq_dim"],
                             batch_axis=op._attrs["batch_dim"]), None]


register_op("ReverseSequence", make=_reverse_sequence_make, shape=_reverse_sequence_shape,
            grad=_reverse_sequence_grad)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """Reverse input[b, :seq_lengths[b]] along seq_axis for each b along batch_axis."""
    if seq_axis is not None and seq_dim is not None:
        raise ValueError("Cannot specify both 'seq_axis' and 'seq_dim'; use seq_axis.")
    if batch_axis is not None and batch_dim is not None:
        raise ValueError("Cannot specify both 'batch_axis' and 'batch_dim'; use batch_axis.")
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else (batch_dim if batch_dim is not None else 0)
    if seq_axis is None:
        raise ValueError("reverse_sequence needs seq_axis: the axis that holds the time steps.")
    with name_scope(name, "ReverseSequence", [input, seq_lengths]) as scope:
        x = convert_to_tensor(input, name="input")
        lengths = convert_to_tensor(seq_lengths, name="seq_lengths")
        if not lengths.dtype.is_integer:
            raise TypeError("seq_lengths must be int32 or int64, got %s; cast it with tf.cast."
                            % lengths.dtype.name)
        ndim = x.shape.ndims
        if ndim is not None:
            for what, a in (("seq_axis", seq_axis), ("batch_axis", batch_axis)):
                if not -ndim <= a < ndim:
                    raise ValueError("%s = %d is out of range for input of rank %d" % (what, a, ndim))
            if seq_axis % ndim == batch_axis % ndim:
                raise ValueError("seq_axis and batch_axis are both %d; they must differ" % seq_axis)
        attrs = {"seq_dim": int(seq_axis), "batch_dim": int(batch_axis), "T": x.dtype.base_dtype,
                 "Tlen": lengths.dtype.base_dtype}
        return apply_op("ReverseSequence", [(x, "input"), (lengths, "seq_lengths")], attrs, name=scope,
                        dtypes=[x.dtype.base_dtype], same_dtype=False)

