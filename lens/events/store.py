"""Per-run store: what the reader's batches hold, kept per tag, with TensorBoard's restart rules.

Scalars live in columnar NumPy arrays, every point kept. Histograms, images, audio, text and
other tensors are reservoir-sampled per tag (samples_per_plugin). Restarts: a SessionLog.START
at step s discards every point of every tag at or after s, as TensorBoard does for files of
`brain.Event:2` (what every current writer writes). A step going backwards discards nothing: a
duplicated or re-appended stretch of records does that too, and TensorBoard keeps those points.
(TensorBoard purges a tag on a backward step only in files without a file_version; lens keeps
the points there as well, so it never shows fewer.) A value that cannot be read is skipped
alone and counted in `failures`.
"""

import numpy as np

from lens.events import values as V
from lens.events.failures import Failures
from lens.events.fastscalar import ScalarPart
from lens.events.payload import REF_MIN, FileRef, audio_clips
from lens.events.series import Reservoir, ScalarSeries

# TensorBoard's defaults (0 = keep all). Scalars are never sampled. Text follows RustBoard's
# TENSOR default (100) since that is what `tensorboard` serves by default today.
DEFAULT_SAMPLES = {"histograms": 500, "images": 10, "audio": 10, "text": 100, "tensors": 10,
                   "pr_curves": 100}  # PR curves: the 100 steps TensorBoard's plugin serves
_START = 1  # SessionLog.START


