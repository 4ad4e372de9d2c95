"""Ready scalar answers: the WSGI fast path answers byte for byte as the Flask route, and a
warm start serves them from the cache dir's answers files (never a damaged one)."""

import glob
import os

import numpy as np
import pytest
from tensorboardX import SummaryWriter

from lens.board.app import create_app
from lens.events import answers
from lens.events.provider import DataProvider

STEPS = 3000


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("answers") / "logs"
    rng = np.random.default_rng(4)
    for run in ("a", "b"):
        writer = SummaryWriter(str(root / run))
        values = rng.standard_normal(STEPS).astype(np.float32)
        values[[5, 600]] = [np.nan, np.inf]
        for step, value in enumerate(values):
            writer.add_scalar("loss", float(value), step, walltime=1.7e9 + step * 0.37)
            if step % 3 == 0:
                writer.add_scalar("acc", float(value) * 1e-6, step, walltime=1.7e9 + step)
        writer.close()
    return str(root)


def _load(logdir, **kw):
    provider = DataProvider(logdir, reload_interval=0, **kw)
    provider.reload()
    return provider


def _bodies(provider, downsample=(4, 1000)):
    """{(run, tag, downsample): (status, headers, body)} from the scalars route."""
    client = create_app(provider, reload_interval=0).test_client()
    out = {}
    for run, tags in provider.list_tags("scalars").items():
        for tag in tags:
            for n in downsample:
                res = client.get("/data/plugin/scalars/scalars",
                                 query_string={"run": run, "tag": tag, "downsample": n})
                out[run, tag, n] = (res.status_code, list(res.headers.items()), res.get_data())
    return out


def test_the_fast_path_answers_as_the_flask_route(logdir):
    provider = _load(logdir)
    client = create_app(provider, reload_interval=0).test_client()
    for query in ("run=a&tag=loss&downsample=1000", "run=b&tag=acc&downsample=4",
                  "run=a&tag=loss&downsample=5000", "run=a&tag=nope&downsample=1000",
                  "run=zz&tag=loss&downsample=1000", "run=a&tag=loss&downsample=3",
                  "run=a&tag=loss&downsample=%C3%A9", "run=a&tag=loss&downsample=10&run=b",
                  "run=a&tag=loss&downsample=100&format=csv", "tag=loss&downsample=100"):
        fast = client.get("/data/plugin/scalars/scalars?" + query)
        # A blank min_step is ignored by the route but not taken by the fast path.
        slow = client.get("/data/plugin/scalars/scalars?" + query + "&min_step=")
        assert fast.status_code == slow.status_code, query
        assert list(fast.headers.items()) == list(slow.headers.items()), query
        assert fast.get_data() == slow.get_data(), query
    assert provider._series("a", "loss").answers  # the fast path kept its answer ready


def test_a_warm_start_serves_the_answers_file_and_never_a_damaged_one(logdir, tmp_path):
    plain = _bodies(_load(logdir))
    cache = str(tmp_path / "cache")
    assert _bodies(_load(logdir, cache_dir=cache)) == plain
    warm = _load(logdir, cache_dir=cache)
    assert warm._watcher.records_parsed == 0
    ready = warm._series("a", "loss").answers
    assert all(isinstance(ready[n], answers.Ref) for n in answers.PRECOMPUTED)
    assert _bodies(warm) == plain
    files = glob.glob(os.path.join(cache, "runs", "*", "*" + answers.SUFFIX))
    assert len(files) == 2
    for path in files:  # same size, other bytes: the CRC refuses them
        with open(path, "r+b") as f:
            f.write(b"[[0,0,0]]" * (os.path.getsize(path) // 9))
    assert _bodies(_load(logdir, cache_dir=cache)) == plain
    for path in files:
        os.remove(path)
    assert _bodies(_load(logdir, cache_dir=cache)) == plain


def test_an_answer_is_made_again_when_its_series_grows(tmp_path):
    writer = SummaryWriter(str(tmp_path / "logs" / "run"))
    for step in range(2000):
        writer.add_scalar("loss", step * 0.5, step, walltime=1.7e9 + step)
    writer.flush()
    cache = str(tmp_path / "cache")
    provider = _load(str(tmp_path / "logs"), cache_dir=cache)
    before = _bodies(provider, (1000,))
    for step in range(2000, 2500):
        writer.add_scalar("loss", -step * 0.5, step, walltime=1.7e9 + step)
    writer.close()
    provider.reload()
    grown = _bodies(provider, (1000,))
    assert grown != before
    assert grown == _bodies(_load(str(tmp_path / "logs")), (1000,))
    assert _bodies(_load(str(tmp_path / "logs"), cache_dir=cache), (1000,)) == grown
