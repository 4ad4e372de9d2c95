"""Loading progress per run: /data/lens/progress's per_run figures and the run selector's marks
while a slow filesystem delivers the runs one after another."""

import fsspec
import pytest
from fsspec.implementations.local import LocalFileSystem

from conftest import serve, wait_until
from lens.board.app import create_app

READ_DELAY = 1.0  # seconds each file open takes on the slow filesystem


class SlowLocalFileSystem(LocalFileSystem):
    """The local disk behind a slow link (as a network mount is): every open waits."""

    protocol = "lensslow"

    @classmethod
    def _strip_protocol(cls, path):
        return super()._strip_protocol(path.split("://", 1)[-1])

    def _open(self, path, mode="rb", **kwargs):
        import time

        time.sleep(READ_DELAY)
        return super()._open(path, mode, **kwargs)


@pytest.fixture(scope="module")
def slow_logdir(tmp_path_factory):
    from tensorboardX import SummaryWriter

    root = tmp_path_factory.mktemp("slow_logs")
    for i, run in enumerate(("a", "b", "c")):
        writer = SummaryWriter(str(root / run))
        for step in range(50):
            writer.add_scalar("loss", 1.0 / (step + 1 + i), step)
        writer.close()
    fsspec.register_implementation("lensslow", SlowLocalFileSystem, clobber=True)
    return root


def test_progress_route_sums_per_run(client):
    body = client.get("/data/lens/progress").get_json()
    per_run = body["per_run"]
    assert sorted(per_run) == sorted(client.get("/data/runs").get_json())
    assert sum(p["bytes_read"] for p in per_run.values()) == body["bytes_read"]
    assert sum(p["events"] for p in per_run.values()) == body["events"]
    assert all(p["bytes_read"] == p["bytes_total"] > 0 for p in per_run.values())


def test_run_selector_shows_each_runs_progress_while_loading(page, slow_logdir):
    app = create_app(f"lensslow://{slow_logdir}", reload_interval=0)
    provider = app.config["LENS_PROVIDER"]
    try:
        with serve(app) as url:
            page.goto(f"{url}/#tab=scalars")
            # While runs are still arriving, some listed run carries a percentage...
            mark = "#run-list .run-progress"
            seen = wait_until(lambda: page.evaluate("""(sel) => {
                const m = [...document.querySelectorAll(sel)].find((e) => e.textContent.endsWith("%"));
                return m ? [m.dataset.run, m.textContent, m.title] : null; }""", mark), timeout=8)
            assert seen, "no run showed a loading percentage"
            run, text, title = seen
            assert run in ("a", "b", "c") and 0 <= int(text[:-1]) < 100
            assert title.startswith("Loading: ") and "events so far" in title
            # ...and once everything is read the marks are gone and every run is listed.
            assert wait_until(lambda: page.locator(mark).count() == 3 and not any(
                page.locator(mark).all_text_contents()), timeout=15)
            assert page.is_hidden("#progress")
            assert page.errors == []
    finally:
        provider.stop()
