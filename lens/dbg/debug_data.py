"""Reading a dump directory: `DebugTensorDatum` and `DebugDumpDir` with tfdbg's API."""

import collections
import json
import os
import warnings

from lens.dbg import device_names
from lens.dbg.debug_graphs import DeviceGraph, GraphQueries, parse_node_or_tensor_name
from lens.dbg.dump import (CORE_METADATA_PREFIX, FEED_KEYS_INFO_FILE, FETCHES_INFO_FILE,
                           GRAPH_PREFIX)
from lens.dbg.filters import InconvertibleTensorProto, has_inf_or_nan
from lens.dbg.patterns import compile_regex

__all__ = ["DebugDumpDir", "DebugTensorDatum", "InconvertibleTensorProto",
           "WatchKeyDoesNotExistInDebugDumpDirError", "has_inf_or_nan",
           "load_tensor_from_event_file", "parse_node_or_tensor_name",
           "device_name_to_device_path", "device_path_to_device_name"]

device_name_to_device_path = device_names.device_to_dir
device_path_to_device_name = device_names.dir_to_device
CoreMetadata = collections.namedtuple("CoreMetadata", [
    "global_step", "session_run_index", "executor_step_index", "input_names",
    "output_names", "target_nodes"])


class WatchKeyDoesNotExistInDebugDumpDirError(ValueError):
    """A node:slot:debug_op that has no dump in this directory."""


def _read_event(path):
    """Parse the single Event a dump file holds; ValueError naming the file if corrupt."""
    from lens.proto import event_pb2
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        raise ValueError("Dump file %s is empty (was the run interrupted while writing?)" % path)
    try:
        return event_pb2.Event.FromString(data)
    except Exception as exc:  # protobuf raises DecodeError; any failure means corruption
        raise ValueError("Dump file %s is corrupt and cannot be parsed as an Event: %s"
                         % (path, exc)) from None


def load_tensor_from_event_file(path):
    """The ndarray in a dump file, or an InconvertibleTensorProto."""
    from lens.proto import tensor_util
    event = _read_event(path)
    if not event.summary.value:
        raise ValueError("Dump file %s holds no tensor (its Event has no summary value)" % path)
    proto = event.summary.value[0].tensor
    if proto.tensor_shape.unknown_rank:  # how the writer marks an uninitialized tensor
        return InconvertibleTensorProto(proto, initialized=False)
    try:
        return tensor_util.make_ndarray(proto)
    except Exception:  # unsupported dtypes stay viewable as proto text
        return InconvertibleTensorProto(proto)


class DebugTensorDatum:
    """One dump file: device, node, slot, debug op and timestamp parsed from its path."""

    def __init__(self, dump_root, debug_dump_rel_path):
        parts = debug_dump_rel_path.replace(os.sep, "/").split("/")
        base = parts[-1]
        fields = base.split("_")
        if len(fields) < 4 or not parts[0].startswith(device_names.DEVICE_DIR_PREFIX):
            raise ValueError("Dump file path does not conform to the naming pattern "
                             "<device dir>/<node>_<slot>_<debug op>_<timestamp>: %s"
                             % debug_dump_rel_path)
        self._extended_timestamp = fields[-1]
        try:
            self._timestamp = int(fields[-1].split("-")[0])
            self._output_slot = int(fields[-3])
        except ValueError:
            raise ValueError("Dump file path does not conform to the naming pattern "
                             "<node>_<slot>_<debug op>_<timestamp>: %s"
                             % debug_dump_rel_path) from None
        self._debug_op = fields[-2]
        self._node_name = "/".join(parts[1:-1] + ["_".join(fields[:-3])])
        self._device_name = device_names.dir_to_device(parts[0])
        self._dump_root = dump_root
        self._file_path = os.path.join(dump_root, debug_dump_rel_path)
        self._dump_size_bytes = None

    def __str__(self):
        return "{DebugTensorDatum (%s) %s:%d @ %s @ %d}" % (
            self._device_name, self._node_name, self._output_slot, self._debug_op,
            self._timestamp)

    __repr__ = __str__

    def get_tensor(self):
        """The dumped value (ndarray or InconvertibleTensorProto)."""
        return load_tensor_from_event_file(self._file_path)

    dump_root = property(lambda self: self._dump_root)
    device_name = property(lambda self: self._device_name)
    node_name = property(lambda self: self._node_name)
    output_slot = property(lambda self: self._output_slot)
    debug_op = property(lambda self: self._debug_op)
    timestamp = property(lambda self: self._timestamp)
    extended_timestamp = property(lambda self: self._extended_timestamp)
    file_path = property(lambda self: self._file_path)
    tensor_name = property(lambda self: "%s:%d" % (self._node_name, self._output_slot))
    watch_key = property(lambda self: "%s:%d:%s" % (self._node_name, self._output_slot,
                                                    self._debug_op))

    @property
    def dump_size_bytes(self):
        """Size of the dump file in bytes (None if it has gone)."""
        if self._dump_size_bytes is None:
            try:
                self._dump_size_bytes = os.stat(self._file_path).st_size
            except OSError:
                return None
        return self._dump_size_bytes


