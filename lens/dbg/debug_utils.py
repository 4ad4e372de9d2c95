"""tfdbg's debug_utils: put tensor watches into RunOptions.debug_options, and turn them
back into a Watch the engine can run with (`run_with_debug_options`)."""

import os
import threading

from lens.client.session import register_debug_options_runner
from lens.dbg import dump as dump_module
from lens.dbg.framework import partition_graph_defs
from lens.dbg.patterns import compile_regex
from lens.dbg.watch import DiskSink, Watch, WatchOptions, close_sink

_memory_sinks = {}  # memcbk://<key> -> sink (in-process callback URLs, as tfdbg's memcbk)
_lock = threading.Lock()


def register_memory_sink(key, sink):
    """Make `memcbk://<key>` deliver watched values to `sink.add(...)`."""
    with _lock:
        _memory_sinks[key] = sink


def unregister_memory_sink(key):
    """Forget a memcbk:// key."""
    with _lock:
        _memory_sinks.pop(key, None)


def _as_list(value):
    return [value] if isinstance(value, str) else list(value or [])


def add_debug_tensor_watch(run_options, node_name, output_slot=0,
                           debug_ops="DebugIdentity", debug_urls=None,
                           tolerate_debug_op_creation_failures=False, global_step=-1):
    """Watch one (node, slot) in `run_options`."""
    opts = run_options.debug_options
    opts.global_step = global_step
    watch = opts.debug_tensor_watch_opts.add()
    watch.node_name = node_name
    watch.output_slot = output_slot
    watch.debug_ops.extend(_as_list(debug_ops))
    watch.debug_urls.extend(_as_list(debug_urls))
    watch.tolerate_debug_op_creation_failures = tolerate_debug_op_creation_failures


def watch_graph(run_options, graph, debug_ops="DebugIdentity", debug_urls=None,
                node_name_regex_allowlist=None, op_type_regex_allowlist=None,
                tensor_dtype_regex_allowlist=None,
                tolerate_debug_op_creation_failures=False, global_step=-1,
                reset_disk_byte_usage=False):
    """One watch per output slot of every op passing all given regexes (re.match, AND)."""
    if not _as_list(debug_ops):
        raise ValueError("debug_ops must not be empty")
    if not _as_list(debug_urls):
        raise ValueError("debug_urls must not be empty, e.g. ['file:///tmp/dump']")
    node_re, type_re, dtype_re = [compile_regex(p, name) if p else None for p, name in (
        (node_name_regex_allowlist, "node_name_regex_allowlist"),
        (op_type_regex_allowlist, "op_type_regex_allowlist"),
        (tensor_dtype_regex_allowlist, "tensor_dtype_regex_allowlist"))]
    run_options.debug_options.reset_disk_byte_usage = reset_disk_byte_usage
    for op in graph.get_operations():
        if (node_re and not node_re.match(op.name)) or (type_re and not type_re.match(op.type)):
            continue
        for slot, tensor in enumerate(op.outputs):
            if dtype_re and not dtype_re.match(tensor.dtype.name):
                continue
            add_debug_tensor_watch(run_options, op.name, slot, debug_ops, debug_urls,
                                   tolerate_debug_op_creation_failures, global_step)


def watch_graph_with_denylists(run_options, graph, debug_ops="DebugIdentity",
                               debug_urls=None, node_name_regex_denylist=None,
                               op_type_regex_denylist=None, tensor_dtype_regex_denylist=None,
                               tolerate_debug_op_creation_failures=False, global_step=-1,
                               reset_disk_byte_usage=False):
    """Like watch_graph, but skipping ops matching any denylist regex (OR)."""
    denies = [compile_regex(p, name) if p else None for p, name in (
        (node_name_regex_denylist, "node_name_regex_denylist"),
        (op_type_regex_denylist, "op_type_regex_denylist"),
        (tensor_dtype_regex_denylist, "tensor_dtype_regex_denylist"))]
    run_options.debug_options.reset_disk_byte_usage = reset_disk_byte_usage
    for op in graph.get_operations():
        if (denies[0] and denies[0].match(op.name)) or (denies[1] and denies[1].match(op.type)):
            continue
        for slot, tensor in enumerate(op.outputs):
            if denies[2] and denies[2].match(tensor.dtype.name):
                continue
            add_debug_tensor_watch(run_options, op.name, slot, debug_ops, debug_urls,
                                   tolerate_debug_op_creation_failures, global_step)


