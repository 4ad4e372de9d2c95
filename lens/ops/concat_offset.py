"""ConcatOffset: where each input of a concatenation starts (TF1.15's concat gradient slices by it)."""
import numpy as np

from lens.framework import dtypes as _dt, errors
from lens.framework.convert import convert_to_tensor, graph_of
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape


def _concat_offset_make(op, ctx):
    def run(dim, *shapes):
        shapes = [np.asarray(s) for s in shapes]
        rank = shapes[0].size
        axis = int(dim)
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(
                None, op, "Concat dim is out of range: %d vs. %d" % (axis, rank))
        axis %= rank
        offsets, at = [], 0
        for i, s in enumerate(shapes):
            if s.size != rank or any(s[d] != shapes[0][d] for d in range(rank) if d != axis):
                raise errors.InvalidArgumentError(
                    None, op, "input %d should contain %d elements matching shape %s off the concat "
                    "dimension, but got %s" % (i, rank, shapes[0].tolist(), s.tolist()))
            o = np.zeros(rank, shapes[0].dtype)
            o[axis] = at
            at += int(s[axis])
            offsets.append(o)
        return tuple(offsets)
    return run


def _concat_offset_shape(op):
    # Each offset is a vector as long as the shapes are.
    return [TensorShape([op._inputs[1].shape.as_list()[0] if op._inputs[1].shape.ndims == 1 else None])] \
        * (len(op._inputs) - 1)


register_op("ConcatOffset", make=_concat_offset_make, not_differentiable=True, shape=_concat_offset_shape)


def concat_offset(concat_dim, shape, name=None):
    """The offset of each shape in `shape` (int32 vectors) along concat_dim: a list of int32 vectors."""
    with name_scope(name, "ConcatOffset", [concat_dim] + list(shape)) as scope:
        dim = convert_to_tensor(concat_dim, dtype=_dt.int32, name="concat_dim")
        shapes = [convert_to_tensor(s, dtype=_dt.int32) for s in shape]
        op = graph_of(shapes)._create_op("ConcatOffset", [dim] + shapes, [_dt.int32] * len(shapes),
                                        {"N": len(shapes)}, scope, frames_skip=3)
        return list(op._outputs)
