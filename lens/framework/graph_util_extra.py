"""tf.graph_util's small helpers: must_run_on_cpu and tensor_shape_from_node_def_name."""
from lens.framework import dtypes as _dt

__all__ = ["must_run_on_cpu", "tensor_shape_from_node_def_name"]

_VARIABLE_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                 "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                 "MutableDenseHashTableV2", "VarHandleOp", "VarIsInitializedOp")


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether TF places node (an Operation or NodeDef) on the CPU: int32/string constants, int32
    DynamicStitch and Cast from int32, and variables when pin_variables_on_cpu."""
    node_def = node.node_def if hasattr(node, "node_def") else node
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        return node_def.attr["dtype"].type in (_dt.string.as_datatype_enum, _dt.int32.as_datatype_enum)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == _dt.int32.as_datatype_enum
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == _dt.int32.as_datatype_enum
    return False


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor named input_name (output 0 when no ':k' is given) in graph."""
    if ":" not in input_name:
        input_name = input_name + ":0"
    return graph.get_tensor_by_name(input_name).get_shape()
