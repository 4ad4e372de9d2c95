"""GraphDef export (as_graph_def, node_def) and import_graph_def."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.graph import get_default_graph, name_scope
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


def op_to_node_def(op, add_shapes=False):
    """The NodeDef of one op (with its placed device once a session has placed it)."""
    assigned = getattr(op._graph, "_assigned_devices", None)
    device = assigned.get(op._name, op._device) if assigned else op._device
    nd = node_def_pb2.NodeDef(name=op._name, op=op._type, device=device)
    nd.input.extend(_input_name(t) for t in op._inputs)
    nd.input.extend("^" + c._name for c in op._control_inputs)
    attrs = dict(op._attrs)
    if "T" not in attrs and op._inputs and op._type not in ("Const", "Placeholder", "VariableV2"):
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


# ------------------------------------------------------------------ import
def _attr_value(av):
    kind = av.WhichOneof("value")
    if kind == "type":
        return _dt.as_dtype(av.type)
    if kind == "shape":
        return TensorShape(av.shape)
    if kind == "tensor":
        return tensor_util.make_ndarray(av.tensor)
    if kind == "s":
        try:
            return av.s.decode()
        except UnicodeDecodeError:
            return av.s
    if kind in ("i", "f", "b"):
        return getattr(av, kind)
    if kind == "list":
        lst = av.list
        if lst.type:
            return [_dt.as_dtype(t) for t in lst.type]
        if lst.shape:
            return [TensorShape(s) for s in lst.shape]
        for field in ("i", "f", "b"):
            if getattr(lst, field):
                return list(getattr(lst, field))
        return [s.decode(errors="replace") for s in lst.s]
    return None


_BOOL_OUT = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
             "LogicalOr", "LogicalNot", "IsNan", "IsInf", "IsFinite", "IsVariableInitialized"}


def _output_dtypes(nd, attrs, in_dtypes):
    t = nd.op
    if t in ("NoOp", "PrintV2", "SaveV2"):
        return []
    if t in _BOOL_OUT:
        return [_dt.bool]
    if t in ("Shape", "Size"):
        return [attrs.get("out_type", _dt.int32)]
    if t == "Rank":
        return [_dt.int32]
    if t in ("ArgMax", "ArgMin"):
        return [attrs.get("output_type", _dt.int64)]
    if t == "Cast":
        return [attrs["DstT"]]
    if t == "Where":
        return [_dt.int64]
    if t == "Unique":
        return [attrs["T"], attrs.get("out_idx", _dt.int32)]
    if t == "VariableV2":
        return [attrs["dtype"]._as_ref]
    if t in ("Assign", "AssignAdd", "AssignSub"):
        return [in_dtypes[0]]
    if t == "PyFunc":
        return list(attrs.get("Tout", []))
    if t == "Unpack":
        return [attrs["T"]] * attrs["num"]
    if t == "BroadcastGradientArgs":
        return [in_dtypes[0]] * 2
    if t == "IdentityN":
        return list(in_dtypes)
    if t in ("Split", "SplitV"):
        return [attrs["T"]] * attrs["num_split"]
    shapes = attrs.get("_output_shapes")
    n = len(shapes) if isinstance(shapes, list) else 1
    for key in ("dtype", "T", "out_type"):
        if isinstance(attrs.get(key), _dt.DType):
            return [attrs[key].base_dtype] * n
    if in_dtypes:
        return [in_dtypes[0].base_dtype] * n
    raise ValueError("import_graph_def cannot infer the output types of node %r (op %s)" % (nd.name, t))


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Add the nodes of graph_def to the default graph under name scope `name` ('import')."""
    if isinstance(graph_def, (bytes, bytearray)):
        graph_def = graph_pb2.GraphDef.FromString(bytes(graph_def))
    input_map = dict(input_map or {})
    g = get_default_graph()
    by_name = {nd.name: nd for nd in graph_def.node}
    created = {}
    with name_scope(name, "import", list(input_map.values())) as scope:
        prefix = scope

        def resolve(ref):
            if ref in input_map:
                return input_map[ref]
            op_name, _, idx = ref.partition(":")
            key0 = op_name if not idx or idx == "0" else None
            if key0 is not None and key0 in input_map:
                return input_map[key0]
            op = build(op_name)
            return op._outputs[int(idx) if idx else 0]

        def build(node_name):
            if node_name in created:
                return created[node_name]
            if node_name not in by_name:
                raise ValueError("Node %r referenced in graph_def does not exist." % node_name)
            nd = by_name[node_name]
            stack = [nd]
            order = []
            visiting = set()
            while stack:
                cur = stack[-1]
                deps = [i.lstrip("^").split(":")[0] for i in cur.input]
                pending = [d for d in deps if d not in created and d not in visiting
                           and not _mapped(d, input_map)]
                if pending and cur.name not in visiting:
                    visiting.add(cur.name)
                    stack.extend(by_name[d] if d in by_name else _missing(d, cur) for d in pending)
                    continue
                stack.pop()
                if cur.name not in created:
                    created[cur.name] = _make(cur)
                    order.append(cur.name)
            return created[node_name]

        def _make(nd):
            inputs = [resolve(i) for i in nd.input if not i.startswith("^")]
            attrs = {k: _attr_value(v) for k, v in nd.attr.items() if k not in ("_class",)}
            shapes = attrs.pop("_output_shapes", None)
            out_dtypes = _output_dtypes(nd, dict(attrs, _output_shapes=shapes), [t.dtype for t in inputs])
            op = g._create_op(nd.op, inputs, out_dtypes, attrs, prefix + nd.name + "/",
                              shapes=shapes if shapes and len(shapes) == len(out_dtypes) else None)
            op._set_device(nd.device)
            for c in nd.input:
                if c.startswith("^"):
                    op._add_control_input(build(c[1:]))
            return op

        for nd in graph_def.node:
            build(nd.name)
    if return_elements is None:
        return None
    out = []
    for el in return_elements:
        if ":" in el:
            out.append(resolve(el))
        else:
            out.append(created[el])
    return out


def _mapped(name, input_map):
    return name in input_map or (name + ":0") in input_map


def _missing(dep, node):
    raise ValueError("Node %r has an input from %r, which is not in the graph_def." % (node.name, dep))
