"""A run that met a loading error: counted in /data/lens/progress and marked in the run selector."""

import pytest

from conftest import serve, load_provider, wait_until
from lens.board.app import create_app

XSS_TAG = "<img src=x onerror=\"window.__xss=1\">"


def _write_runs(root):
    """'clean' and 'damaged' runs; 'damaged' holds one value no one can decode (2**50 floats)."""
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
    from tensorboard.plugins.scalar import metadata as scalar_metadata
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    for run in ("clean", "damaged"):
        writer = EventFileWriter(str(root / run))
        for step in range(20):
            value = summary_pb2.Summary.Value(tag="loss", simple_value=float(step))
            writer.add_event(event_pb2.Event(wall_time=100.0 + step, step=step,
                                             summary=summary_pb2.Summary(value=[value])))
            if run == "damaged" and step == 3:
                dim = tensor_shape_pb2.TensorShapeProto.Dim(size=2 ** 50)
                tensor = tensor_pb2.TensorProto(dtype=1, float_val=[1.0], tensor_shape=(
                    tensor_shape_pb2.TensorShapeProto(dim=[dim])))
                bad = summary_pb2.Summary.Value(tag=XSS_TAG, tensor=tensor, metadata=(
                    scalar_metadata.create_summary_metadata("", "")))
                writer.add_event(event_pb2.Event(wall_time=100.0 + step, step=step,
                                                 summary=summary_pb2.Summary(value=[bad])))
        writer.close()


@pytest.fixture(scope="module")
def damaged_app(tmp_path_factory):
    root = tmp_path_factory.mktemp("damaged_logs")
    _write_runs(root)
    return create_app(load_provider(root))


def test_progress_counts_the_error_of_the_damaged_run_only(damaged_app):
    body = damaged_app.test_client().get("/data/lens/progress").get_json()
    assert list(body["errors"]) == ["damaged"]
    error = body["errors"]["damaged"]
    assert error["count"] == 1 and error["skipped"] == 1
    assert "at step 3 could not be read" in error["first"] and "MemoryError" in error["first"]
    # The neighbours of the bad value are all there.
    scalars = damaged_app.test_client().get("/data/plugin/scalars/scalars?run=damaged&tag=loss")
    assert [point[1] for point in scalars.get_json()] == list(range(20))


def test_the_run_selector_marks_the_damaged_run_with_the_message_as_text(page, damaged_app):
    with serve(damaged_app) as url:
        page.goto(url + "/#tab=scalars")
        page.wait_for_selector(".run-warning")
        marks = page.eval_on_selector_all(
            "#run-list li", """items => items.map(li => [li.querySelector('.run-name').textContent,
                                                       li.querySelector('.run-warning')])
                                .map(([run, mark]) => [run, mark && mark.title])""")
        marks = dict(marks)
        assert marks["clean"] is None
        assert "1 error(s) while loading this run" in marks["damaged"]
        assert XSS_TAG in marks["damaged"]  # the tag's markup is shown as text
        assert page.locator("#run-list img").count() == 0
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.__xss") is None
        # The mark outlives the first load: a reload keeps it in place.
        page.click("#reload")
        assert wait_until(lambda: page.locator(".run-warning").count() == 1)
        assert page.errors == []
