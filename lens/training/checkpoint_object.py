"""tf.train.Checkpoint / CheckpointManager in graph mode: object-based checkpoints written as TF writes them
(keys `<path>/.ATTRIBUTES/VARIABLE_VALUE`, optimizer slots under `.OPTIMIZER_SLOT`, the object graph under
`_CHECKPOINTABLE_OBJECT_GRAPH`) in the tensor-bundle format tf.train.Saver and NewCheckpointReader read."""
import collections
import glob
import os
import time

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.default_session import get_default_session
from lens.framework.graph import get_default_graph
from lens.ops.variables import Variable
from lens.proto import trackable_object_graph_pb2
from lens.training.bundle import BundleReader, write_bundle
from lens.training.optimizer import Optimizer
from lens.training.saver_format import get_checkpoint_state, update_checkpoint_state

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_VALUE = ".ATTRIBUTES/VARIABLE_VALUE"


def _escape(name):
    """TF's escaping of a local name inside a checkpoint key."""
    return name.replace(".", "..").replace("/", ".S")


class CheckpointOptions:
    """Options of Checkpoint.save/restore: the I/O device (lens reads and writes on the host) and async
    saving (lens writes synchronously, which finishes every save before save() returns)."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_sharding_callback=None,
                 experimental_skip_slot_variables=False):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint or enable_async
        self.enable_async = self.experimental_enable_async_checkpoint
        self.experimental_write_callbacks = list(experimental_write_callbacks or [])
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


# ---- the object graph of Python objects --------------------------------------------------------------
def _children(obj):
    """[(local name, child)] of a trackable object, in TF's order."""
    if isinstance(obj, Checkpoint):
        named = sorted(obj._deps.items())
        if obj._save_counter is not None:
            named.append(("save_counter", obj._save_counter))
        return named
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, Optimizer):
        g = get_default_graph()
        return sorted((name, v) for (name, graph), v in obj._non_slot_dict.items() if graph is g)
    return sorted((k, v) for k, v in vars(obj).items()
                  if not k.startswith("_") and isinstance(v, (Variable, Optimizer, Checkpoint)))


class _Node:
    def __init__(self, obj, path):
        self.obj, self.path = obj, path
        self.children = []          # [(local name, node id)]
        self.slots = []             # [(original node id, slot name, slot node id)]
        self.key = None


def _build_graph(root):
    """Nodes in TF's numbering (breadth first from root, then the slot variables)."""
    nodes, ids = [_Node(root, "")], {id(root): 0}
    queue = collections.deque([0])
    while queue:
        node = nodes[queue.popleft()]
        for name, child in _children(node.obj):
            if id(child) not in ids:
                ids[id(child)] = len(nodes)
                nodes.append(_Node(child, _escape(name) if not node.path else node.path + "/" + _escape(name)))
                queue.append(ids[id(child)])
            node.children.append((name, ids[id(child)]))
    for node in list(nodes):
        if isinstance(node.obj, Optimizer):
            pending = []
            for slot_name in sorted(node.obj._slots):
                for var, slot in node.obj._slots[slot_name].items():
                    if id(var) in ids and isinstance(nodes[ids[id(var)]].obj, Variable):
                        pending.append((slot_name, ids[id(var)], slot))
            for slot_name, var_id, slot in sorted(pending, key=lambda p: (p[0], p[1])):
                slot_node = _Node(slot, "%s/.OPTIMIZER_SLOT/%s/%s" % (nodes[var_id].path, node.path, _escape(slot_name)))
                ids.setdefault(id(slot), len(nodes))
                nodes.append(slot_node)
                node.slots.append((var_id, slot_name, len(nodes) - 1))
    for node in nodes:
        if isinstance(node.obj, Variable):
            node.key = node.path + "/" + _VALUE
    return nodes


