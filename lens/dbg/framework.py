"""Base wrapper session: behaves as the wrapped Session and runs calls under a Watch."""

import threading
import zlib

from lens.dbg import device_names
from lens.dbg.patterns import compile_regex
from lens.dbg.run_screens import element_name, flatten_fetches
from lens.dbg.watch import Watch, close_sink
from lens.client.session import SessionContext
from lens.framework.default_session import _default_session_stack


_MAX_CACHED_RUN_GRAPHS = 32  # distinct (fetches, feeds) signatures kept per wrapper


def _run_op_names(graph, fetches, feed_dict):
    """Names of the ops a run executes plus the fed ops (what tfdbg's partition graphs
    hold), or None when a fetch or feed can't be resolved by name (then: the whole graph)."""
    from lens.framework.graph import Operation
    try:
        targets = [graph.as_graph_element(n) for n in flatten_fetches(fetches)]
        fed = {graph.as_graph_element(element_name(k)) for k in (feed_dict or ())}
    except Exception:  # noqa: BLE001 - structured fetches/feeds: fall back to every node
        return None
    names, stack = set(), []
    for target in targets:
        if isinstance(target, Operation):
            stack.append(target)
        elif target in fed:
            names.add(target.op.name)
        else:
            stack.append(target.op)
    while stack:
        op = stack.pop()
        if op.name in names:
            continue
        names.add(op.name)
        for tensor in op.inputs:
            if tensor in fed:
                names.add(tensor.op.name)  # the fed node stays, its producers don't run
            else:
                stack.append(tensor.op)
        stack.extend(op.control_inputs)
    return names


def partition_graph_defs(graph, cache, fetches=None, feed_dict=None):
    """{device: (serialized GraphDef, digest)} of the nodes this run executes, split by
    device; cached per graph version and fetch/feed signature (one serialization)."""
    ops = graph.get_operations()
    # TF1 graphs only grow, so the op count is a version.
    key = (id(graph), len(ops), tuple(flatten_fetches(fetches)),
           tuple(element_name(k) for k in (feed_dict or ())))
    graphs = cache.get(key)
    if graphs is not None:
        return graphs
    from lens.proto import graph_pb2
    keep = _run_op_names(graph, fetches, feed_dict) if fetches is not None else None
    full = graph.as_graph_def()
    by_device = {}
    for node in full.node:
        if keep is not None and node.name not in keep:
            continue
        device = device_names.canonical_device(node.device)
        if device not in by_device:
            by_device[device] = graph_pb2.GraphDef()
            by_device[device].versions.CopyFrom(full.versions)
        copy = by_device[device].node.add()
        copy.CopyFrom(node)
        copy.device = device
    graphs = {}
    for device, graph_def in by_device.items():
        data = graph_def.SerializeToString()
        graphs[device] = (data, zlib.crc32(data) | (zlib.adler32(data) << 32))
    if len(cache) >= _MAX_CACHED_RUN_GRAPHS:
        cache.clear()
    cache[key] = graphs
    return graphs


def write_run_files(writer, sess, fetches, feed_dict, run_index, cache):
    """Graphs, core metadata, fetches and feed-keys files of one debugged run."""
    for device, (data, digest) in partition_graph_defs(sess.graph, cache, fetches,
                                                        feed_dict).items():
        writer.write_graph_bytes(data, device, digest)
    names = flatten_fetches(fetches)
    writer.write_core_metadata(
        session_run_index=run_index, executor_step_index=run_index,
        input_names=[element_name(k) for k in (feed_dict or ())],
        output_names=[n for n in names if ":" in n],
        target_nodes=[n for n in names if ":" not in n])
    writer.write_fetches_info(fetches)
    writer.write_feed_keys_info(feed_dict)


class BaseDebugWrapperSession(SessionContext):
    """Wraps a lens Session; every call but `run` is delegated unchanged."""

    def __init__(self, sess, thread_name_filter=None):
        if not hasattr(sess, "_run_watched"):
            raise TypeError("lens.dbg wrappers need a lens Session (with the engine's watch "
                            "hook); got %s. For MonitoredSession use LocalCLIDebugHook or "
                            "DumpingDebugHook." % type(sess).__name__)
        self._sess = sess
        self._thread_name_filter = compile_regex(thread_name_filter, "thread_name_filter") \
            if thread_name_filter else None
        self._run_call_count = 0
        self._graph_cache = {}
        self._lock = threading.Lock()

    # --- Session behaviour --------------------------------------------------------------
    @property
    def graph(self):
        """The wrapped session's graph."""
        return self._sess.graph

    @property
    def graph_def(self):
        """The wrapped session's GraphDef."""
        return self._sess.graph.as_graph_def()

    @property
    def sess_str(self):
        """The wrapped session's target string."""
        return getattr(self._sess, "sess_str", "")

    @property
    def session(self):
        """The wrapped session."""
        return self._sess

    @property
    def run_call_count(self):
        """Number of run() calls so far (1-based after the first)."""
        return self._run_call_count

    def close(self):
        """Close the wrapped session."""
        self._sess.close()

    def as_default(self):
        """Make this wrapper the default session (context manager), so eval() debugs too."""
        return _default_session_stack.get_controller(self)

    def __getattr__(self, name):
        # Anything not debugger-specific (list_devices, reset, ...) is the session's own.
        if name.startswith("__") or name == "_sess":
            raise AttributeError(name)
        return getattr(self._sess, name)

    def partial_run_setup(self, fetches, feeds=None):
        """Not supported under the debugger, as in tfdbg."""
        raise NotImplementedError("partial_run_setup is not implemented for debug-wrapper "
                                  "sessions.")

    def partial_run(self, handle, fetches, feed_dict=None):
        """Not supported under the debugger, as in tfdbg."""
        raise NotImplementedError("partial_run is not implemented for debug-wrapper "
                                  "sessions.")

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A callable that goes through this wrapper's run()."""
        feed_list = list(feed_list or [])

        def call(*args, **kwargs):
            feed = dict(zip(feed_list, args)) if feed_list else None
            return self.run(fetches, feed_dict=feed, options=kwargs.get("options"),
                            run_metadata=kwargs.get("run_metadata"))
        return call

    def should_stop(self):
        """MonitoredSession compatibility."""
        stop = getattr(self._sess, "should_stop", None)
        return stop() if stop else False

    # --- running --------------------------------------------------------------------------
    def _thread_is_debugged(self):
        if self._thread_name_filter is None:
            return True
        return bool(self._thread_name_filter.match(threading.current_thread().name))

    def _plain_run(self, fetches, feed_dict, options, run_metadata):
        return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                              run_metadata=run_metadata)

    def _watched_run(self, fetches, feed_dict, options, run_metadata, watch_options, sink):
        watch = Watch(watch_options, sink)
        failed = True
        try:
            result = self._sess._run_watched(fetches, feed_dict, options, run_metadata, watch)
            failed = False
            return result
        finally:
            watch.release()
            close_sink(sink, failed)  # every dump is on disk before run() returns
