"""tfdbg's wrapper sessions: DumpingDebugWrapperSession and LocalCLIDebugWrapperSession."""

import os
import shutil
import sys
import tempfile
import time

from lens.dbg import dump as dump_module
from lens.dbg.framework import BaseDebugWrapperSession, write_run_files
from lens.dbg.session_cli import SessionCLI
from lens.dbg.watch import DiskSink, FilterSink, WatchOptions, as_watch_options
from lens.dbg.dump import DumpWriter

# While `run -f` keeps checking, a status line at most this often (and after the first run).
_PROGRESS_EVERY_S = 10.0


def _check_empty_root(path, what):
    """tfdbg's rule: a dump root must be absent or an empty directory."""
    if os.path.isfile(path):
        raise ValueError("%s path points to a file: %s; pass a new or empty directory"
                         % (what, path))
    if os.path.isdir(path) and os.listdir(path):
        raise ValueError("%s path points to a non-empty directory: %s; pass a new or empty "
                         "directory" % (what, path))


class DumpingDebugWrapperSession(BaseDebugWrapperSession):
    """Dumps every run's watched tensors to `<session_root>/run_<µs>_<n>/`."""

    def __init__(self, sess, session_root, watch_fn=None, thread_name_filter=None,
                 pass_through_operrors=None):
        super().__init__(sess, thread_name_filter)
        _check_empty_root(session_root, "session_root")
        os.makedirs(session_root, exist_ok=True)
        self._session_root = session_root
        self._watch_fn = watch_fn
        self._dump_count = 0
        self.last_run_dir = None
        self.last_run_bytes = 0
        dump_module.reset_disk_byte_usage()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Run and dump the watched tensors of this call."""
        self._run_call_count += 1
        if not self._thread_is_debugged():
            return self._plain_run(fetches, feed_dict, options, run_metadata)
        watch_options = as_watch_options(self._watch_fn(fetches, feed_dict)) \
            if self._watch_fn else WatchOptions()
        run_dir = os.path.join(self._session_root, "run_%d_%d" % (int(time.time() * 1e6),
                                                                 self._dump_count))
        self._dump_count += 1
        sink = DiskSink(run_dir)
        # One writer for the run's metadata files and its dumps: folders made once, one fd each.
        write_run_files(sink.writer, self._sess, fetches, feed_dict, self._run_call_count,
                        self._graph_cache)
        try:
            return self._watched_run(fetches, feed_dict, options, run_metadata, watch_options,
                                     sink)
        finally:
            self.last_run_dir = run_dir
            self.last_run_bytes = sink.writer.bytes_written


class LocalCLIDebugWrapperSession(BaseDebugWrapperSession):
    """The interactive debugger: run-start and run-end screens around Session.run()."""

    def __init__(self, sess, dump_root=None, log_usage=True, ui_type="curses",
                 thread_name_filter=None, config_file_path=False, allowed_inf_nodes=None):
        super().__init__(sess, thread_name_filter)
        del log_usage  # tfdbg pinged a usage server; lens never phones home
        if dump_root is None:
            dump_root = os.path.join(tempfile.gettempdir(), "tfdbg_%s" % os.urandom(4).hex())
        _check_empty_root(dump_root, "dump_root")
        if ui_type not in ("curses", "readline"):
            raise ValueError("Invalid ui_type %r: use 'curses' (full screen) or 'readline'"
                             % ui_type)
        self._dump_root = dump_root
        self._cli = SessionCLI(self, ui_type=ui_type,
                               config_path=None if config_file_path is False
                               else config_file_path)
        if allowed_inf_nodes:
            self._cli.filters.allow_nodes(allowed_inf_nodes)
        self._pending = None  # parsed `run` command applying to upcoming run() calls
        self._filter_runs = 0
        self._progress_at = 0.0  # time.monotonic() of the last `run -f` status line
        self._snapshot_pool = {}  # variable snapshot buffers reused by `run -f` runs

    def add_tensor_filter(self, filter_name, tensor_filter):
        """Register fn(datum, tensor) -> bool under a name usable in `run -f` and `lt -f`."""
        self._cli.filters.add(filter_name, tensor_filter)

    def allow_inf_nodes(self, patterns):
        """Node-name regexes whose infs/NaNs are intentional: no filter trips on them."""
        self._cli.filters.allow_nodes(patterns)

    @property
    def dump_root(self):
        """Directory the current run's dumps go to (deleted after its run-end screen)."""
        return self._dump_root

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """One Session.run() under the debugger's control."""
        self._run_call_count += 1
        if not self._thread_is_debugged():
            return self._plain_run(fetches, feed_dict, options, run_metadata)
        if self._pending is None:
            self._pending = self._cli.run_start(fetches, feed_dict)
        args = self._pending
        if args.times > 1:
            args.times -= 1
            return self._plain_run(fetches, feed_dict, options, run_metadata)
        if args.no_debug:
            self._pending = None  # the run-start screen comes back before the next run
            return self._plain_run(fetches, feed_dict, options, run_metadata)
        if args.profile:
            return self._profile_run(fetches, feed_dict, options, run_metadata)
        watch_options = WatchOptions(
            node_name_regex_allowlist=args.node_name_filter or None,
            op_type_regex_allowlist=args.op_type_filter or None,
            tensor_dtype_regex_allowlist=args.tensor_dtype_filter or None)
        if args.till_filter_pass:
            return self._filter_run(fetches, feed_dict, options, run_metadata, args,
                                    watch_options)
        return self._debug_run(fetches, feed_dict, options, run_metadata, watch_options)

    def _debug_run(self, fetches, feed_dict, options, run_metadata, watch_options):
        writer = DumpWriter(self._dump_root)
        try:
            write_run_files(writer, self._sess, fetches, feed_dict, self._run_call_count,
                            self._graph_cache)
            sink = DiskSink(self._dump_root)
            try:
                result = self._watched_run(fetches, feed_dict, options, run_metadata,
                                           watch_options, sink)
            except Exception as exc:
                if not hasattr(exc, "op"):  # not an OpError: nothing to debug in the CLI
                    raise
                self._pending = self._cli.run_end(self._dump_root, fetches, feed_dict,
                                                  error=exc)
                raise
            self._pending = self._cli.run_end(self._dump_root, fetches, feed_dict,
                                              budget_message=sink.budget_message)
            return result
        finally:
            shutil.rmtree(self._dump_root, ignore_errors=True)

    def _filter_run(self, fetches, feed_dict, options, run_metadata, args, watch_options):
        """`run -f`: check in memory; dump to disk and stop only when the filter trips."""
        filters = self._cli.filters
        exclude = args.filter_exclude_node_names
        sink = FilterSink(filters.get(args.till_filter_pass),
                          lambda node: filters.is_allowed(node, exclude),
                          allow_key=(tuple(filters.allowed_nodes), exclude),
                          pool=self._snapshot_pool)
        result = self._watched_run(fetches, feed_dict, options, run_metadata, watch_options,
                                   sink)
        self._filter_runs += 1
        tripped = sink.tripped
        if not tripped:
            now = time.monotonic()
            if self._filter_runs == 1 or now - self._progress_at >= _PROGRESS_EVERY_S:
                self._progress_at = now
                self._progress("run -f %s: %d run(s) checked, no tensor passed the filter "
                               "yet (run #%d)" % (args.till_filter_pass, self._filter_runs,
                                                  self._run_call_count))
            return result
        self._progress("run -f %s: filter passed at run #%d (%d tensor(s))" % (
            args.till_filter_pass, self._run_call_count, len(tripped)))
        self._filter_runs = 0
        try:
            writer = DumpWriter(self._dump_root)
            write_run_files(writer, self._sess, fetches, feed_dict, self._run_call_count,
                            self._graph_cache)
            sink.write(self._dump_root)
            self._pending = self._cli.run_end(self._dump_root, fetches, feed_dict,
                                              tensor_filter=args.till_filter_pass,
                                              exclude=exclude)
        finally:
            shutil.rmtree(self._dump_root, ignore_errors=True)
        return result

    def _profile_run(self, fetches, feed_dict, options, run_metadata):
        from lens.proto import config_pb2
        options = options or config_pb2.RunOptions()
        options.trace_level = config_pb2.RunOptions.FULL_TRACE
        run_metadata = run_metadata if run_metadata is not None else config_pb2.RunMetadata()
        result = self._plain_run(fetches, feed_dict, options, run_metadata)
        self._pending = self._cli.profile_end(run_metadata, fetches, feed_dict)
        return result

    @staticmethod
    def _progress(text):
        """One whole status line on a terminal's stderr while `run -f` keeps going."""
        # A line left open (or redrawn with \r) would run into the program's own prints
        # between runs, so every status line ends with a newline and they are rationed.
        if sys.stderr.isatty():
            sys.stdout.flush()  # the program's pending output goes first
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
