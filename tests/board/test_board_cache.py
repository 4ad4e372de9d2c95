"""The board over a cache dir answers exactly as without one: cold start, warm start, capped."""

import shutil

import pytest

from lens.board.app import create_app
from lens.board.cli import build_parser, sample_logdir
from lens.events.provider import DataProvider

_KINDS = ("scalars", "histograms", "distributions", "images", "audio", "text")


def _answers(provider):
    """Every JSON answer of the data routes the dashboards read, keyed by URL."""
    client = create_app(provider, reload_interval=0).test_client()
    out = {}

    def get(url, **params):
        res = client.get(url, query_string=params)
        assert res.status_code == 200, (url, params, res.data[:200])
        key = url + "?" + "&".join("%s=%s" % kv for kv in sorted(params.items()))
        out[key] = res.get_json()
        return out[key]

    get("/data/runs")
    for kind in _KINDS:
        tags = get("/data/plugin/%s/tags" % kind)
        for run, entries in tags.items():
            for tag in entries:
                get("/data/plugin/%s/%s" % (kind, kind), run=run, tag=tag)
                if kind == "scalars":
                    get("/data/plugin/scalars/scalars", run=run, tag=tag, downsample=7)
    return out


@pytest.fixture(scope="module")
def sample_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("logs") / "logs"
    shutil.copytree(sample_logdir(), root)
    return str(root)


def _load(logdir, **kw):
    provider = DataProvider(logdir, reload_interval=0, **kw)
    provider.reload()
    return provider


def test_cold_and_warm_start_answer_like_no_cache(sample_copy, tmp_path):
    plain = _answers(_load(sample_copy))
    assert any("scalars/scalars" in k for k in plain) and any("images/images" in k for k in plain)
    cache = str(tmp_path / "cache")
    cold = _load(sample_copy, cache_dir=cache)
    assert _answers(cold) == plain
    warm = _load(sample_copy, cache_dir=cache)
    status = warm.progress()["cache"]
    assert status["ok"] and status["rebuilt"] == 0
    # Served from the column files: no scalar point is held in RAM after a warm start.
    stores = warm._watcher.stores.values()
    assert sum(s.scalar_count() for s in stores) > 0
    assert sum(s.scalar_bytes() for s in stores) == 0
    assert _answers(warm) == plain


def test_a_memory_cap_changes_no_answer(sample_copy, tmp_path):
    plain = _answers(_load(sample_copy))
    tight = _load(sample_copy, cache_dir=str(tmp_path / "c"), max_memory_mb=1)
    assert _answers(tight) == plain
    assert tight.progress()["cache"]["max_memory_mb"] == 1


def test_progress_says_when_the_cache_cannot_be_written(sample_copy, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    provider = _load(sample_copy, cache_dir=str(blocker / "cache"))
    client = create_app(provider, reload_interval=0).test_client()
    status = client.get("/data/lens/progress").get_json()["cache"]
    assert status["ok"] is False and "serving from memory" in status["error"]
    assert _answers(provider) == _answers(_load(sample_copy))


def test_cli_flags_parse():
    args = build_parser().parse_args(["--cache_dir", "/x", "--max_memory_mb", "64"])
    assert args.cache_dir == "/x" and args.max_memory_mb == 64
    args = build_parser().parse_args([])
    assert args.cache_dir is None and args.max_memory_mb == 1024
