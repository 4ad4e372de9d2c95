"""Structure of dumped partition graphs: inputs, recipients, op types, devices, attrs."""

import collections

# Transport/bookkeeping nodes hidden from every graph-structure listing, as in tfdbg.
HIDDEN_OP_TYPES = frozenset({"_Send", "_Recv", "_HostSend", "_HostRecv", "_Retval"})


def parse_node_or_tensor_name(name):
    """'a/b:1' -> ('a/b', 1); 'a/b' -> ('a/b', None)."""
    head, sep, tail = name.rpartition(":")
    if sep and tail.isdigit():
        return head, int(tail)
    return name, None


def is_debugger_node(name):
    """True for the Copy and Debug nodes TensorFlow's tfdbg inserts into the graphs it dumps."""
    return name.startswith("__copy_") or name.startswith("__dbg_")


def _input_node(input_name):
    """NodeDef input string -> (node name, is_control)."""
    if input_name.startswith("^"):
        return input_name[1:], True
    return parse_node_or_tensor_name(input_name)[0], False


class DeviceGraph:
    """One device's partition graph, indexed for fast structure queries."""

    def __init__(self, device, graph_def):
        self.device = device
        self.graph_def = graph_def
        self.nodes = {}
        self.inputs = collections.defaultdict(list)
        self.ctrl_inputs = collections.defaultdict(list)
        self.recipients = collections.defaultdict(list)
        self.ctrl_recipients = collections.defaultdict(list)
        # Dumps written by TensorFlow hold the graph tfdbg instrumented: its Copy nodes sit
        # between a watched tensor and its consumers, its Debug nodes read the copies. The
        # structure users ask about is the graph without them, as tfdbg's own reader shows it.
        copied = {node.name: node.input[0] for node in graph_def.node
                  if node.name.startswith("__copy_") and node.input}
        for node in graph_def.node:
            if not is_debugger_node(node.name):
                self.nodes[node.name] = node
        for node in self.nodes.values():
            for raw in node.input:
                name, is_control = _input_node(raw)
                if name in copied:
                    raw = ("^" if is_control else "") + copied[name]
                source, is_control = _input_node(raw)
                if is_control:
                    self.ctrl_inputs[node.name].append(source)
                    self.ctrl_recipients[source].append(node.name)
                else:
                    self.inputs[node.name].append(raw)
                    self.recipients[source].append(node.name)


class GraphQueries:
    """Mixin for DebugDumpDir: tfdbg's graph queries over `self._device_graphs`."""

    def _require_graphs(self):
        if not self._device_graphs:
            raise LookupError("No partition graphs have been loaded for dump root %s; "
                              "graph queries need the _tfdbg_graph_* files" % self.dump_root)

    def devices(self):
        """Device names with a loaded partition graph."""
        return sorted(self._device_graphs)

    def loaded_partition_graphs(self):
        """True if any partition graph was loaded."""
        return bool(self._device_graphs)

    def partition_graphs(self):
        """The partition GraphDefs."""
        self._require_graphs()
        return [g.graph_def for _, g in sorted(self._device_graphs.items())]

    def _graph_for(self, node_name, device_name=None):
        """The DeviceGraph holding `node_name`, inferring the device when unique."""
        self._require_graphs()
        if device_name is not None:
            graph = self._device_graphs.get(device_name)
            if graph is None:
                raise ValueError("There is no device named %r; devices: %s"
                                 % (device_name, ", ".join(self.devices())))
            if node_name not in graph.nodes:
                raise ValueError("There is no node named %r on device %s"
                                 % (node_name, device_name))
            return graph
        found = [g for g in self._device_graphs.values() if node_name in g.nodes]
        if not found:
            raise ValueError('There is no node named "%s" in the partition graphs' % node_name)
        if len(found) > 1:
            raise ValueError("Node %r exists on several devices (%s); pass device_name"
                             % (node_name, ", ".join(g.device for g in found)))
        return found[0]

    def nodes(self, device_name=None):
        """Names of all nodes (of one device, or all devices)."""
        self._require_graphs()
        graphs = ([self._device_graphs[device_name]] if device_name
                  else self._device_graphs.values())
        return [name for g in graphs for name, node in g.nodes.items()
                if node.op not in HIDDEN_OP_TYPES]

    def node_exists(self, node_name, device_name=None):
        """True if the node is in the partition graph(s)."""
        self._require_graphs()
        graphs = ([self._device_graphs.get(device_name)] if device_name
                  else self._device_graphs.values())
        return any(g is not None and node_name in g.nodes for g in graphs)

    def node_device(self, node_name):
        """The device of a node (a list when it exists on several devices)."""
        self._require_graphs()
        devices = [g.device for g in self._device_graphs.values() if node_name in g.nodes]
        if not devices:
            raise ValueError('There is no node named "%s" in the partition graphs' % node_name)
        return devices[0] if len(devices) == 1 else devices

    def node_op_type(self, node_name, device_name=None):
        """The op type of a node."""
        return self._graph_for(node_name, device_name).nodes[node_name].op

    def node_attributes(self, node_name, device_name=None):
        """The node's attr map (name -> AttrValue)."""
        return dict(self._graph_for(node_name, device_name).nodes[node_name].attr)

    def node_inputs(self, node_name, is_control=False, device_name=None):
        """Data input tensor names (or control input node names) of a node."""
        graph = self._graph_for(node_name, device_name)
        if is_control:
            return list(graph.ctrl_inputs.get(node_name, ()))
        return list(graph.inputs.get(node_name, ()))

    def node_recipients(self, node_name, is_control=False, device_name=None):
        """Nodes consuming this node's outputs (or its control recipients)."""
        graph = self._graph_for(node_name, device_name)
        table = graph.ctrl_recipients if is_control else graph.recipients
        return [n for n in table.get(node_name, ())
                if graph.nodes[n].op not in HIDDEN_OP_TYPES]

    def transitive_inputs(self, node_name, include_control=True, include_reversed_ref=False,
                          device_name=None):
        """All nodes `node_name` depends on (depth first; stops at Merge nodes)."""
        del include_reversed_ref  # lens graphs have no ref-typed edges to reverse
        graph = self._graph_for(node_name, device_name)
        seen, order, stack = {node_name}, [], [node_name]
        while stack:
            current = stack.pop()
            sources = [parse_node_or_tensor_name(i)[0] for i in graph.inputs.get(current, ())]
            if include_control:
                sources += graph.ctrl_inputs.get(current, [])
            for source in sources:
                if source in seen or source not in graph.nodes:
                    continue
                seen.add(source)
                order.append(source)
                if graph.nodes[source].op != "Merge":
                    stack.append(source)
        return order

    def find_some_path(self, src_node, dst_node, include_control=True,
                       include_reversed_ref=False, device_name=None):
        """A list of node names from src to dst along recipient edges, or None."""
        del include_reversed_ref
        graph = self._graph_for(dst_node, device_name)
        parents, queue = {src_node: None}, collections.deque([src_node])
        while queue:
            current = queue.popleft()
            if current == dst_node:
                path = []
                while current is not None:
                    path.append(current)
                    current = parents[current]
                return path[::-1]
            nexts = list(graph.recipients.get(current, ()))
            if include_control:
                nexts += graph.ctrl_recipients.get(current, [])
            for nxt in nexts:
                if nxt not in parents:
                    parents[nxt] = current
                    queue.append(nxt)
        return None