def _sort_key(datum):
    """Time order; '-N' suffixes of equal timestamps keep their write order."""
    head, _, tail = datum.extended_timestamp.partition("-")
    return (int(head), int(tail or 0))


class DebugDumpDir(GraphQueries):
    """All dumps of one debugged run, with graph and metadata; loads what it can."""

    def __init__(self, dump_root, partition_graphs=None, validate=True):
        if not os.path.isdir(dump_root):
            raise IOError("Dump root directory %s does not exist or is not a directory"
                          % dump_root)
        self.dump_root = dump_root
        self.load_errors = []  # (path, message) of every file that could not be loaded
        self._python_graph = None
        self._device_graphs = {}
        self._core_metadata = []
        self._run_fetches_info = []
        self._run_feed_keys_info = []
        data = []
        for entry in sorted(os.listdir(dump_root)):
            path = os.path.join(dump_root, entry)
            if entry.startswith(device_names.DEVICE_DIR_PREFIX) and os.path.isdir(path):
                data.extend(self._load_device(entry))
            elif entry.startswith(CORE_METADATA_PREFIX):
                self._load_core_metadata(path)
            elif entry.startswith(FETCHES_INFO_FILE):
                self._run_fetches_info.extend(self._load_log_message(path))
            elif entry.startswith(FEED_KEYS_INFO_FILE):
                self._run_feed_keys_info.extend(self._load_log_message(path))
        data.sort(key=_sort_key)
        if partition_graphs and not self._device_graphs:
            warnings.warn("No _tfdbg_graph_* files in %s; using the partition graphs passed in"
                          % dump_root)
            for graph_def in partition_graphs:
                device = graph_def.node[0].device if graph_def.node else ""
                device = device_names.canonical_device(device)
                self._device_graphs[device] = DeviceGraph(device, graph_def)
        self._t0 = data[0].timestamp if data else None
        self._index(data)
        if validate and self._device_graphs:
            self._validate()
        for path, message in self.load_errors:
            warnings.warn("tfdbg dump dir: skipped %s: %s" % (path, message))

    def _load_device(self, device_dir):
        """Dump data of one device folder; graph files loaded on the way."""
        device = device_names.dir_to_device(device_dir)
        root = os.path.join(self.dump_root, device_dir)
        out = []
        for folder, _, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                if name.startswith(GRAPH_PREFIX):
                    self._load_graph(device, path)
                    continue
                rel = os.path.relpath(path, self.dump_root)
                try:
                    out.append(DebugTensorDatum(self.dump_root, rel))
                except ValueError as exc:
                    self.load_errors.append((path, str(exc)))
        return out

    def _load_graph(self, device, path):
        from lens.proto import graph_pb2
        try:
            graph_def = graph_pb2.GraphDef.FromString(_read_event(path).graph_def)
        except Exception as exc:
            self.load_errors.append((path, "partition graph unreadable: %s" % exc))
            return
        self._device_graphs[device] = DeviceGraph(device, graph_def)

    def _load_core_metadata(self, path):
        try:
            meta = json.loads(_read_event(path).log_message.message)
            self._core_metadata.append(CoreMetadata(**{k: meta.get(k) for k in
                                                       CoreMetadata._fields}))
        except (ValueError, TypeError) as exc:
            self.load_errors.append((path, "core metadata unreadable: %s" % exc))

    def _load_log_message(self, path):
        try:
            return [_read_event(path).log_message.message]
        except ValueError as exc:
            self.load_errors.append((path, str(exc)))
            return []

    def _validate(self):
        """Dumps of nodes missing from the partition graphs become load errors, not crashes."""
        kept = []
        for datum in self._dump_tensor_data:
            graph = self._device_graphs.get(datum.device_name)
            if graph is not None and datum.node_name not in graph.nodes:
                self.load_errors.append((datum.file_path, "Node name '%s' is not found in "
                                         "partition graphs of device %s." % (
                                             datum.node_name, datum.device_name)))
            else:
                kept.append(datum)
        if len(kept) != len(self._dump_tensor_data):
            self._index(kept)

    def _index(self, data):
        """Build the watch-key and node lookups over `data` (time-sorted)."""
        self._dump_tensor_data = data
        self._watch_key_to_data = collections.defaultdict(list)
        self._node_to_data = collections.defaultdict(list)
        for datum in data:
            self._watch_key_to_data[datum.watch_key].append(datum)
            self._node_to_data[datum.node_name].append(datum)

    # --- run-level properties -------------------------------------------------------------
    dumped_tensor_data = property(lambda self: self._dump_tensor_data)
    t0 = property(lambda self: self._t0)
    size = property(lambda self: len(self._dump_tensor_data))
    run_fetches_info = property(lambda self: self._run_fetches_info[0]
                                if len(self._run_fetches_info) == 1
                                else self._run_fetches_info)
    run_feed_keys_info = property(lambda self: self._run_feed_keys_info[0]
                                  if len(self._run_feed_keys_info) == 1
                                  else self._run_feed_keys_info)
    python_graph = property(lambda self: self._python_graph)

    @property
    def core_metadata(self):
        """The run's CoreMetadata (a list when several were written)."""
        meta = self._core_metadata
        return meta[0] if len(meta) == 1 else meta

    def set_python_graph(self, python_graph):
        """Attach the Python graph so tracebacks (`ni -t`, `ps`, `ls`) are available."""
        self._python_graph = python_graph

    def node_traceback(self, element_name):
        """Creation traceback of a node or tensor: list of (file, line, function, text)."""
        if self._python_graph is None:
            raise LookupError("Python graph is not available for traceback lookup")
        node_name = parse_node_or_tensor_name(element_name)[0]
        try:
            op = self._python_graph.get_operation_by_name(node_name)
        except (KeyError, ValueError):
            raise KeyError("Cannot find node %r in Python graph" % node_name) from None
        return list(op.traceback)

    # --- dump queries -----------------------------------------------------------------
    def debug_watch_keys(self, node_name, device_name=None):
        """Watch keys dumped for a node."""
        keys = []
        for datum in self._node_to_data.get(node_name, ()):
            if (device_name is None or datum.device_name == device_name) \
                    and datum.watch_key not in keys:
                keys.append(datum.watch_key)
        return keys

    def watch_key_to_data(self, debug_watch_key, device_name=None):
        """DebugTensorDatum list of one watch key, in time order."""
        return [d for d in self._watch_key_to_data.get(debug_watch_key, ())
                if device_name is None or d.device_name == device_name]

    def find(self, predicate, first_n=0, device_name=None, exclude_node_names=None):
        """Data whose (datum, tensor) passes `predicate`, in time order."""
        exclude = compile_regex(exclude_node_names, "exclude_node_names") \
            if exclude_node_names else None
        hits = []
        for datum in self._dump_tensor_data:
            if device_name is not None and datum.device_name != device_name:
                continue
            if exclude is not None and exclude.match(datum.node_name):
                continue
            try:
                tensor = datum.get_tensor()
            except ValueError as exc:
                self._note_error(datum.file_path, str(exc))
                continue
            if predicate(datum, tensor):
                hits.append(datum)
                if first_n > 0 and len(hits) >= first_n:
                    break
        return hits

    def _note_error(self, path, message):
        if (path, message) not in self.load_errors:
            self.load_errors.append((path, message))

    def _data_for(self, node_name, output_slot, debug_op, device_name=None):
        key = "%s:%d:%s" % (node_name, output_slot, debug_op)
        data = self.watch_key_to_data(key, device_name)
        if not data:
            raise WatchKeyDoesNotExistInDebugDumpDirError(
                "Watch key \"%s\" does not exist in the debug dump of device %s"
                % (key, device_name or "(any)"))
        return data

    def get_tensor_file_paths(self, node_name, output_slot, debug_op, device_name=None):
        """Dump file paths of one watch key."""
        return [d.file_path for d in self._data_for(node_name, output_slot, debug_op,
                                                    device_name)]

    def get_tensors(self, node_name, output_slot, debug_op, device_name=None):
        """Dumped values of one watch key, one per execution."""
        return [d.get_tensor() for d in self._data_for(node_name, output_slot, debug_op,
                                                       device_name)]

    def get_rel_timestamps(self, node_name, output_slot, debug_op, device_name=None):
        """Timestamps (µs) relative to t0, one per execution."""
        return [d.timestamp - self._t0 for d in self._data_for(node_name, output_slot,
                                                               debug_op, device_name)]

    def get_dump_sizes_bytes(self, node_name, output_slot, debug_op, device_name=None):
        """Dump file sizes, one per execution."""
        return [d.dump_size_bytes for d in self._data_for(node_name, output_slot, debug_op,
                                                          device_name)]

    def nodes_with_dumps(self):
        """Names of nodes that have at least one dump."""
        return list(self._node_to_data)
