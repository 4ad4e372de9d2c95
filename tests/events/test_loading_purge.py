"""Steps going backwards: lens keeps what TensorBoard keeps (only SessionLog.START purges).

Every file is loaded both by TensorBoard's EventAccumulator (keeping everything) and by lens's
DataProvider, and the points per tag are compared.
"""

import os

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from lens.events.provider import DataProvider
from tests.events.loading_helpers import records_bytes, tb_scalar_event

TAGS = ("loss", "accuracy")


def _file_version():
    from tensorboard.compat.proto import event_pb2

    return event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")


def _session_start(step):
    from tensorboard.compat.proto import event_pb2

    return event_pb2.Event(wall_time=2.0, step=step,
                           session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START))


def _histogram_event(step):
    from tensorboard.compat.proto import event_pb2, summary_pb2

    histo = summary_pb2.HistogramProto(min=0.0, max=step, num=2, sum=step, sum_squares=step * step,
                                       bucket_limit=[0.0, float(step)], bucket=[1.0, 1.0])
    return event_pb2.Event(wall_time=10.0 + step, step=step, summary=summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag="weights", histo=histo)]))


def _steps_events(steps, offset=0.0):
    """Two scalar tags per step; values tell the copies of a step apart when offset differs."""
    return [tb_scalar_event(tag, s, s * (i + 1) + offset, wall=10.0 + s)
            for s in steps for i, tag in enumerate(TAGS)]


def _chunks(events):
    return [records_bytes([e]) for e in events]


def _write(tmp_path, chunks):
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    (run / "events.out.tfevents.1.host").write_bytes(b"".join(chunks))
    return str(tmp_path)


def _tensorboard_points(logdir):
    """{tag: sorted [(step, value)]} as TensorBoard's EventAccumulator keeps them."""
    from tensorboard.backend.event_processing import event_accumulator as ea

    acc = ea.EventAccumulator(os.path.join(logdir, "run"),
                              size_guidance=ea.STORE_EVERYTHING_SIZE_GUIDANCE)
    acc.Reload()
    out = {tag: sorted((e.step, e.value) for e in acc.Scalars(tag))
           for tag in acc.Tags()["scalars"]}
    if "weights" in acc.Tags()["histograms"]:
        out["weights"] = sorted((e.step, e.histogram_value.max) for e in acc.Histograms("weights"))
    return out


def _lens_points(logdir):
    """{tag: sorted [(step, value)]} as lens's DataProvider keeps them."""
    provider = DataProvider(logdir, reload_interval=0, samples_per_plugin="histograms=all")
    provider.reload()
    out = {}
    for tag in provider.list_tags("scalars").get("run", {}):
        steps, _, values = provider.scalars("run", tag)
        out[tag] = sorted(zip(steps.tolist(), np.float32(values).tolist()))
    if "weights" in provider.list_tags("histograms").get("run", {}):
        out["weights"] = sorted((s, h["max"]) for _, s, h in provider.histograms("run", "weights"))
    return out


def _distinct_steps(points):
    return {tag: len({s for s, _ in pts}) for tag, pts in points.items()}


def test_a_duplicated_stretch_keeps_every_step_like_tensorboard(tmp_path):
    events = [_file_version()] + _steps_events(range(300))
    dup = _steps_events(range(50, 80), offset=0.0)  # byte-identical copy of steps 50..79
    # The copy lands after step 250: the step goes back from 250 to 50.
    cut = 1 + 2 * 251
    logdir = _write(tmp_path, _chunks(events[:cut] + dup + events[cut:]))
    tb, lens = _tensorboard_points(logdir), _lens_points(logdir)
    assert _distinct_steps(tb) == {"loss": 300, "accuracy": 300}
    assert lens == tb  # same points, duplicates included


def test_an_appended_partial_copy_keeps_every_step_like_tensorboard(tmp_path):
    first = [_file_version()] + _steps_events(range(300)) + [_histogram_event(s) for s in range(0, 300, 10)]
    # A copy of the file's first 100 steps appended, as a botched `cat a b > c` makes.
    copy = [_file_version()] + _steps_events(range(100)) + [_histogram_event(s) for s in range(0, 100, 10)]
    logdir = _write(tmp_path, _chunks(first + copy))
    tb, lens = _tensorboard_points(logdir), _lens_points(logdir)
    assert _distinct_steps(tb) == {"loss": 300, "accuracy": 300, "weights": 30}
    assert lens == tb


def test_session_start_still_purges_like_tensorboard(tmp_path):
    events = [_file_version()] + _steps_events(range(200)) + [_histogram_event(s) for s in range(0, 200, 10)]
    restart = [_session_start(120)] + _steps_events(range(120, 160), offset=1000.0)
    restart += [_histogram_event(s) for s in range(120, 160, 10)]
    logdir = _write(tmp_path, _chunks(events + restart))
    tb, lens = _tensorboard_points(logdir), _lens_points(logdir)
    assert _distinct_steps(tb) == {"loss": 160, "accuracy": 160, "weights": 16}
    assert [v for s, v in tb["loss"] if s >= 120] == [s + 1000.0 for s in range(120, 160)]
    assert lens == tb


def test_files_without_file_version_keep_at_least_what_tensorboard_keeps(tmp_path):
    # No file_version: TensorBoard purges a tag whose step goes back; lens keeps the points.
    events = _steps_events(range(100)) + _steps_events(range(40, 60), offset=500.0)
    logdir = _write(tmp_path, _chunks(events))
    tb, lens = _tensorboard_points(logdir), _lens_points(logdir)
    assert _distinct_steps(tb) == {"loss": 60, "accuracy": 60}
    assert _distinct_steps(lens) == {"loss": 100, "accuracy": 100}
    for tag in TAGS:
        assert set(tb[tag]) <= set(lens[tag])


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_duplicated_and_damaged_files_keep_at_least_what_tensorboard_keeps(tmp_path, data):
    """Duplicate stretches of records, append copies, damage bytes: lens keeps every step and
    every value TensorBoard keeps."""
    chunks = _chunks([_file_version()] + _steps_events(range(150)))
    for _ in range(data.draw(st.integers(1, 3))):
        a = data.draw(st.integers(0, len(chunks) - 1))
        b = data.draw(st.integers(a + 1, min(len(chunks), a + 120)))
        at = data.draw(st.integers(0, len(chunks)))
        chunks[at:at] = chunks[a:b]  # a duplicated stretch, or an appended copy when at = end
    blob = bytearray(b"".join(chunks))
    for _ in range(data.draw(st.integers(0, 2))):
        pos = data.draw(st.integers(0, len(blob) - 1))
        blob[pos:pos + 4] = data.draw(st.binary(min_size=1, max_size=4))
    logdir = _write(tmp_path, [bytes(blob)])
    tb, lens = _tensorboard_points(logdir), _lens_points(logdir)
    for tag, points in tb.items():
        assert len({s for s, _ in lens.get(tag, [])}) >= len({s for s, _ in points})
        assert set(points) <= set(lens.get(tag, []))
