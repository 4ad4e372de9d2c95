"""The data provider: the only way the board reads a logdir.

CONTRACT (shared by lens/events, which implements it, and lens/board, which calls it).
Every method is cheap to call repeatedly; loading happens in reload().
Unknown runs/tags raise NotFound (the board turns it into a 404).
"""

import logging
import threading

from lens.events import answers, values as V
from lens.events.colstore import ChunkError
from lens.events.logdir import parse_samples
from lens.events.payload import resolve
from lens.events.plugin_data import PluginDataMixin
from lens.events.run_workers import ParallelWatcher
from lens.events.scalar_text import rows_json
from lens.events.spill import load_items

log = logging.getLogger("lens.events")


class NotFound(KeyError):
    """An unknown run or tag; the message names it."""

    def __str__(self):
        return str(self.args[0]) if self.args else "not found"


def _copy_tags(tags_by_run):
    return {run: {tag: dict(info) for tag, info in tags.items()}
            for run, tags in tags_by_run.items()}


class DataProvider(PluginDataMixin):
    """Reads every run under a logdir (or a {name: dir} logdir_spec) and serves its series."""

    def __init__(self, logdir, reload_interval=5.0, samples_per_plugin=None, cache_dir=None,
                 max_memory_mb=None):
        """logdir: a path or fsspec URL, or a dict {run_prefix: path} from --logdir_spec.

        cache_dir: where runs are kept between restarts (None: nowhere); max_memory_mb: the
        resident memory past which scalar points move to the cache dir (None: no cap)."""
        if reload_interval is None or float(reload_interval) < 0:
            raise ValueError("reload_interval must be >= 0 seconds (0 = load once), got %r"
                             % (reload_interval,))
        if max_memory_mb is not None and not float(max_memory_mb) > 0:
            raise ValueError("max_memory_mb must be a positive number of megabytes, got %r"
                             % (max_memory_mb,))
        self.reload_interval = float(reload_interval)
        self.logdir = logdir
        self._watcher = ParallelWatcher(logdir, parse_samples(samples_per_plugin), cache_dir,
                                       max_memory_mb)
        self._lock = self._watcher.lock
        self._thread = None
        self._stop = threading.Event()
        self._tag_lists = {}  # plugin -> (watcher generation, list_tags answer)

    def reload(self):
        """One incremental pass: find new runs and files, read bytes appended since last pass."""
        self._watcher.reload()

    def start(self):
        """Load in a background thread, then reload every reload_interval seconds (0 = never)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()

        def loop():
            while not self._stop.is_set():
                try:
                    self.reload()
                except Exception:  # keep serving what is loaded; say why reading stopped
                    log.exception("reloading the logdir failed")
                if self.reload_interval == 0 or self._stop.wait(self.reload_interval):
                    return

        self._thread = threading.Thread(target=loop, name="lens-logdir-reload", daemon=True)
        self._thread.start()

    def stop(self):
        """Stop the background thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def progress(self):
        """{'runs': n, 'files': n, 'bytes_read': n, 'bytes_total': n, 'events': n, 'done': bool,
        'errors': {run: {'count': n, 'skipped': n, 'first': message}}} (runs with errors only),
        plus 'cache': {'dir', 'ok', 'error', 'rebuilt', 'max_memory_mb', 'resident_mb'} when a
        cache dir or memory cap is set (ok False: the cache cannot be written, see error)."""
        progress = self._watcher.progress()
        status = self._watcher.status()
        if status is not None:
            progress["cache"] = status
        return progress

    def problems(self):
        """[{'run', 'path', 'error', 'corrupt', 'bytes_skipped'}] for files that had trouble."""
        return self._watcher.problems()

    # ---- lookups ---------------------------------------------------------------------------
    def _store(self, run):
        store = self._watcher.stores.get(run)
        if store is None:
            raise NotFound("run %r not found; known runs: %s" % (run, ", ".join(self.runs()) or "none"))
        return store

    def _blob(self, run, plugin, tag):
        reservoir = self._store(run).blobs.get((plugin, tag))
        if reservoir is None:
            raise NotFound("run %r has no %s tag %r" % (run, plugin, tag))
        try:
            return load_items(sorted(reservoir.items, key=lambda item: item[0]))
        except ChunkError:  # a spill file went bad: read the run again
            self._watcher.damaged(run)
            raise

    def runs(self):
        """Sorted run names (paths relative to the logdir, '.' for the logdir itself)."""
        return sorted(self._watcher.stores)

    def run_start_time(self, run):
        """Wall time of the run's first event, or None."""
        return self._store(run).start_time

    def list_tags(self, plugin):
        """{run: {tag: {'displayName': str, 'description': str}}} for plugin in
        'scalars', 'histograms', 'distributions', 'images', 'audio', 'text'.

        displayName is what TensorBoard shows: the metadata's display name ('' when none was
        written with a tensor summary); legacy values (simple_value, histo, image, audio)
        default to their tag. images and audio entries also carry 'samples'."""
        kinds = {"scalars", "histograms", "distributions", "images", "audio", "text"}
        if plugin not in kinds:
            raise NotFound("unknown plugin %r; expected one of %s" % (plugin, ", ".join(sorted(kinds))))
        with self._lock:
            # Pages and loaders ask often, thousands of tags: once the data stands still (the
            # same watcher generation twice), keep the answer and hand out copies of it; while
            # it moves, build it afresh (a copy would cost on top).
            now = self._watcher.generation
            generation, kept = self._tag_lists.get(plugin, (None, None))
            if generation == now and kept is not None:
                return _copy_tags(kept)
            made = self._tag_list(plugin)
            self._tag_lists[plugin] = (now, _copy_tags(made) if generation == now else None)
            return made

    def _tag_list(self, plugin):
        """list_tags made afresh (the caller holds the lock)."""
        out = {}
        for run, store in sorted(self._watcher.stores.items()):
            if plugin == "scalars":
                tags = [t for t, s in store.scalars.items()
                        if s.simple or store.plugin_of(t) == "scalars"]
            else:
                source = "histograms" if plugin == "distributions" else plugin
                tags = [t for (p, t) in store.blobs if p == source]
            if not tags:
                continue
            entry = out[run] = {}
            for tag in sorted(tags):
                meta = store.metadata.get(tag)
                name = meta.display_name if meta is not None else ""
                if plugin == "scalars" and store.scalars[tag].simple:
                    name = name or tag  # TensorBoard names a simple_value tag by its tag
                info = {"displayName": name,
                        "description": meta.summary_description if meta is not None else ""}
                if plugin in ("images", "audio"):
                    items = store.blobs[(plugin, tag)].items
                    info["samples"] = max((len(it[2]) for it in items), default=0)
                entry[tag] = info
        return out

    def scalars(self, run, tag, max_points=None, step_range=None):
        """(steps int64[n], wall_times float64[n], values float64[n]) in step order.

        With max_points, downsample to about max_points by buckets over the step axis,
        keeping each bucket's first, min, max and last point (so spikes survive).
        step_range=(lo, hi) restricts to lo <= step <= hi before downsampling."""
        if max_points is not None and int(max_points) < 1:
            raise ValueError("max_points must be a positive number of points, got %r" % (max_points,))
        try:
            return self._scalars(run, tag, max_points, step_range)
        except ChunkError:  # a column file went bad under the board: read the run again
            self._watcher.damaged(run)
            raise

    def _series(self, run, tag):
        series = self._store(run).scalars.get(tag)
        if series is None:
            raise NotFound("run %r has no scalar tag %r" % (run, tag))
        return series

    def _scalars(self, run, tag, max_points, step_range):
        with self._lock:
            return answers.columns(self._series(run, tag), max_points, step_range)

    def scalar_answer(self, run, tag, max_points=None, step_range=None, encode=rows_json):
        """(points in the step range, JSON text of scalars() as [[wall_time, step, value]])
        with non-finite values as TensorBoard's strings; `encode` writes that text from the
        columns (the board passes its cached encoder). Small whole-range answers are kept
        ready per series (and in the cache dir across restarts)."""
        if max_points is not None and int(max_points) < 1:
            raise ValueError("max_points must be a positive number of points, got %r" % (max_points,))
        try:
            with self._lock:
                return answers.answer(self._series(run, tag), max_points and int(max_points),
                                      step_range, encode)
        except ChunkError:
            self._watcher.damaged(run)
            raise

    def histograms(self, run, tag):
        """[(wall_time, step, {'min','max','num','sum','sum_squares','bucket_limit': [..],
        'bucket': [..]})] in step order (TF2 tensor histograms converted to that form)."""
        with self._lock:
            items = self._blob(run, "histograms", tag)
        return [(wall, step, histo if isinstance(histo, dict) else V.histo_from_tensor(histo))
                for step, wall, histo in items]

    def histogram_buckets(self, run, tag):
        """[(wall_time, step, float array [k, 3] of (left, right, count))] in step order, as
        TensorBoard serves them: TF2 tensors as written, HistogramProtos converted (see
        values.legacy_buckets)."""
        with self._lock:
            items = self._blob(run, "histograms", tag)
        return [(wall, step, V.legacy_buckets(histo) if isinstance(histo, dict) else histo)
                for step, wall, histo in items]

    def distributions(self, run, tag):
        """[(wall_time, step, [(basis_point, value)] * 9)] with basis points
        0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000, from histogram_buckets."""
        return [(wall, step, V.compress_buckets(buckets))
                for wall, step, buckets in self.histogram_buckets(run, tag)]

    def _first_per_step(self, run, plugin, tag):
        """The tag's items in step order, only the first written at each step: TensorBoard
        serves one image (or clip) set per step, the earliest."""
        with self._lock:
            items = self._blob(run, plugin, tag)
        return [item for i, item in enumerate(items) if i == 0 or item[0] != items[i - 1][0]]

    def images(self, run, tag):
        """[{'wall_time', 'step', 'index' (sample index within the step), 'width', 'height',
        'encoded': bytes, 'content_type': 'image/png'|...}] in step order, one event per step."""
        return [dict(img, wall_time=wall, step=step, index=i, encoded=resolve(img["encoded"]))
                for step, wall, imgs in self._first_per_step(run, "images", tag)
                for i, img in enumerate(imgs)]

    def audio(self, run, tag):
        """[{'wall_time', 'step', 'index', 'encoded': bytes, 'content_type', 'sample_rate'}]
        in step order, one event per step."""
        return [dict(clip, wall_time=wall, step=step, index=i, encoded=resolve(clip["encoded"]))
                for step, wall, clips in self._first_per_step(run, "audio", tag)
                for i, clip in enumerate(clips)]

    def text(self, run, tag):
        """[(wall_time, step, numpy array of str)] in step order."""
        with self._lock:
            return [(wall, step, arr) for step, wall, arr in self._blob(run, "text", tag)]

    def graph(self, run):
        """Serialized GraphDef bytes of the run's newest graph, or None."""
        store = self._store(run)
        if store.graph is not None:
            return store.graph
        if store.meta_graph is not None:
            from lens.proto import meta_graph_pb2
            meta = meta_graph_pb2.MetaGraphDef.FromString(store.meta_graph)
            if meta.HasField("graph_def"):
                return meta.graph_def.SerializeToString()
        return None

    def run_metadata_tags(self, run):
        """Tags of the run's tagged RunMetadata, in the order written."""
        return list(self._store(run).run_metadata)

    def run_metadata(self, run, tag):
        """Serialized RunMetadata bytes for that tag."""
        data = self._store(run).run_metadata.get(tag)
        if data is None:
            raise NotFound("run %r has no run metadata tagged %r" % (run, tag))
        return data
