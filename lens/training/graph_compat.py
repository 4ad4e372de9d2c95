"""Make a lens GraphDef importable by TensorFlow: the type and length attrs its OpDefs require.

TensorFlow checks every node against its OpDef on import: `Slice` needs `Index`, `Fill`'s `T` is its
value's dtype, `Select`'s `T` is not its condition's, `AddN` needs `N`. tf_op_args.json (recorded from
TensorFlow's op registry by tests/training/fixtures/make_tf_op_args.py) says which input arguments
bind which attrs; each node's attrs are set from its inputs' dtypes and counts, and a `T` the OpDef
does not have is dropped. Attrs with defaults are left to TensorFlow, which fills them on import.
"""
import json
import os

_ARGS = None


def _table():
    global _ARGS
    if _ARGS is None:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_op_args.json")) as f:
            _ARGS = json.load(f)
    return _ARGS


def _split(specs, n_inputs, node):
    """Input counts per argument: one each, except one list argument taking what is left."""
    lists = [i for i, s in enumerate(specs) if s[0] in ("list_n", "list_fixed", "type_list")]
    counts = [1] * len(specs)
    if len(lists) == 1:
        counts[lists[0]] = n_inputs - (len(specs) - 1)
    elif len(lists) > 1:
        for i in lists:
            spec = specs[i]
            attr = spec[2] if spec[0] == "list_n" else spec[1]
            value = node.attr[attr] if attr in node.attr else None
            if value is None:
                return None
            counts[i] = value.i if spec[0] != "type_list" else len(value.list.type)
    if sum(counts) != n_inputs or min(counts) < 0:
        return None
    return counts


def make_tf_compatible(graph_def, graph):
    """Set, in place, the type/length attrs TensorFlow derives from each node's inputs."""
    table = _table()
    for node in graph_def.node:
        info = table.get(node.op)
        if not info:
            continue
        if "T" in node.attr and "T" not in info["attrs"]:
            del node.attr["T"]           # lens adds a `T` to every op; TF logs an error for one it lacks
        specs = info["args"]
        if not specs:
            continue
        try:
            op = graph.get_operation_by_name(node.name)
        except (KeyError, ValueError):
            continue
        dtypes = [t.dtype.base_dtype for t in op.inputs]
        counts = _split(specs, len(dtypes), node)
        if counts is None:
            continue
        pos = 0
        for spec, count in zip(specs, counts):
            args = dtypes[pos:pos + count]
            pos += count
            kind = spec[0]
            if kind == "type" and args:
                node.attr[spec[1]].type = args[0].as_datatype_enum
            elif kind == "list_n":
                node.attr[spec[2]].i = count
                if args:
                    node.attr[spec[1]].type = args[0].as_datatype_enum
            elif kind == "list_fixed":
                node.attr[spec[1]].i = count
            elif kind == "type_list":
                node.attr[spec[1]].list.Clear()
                node.attr[spec[1]].list.type.extend(d.as_datatype_enum for d in args)
    return graph_def
