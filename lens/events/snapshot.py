"""A run's store and file readers as plain values (for the cache), and back.

Scalars are moved to colstore chunks first, so a state names chunk files instead of holding
points. Everything else a RunStore holds (metadata, sampled blobs with their reservoirs' random
state, graphs, run metadata, counts) goes in as it is.
"""

import google_crc32c

from lens.events import answers, colstore
from lens.events.series import Reservoir, ScalarSeries
from lens.events.spill import check_items
from lens.events.store import RunStore

_EDGE = 4096  # bytes hashed at each end of a file's read part to recognise the same file


def file_marks(fs, path, offset):
    """(CRC-32C of the first and of the last _EDGE bytes before `offset`) of the file now."""
    head = fs.read(path, 0, min(offset, _EDGE))
    start = max(0, offset - _EDGE)
    tail = fs.read(path, start, offset - start)
    if len(head) != min(offset, _EDGE) or len(tail) != offset - start:
        raise OSError("%s holds fewer than %d bytes" % (path, offset))
    return google_crc32c.value(bytes(head)), google_crc32c.value(bytes(tail))


def _failures(f):
    return (f.count, f.skipped, f.first)


def _set_failures(f, saved):
    f.count, f.skipped, f.first = saved


def reader_state(reader):
    """What an EventFileReader knows, plus marks to check the file is still the same."""
    head, tail = file_marks(reader.fs, reader.path, reader.offset)
    return {"offset": reader.offset, "size": reader.size, "records": reader.records,
            "corrupt": reader.corrupt, "bytes_skipped": reader.bytes_skipped,
            "order": reader._order, "resyncing": reader._resyncing,
            "failures": _failures(reader.failures), "head": head, "tail": tail}


def resume_reader(reader, state):
    """Set a fresh reader to where the saved one stopped, if the file is still that file.

    Returns False when the file is gone, shrank or was replaced (then the run is read anew)."""
    offset = int(state["offset"])
    try:
        if reader.fs.size(reader.path) < offset:
            return False
        if file_marks(reader.fs, reader.path, offset) != (state["head"], state["tail"]):
            return False
    except (OSError, ValueError):
        return False
    reader.offset, reader.size = offset, int(state["size"])
    reader.records, reader.corrupt = int(state["records"]), int(state["corrupt"])
    reader.bytes_skipped, reader._order = int(state["bytes_skipped"]), int(state["order"])
    reader._resyncing = bool(state["resyncing"])
    _set_failures(reader.failures, state["failures"])
    return True


def store_state(store, write_chunks, folder=None):
    """The RunStore as plain values; its scalar points are spilled to chunks first (one
    write_chunks([(steps, walls, values)]) call for all series), and with a folder its
    series' ready answers are written to an answers file there."""
    if folder is not None:
        answers.precompute(store)
    moving = [(series, series.to_spill()) for series in store.scalars.values()]
    moving = [(series, stretch) for series, stretch in moving if stretch is not None]
    if moving:
        for (series, _), chunk in zip(moving, write_chunks([s for _, s in moving])):
            series.spilled(chunk)
    scalars = {tag: {"simple": series.simple, "chunks": [c.entry() for c in series.chunks()]}
               for tag, series in store.scalars.items()}
    saved = None
    if folder is not None:
        name, entries = answers.save(folder, store, store.answers_file)
        store.answers_file = name
        saved = {"file": name, "entries": entries}
    blobs = {key: (r.size, r.items, r.seen, r._rng.getstate()) for key, r in store.blobs.items()}
    return {"scalars": scalars, "blobs": blobs, "samples": dict(store.samples),
            "metadata": {tag: m.SerializeToString() for tag, m in store.metadata.items()},
            "graph": store.graph, "meta_graph": store.meta_graph,
            "run_metadata": dict(store.run_metadata), "start_time": store.start_time,
            "events": store.events, "failures": _failures(store.failures), "answers": saved}


def restore_store(state, folder, name):
    """A RunStore rebuilt from store_state's values; raises ValueError/ChunkError if unusable."""
    from lens.proto import summary_pb2

    store = RunStore(state["samples"], name)
    for tag, entry in state["scalars"].items():
        chunks = [colstore.Chunk.from_entry(folder, c) for c in entry["chunks"]]
        series = store.scalars[tag] = ScalarSeries(chunks)
        series.simple = bool(entry["simple"])
    for key, (size, items, seen, rng_state) in state["blobs"].items():
        reservoir = store.blobs[key] = Reservoir(size)
        reservoir.items, reservoir.seen = check_items(items), int(seen)
        reservoir._rng.setstate(rng_state)
    for tag, data in state["metadata"].items():
        store.metadata[tag] = summary_pb2.SummaryMetadata.FromString(data)
    store.graph, store.meta_graph = state["graph"], state["meta_graph"]
    store.run_metadata = dict(state["run_metadata"])
    store.start_time, store.events = state["start_time"], int(state["events"])
    _set_failures(store.failures, state["failures"])
    saved = state.get("answers")
    if saved is not None:
        answers.restore(folder, saved["file"], saved["entries"], store)
        store.answers_file = saved["file"]
    return store