class RunStore:
    """Everything loaded for one run."""

    def __init__(self, samples_per_plugin=None, name="run"):
        self.failures = Failures("run %s" % name)  # values lost to unexpected errors
        self.samples = dict(DEFAULT_SAMPLES)
        self.samples.update(samples_per_plugin or {})
        self.scalars = {}  # tag -> ScalarSeries
        self.blobs = {}  # (plugin, tag) -> Reservoir
        self.metadata = {}  # tag -> SummaryMetadata (first one wins)
        self.graph = None  # serialized GraphDef
        self.meta_graph = None  # serialized MetaGraphDef
        self.run_metadata = {}  # tag -> serialized RunMetadata, in the order written
        self.start_time = None
        self.events = 0
        self.answers_file = None  # the cache dir's file of ready scalar answers (answers.py)

    # ---- reading side -------------------------------------------------------------------
    def plugin_of(self, tag):
        meta = self.metadata.get(tag)
        return meta.plugin_data.plugin_name if meta is not None else ""

    def scalar_bytes(self):
        return sum(s.nbytes() for s in self.scalars.values())

    def scalar_count(self):
        return sum(s.n for s in self.scalars.values())

    # ---- ingestion ----------------------------------------------------------------------
    def ingest(self, batch):
        """Apply one reader Batch (records of one file, in order)."""
        from lens.proto import summary_pb2

        self.events += batch.records
        meta_items = list(batch.metadata)
        for order, event in batch.events:
            for value in event.summary.value:
                if value.tag not in self.metadata:
                    meta = V.initial_metadata(value)  # what TensorBoard keeps for the tag
                    if meta is not None:
                        meta_items.append((order, value.tag, meta))
        for order, tag, meta in sorted(meta_items, key=lambda item: item[0]):
            if tag not in self.metadata:
                if isinstance(meta, bytes):
                    try:
                        meta = summary_pb2.SummaryMetadata.FromString(meta)
                    except Exception as exc:  # protobuf's DecodeError: the tag keeps no metadata
                        self.failures.note("metadata unreadable", "metadata of tag %r could not "
                                           "be read; ignored it" % tag, exc)
                        continue
                self.metadata[tag] = meta
        if self.start_time is None:
            self._note_start(batch)

        parts = list(batch.scalars)
        blob_items = []  # (order, plugin, tag, step, wall, payload)
        barriers = []  # (order, step) of SessionLog.START
        slow = {}  # tag -> ([order], [step], [wall], [value], simple)
        for order, event in batch.events:
            where = batch.where.get(order) if batch.path is not None else None
            self._event(order, event, slow, blob_items, barriers,
                        where and (batch.path,) + where)
        for tag, (orders, steps, walls, vals, simple) in slow.items():
            parts.append(ScalarPart(tag, not simple, np.asarray(orders, np.int64),
                                    np.asarray(steps, np.int64), np.asarray(walls, np.float64),
                                    np.asarray(vals, np.float64 if any(
                                        isinstance(v, np.float64) for v in vals) else np.float32)))
        self._apply(parts, blob_items, barriers)

    def _note_start(self, batch):
        firsts = [(o, e.wall_time) for o, e in batch.events[:1]]
        firsts += [(int(p.order[0]), float(p.walls[0])) for p in batch.scalars if len(p.order)]
        if firsts:
            self.start_time = min(firsts)[1]

    def _event(self, order, event, slow, blob_items, barriers, where=None):
        """Sort one protobuf Event into scalar points, blob items or run-level data.

        where: (path, offset, length) of the event's record, when large payloads may stay
        in the file (payload.FileRef) instead of in memory."""
        kind = event.WhichOneof("what")
        if kind == "summary":
            for index, value in enumerate(event.summary.value):
                ref = where and (lambda kind, item=0, i=index: FileRef(*where, i, kind, item))
                self._value(order, event, value, slow, blob_items, ref)
        elif kind == "graph_def":
            self.graph = event.graph_def
        elif kind == "meta_graph_def":
            self.meta_graph = event.meta_graph_def
        elif kind == "tagged_run_metadata":
            trm = event.tagged_run_metadata
            self.run_metadata.pop(trm.tag, None)
            self.run_metadata[trm.tag] = trm.run_metadata
        elif kind == "session_log" and event.session_log.status == _START:
            barriers.append((order, event.step))

    def _value(self, order, event, value, slow, blob_items, ref=None):
        step, wall, tag = event.step, event.wall_time, value.tag
        kind = value.WhichOneof("value")
        plugin = self.plugin_of(tag)

        def scalar(number, simple):
            entry = slow.setdefault(tag, ([], [], [], [], False))
            entry[0].append(order)
            entry[1].append(step)
            entry[2].append(wall)
            entry[3].append(number)
            if simple and not entry[4]:
                slow[tag] = entry[:4] + (True,)

        def blob(kind_name, payload):
            blob_items.append((order, kind_name, tag, step, wall, payload))

        def keep(data, kind, item=0):
            """The bytes, or where to find them again when they are large."""
            return ref(kind, item) if ref and len(data) >= REF_MIN else data

        try:
            if kind == "simple_value":
                scalar(np.float32(value.simple_value), True)
            elif kind == "histo":
                blob("histograms", V.histo_dict(value.histo))
            elif kind == "image":
                img = value.image
                data = bytes(img.encoded_image_string)
                blob("images", [{"width": img.width, "height": img.height,
                                 "encoded": keep(data, "image"),
                                 "content_type": V.sniff_image(data)}])
            elif kind == "audio":
                aud = value.audio
                blob("audio", [{"encoded": keep(bytes(aud.encoded_audio_string), "audio"),
                                "content_type": aud.content_type or "audio/wav",
                                "sample_rate": aud.sample_rate}])
            elif kind == "tensor":
                self._tensor(plugin, value.tensor, scalar, blob, keep)
        except Exception as exc:  # a value lens cannot read: lose it, not its event or batch
            self.failures.note("value unreadable", "tag %r at step %d could not be read; "
                               "value skipped" % (tag, step), exc, skipped=1)

    @staticmethod
    def _tensor(plugin, tensor, scalar, blob, keep):
        array = V.tensor_to_ndarray(tensor)
        if plugin == "scalars":
            number = np.asarray(array).reshape(-1)[0] if array.size else 0.0
            scalar(np.float64(number) if array.dtype == np.float64 else np.float32(number), False)
        elif plugin == "histograms":
            blob("histograms", V.histo_tensor(array))
        elif plugin == "images":
            blob("images", [{"width": w, "height": h, "encoded": keep(data, "image_tensor", k),
                             "content_type": V.sniff_image(data)}
                            for k, (w, h, data) in enumerate(V.image_from_tensor(array))])
        elif plugin == "audio":
            blob("audio", [{"encoded": keep(bytes(c[0]), "audio_tensor", k),
                            "content_type": "audio/wav", "sample_rate": 0.0}
                           for k, c in enumerate(audio_clips(array))])
        elif plugin == "text":
            blob("text", V.text_array(array))
        else:  # other plugins' tensors; pr_curves keep their own sample size
            blob(plugin if plugin == "pr_curves" else "tensors", array)

    def _apply(self, parts, blob_items, barriers):
        """Append everything in record order, purging at each SessionLog.START."""
        by_tag = {}
        for part in parts:
            by_tag.setdefault(part.tag, []).append(part)
        merged = {}
        for tag, tag_parts in by_tag.items():
            tag_parts.sort(key=lambda p: int(p.order[0]) if len(p.order) else -1)
            fields = ("order", "steps", "walls", "values")
            if len(tag_parts) == 1:
                cat = [getattr(tag_parts[0], f) for f in fields]
            else:
                cat = [np.concatenate([getattr(p, f) for p in tag_parts]) for f in fields]
            if len(tag_parts) > 1 and np.any(np.diff(cat[0]) < 0):
                idx = np.argsort(cat[0], kind="stable")  # parts interleave: restore file order
                cat = [c[idx] for c in cat]
            merged[tag] = (cat, any(not p.tensor for p in tag_parts))
        blob_items.sort(key=lambda item: item[0])
        done = {tag: 0 for tag in merged}
        blob_pos = 0
        for limit, start_step in sorted(barriers) + [(None, None)]:
            for tag, ((order, steps, walls, vals), simple) in merged.items():
                stop = len(order) if limit is None else int(np.searchsorted(order, limit))
                if stop > done[tag]:
                    series = self.scalars.get(tag)
                    if series is None:
                        series = self.scalars[tag] = ScalarSeries()
                    series.simple |= simple
                    series.append(steps[done[tag]:stop], walls[done[tag]:stop], vals[done[tag]:stop])
                    done[tag] = stop
            while blob_pos < len(blob_items) and (limit is None or blob_items[blob_pos][0] < limit):
                _, plugin, tag, step, wall, payload = blob_items[blob_pos]
                reservoir = self.blobs.get((plugin, tag))
                if reservoir is None:
                    reservoir = self.blobs[(plugin, tag)] = Reservoir(self.samples.get(plugin, 10))
                reservoir.add(step, wall, payload)
                blob_pos += 1
            if limit is not None:
                self.purge_from(start_step)

    def purge_from(self, step):
        """SessionLog.START at `step`: drop every point of every tag at or after it."""
        for series in self.scalars.values():
            series.purge_from(step)
        for reservoir in self.blobs.values():
            reservoir.purge_from(step)
