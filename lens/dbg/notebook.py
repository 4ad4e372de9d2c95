"""The debugger in a notebook: a wrapper session whose runs end in inline HTML views.

The terminal UI cannot run in a notebook, so instead of screens between runs, a
`NotebookDebugWrapperSession` runs like the wrapped Session and offers two debugging calls:

    dsess = NotebookDebugWrapperSession(sess)
    view = dsess.run_until(train_op, feed_dict=feed, filter="has_inf_or_nan")
    view                      # inline table: tensor, op type, size, health; bad ones first
    view.pt("loss/Log:0")     # tfdbg's `pt`, as styled HTML
    view = dsess.debug_run(fetches)   # dump one whole run

`run_until` checks every run in memory (tfdbg's `run -f`) and writes a dump only for the run
that trips the filter.
"""

import os
import shutil
import tempfile

from lens.dbg.filters import FilterRegistry
from lens.dbg.framework import BaseDebugWrapperSession, write_run_files
from lens.dbg.notebook_views import DumpView, ScreenView, screen_html
from lens.dbg.watch import DiskSink, FilterSink, WatchOptions, as_watch_options
from lens.dbg.dump import DumpWriter

__all__ = ["DumpView", "NotebookDebugWrapperSession", "ScreenView", "screen_html"]


class NotebookDebugWrapperSession(BaseDebugWrapperSession):
    """A Session wrapper for notebooks: plain `run`, plus `run_until` and `debug_run` views."""

    def __init__(self, sess, dump_root=None, thread_name_filter=None, allowed_inf_nodes=None):
        super().__init__(sess, thread_name_filter)
        self.filters = FilterRegistry()
        if allowed_inf_nodes:
            self.filters.allow_nodes(allowed_inf_nodes)
        self._own_root = dump_root is None
        self._dump_root = dump_root or tempfile.mkdtemp(prefix="lens_dbg_notebook_")
        os.makedirs(self._dump_root, exist_ok=True)
        self._dumps = 0
        self._pool = {}
        self.last_view = None

    @property
    def dump_root(self):
        """Folder holding one sub-folder per dumped run (kept until close())."""
        return self._dump_root

    def add_tensor_filter(self, filter_name, tensor_filter):
        """Register fn(datum, tensor) -> bool under a name usable in run_until(filter=...)."""
        self.filters.add(filter_name, tensor_filter)

    def allow_inf_nodes(self, patterns):
        """Node-name regexes whose infs/NaNs are intentional: no filter trips on them."""
        self.filters.allow_nodes(patterns)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """An ordinary Session.run (counted), so training cells keep working unchanged."""
        self._run_call_count += 1
        return self._plain_run(fetches, feed_dict, options, run_metadata)

    def _next_dir(self):
        path = os.path.join(self._dump_root, "run_%d" % self._dumps)
        self._dumps += 1
        return path

    def debug_run(self, fetches, feed_dict=None, watch_options=None):
        """One run with every watched tensor dumped; returns its DumpView (.result holds the
        fetched values)."""
        self._run_call_count += 1
        run_dir = self._next_dir()
        write_run_files(DumpWriter(run_dir), self._sess, fetches, feed_dict,
                        self._run_call_count, self._graph_cache)
        sink = DiskSink(run_dir)
        result = self._watched_run(fetches, feed_dict, None, None,
                                   as_watch_options(watch_options or WatchOptions()), sink)
        self.last_view = DumpView(run_dir, self.graph, self.filters, result=result,
                                  run_index=self._run_call_count)
        return self.last_view

    def run_until(self, fetches, feed_dict=None, filter="has_inf_or_nan",  # noqa: A002
                  max_runs=1000, watch_options=None):
        """Run until a tensor passes the filter (tfdbg's `run -f`); its run's DumpView, or
        None after max_runs clean runs. feed_dict may be a callable(i) -> feed dict."""
        if filter not in self.filters:
            raise ValueError(f"there is no tensor filter named {filter!r}; registered: "
                             f"{self.filters.names()} (add one with add_tensor_filter)")
        if not isinstance(max_runs, int) or max_runs < 1:
            raise ValueError(f"max_runs must be a positive int, got {max_runs!r}")
        options = as_watch_options(watch_options or WatchOptions())
        for i in range(max_runs):
            feed = feed_dict(i) if callable(feed_dict) else feed_dict
            self._run_call_count += 1
            sink = FilterSink(self.filters.get(filter), self.filters.is_allowed,
                              allow_key=(tuple(self.filters.allowed_nodes), None),
                              pool=self._pool)
            result = self._watched_run(fetches, feed, None, None, options, sink)
            if not sink.tripped:
                continue
            run_dir = self._next_dir()
            write_run_files(DumpWriter(run_dir), self._sess, fetches, feed,
                            self._run_call_count, self._graph_cache)
            sink.write(run_dir)
            self.last_view = DumpView(run_dir, self.graph, self.filters, tensor_filter=filter,
                                      result=result, run_index=self._run_call_count)
            return self.last_view
        print(f"run_until: no tensor passed {filter} in {max_runs} run(s)")
        return None

    def close(self):
        """Close the wrapped session and delete the dumps this wrapper made."""
        self._sess.close()
        if self._own_root:
            shutil.rmtree(self._dump_root, ignore_errors=True)
