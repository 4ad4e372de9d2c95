"""IndexedSlices / IndexedSlicesValue: rows `indices` of a dense tensor, the gradient of a gather."""
import collections

from lens.framework.convert import apply_op
from lens.framework.graph import Tensor


class IndexedSlicesValue(collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])):
    """What Session.run returns for an IndexedSlices."""


class IndexedSlices:
    """dense[indices[i], ...] = values[i, ...] (rows repeated in indices add up)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values, self._indices, self._dense_shape = values, indices, dense_shape

    values = property(lambda self: self._values, doc="The [D0, D1, ...] slices.")
    indices = property(lambda self: self._indices, doc="The 1-D indices of the slices.")
    dense_shape = property(lambda self: self._dense_shape, doc="The shape of the dense tensor, or None.")
    name = property(lambda self: self._values.name, doc="The name of the values tensor.")
    device = property(lambda self: self._values.device, doc="The device of the values.")
    op = property(lambda self: self._values.op, doc="The Operation producing the values.")
    dtype = property(lambda self: self._values.dtype, doc="The dtype of the values.")
    graph = property(lambda self: self._values.graph, doc="The graph of the values.")

    def consumers(self):
        """Operations consuming any component."""
        parts = [self._values, self._indices] + ([self._dense_shape] if self._dense_shape is not None else [])
        out = []
        for t in parts:
            out.extend(c for c in t.consumers() if c not in out)
        return out

    def __str__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (
            self._indices, self._values,
            "" if self._dense_shape is None else ", dense_shape=%s" % (self._dense_shape,))

    __repr__ = __str__

    def __neg__(self):
        return IndexedSlices(apply_op("Neg", [self._values]), self._indices, self._dense_shape)


def is_indexed_slices(x):
    """True for IndexedSlices."""
    return isinstance(x, IndexedSlices)


def components(x):
    """The tensors of an IndexedSlices (values, indices[, dense_shape])."""
    parts = [x.values, x.indices]
    if isinstance(x.dense_shape, Tensor):
        parts.append(x.dense_shape)
    return parts
