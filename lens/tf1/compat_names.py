"""TF1 top-level helpers that are Python-level: deprecated aliases, tensor predicates, enums, the
TF1/TF2 behaviour switches that lens (always TF1: ref variables, v1 control flow, Dimension shapes,
identity-equality tensors) honours by staying as it is, and tf.init_scope."""
import contextlib
import enum

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import eager as _eager
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Operation, Tensor, get_default_graph, name_scope
from lens.framework.registry import NotDifferentiable
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import Dimension, as_shape
from lens.ops.core import py_func
from lens.proto.tensor_util import make_tensor_proto as _make_tensor_proto
from lens.ops.indexing import reverse
from lens.ops.linalg_solve import sqrtm
from lens.ops.math import floordiv
from lens.ops.string_ops import strip as string_strip
from lens.ops.strings_extra import to_hash_bucket_strong as string_to_hash_bucket_strong
from lens.ops.shapes import broadcast_shapes, const_value
from lens.ops.variables import Variable, local_variables_initializer, variables_initializer

matrix_square_root = sqrtm
reverse_v2 = reverse
floor_div = floordiv
no_gradient = NotDifferentiable
initialize_local_variables = local_variables_initializer
initialize_variables = variables_initializer


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """func(*numpy values) run as an op (tf.py_func's TF2 name)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def op_scope(values, name, default_name=None):
    """The deprecated argument order of name_scope(name, default_name, values)."""
    return name_scope(name, default_name, values)


def no_regularizer(_):
    """A regularizer that adds nothing (get_variable(regularizer=tf.no_regularizer))."""
    return None


def is_tensor(x):
    """Whether x is a lens tensor-like value (Tensor, SparseTensor, Variable), not a NumPy array."""
    return isinstance(x, (Tensor, SparseTensor, Variable)) or hasattr(x, "_as_graph_element") and \
        not isinstance(x, Operation)


def is_numeric_tensor(tensor):
    """Whether tensor is a Tensor of a numeric dtype (not string, bool, resource or variant)."""
    return isinstance(tensor, Tensor) and tensor.dtype.base_dtype not in (
        _dt.string, _dt.bool, _dt.resource, _dt.variant)


def dimension_value(dimension):
    """The int (or None) of a Dimension; ints and None pass through."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index):
    """shape's dimension at index as a Dimension (unknown for an unknown-rank shape)."""
    shape = as_shape(shape)
    if shape.ndims is None:
        return Dimension(None)
    return shape.dims[index] if isinstance(shape.dims[index], Dimension) else Dimension(shape.dims[index])


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes; ValueError when they are incompatible."""
    return broadcast_shapes(as_shape(shape_x), as_shape(shape_y))


def get_static_value(tensor, partial=False):
    """tensor's value when it is known at graph-construction time (a constant), else None."""
    del partial
    if not isinstance(tensor, Tensor):
        return tensor
    return const_value(tensor)


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """IndexedSlices and SparseTensors as they are, anything else through convert_to_tensor."""
    if isinstance(value, SparseTensor) or type(value).__name__ == "IndexedSlices":
        if dtype is not None and value.dtype.base_dtype != _dt.as_dtype(dtype):
            raise ValueError("Tensor conversion requested dtype %s for %r with dtype %s"
                             % (_dt.as_dtype(dtype).name, value, value.dtype.name))
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


@contextlib.contextmanager
def init_scope():
    """Lift ops out of control-flow and control dependencies (graph mode: the outer graph context)."""
    graph = get_default_graph()
    with graph.control_dependencies(None):
        yield


class AggregationMethod:
    """How tf.gradients sums the gradients reaching one tensor (lens adds them with AddN for all)."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (accepted by get_variable/Variable)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are aggregated (accepted by get_variable/Variable)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class UnconnectedGradients(enum.Enum):
    """tf.gradients(unconnected_gradients=...): None or zeros for unconnected inputs."""
    NONE = "none"
    ZERO = "zero"


# TF1 behaviour is the only behaviour lens has: these switches turn off what is already off.
def disable_v2_behavior():
    """Keep TF1 behaviour (lens never has TF2 behaviour on)."""


def disable_control_flow_v2():
    """Keep TF1's Switch/Merge control flow (lens builds that kind)."""


def disable_resource_variables():
    """Keep ref variables (VariableV2), lens's default kind."""


def disable_tensor_equality():
    """Keep Tensor == Tensor as identity (hashable tensors), as lens does."""


def disable_v2_tensorshape():
    """Keep TensorShape entries as Dimension objects, as lens does."""


def control_flow_v2_enabled():
    """False: lens builds TF1's control flow."""
    return False


def resource_variables_enabled():
    """False: tf.Variable makes ref variables (VariableV2) by default."""
    return False


def executing_eagerly_outside_functions():
    """Whether eager execution is on (lens has no tf.function graphs inside eager programs)."""
    return _eager.executing_eagerly()


__all__ = ["string_strip", "string_to_hash_bucket_strong", "matrix_square_root", "reverse_v2", "floor_div", "no_gradient", "initialize_local_variables", "initialize_variables",
           "numpy_function", "op_scope", "no_regularizer", "is_tensor", "is_numeric_tensor", "dimension_value",
           "dimension_at_index", "broadcast_static_shape", "get_static_value", "convert_to_tensor_or_indexed_slices",
           "init_scope", "AggregationMethod", "VariableSynchronization", "VariableAggregation",
           "UnconnectedGradients", "disable_v2_behavior", "disable_control_flow_v2", "disable_resource_variables",
           "disable_tensor_equality", "disable_v2_tensorshape", "control_flow_v2_enabled",
           "resource_variables_enabled", "executing_eagerly_outside_functions"]


def is_symbolic_tensor(tensor):
    """True for a graph Tensor (not an eager value or a NumPy array)."""
    return isinstance(tensor, Tensor) and not hasattr(tensor, "numpy")


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto of values (dtype and shape as given; verify_shape demands values of exactly that shape)."""
    if verify_shape and allow_broadcast:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if shape is not None and (verify_shape or not allow_broadcast):
        have = list(np.shape(values))
        want = [int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]
        if verify_shape and have != want:
            raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(want), tuple(have)))
        if not verify_shape and have not in ([], want) and int(np.prod(have)) != int(np.prod(want)):
            raise ValueError("Too many elements provided. Needed at most %d, but received %d"
                             % (int(np.prod(want)), int(np.prod(have))))
    return _make_tensor_proto(values, dtype=dtype, shape=shape)


__all__ += ["is_symbolic_tensor", "make_tensor_proto"]
