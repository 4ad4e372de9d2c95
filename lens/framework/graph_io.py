"""GraphDef export: Graph.as_graph_def and Operation.node_def (import_graph_def is in importer.py)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.tensor_shape import TensorShape
from lens.proto import graph_pb2, node_def_pb2, tensor_util

# Python-only attrs (callables, flags) never reach a GraphDef.
_PRIVATE = ("_func", "_single", "_fn")


def _fill_attr(av, value):
    if isinstance(value, _dt.DType):
        av.type = value.as_datatype_enum
    elif isinstance(value, TensorShape):
        av.shape.CopyFrom(value.as_proto())
    elif isinstance(value, np.ndarray):
        av.tensor.CopyFrom(tensor_util.make_tensor_proto(value))
    elif isinstance(value, (bool, np.bool_)):
        av.b = bool(value)
    elif isinstance(value, (int, np.integer)):
        av.i = int(value)
    elif isinstance(value, (float, np.floating)):
        av.f = float(value)
    elif isinstance(value, str):
        av.s = value.encode()
    elif isinstance(value, bytes):
        av.s = value
    elif isinstance(value, (list, tuple)):
        lst = av.list
        lst.SetInParent()
        for v in value:
            if isinstance(v, _dt.DType):
                lst.type.append(v.as_datatype_enum)
            elif isinstance(v, TensorShape):
                lst.shape.add().CopyFrom(v.as_proto())
            elif isinstance(v, (bool, np.bool_)):
                lst.b.append(bool(v))
            elif isinstance(v, (int, np.integer)):
                lst.i.append(int(v))
            elif isinstance(v, (float, np.floating)):
                lst.f.append(float(v))
            elif isinstance(v, str):
                lst.s.append(v.encode())
            elif isinstance(v, bytes):
                lst.s.append(v)
            elif v is None:
                lst.s.append(b"")
    else:
        return False
    return True


def _input_name(t):
    return t._op._name if t._value_index == 0 else "%s:%d" % (t._op._name, t._value_index)


# Ops whose TensorFlow OpDef has no `T` attr (TF logs an error for an unknown attr on import).
_NO_T_ATTR = ("Const", "Placeholder", "VariableV2", "PlaceholderWithDefault", "SaveV2", "RestoreV2",
              "MergeV2Checkpoints", "ShardedFilename", "StringJoin", "ParseExample", "ParseSingleExample",
              "StringToHashBucketFast", "Cast")


def op_to_node_def(op, add_shapes=False):
    """The NodeDef of one op (with its placed device once a session has placed it)."""
    assigned = getattr(op._graph, "_assigned_devices", None)
    device = assigned.get(op._name, op._device) if assigned else op._device
    nd = node_def_pb2.NodeDef(name=op._name, op=op._type, device=device)
    nd.input.extend(_input_name(t) for t in op._inputs)
    nd.input.extend("^" + c._name for c in op._control_inputs)
    attrs = dict(op._attrs)
    if "T" not in attrs and op._inputs and op._type not in _NO_T_ATTR:
        attrs["T"] = op._inputs[0].dtype.base_dtype
    if op._colocation:
        attrs["_class"] = ["loc:@" + n for n in op._colocation]
    for key in sorted(attrs):
        if key in _PRIVATE or attrs[key] is None:
            continue
        _fill_attr(nd.attr[key], attrs[key]) or nd.attr.pop(key)
    if add_shapes:
        _fill_attr(nd.attr["_output_shapes"], [_best_shape(t) for t in op._outputs])
        if not op._outputs:
            nd.attr["_output_shapes"].list.SetInParent()
    return nd


def _best_shape(t):
    """The static shape, or the shape seen in the last traced run when the static one is partial."""
    if t._shape.is_fully_defined():
        return t._shape
    seen = getattr(t._op._graph, "_run_shapes", None)
    if seen and t.name in seen:
        return TensorShape(list(seen[t.name]))
    return t._shape


def graph_to_graph_def(graph, from_version=None, add_shapes=False):
    """A GraphDef of every op (ids after from_version only, if given)."""
    gd = graph_pb2.GraphDef()
    gd.versions.producer = 27
    for op in graph._ops:
        if from_version is not None and op._id < from_version:
            continue
        gd.node.append(op_to_node_def(op, add_shapes or getattr(graph, "_add_shapes", False)))
    return gd
