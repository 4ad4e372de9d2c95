"""tfdbg v2 dumping (enable_dump_debug_info) on the MLP 784-256-256-10 SGD step, and the
Debugger V2 dashboard paging through a 100k-trace dump."""

import os
import shutil
import tempfile
import time

import numpy as np

from bench.bench_dbg import _cache_dir, _interleaved_best, _mlp


def _step_rows(quick):
    import lens as tf
    from lens.dbg import dumping_callback
    steps, rounds, batch = (2, 2, 32) if quick else (5, 12, 128)
    sess, train, loss, feed = _mlp(tf, batch)
    root = tempfile.mkdtemp(prefix="lens-bench-dbg2-")
    fns = {"plain": lambda: sess.run([train, loss], feed)}
    dumpers = {}
    try:
        for mode in ("CURT_HEALTH", "FULL_HEALTH"):
            state = dumping_callback.make_state(os.path.join(root, mode), mode)
            dumpers[mode] = state
            fns[mode] = (lambda s=state: dumping_callback.run_dumped(s, sess, [train, loss],
                                                                     feed))
        best = _interleaved_best(fns, steps, rounds)
        traces = len(dumpers["FULL_HEALTH"].get_writer()._buffers["graph_execution_traces"])
    finally:
        for state in dumpers.values():
            state.get_writer().close()
        shutil.rmtree(root, ignore_errors=True)
    plain = best["plain"] * 1e3
    load = "; load avg %.1f" % os.getloadavg()[0] if hasattr(os, "getloadavg") else ""
    return [
        {"name": "dbg2: MLP step, CURT_HEALTH dumping", "lens": best["CURT_HEALTH"] * 1e3,
         "other": plain, "other_name": "plain Session.run", "unit": "ms",
         "note": "goal <= 1.2x; traces kept in the circular buffer (1000), written on disable"},
        {"name": "dbg2: MLP step, FULL_HEALTH dumping", "lens": best["FULL_HEALTH"] * 1e3,
         "other": plain, "other_name": "plain Session.run", "unit": "ms",
         "note": "goal <= 1.5x; %d traces buffered%s" % (traces, load)},
    ]


def _big_dump(n):
    """A cached lens-written dump with n graph-execution traces (FULL_HEALTH)."""
    path = os.path.join(_cache_dir(), "dbg2_traces_%d" % n)
    if os.path.isdir(path):
        return path
    import lens as tf
    tmp = path + ".tmp%d" % os.getpid()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [4], name="x")
        h = x
        for i in range(99):
            h = tf.nn.relu(h * 1.5 - 0.25, name="layer%d" % i)
        sess = tf.Session()
    tf.debugging.experimental.enable_dump_debug_info(tmp, "FULL_HEALTH", circular_buffer_size=-1)
    try:
        per_run = None
        done = 0
        while done < n:
            sess.run(h, {x: np.arange(4, dtype=np.float32)})
            if per_run is None:
                from lens.events.debug_events.data import DebugData
                probe = DebugData(tmp)
                probe.update()
                per_run = len(probe.traces)
            done += per_run
    finally:
        tf.debugging.experimental.disable_dump_debug_info()
    os.replace(tmp, path)
    return path


def _page_row(quick):
    from lens.events.debug_events import DebuggerRuns
    from lens.events.debug_events.runs import DEFAULT_RUN
    n = 5000 if quick else 100000
    path = _big_dump(n)
    runs = DebuggerRuns(path)
    start = time.perf_counter()
    runs.reload()
    load = time.perf_counter() - start
    total = runs.graph_execution_digests(DEFAULT_RUN, 0, 0)["num_digests"]
    worst = 0.0
    for begin in range(0, total - 100, max(1, total // 20)):
        start = time.perf_counter()
        runs.graph_execution_digests(DEFAULT_RUN, begin, begin + 100)
        runs.graph_execution_data(DEFAULT_RUN, begin, begin + 100)
        worst = max(worst, time.perf_counter() - start)
    return {"name": "dbg2: digests + data page (100 traces) of a %dk-trace dump" % (total // 1000),
            "lens": worst * 1e3, "other": None, "other_name": "", "unit": "ms",
            "note": "goal < 100 ms; worst of 20 pages; first load of the dump %.1f s" % load}


def run(quick):
    """Rows for the bench harness."""
    return _step_rows(quick) + [_page_row(quick)]
