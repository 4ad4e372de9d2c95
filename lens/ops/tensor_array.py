"""tf.TensorArray: write/read/stack/unstack/gather/scatter/concat/split/size/close/identity, usable as a
while_loop variable and differentiable (the array's state is its flow tensor; see tensor_array_ops)."""

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from lens.ops import array as A
from lens.ops.core import identity
from lens.ops.sequence import range as _range
from lens.ops.tensor_array_ops import _apply

__all__ = ["TensorArray"]


class TensorArray:
    """A list of tensors of one dtype indexed by int32 positions, built functionally in the graph."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        if (flow is None) != (handle is None):
            raise ValueError("flow and handle go together: pass both (an existing array) or neither")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dtype = _dt.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        # One shape list shared by every TensorArray of the same array (each write returns a new object).
        self._element_shape = [as_shape(element_shape) if element_shape is not None else unknown_shape()]
        if handle is not None:
            self._handle, self._flow = handle, flow
            return
        with name_scope(name, "TensorArray", [size]) as scope:
            size_t = convert_to_tensor(size, dtype=_dt.int32, name="size")
            g = get_default_graph()
            op = g._create_op("TensorArrayV3", [size_t], [_dt.resource, _dt.float32],
                              {"dtype": self._dtype, "element_shape": self._element_shape[0],
                               "dynamic_size": self._dynamic_size, "clear_after_read": self._clear_after_read,
                               "identical_element_shapes": infer_shape,
                               "tensor_array_name": tensor_array_name or ""}, scope, frames_skip=3)
        self._handle, self._flow = op._outputs

    dtype = property(lambda self: self._dtype, doc="The dtype of the elements.")
    handle = property(lambda self: self._handle, doc="The array's handle tensor.")
    flow = property(lambda self: self._flow, doc="The flow tensor: the array's state after the last write.")
    dynamic_size = property(lambda self: self._dynamic_size, doc="Whether writes past the end grow the array.")

    @property
    def element_shape(self):
        """The static shape of the elements (known after a write when infer_shape)."""
        return self._element_shape[0]

    def _with_flow(self, flow):
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._flow = flow
        return ta

    def _merge_shape(self, shape):
        if not self._infer_shape:
            return
        shape = as_shape(shape)
        if not self._element_shape[0].is_compatible_with(shape):
            raise ValueError("Inconsistent shapes: saw %s but expected %s (and infer_shape=True)"
                             % (shape, self._element_shape[0]))
        self._element_shape[0] = self._element_shape[0].merge_with(shape)

    def _value(self, value, name="value"):
        v = convert_to_tensor(value, name=name, preferred_dtype=self._dtype)
        if v.dtype.base_dtype is not self._dtype:
            raise errors.InvalidArgumentError(None, None, "TensorArray dtype is %s but Op is trying to write dtype "
                                              "%s." % (self._dtype.name, v.dtype.name))
        return v

    def identity(self):
        """A TensorArray with an Identity of the flow (for control dependencies)."""
        return self._with_flow(identity(self._flow))

    def write(self, index, value, name=None):
        """A TensorArray with value written at index (each index once)."""
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]) as scope:
            v = self._value(value)
            self._merge_shape(v.shape)
            i = convert_to_tensor(index, dtype=_dt.int32, name="index")
            flow = _apply("TensorArrayWriteV3", [(self._handle, "handle"), (i, "index"), (v, "value"),
                                                 (self._flow, "flow_in")], [_dt.float32], name=scope,
                          shapes=[TensorShape([])])
        return self._with_flow(flow)

    def read(self, index, name=None):
        """The element at index."""
        i = convert_to_tensor(index, dtype=_dt.int32, name="index")
        return _apply("TensorArrayReadV3", [(self._handle, "handle"), (i, "index"), (self._flow, "flow_in")],
                      [self._dtype], name=name or "TensorArrayReadV3", shapes=[self.element_shape])

    def gather(self, indices, name=None):
        """The elements at indices, stacked along a new first dimension."""
        i = convert_to_tensor(indices, dtype=_dt.int32, name="indices")
        n = i.shape.as_list()[0] if i.shape.ndims == 1 else None
        shape = TensorShape([n]).concatenate(self.element_shape)
        return _apply("TensorArrayGatherV3", [(self._handle, "handle"), (i, "indices"), (self._flow, "flow_in")],
                      [self._dtype], name=name or "TensorArrayGatherV3", shapes=[shape],
                      attrs={"dtype": self._dtype, "element_shape": self.element_shape})

    def stack(self, name=None):
        """Every element, stacked along a new first dimension."""
        with name_scope(name, "TensorArrayStack", [self._handle]):
            return self.gather(_range(0, self.size()), name=name)

    def scatter(self, indices, value, name=None):
        """A TensorArray with value[k] written at indices[k]."""
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]) as scope:
            v = self._value(value)
            if v.shape.ndims:
                self._merge_shape(v.shape[1:])
            i = convert_to_tensor(indices, dtype=_dt.int32, name="indices")
            flow = _apply("TensorArrayScatterV3", [(self._handle, "handle"), (i, "indices"), (v, "value"),
                                                   (self._flow, "flow_in")], [_dt.float32], name=scope,
                          shapes=[TensorShape([])])
        return self._with_flow(flow)

    def unstack(self, value, name=None):
        """A TensorArray holding value's slices along dimension 0."""
        with name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            v = self._value(value)
            return self.scatter(_range(0, A.shape(v)[0]), v, name=name)

    def split(self, value, lengths, name=None):
        """A TensorArray holding consecutive pieces of value (dimension 0) of the given lengths."""
        with name_scope(name, "TensorArraySplit", [self._handle, value, lengths]) as scope:
            v = self._value(value)
            ln = convert_to_tensor(lengths, dtype=_dt.int64, name="lengths")
            if v.shape.ndims:
                self._merge_shape(TensorShape([None]).concatenate(v.shape[1:]))
            flow = _apply("TensorArraySplitV3", [(self._handle, "handle"), (v, "value"), (ln, "lengths"),
                                                 (self._flow, "flow_in")], [_dt.float32], name=scope,
                          shapes=[TensorShape([])])
        return self._with_flow(flow)

    def concat(self, name=None):
        """Every element joined along dimension 0."""
        es = self.element_shape
        shape = TensorShape([None]).concatenate(es[1:]) if es.ndims else unknown_shape()
        value, _ = _apply("TensorArrayConcatV3", [(self._handle, "handle"), (self._flow, "flow_in")],
                          [self._dtype, _dt.int64], name=name or "TensorArrayConcatV3",
                          shapes=[shape, TensorShape([None])])
        return value

    def size(self, name=None):
        """The number of elements (int32)."""
        return _apply("TensorArraySizeV3", [(self._handle, "handle"), (self._flow, "flow_in")], [_dt.int32],
                      name=name or "TensorArraySizeV3", shapes=[TensorShape([])])

    def close(self, name=None):
        """An op closing the array (its values are released with the run)."""
        return _apply("TensorArrayCloseV3", [(self._handle, "handle")], [], name=name or "TensorArrayCloseV3")


def is_tensor_array(x):
    """True for TensorArray objects."""
    return isinstance(x, TensorArray)


