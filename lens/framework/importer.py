"""import_graph_def: a GraphDef's nodes added to the default graph under an `import/` scope."""
from lens.framework import dtypes as _dt
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.tensor_shape import TensorShape
from lens.proto import graph_pb2, tensor_util


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
             "LogicalOr", "LogicalNot", "IsNan", "IsInf", "IsFinite", "IsVariableInitialized",
             "StaticRegexFullMatch", "RegexFullMatch"}


def _output_dtypes(nd, attrs, in_dtypes):
    t = nd.op
    if t in ("NoOp", "PrintV2", "SaveV2", "MergeV2Checkpoints", "_Send"):
        return []
    if t == "RestoreV2":
        return list(attrs["dtypes"])
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
    for key in ("dtype", "T", "out_type", "tensor_type"):   # tensor_type: a _Recv
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
            # _output_types: written by a client shipping a partition (lens.distributed), exact for every op.
            out_dtypes = attrs.pop("_output_types", None)
            if out_dtypes is None:
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
