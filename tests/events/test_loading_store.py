"""The per-run store: restart rules, sampling, memory per scalar, metadata."""

import numpy as np

from lens.events.reader import EventFileReader
from lens.events.series import Reservoir, ScalarSeries, downsample
from lens.events.store import RunStore
from tests.events.loading_helpers import tb_scalar_event, tb_tensor_scalar_event, write_events


def _load(path, samples=None):
    store = RunStore(samples)
    reader = EventFileReader(str(path))
    for batch in reader.read():
        store.ingest(batch)
    return store, reader


def _session_start(step):
    from tensorboard.compat.proto import event_pb2

    return event_pb2.Event(step=step, wall_time=9.0,
                           session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START))


def _steps(store, tag):
    return store.scalars[tag].arrays()[0].tolist()


def test_session_start_discards_all_tags_at_or_after_its_step(tmp_path):
    path = tmp_path / "events.out.tfevents.1.h"
    first = [tb_scalar_event(t, s, s) for s in range(100) for t in ("a", "b")]
    restart = [_session_start(60)]
    second = [tb_scalar_event(t, s, -s) for s in range(60, 80) for t in ("a", "b")]
    write_events(str(path), first + restart + second)
    store, _ = _load(path)
    for tag in ("a", "b"):
        steps, _, values = store.scalars[tag].arrays()
        assert steps.tolist() == list(range(80))
        assert values.tolist() == list(range(60)) + [-s for s in range(60, 80)]


def test_session_start_in_a_later_file_and_later_batch(tmp_path):
    write_events(str(tmp_path / "events.out.tfevents.1.h"),
                 [tb_scalar_event("a", s, 1) for s in range(50)])
    write_events(str(tmp_path / "events.out.tfevents.2.h"),
                 [_session_start(10)] + [tb_scalar_event("a", s, 2) for s in range(10, 20)])
    store = RunStore()
    for name in ("events.out.tfevents.1.h", "events.out.tfevents.2.h"):
        for batch in EventFileReader(str(tmp_path / name)).read():
            store.ingest(batch)
    steps, _, values = store.scalars["a"].arrays()
    assert steps.tolist() == list(range(20))
    assert values.tolist() == [1] * 10 + [2] * 10


def test_a_step_going_back_keeps_every_point_in_step_order(tmp_path):
    path = tmp_path / "events.out.tfevents.1.h"
    events = [tb_scalar_event("a", s, s) for s in range(50)]
    events += [tb_scalar_event("b", s, s) for s in range(50)]
    events += [tb_scalar_event("a", s, 100 + s) for s in range(30, 40)]  # 'a' goes back to 30
    write_events(str(path), events)
    store, _ = _load(path)
    steps, _, values = store.scalars["a"].arrays()
    # No SessionLog.START: nothing is purged; the later points slot in after the earlier ones.
    assert steps.tolist() == list(range(30)) + [s for s in range(30, 40) for _ in (0, 1)] + \
        list(range(40, 50))
    assert values[30:50].tolist() == [v for s in range(30, 40) for v in (s, 100 + s)]
    assert _steps(store, "b") == list(range(50))


def test_equal_steps_are_all_kept():
    series = ScalarSeries()
    series.append(np.array([0, 0, 0, 1, 1]), np.zeros(5), np.arange(5, dtype=np.float32))
    assert series.arrays()[2].tolist() == [0, 1, 2, 3, 4]
    series.append(np.array([1]), np.zeros(1), np.array([7], np.float32))
    assert series.arrays()[2].tolist() == [0, 1, 2, 3, 4, 7]  # equal to the last step: kept
    series.append(np.array([0]), np.zeros(1), np.array([8], np.float32))
    assert series.arrays()[2].tolist() == [0, 1, 2, 8, 3, 4, 7]  # below the last: slotted in


def test_series_growth_keeps_memory_under_32_bytes_per_scalar():
    series = ScalarSeries()
    rng = np.random.default_rng(1)
    step = 0
    for size in rng.integers(1, 3000, size=300):  # many uneven appends, like live tailing
        steps = np.arange(step, step + size)
        series.append(steps, steps * 1.0, rng.random(size).astype(np.float32))
        step += size
        assert series.nbytes() / series.n <= 32
    assert series.n == step and series.arrays()[0].tolist() == list(range(step))


def test_float64_tensor_scalars_widen_the_column(tmp_path):
    path = tmp_path / "events.out.tfevents.1.h"
    events = [tb_tensor_scalar_event("x", s, 0.1 * s, dtype="float32", metadata=(s == 0))
              for s in range(30)]
    events += [tb_tensor_scalar_event("x", s, 1e300 / (s + 1), dtype="float64", metadata=False)
               for s in range(30, 60)]
    write_events(str(path), events)
    store, _ = _load(path)
    steps, _, values = store.scalars["x"].arrays()
    assert values.dtype == np.float64 and steps.tolist() == list(range(60))
    assert values[-1] == 1e300 / 60 and values[1] == np.float32(0.1)
    assert store.plugin_of("x") == "scalars"


def test_first_metadata_wins_and_start_time(tmp_path):
    from tensorboard.compat.proto import event_pb2, summary_pb2

    def ev(step, display):
        value = summary_pb2.Summary.Value(tag="m", simple_value=1.0)
        value.metadata.display_name = display
        return event_pb2.Event(step=step, wall_time=50.0 + step,
                               summary=summary_pb2.Summary(value=[value]))

    path = tmp_path / "events.out.tfevents.1.h"
    write_events(str(path), [ev(s, "first" if s == 0 else "later") for s in range(40)])
    store, _ = _load(path)
    assert store.metadata["m"].display_name == "first"
    assert store.start_time == 50.0


def test_reservoir_keeps_newest_and_bounded_size():
    res = Reservoir(10)
    for step in range(1000):
        res.add(step, float(step), step)
    steps = [it[0] for it in res.items]
    assert len(steps) == 10 and steps[-1] == 999 and steps == sorted(steps)
    res.purge_from(500)
    assert all(s < 500 for s, _, _ in res.items)
    keep_all = Reservoir(0)
    for step in range(1000):
        keep_all.add(step, 0.0, None)
    assert len(keep_all.items) == 1000


def test_downsample_keeps_spikes():
    steps = np.arange(100_000)
    values = np.sin(steps / 1000.0)
    values[12345] = 50.0
    values[77777] = -50.0
    values[500] = np.nan
    keep = downsample(steps, steps * 1.0, values, 400)
    assert len(keep) <= 400 + 4
    assert {12345, 77777, 500, 0, 99_999} <= set(keep.tolist())
    assert np.all(np.diff(keep) > 0)
