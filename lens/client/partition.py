"""RunMetadata's partition graphs (one GraphDef per device, with _Send/_Recv) and placed graphs."""
from lens.framework.graph_io import op_to_node_def
from lens.proto import graph_pb2, node_def_pb2


def _set_shapes(nd, op, shapes):
    """_output_shapes from the run where measured, else the static shapes."""
    av = nd.attr["_output_shapes"]
    av.Clear()
    av.list.SetInParent()
    for t in op._outputs:
        shp = av.list.shape.add()
        seen = shapes.get(t)
        if seen is not None:
            for d in seen:
                shp.dim.add(size=d)
        elif t.shape.ndims is None:
            shp.unknown_rank = True
        else:
            for d in t.shape.as_list():
                shp.dim.add(size=-1 if d is None else d)


def _transfer_node(op_type, name, tensor, send_dev, recv_dev, client):
    nd = node_def_pb2.NodeDef(name=name, op=op_type, device=recv_dev if op_type == "_Recv" else send_dev)
    attrs = {"tensor_name": tensor.name.encode() if not client else tensor.name.replace(":", "_").encode(),
             "send_device": send_dev.encode(), "recv_device": recv_dev.encode()}
    for k, v in attrs.items():
        nd.attr[k].s = v
    nd.attr["send_device_incarnation"].i = 1
    nd.attr["client_terminated"].b = client
    nd.attr["tensor_type" if op_type == "_Recv" else "T"].type = tensor.dtype.base_dtype.as_datatype_enum
    return nd


def partition_graphs(ops, device_of, shapes, fed=(), control_transfers=False):
    """One GraphDef per device holding its ops; cross-device edges become _Send/_Recv pairs
    (control edges too when control_transfers: the devices then run as separate processes)."""
    client = "/job:localhost/replica:0/task:0/device:CPU:0"
    parts, ran = {}, set(ops)
    recv_names = {}     # (tensor, device) -> the _Recv node bringing it there
    for op in ops:
        dev = device_of(op)
        gd = parts.setdefault(dev, graph_pb2.GraphDef())
        nd = op_to_node_def(op, add_shapes=True)
        nd.device = dev
        _set_shapes(nd, op, shapes)
        del nd.input[:]
        for t in op._inputs:
            src = t._op
            if src in ran and t not in fed and device_of(src) == dev:
                nd.input.append(_ref(t))
                continue
            # A value from another device (or fed by the client) arrives through a _Recv.
            if (t, dev) not in recv_names:
                from_client = src not in ran or t in fed
                send_dev = client if from_client else device_of(src)
                if from_client:
                    name = "_recv_%s" % t.name.replace(":", "_")
                else:
                    k = len(recv_names)
                    name = "%s/_%d" % (src._name, 2 * k + 1)
                    send = _transfer_node("_Send", "%s/_%d" % (src._name, 2 * k), t, send_dev, dev, False)
                    send.input.append(_ref(t))
                    parts.setdefault(send_dev, graph_pb2.GraphDef()).node.append(send)
                gd.node.append(_transfer_node("_Recv", name, t, send_dev, dev, from_client))
                recv_names[(t, dev)] = name
            nd.input.append(recv_names[(t, dev)])
        # Control edges inside one device are kept; across devices the data edges already order them
        # in one process, while separate processes need a transfer carrying no tensor.
        nd.input.extend("^" + c._name for c in op._control_inputs if c in ran and device_of(c) == dev)
        if control_transfers:
            for c in op._control_inputs:
                if c in ran and device_of(c) != dev:
                    nd.input.append("^" + _control_transfer(parts, recv_names, c, device_of(c), dev))
        gd.node.append(nd)
    for gd in parts.values():
        gd.versions.producer = 27
    return [parts[d] for d in sorted(parts)]


def _control_transfer(parts, recv_names, c, send_dev, dev):
    """A _Send on c's device after c runs and the _Recv on dev it wakes: a control edge across tasks."""
    if (c, dev) not in recv_names:
        k = len(recv_names)
        name = "%s/_%d" % (c._name, 2 * k + 1)
        for op_type, node_name, node_dev in (("_Send", "%s/_%d" % (c._name, 2 * k), send_dev), ("_Recv", name, dev)):
            nd = node_def_pb2.NodeDef(name=node_name, op=op_type, device=node_dev)
            for key, v in (("tensor_name", "^" + c._name), ("send_device", send_dev), ("recv_device", dev)):
                nd.attr[key].s = v.encode()
            nd.attr["send_device_incarnation"].i = 1
            nd.attr["client_terminated"].b = False
            nd.attr["tensor_type" if op_type == "_Recv" else "T"].type = 1   # DT_FLOAT: an empty token
            if op_type == "_Send":
                nd.input.append("^" + c._name)
            parts.setdefault(node_dev, graph_pb2.GraphDef()).node.append(nd)
        recv_names[(c, dev)] = name
    return recv_names[(c, dev)]


def _ref(t):
    """How a NodeDef input names tensor t ('op' for output 0, 'op:k' otherwise)."""
    return t._op._name if t._value_index == 0 else "%s:%d" % (t._op._name, t._value_index)


def placed_graph_def(sess):
    """The session's graph with each placed op's full device and the shapes its last traced run saw."""
    graph = sess.graph
    sess._place()
    by_name = graph._ops_by_name
    seen = getattr(graph, "_run_shapes", {})
    gd = graph.as_graph_def(add_shapes=True)
    for nd in gd.node:
        op = by_name.get(nd.name)
        if op is None:
            continue
        nd.device = sess._device_of(op)
        _set_shapes(nd, op, {t: seen[t.name] for t in op._outputs if t.name in seen})
    return gd