class _OptionsWatch(Watch):
    """A Watch built from explicit (node, slot) watches in RunOptions.debug_options."""

    def __init__(self, debug_options, sink):
        watches = list(debug_options.debug_tensor_watch_opts)
        ops = sorted({op for w in watches for op in w.debug_ops}) or ["DebugIdentity"]
        super().__init__(WatchOptions(debug_ops=ops, tolerate_debug_op_creation_failures=any(
            w.tolerate_debug_op_creation_failures for w in watches)), sink)
        self._slots = {}
        for w in watches:
            self._slots.setdefault(w.node_name, set()).add(w.output_slot)
        self.key = ("debug_options", tuple(sorted((n, tuple(sorted(s)))
                                                  for n, s in self._slots.items())))

    def selects(self, op):
        return bool(op.outputs) and (op.name in self._slots or "*" in self._slots)

    def on_output(self, op, output_slot, value, timestamp_us):
        slots = self._slots.get(op.name) or self._slots.get("*", ())
        if -1 in slots or output_slot in slots:
            super().on_output(op, output_slot, value, timestamp_us)


def watch_from_run_options(run_options):
    """A Watch for RunOptions carrying debug watches, or None when nothing is watched."""
    debug_options = run_options.debug_options if run_options is not None else None
    if debug_options is None or not debug_options.debug_tensor_watch_opts:
        return None
    if debug_options.reset_disk_byte_usage:
        dump_module.reset_disk_byte_usage()
    urls = {u for w in debug_options.debug_tensor_watch_opts for u in w.debug_urls}
    if len(urls) != 1:
        raise ValueError("lens.dbg supports exactly one debug URL per run, got %s"
                         % sorted(urls))
    url = urls.pop()
    if url.startswith("file://"):
        sink = DiskSink(url[len("file://"):])
    elif url.startswith("memcbk://"):
        sink = _memory_sinks.get(url[len("memcbk://"):])
        if sink is None:
            raise ValueError("No in-process debug sink registered for %s" % url)
    else:
        raise ValueError("Unsupported debug URL %r: lens.dbg writes file:// and memcbk:// "
                         "(grpc:// is not supported)" % url)
    return _OptionsWatch(debug_options, sink)


def run_with_debug_options(sess, fetches, feed_dict=None, options=None, run_metadata=None):
    """Session.run honouring RunOptions.debug_options (for the engine and the hooks)."""
    watch = watch_from_run_options(options)
    if watch is None:
        return sess.run(fetches, feed_dict=feed_dict, options=options,
                        run_metadata=run_metadata)
    if isinstance(watch.sink, DiskSink):
        _write_partition_graphs(sess, watch.sink.writer, fetches, feed_dict)
    failed = True
    try:
        result = sess._run_watched(fetches, feed_dict, options, run_metadata, watch)
        failed = False
        return result
    finally:
        close_sink(watch.sink, failed)


_graph_cache = {}  # partition graphs by graph version and fetch/feed signature


def _write_partition_graphs(sess, writer, fetches, feed_dict):
    """The graphs of what this run executes, as the TF runtime writes them into a dump root.

    A hook's fetches are only the caller's; the session also runs the other hooks' fetches
    (a MonitoredSession merges them), so the graphs written here replace any the hook wrote."""
    if len(_graph_cache) > 64:
        _graph_cache.clear()
    graphs = partition_graph_defs(sess.graph, _graph_cache, fetches, feed_dict)
    if os.path.isdir(writer.dump_root):
        for sub in os.listdir(writer.dump_root):
            device_dir = os.path.join(writer.dump_root, sub)
            if os.path.isdir(device_dir):
                for name in os.listdir(device_dir):
                    if name.startswith(dump_module.GRAPH_PREFIX):
                        os.remove(os.path.join(device_dir, name))
    for device, (data, digest) in graphs.items():
        writer.write_graph_bytes(data, device, digest)


register_debug_options_runner(run_with_debug_options)
