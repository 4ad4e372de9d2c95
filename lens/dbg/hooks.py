"""SessionRunHooks for MonitoredSession/Estimator: LocalCLIDebugHook and DumpingDebugHook.

They follow TF1's SessionRunHook protocol (begin / before_run / after_run). A hook can only
change a run through the RunOptions it returns, so the watches travel in
RunOptions.debug_options and the engine runs them via `debug_utils.run_with_debug_options`.
"""

import os
import shutil
import threading
import time

from lens.dbg import debug_utils, dump as dump_module
from lens.dbg.dump import DumpWriter
from lens.dbg.framework import write_run_files
from lens.training.hooks import SessionRunArgs
from lens.dbg.patterns import compile_regex
from lens.dbg.watch import FilterSink, WatchOptions, as_watch_options


def _session_run_args(options):
    return SessionRunArgs(fetches=None, feed_dict=None, options=options)


def _run_options(graph, url, watch_options):
    from lens.proto import config_pb2
    options = config_pb2.RunOptions()
    debug_utils.watch_graph(
        options, graph, debug_ops=watch_options.debug_ops, debug_urls=[url],
        node_name_regex_allowlist=watch_options.node_name_regex_allowlist,
        op_type_regex_allowlist=watch_options.op_type_regex_allowlist,
        tensor_dtype_regex_allowlist=watch_options.tensor_dtype_regex_allowlist,
        tolerate_debug_op_creation_failures=watch_options.tolerate_debug_op_creation_failures)
    return options


class _HookSessionView:
    """What SessionCLI needs from its owner: graph and run counter."""

    def __init__(self):
        self.graph = None
        self.run_call_count = 0


class DumpingDebugHook:
    """Dumps every run of a MonitoredSession to `<session_root>/run_<µs>_<n>/`."""

    def __init__(self, session_root, watch_fn=None, thread_name_filter=None):
        self._session_root = session_root
        self._watch_fn = watch_fn
        self._thread_filter = compile_regex(thread_name_filter, "thread_name_filter") \
            if thread_name_filter else None
        self._count = 0
        self._graph_cache = {}

    def begin(self):
        """Reset the disk budget counter, as tfdbg does on the first run."""
        os.makedirs(self._session_root, exist_ok=True)
        dump_module.reset_disk_byte_usage()

    def after_create_session(self, session, coord):
        """Nothing to do."""

    def before_run(self, run_context):
        """Return RunOptions watching the graph, writing to a fresh run directory."""
        if self._thread_filter and not self._thread_filter.match(
                threading.current_thread().name):
            return None
        fetches = run_context.original_args.fetches
        feed_dict = run_context.original_args.feed_dict
        self._count += 1
        run_dir = os.path.join(self._session_root, "run_%d_%d" % (int(time.time() * 1e6),
                                                                 self._count - 1))
        write_run_files(DumpWriter(run_dir), run_context.session, fetches, feed_dict,
                        self._count, self._graph_cache)
        watch_options = as_watch_options(self._watch_fn(fetches, feed_dict)) \
            if self._watch_fn else WatchOptions()
        return _session_run_args(_run_options(run_context.session.graph, "file://" + run_dir,
                                              watch_options))

    def after_run(self, run_context, run_values):
        """Nothing to do: the dumps are on disk."""

    def end(self, session):
        """Nothing to do."""


class LocalCLIDebugHook:
    """The interactive debugger for MonitoredSession: run-start/run-end screens per run."""

    def __init__(self, ui_type="curses", dump_root=None, thread_name_filter=None,
                 config_file_path=None):
        from lens.dbg.session_cli import SessionCLI
        import tempfile
        self._view = _HookSessionView()
        self._cli = SessionCLI(self._view, ui_type=ui_type, config_path=config_file_path)
        self._dump_root = dump_root or os.path.join(tempfile.gettempdir(),
                                                    "tfdbg_%s" % os.urandom(4).hex())
        self._thread_filter = compile_regex(thread_name_filter, "thread_name_filter") \
            if thread_name_filter else None
        self._pending = None
        self._mode = None
        self._graph_cache = {}
        self._sink = None
        self._snapshot_pool = {}  # variable snapshot buffers reused by `run -f` runs

    def add_tensor_filter(self, filter_name, tensor_filter):
        """Register a filter for `run -f` / `lt -f`."""
        self._cli.filters.add(filter_name, tensor_filter)

    def begin(self):
        """Nothing to do before the session exists."""

    def after_create_session(self, session, coord):
        """Nothing to do."""

    def before_run(self, run_context):
        """Show run-start if needed; return RunOptions watching the graph for a debug run."""
        if self._thread_filter and not self._thread_filter.match(
                threading.current_thread().name):
            self._mode = None
            return None
        session = run_context.session
        self._view.graph = session.graph
        self._view.run_call_count += 1
        fetches = run_context.original_args.fetches
        feed_dict = run_context.original_args.feed_dict
        if self._pending is None:
            self._pending = self._cli.run_start(fetches, feed_dict)
        args = self._pending
        self._mode = None
        if args.times > 1:
            args.times -= 1
            return None
        if args.no_debug:
            self._pending = None
            return None
        watch_options = WatchOptions(
            node_name_regex_allowlist=args.node_name_filter or None,
            op_type_regex_allowlist=args.op_type_filter or None,
            tensor_dtype_regex_allowlist=args.tensor_dtype_filter or None)
        self._run_args = (session, fetches, feed_dict)
        if args.till_filter_pass:
            filters = self._cli.filters
            exclude = args.filter_exclude_node_names
            self._sink = FilterSink(filters.get(args.till_filter_pass),
                                    lambda node: filters.is_allowed(node, exclude),
                                    allow_key=(tuple(filters.allowed_nodes), exclude),
                                    pool=self._snapshot_pool)
            key = "lens_hook_%d" % id(self)
            debug_utils.register_memory_sink(key, self._sink)
            self._mode = "filter"
            return _session_run_args(_run_options(session.graph, "memcbk://" + key,
                                                  watch_options))
        self._mode = "debug"
        write_run_files(DumpWriter(self._dump_root), session, fetches, feed_dict,
                        self._view.run_call_count, self._graph_cache)
        return _session_run_args(_run_options(session.graph, "file://" + self._dump_root,
                                              watch_options))

    def after_run(self, run_context, run_values):
        """Show the run-end screen for debugged runs (filter runs: only when tripped)."""
        if self._mode is None:
            return
        session, fetches, feed_dict = self._run_args
        try:
            if self._mode == "filter":
                if not self._sink.tripped:
                    return
                write_run_files(DumpWriter(self._dump_root), session, fetches, feed_dict,
                                self._view.run_call_count, self._graph_cache)
                self._sink.write(self._dump_root)
                self._pending = self._cli.run_end(
                    self._dump_root, fetches, feed_dict,
                    tensor_filter=self._pending.till_filter_pass,
                    exclude=self._pending.filter_exclude_node_names)
            else:
                self._pending = self._cli.run_end(self._dump_root, fetches, feed_dict)
        finally:
            shutil.rmtree(self._dump_root, ignore_errors=True)

    def end(self, session):
        """Nothing to do."""
