"""tf.graph_util: freezing (variables to constants), sub-graph extraction, training-node removal.

These work on GraphDef protos; the session a caller passes is only asked to `run` the variables.
"""
import logging

from lens.framework import dtypes as _dt
from lens.proto import graph_pb2, node_def_pb2, tensor_util

log = logging.getLogger("lens")

_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _node_name(input_name):
    """'^a', 'a:1' and 'a' all name node 'a'."""
    return input_name.lstrip("^").split(":")[0]


def extract_sub_graph(graph_def, dest_nodes):
    """The nodes dest_nodes need (through data and control inputs), in graph_def's order."""
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    inputs = {node.name: [_node_name(i) for i in node.input] for node in graph_def.node}
    for name in dest_nodes:
        if name not in inputs:
            raise AssertionError("%s is not in graph" % name)
    keep, todo = set(), list(dest_nodes)
    while todo:
        name = todo.pop()
        if name not in keep:
            keep.add(name)
            todo.extend(inputs[name])
    out = graph_pb2.GraphDef()
    out.node.extend(node for node in graph_def.node if node.name in keep)
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """A GraphDef computing output_node_names where every variable they read is a Const holding
    its current value in sess (TF1's graph freezing)."""
    graph = extract_sub_graph(input_graph_def, output_node_names)
    allow = None if variable_names_whitelist is None else set(variable_names_whitelist)
    deny = set(variable_names_blacklist or ())
    frozen = [node.name for node in graph.node if node.op in _VARIABLE_OPS
              and (allow is None or node.name in allow) and node.name not in deny]
    # Resource variables are read through their ReadVariableOp consumers.
    reads = {_node_name(node.input[0]): node.name for node in graph.node
             if node.op == "ReadVariableOp" and _node_name(node.input[0]) in frozen}
    fetch = [reads.get(name, name) + ":0" for name in frozen]
    values = dict(zip(frozen, sess.run(fetch))) if fetch else {}
    out = graph_pb2.GraphDef()
    for node in graph.node:
        if node.name in values:
            out.node.append(_const_node(node, values[node.name]))
        elif node.op == "ReadVariableOp" and _node_name(node.input[0]) in values:
            identity = node_def_pb2.NodeDef(name=node.name, op="Identity", input=list(node.input),
                                            device=node.device)
            identity.attr["T"].CopyFrom(node.attr["dtype"])
            out.node.append(identity)
        else:
            out.node.add().CopyFrom(node)
    out.library.CopyFrom(graph.library)
    out.versions.CopyFrom(graph.versions)
    log.info("Froze %d variables.", len(values))
    log.info("Converted %d variables to const ops.", len(values))
    return out


def _const_node(var_node, value):
    """A Const NodeDef named like var_node holding value."""
    dtype = _dt.as_dtype(var_node.attr["dtype"].type).base_dtype
    const = node_def_pb2.NodeDef(name=var_node.name, op="Const", device=var_node.device)
    const.attr["dtype"].type = dtype.as_datatype_enum
    const.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(value, dtype=dtype))
    return const


def remove_training_nodes(input_graph, protected_nodes=None):
    """input_graph without CheckNumerics nodes and with pass-through Identity nodes spliced out
    (protected nodes, and Identities taking or giving control edges, stay), as TF1's does."""
    protected = set(protected_nodes or ())
    dropped = {n.name for n in input_graph.node if n.op == "CheckNumerics" and n.name not in protected}
    nodes = []
    for node in input_graph.node:
        if node.name not in dropped:
            copy = node_def_pb2.NodeDef()
            copy.CopyFrom(node)
            del copy.input[:]
            copy.input.extend(i for i in node.input if _node_name(i) not in dropped)
            nodes.append(copy)
    control_sources = {i[1:] for n in nodes for i in n.input if i.startswith("^")}
    with_control = {n.name for n in nodes if any(i.startswith("^") for i in n.input)}
    # Removing an Identity tied to control edges could change what runs before what: keep those.
    splice = {n.name: n.input[0] for n in nodes
              if n.op == "Identity" and n.input and n.name not in protected
              and n.name not in with_control and n.name not in control_sources}
    out = graph_pb2.GraphDef()
    for node in nodes:
        if node.name in splice:
            continue
        rewired = []
        for name in node.input:
            while name.lstrip("^") in splice:
                name = splice[name.lstrip("^")]
            rewired.append(name)
        del node.input[:]
        node.input.extend(rewired)
        out.node.append(node)
    return out


__all__ = ["convert_variables_to_constants", "extract_sub_graph", "remove_training_nodes"]