def _graph_proto(nodes):
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    has = [n.key is not None for n in nodes]
    for _ in range(len(nodes)):     # values anywhere below a node mark it too
        for i, n in enumerate(nodes):
            has[i] = has[i] or any(has[c] for _, c in n.children) or any(has[s] for _, _, s in n.slots)
    for i, n in enumerate(nodes):
        p = proto.nodes.add()
        for name, child in n.children:
            p.children.add(node_id=child, local_name=name)
        if n.key is not None:
            p.attributes.add(name="VARIABLE_VALUE", full_name=n.obj.op.name, checkpoint_key=n.key)
        for var_id, slot_name, slot_id in n.slots:
            p.slot_variables.add(original_variable_node_id=var_id, slot_name=slot_name, slot_variable_node_id=slot_id)
        if has[i]:
            p.has_checkpoint_values.value = True
    return proto


def _session(session):
    session = session or get_default_session()
    if session is None:
        raise ValueError("Checkpoints in graph mode need a session: pass session= or run inside "
                         "`with sess.as_default():`.")
    return session


# ---- Checkpoint ---------------------------------------------------------------------------------------------
class Checkpoint:
    """Groups trackable objects (variables, optimizers, other Checkpoints, objects holding variables) given as
    keyword arguments; save/restore them by their attribute paths."""

    def __init__(self, **kwargs):
        for name, value in kwargs.items():
            if value is None or isinstance(value, (int, float, str, bytes, np.ndarray)):
                raise ValueError("`Checkpoint` was expecting a trackable object (an object derived from "
                                 "`Trackable`), got %r for %r." % (value, name))
        self._deps = dict(kwargs)
        self._save_counter = None
        self._counter_assign = None

    def __getattr__(self, name):
        deps = self.__dict__.get("_deps", {})
        if name in deps:
            return deps[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            super().__setattr__(name, value)
        else:
            self._deps[name] = value

    @property
    def save_counter(self):
        """The int64 variable counting save() calls (created on first use)."""
        self._ensure_counter(None)
        return self._save_counter

    def _ensure_counter(self, session):
        if self._save_counter is None:
            g = get_default_graph()
            with g.as_default(), g.control_dependencies(None), g.name_scope(None):
                self._save_counter = Variable(np.int64(0), name="save_counter", trainable=False, collections=[],
                                              dtype=_dt.int64)
            if session is not None:
                session.run(self._save_counter.initializer)
        return self._save_counter

    def write(self, file_prefix, session=None, options=None):
        """Write the checkpoint at file_prefix (no counter, no `checkpoint` file update); returns it."""
        del options
        session = _session(session)
        nodes = _build_graph(self)
        keyed = [n for n in nodes if n.key is not None]
        values = session.run([n.obj.value() for n in keyed]) if keyed else []
        items = [(n.key, v) for n, v in zip(keyed, values)]
        items.append((OBJECT_GRAPH_KEY, np.array(_graph_proto(nodes).SerializeToString(), dtype=object)))
        directory = os.path.dirname(file_prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        write_bundle(file_prefix, items)
        return file_prefix

    def save(self, file_prefix, session=None, options=None):
        """Write file_prefix-<save count> and make it the directory's latest checkpoint; returns its path."""
        session = _session(session)
        counter = self._ensure_counter(session)
        if self._counter_assign is None:
            with get_default_graph().as_default():
                self._counter_assign = counter.assign_add(1)
        number = session.run(self._counter_assign)
        path = self.write("%s-%d" % (file_prefix, number), session=session, options=options)
        update_checkpoint_state(os.path.dirname(path) or ".", path, [path], save_relative_paths=True)
        return path

    def restore(self, save_path, options=None):
        """A status whose run_restore_ops(session) assigns the saved values (save_path None: initialize)."""
        del options
        if save_path is None:
            return InitializationOnlyStatus(self)
        return CheckpointLoadStatus(self, save_path)


class InitializationOnlyStatus:
    """restore(None): nothing to load; initialize_or_restore runs the variables' initializers."""

    def __init__(self, root):
        self._root = root

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_nontrivial_match = assert_consumed

    def run_restore_ops(self, session=None):
        """Nothing to restore."""

    def initialize_or_restore(self, session=None):
        """Run the initializers of every variable the checkpoint tracks."""
        session = _session(session)
        self._root._ensure_counter(session)
        inits = [n.obj.initializer for n in _build_graph(self._root) if n.key is not None]
        if inits:
            session.run(inits)

    def expect_partial(self):
        return self


class CheckpointLoadStatus:
    """Matches the checkpoint's object graph to the Python objects; run_restore_ops assigns the values."""

    def __init__(self, root, save_path):
        if not os.path.exists(save_path + ".index"):
            raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                       "matching files for %s" % save_path)
        self._root, self._path = root, save_path
        self._reader = BundleReader(save_path)
        if OBJECT_GRAPH_KEY not in self._reader.names():
            raise ValueError("The checkpoint at %s has no object graph (%s): it was written by tf.train.Saver; "
                             "restore it with tf.train.Saver instead." % (save_path, OBJECT_GRAPH_KEY))
        blob = self._reader.read([OBJECT_GRAPH_KEY])[OBJECT_GRAPH_KEY]
        self._graph = trackable_object_graph_pb2.TrackableObjectGraph()
        self._graph.ParseFromString(np.asarray(blob, dtype=object).item())
        root._ensure_counter(None)
        self._match()

    def _match(self):
        """{checkpoint node id: Python node} by local names from the roots, then the slot variables."""
        nodes = _build_graph(self._root)
        self._py_nodes = nodes
        self._matched = {0: nodes[0]}
        queue = collections.deque([0])
        while queue:
            ck_id = queue.popleft()
            py = self._matched[ck_id]
            py_children = {name: nodes[i] for name, i in py.children}
            for ref in self._graph.nodes[ck_id].children:
                child = py_children.get(ref.local_name)
                if child is not None and ref.node_id not in self._matched:
                    self._matched[ref.node_id] = child
                    queue.append(ref.node_id)
        for ck_id, py in list(self._matched.items()):
            if not isinstance(py.obj, Optimizer):
                continue
            for ref in self._graph.nodes[ck_id].slot_variables:
                var_node = self._matched.get(ref.original_variable_node_id)
                if var_node is None:
                    continue
                slot = py.obj._slots.get(ref.slot_name, {}).get(var_node.obj)
                if slot is not None:
                    self._matched[ref.slot_variable_node_id] = _Node(slot, "")

    def _assignments(self):
        out = []
        for ck_id, py in self._matched.items():
            attrs = self._graph.nodes[ck_id].attributes
            if attrs and isinstance(py.obj, Variable):
                out.append((py.obj, attrs[0].checkpoint_key))
        return out

    def run_restore_ops(self, session=None):
        """Assign every matched variable its saved value (through its initializer: no new ops)."""
        session = _session(session)
        pairs = self._assignments()
        values = self._reader.read([k for _, k in pairs])
        for var, key in pairs:
            var.load(np.array(values[key]), session)

    def initialize_or_restore(self, session=None):
        """Initialize the tracked variables the checkpoint does not hold, then restore the others."""
        session = _session(session)
        restored = {id(v) for v, _ in self._assignments()}
        inits = [n.obj.initializer for n in _build_graph(self._root)
                 if n.key is not None and id(n.obj) not in restored]
        if inits:
            session.run(inits)
        self.run_restore_ops(session)

    def assert_consumed(self):
        """AssertionError unless every saved value found its object and every Python variable a value."""
        for ck_id, node in enumerate(self._graph.nodes):
            if node.attributes and ck_id not in self._matched:
                raise AssertionError("Unresolved object in checkpoint %s: %s" % (self._path, node))
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """AssertionError unless every variable tracked from the root has a value in the checkpoint."""
        restored = {id(v) for v, _ in self._assignments()}
        for n in _build_graph(self._root):
            if n.key is not None and id(n.obj) not in restored:
                raise AssertionError("Object not assigned a value from checkpoint: %s (%s)" % (n.path, n.obj.name))
        return self

    def assert_nontrivial_match(self):
        """AssertionError when nothing but the root (and the save counter) matched."""
        if not any(isinstance(py.obj, Variable) and py.obj is not self._root._save_counter
                   for py in self._matched.values()):
            raise AssertionError("Nothing except the root object matched a checkpointed value.")
        return self

    def expect_partial(self):
        """Silence the warnings about unmatched values (lens does not warn)."""
        return self


# ---- CheckpointManager ---------------------------------------------------------------------------------------
class CheckpointManager:
    """Numbered saves of one Checkpoint in a directory, keeping the newest max_to_keep (and one every
    keep_checkpoint_every_n_hours), with the `checkpoint` state file tf.train.latest_checkpoint reads."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None, checkpoint_name="ckpt",
                 step_counter=None, checkpoint_interval=None, init_fn=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got %d." % max_to_keep)
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = directory
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(directory, checkpoint_name)
        self._step_counter, self._checkpoint_interval, self._init_fn = step_counter, checkpoint_interval, init_fn
        self._last_checkpoint_step = None
        self._maybe_delete = collections.OrderedDict()
        self._latest_checkpoint = None
        self._last_preserved = time.time()
        state = get_checkpoint_state(directory)
        if state is not None:
            paths = list(state.all_model_checkpoint_paths)
            stamps = list(state.all_model_checkpoint_timestamps) or [time.time()] * len(paths)
            for p, t in zip(paths, stamps):
                self._maybe_delete[p] = t
            self._latest_checkpoint = state.model_checkpoint_path
            if state.last_preserved_timestamp:
                self._last_preserved = state.last_preserved_timestamp

    directory = property(lambda self: self._directory, doc="Where the checkpoints go.")
    checkpoint = property(lambda self: self._checkpoint, doc="The managed Checkpoint.")
    checkpoint_interval = property(lambda self: self._checkpoint_interval, doc="Steps between saves (or None).")
    latest_checkpoint = property(lambda self: self._latest_checkpoint, doc="The newest checkpoint's prefix.")
    checkpoints = property(lambda self: list(self._maybe_delete), doc="The kept checkpoints, oldest first.")

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Write <directory>/<name>-<number> (the save count by default); delete the ones past max_to_keep."""
        session = _session(None)
        if self._checkpoint_interval is not None and check_interval:
            step = int(session.run(self._step_counter))
            if self._last_checkpoint_step is not None and step < self._last_checkpoint_step + self._checkpoint_interval:
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint._ensure_counter(session)
        if self._checkpoint._counter_assign is None:
            with get_default_graph().as_default():
                self._checkpoint._counter_assign = counter.assign_add(1)
        count = session.run(self._checkpoint._counter_assign)
        if checkpoint_number is None:
            checkpoint_number = count
        elif not isinstance(checkpoint_number, (int, np.integer)):
            checkpoint_number = session.run(checkpoint_number)
        path = self._checkpoint.write("%s-%d" % (self._prefix, int(checkpoint_number)), session=session,
                                      options=options)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        self._sweep()
        update_checkpoint_state(self._directory, path, list(self._maybe_delete),
                                all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
                                last_preserved_timestamp=self._last_preserved, save_relative_paths=True)
        return path

    def _sweep(self):
        if self._max_to_keep is None:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if self._keep_hours and stamp - self._keep_hours * 3600 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            for f in [path + ".index"] + glob.glob(glob.escape(path) + ".data-?????-of-?????"):
                if os.path.exists(f):
                    os.remove(f)

    def restore_or_initialize(self):
        """Restore the latest checkpoint (returning its path) or run init_fn (returning None)."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint).run_restore_ops()
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
