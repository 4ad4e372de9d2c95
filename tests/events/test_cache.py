"""The cache dir: reuse across restarts, invalidation (append, shrink, replace, corrupt, foreign,
other version), a run reset when a file shrinks under a running board, two boards at once."""

import os
import pickle
import subprocess
import sys

import google_crc32c
import numpy as np
import pytest

from lens.events import cache as cache_mod
from lens.events.provider import DataProvider
from tests.events.loading_helpers import tb_scalar_event, write_events

TAGS = ("loss", "acc")


def _events(steps, scale=1.0, wall=1000.0):
    return [tb_scalar_event(tag, s, scale * (s + i), wall + s) for s in steps
            for i, tag in enumerate(TAGS)]


def _logdir(tmp_path):
    root = tmp_path / "logs"
    write_events(str(root / "a" / "events.out.tfevents.1.x"), _events(range(0, 300)))
    write_events(str(root / "b" / "events.out.tfevents.1.x"), _events(range(0, 50), 2.0))
    return str(root)


def _load(logdir, cache=None, **kw):
    provider = DataProvider(logdir, reload_interval=0, cache_dir=cache, **kw)
    provider.reload()
    return provider


def _dump(provider):
    """Every scalar series, full and downsampled, as plain lists."""
    out = {}
    for run, tags in provider.list_tags("scalars").items():
        for tag in tags:
            full = provider.scalars(run, tag)
            small = provider.scalars(run, tag, max_points=9, step_range=(10, 200))
            out[run, tag] = [a.tolist() for a in full + small]
    return out


def _parsed(provider):
    return provider._watcher.records_parsed


def _status(provider):
    return provider.progress()["cache"]


def test_an_unchanged_logdir_is_not_parsed_again(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    cold = _load(logdir, cache)
    assert _parsed(cold) == 2 * 300 + 2 * 50  # every record
    warm = _load(logdir, cache)
    assert _parsed(warm) == 0 and _status(warm)["rebuilt"] == 0
    assert _dump(warm) == _dump(cold) == _dump(_load(logdir))
    assert warm.progress()["events"] == cold.progress()["events"]


def test_a_grown_file_is_read_from_where_the_cache_stopped(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    _load(logdir, cache)
    write_events(os.path.join(logdir, "a", "events.out.tfevents.1.x"), _events(range(300, 340)),
                 mode="ab")
    write_events(os.path.join(logdir, "b", "events.out.tfevents.2.x"), _events(range(50, 55)))
    warm = _load(logdir, cache)
    assert _parsed(warm) == 2 * 40 + 2 * 5 and _status(warm)["rebuilt"] == 0
    assert _dump(warm) == _dump(_load(logdir))
    assert _parsed(_load(logdir, cache)) == 0


@pytest.mark.parametrize("change", ["truncate", "replace", "delete"])
def test_a_shrunk_replaced_or_deleted_file_makes_the_run_read_anew(tmp_path, change):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    _load(logdir, cache)
    path = os.path.join(logdir, "a", "events.out.tfevents.1.x")
    if change == "truncate":
        write_events(path, _events(range(0, 100)))
    elif change == "replace":  # same name, longer, other content
        write_events(path, _events(range(0, 400), 3.0, wall=5000.0))
    else:
        os.remove(path)
        write_events(os.path.join(logdir, "a", "events.out.tfevents.2.x"), _events(range(7)))
    warm = _load(logdir, cache)
    assert _status(warm)["rebuilt"] == 1
    assert _dump(warm) == _dump(_load(logdir))


def _state_path(cache, run):
    return os.path.join(cache_mod.CacheDir(cache)._folder_path(run), "state")


def _chunk_paths(cache, run):
    folder = os.path.dirname(_state_path(cache, run))
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".arrow"))


def _forged(state_dict):
    body = pickle.dumps(state_dict, protocol=4)
    return cache_mod._MAGIC + google_crc32c.value(body).to_bytes(4, "little") + body


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch /tmp/lens-cache-test-pwned",))


@pytest.mark.parametrize("damage", ["garbage", "bad_crc", "foreign_pickle", "other_version",
                                    "chunk_truncated", "chunk_flipped", "chunk_missing"])
def test_a_corrupt_or_foreign_entry_is_rebuilt_never_served(tmp_path, damage):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    expected = _dump(_load(logdir, cache))
    state = _state_path(cache, "a")
    data = open(state, "rb").read()
    chunk = _chunk_paths(cache, "a")[0]
    if damage == "garbage":
        data = b"\x00garbage" * 10
    elif damage == "bad_crc":
        data = data[:-1] + bytes([data[-1] ^ 1])
    elif damage == "foreign_pickle":
        data = _forged({"format": cache_mod.FORMAT, "lens": cache_mod._version(), "x": _Boom()})
    elif damage == "other_version":
        loaded = cache_mod._Loader(__import__("io").BytesIO(data[len(cache_mod._MAGIC) + 4:])).load()
        data = _forged(dict(loaded, lens="0.0.0-other"))
    elif damage == "chunk_truncated":
        open(chunk, "r+b").truncate(os.path.getsize(chunk) - 8)
    elif damage == "chunk_flipped":
        blob = bytearray(open(chunk, "rb").read())
        blob[len(blob) // 2] ^= 0xFF
        open(chunk, "wb").write(bytes(blob))
    else:
        os.remove(chunk)
    if damage.startswith(("garbage", "bad", "foreign", "other")):
        open(state, "wb").write(data)
    warm = _load(logdir, cache)
    if damage == "chunk_flipped":  # found when first read: that request fails, the run is re-read
        with pytest.raises(ValueError, match="CRC-32C"):
            _dump(warm)
        warm.reload()
    assert _status(warm)["rebuilt"] == 1
    assert _parsed(warm) == 2 * 300  # run a read again, run b taken from the cache
    assert _dump(warm) == expected
    assert not os.path.exists("/tmp/lens-cache-test-pwned")
    assert _parsed(_load(logdir, cache)) == 0  # and the rebuilt entry is good again


def test_other_samples_per_plugin_rebuild_the_entry(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    _load(logdir, cache)
    warm = _load(logdir, cache, samples_per_plugin="images=3")
    assert _status(warm)["rebuilt"] == 2 and _parsed(warm) == 2 * 350


def test_a_file_shrinking_under_a_running_board_leaves_no_stale_points(tmp_path):
    logdir = _logdir(tmp_path)
    provider = _load(logdir, str(tmp_path / "cache"))
    write_events(os.path.join(logdir, "a", "events.out.tfevents.1.x"), _events(range(0, 20), 5.0))
    provider.reload()
    assert _dump(provider) == _dump(_load(logdir))
    steps, _, values = provider.scalars("a", "loss")
    assert steps.tolist() == list(range(20)) and values.tolist() == [5.0 * s for s in range(20)]


def test_an_unwritable_cache_dir_serves_from_memory(tmp_path):
    logdir = _logdir(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    provider = _load(logdir, str(blocker / "cache"), max_memory_mb=1)
    status = _status(provider)
    assert status["ok"] is False and "serving from memory" in status["error"]
    assert _dump(provider) == _dump(_load(logdir))


def test_a_cache_dir_that_breaks_while_serving_is_given_up_once(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    provider = _load(logdir, cache)
    state = _state_path(cache, "a")
    os.remove(state)
    os.mkdir(state)  # a directory where the state goes: the next save fails
    write_events(os.path.join(logdir, "a", "events.out.tfevents.1.x"), _events(range(300, 310)),
                 mode="ab")
    provider.reload()
    assert _status(provider)["ok"] is False
    assert _dump(provider) == _dump(_load(logdir))


_BOARD = r"""
import sys
from lens.events.provider import DataProvider
p = DataProvider(sys.argv[1], reload_interval=0, cache_dir=sys.argv[2], max_memory_mb=1)
p.reload()
total = sum(len(p.scalars(r, t)[0]) for r, tags in p.list_tags("scalars").items() for t in tags)
print(total, p.progress()["cache"]["ok"])
"""


def test_two_boards_on_one_cache_both_serve_everything(tmp_path):
    root = tmp_path / "logs"
    for r in range(6):
        write_events(str(root / ("r%d" % r) / "events.out.tfevents.1.x"), _events(range(2000)))
    cache = str(tmp_path / "cache")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    procs = [subprocess.Popen([sys.executable, "-c", _BOARD, str(root), cache],
                              stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs == [["24000", "True"]] * 2
    warm = _load(str(root), cache)
    assert _status(warm)["rebuilt"] == 0 and _parsed(warm) == 0
    assert _dump(warm) == _dump(_load(str(root)))


def test_series_spilled_in_many_chunks_read_back_whole(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    provider = _load(logdir, cache)
    path = os.path.join(logdir, "a", "events.out.tfevents.1.x")
    for k in range(12):  # more appends than max_chunks: compacted on the way
        write_events(path, _events(range(300 + 10 * k, 310 + 10 * k)), mode="ab")
        provider.reload()
    series = provider._watcher.stores["a"].scalars["loss"]
    assert 1 <= len(series.chunks()) <= 8 and series.n == 420
    assert _dump(provider) == _dump(_load(logdir))
    steps = provider.scalars("a", "loss")[0]
    assert np.array_equal(steps, np.arange(420))


def test_a_column_file_lost_under_a_running_board_makes_its_run_read_again(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    provider = _load(logdir, cache)
    for path in _chunk_paths(cache, "a"):
        os.remove(path)
    with pytest.raises(ValueError, match="cannot be read|is missing"):
        provider.scalars("a", "loss")
    provider.reload()
    assert _dump(provider) == _dump(_load(logdir))


def test_old_column_files_are_swept_only_by_a_board_alone_on_the_cache(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    first = _load(logdir, cache)
    path = os.path.join(logdir, "a", "events.out.tfevents.1.x")
    for k in range(10):  # appends past max_chunks: compaction leaves old files behind
        write_events(path, _events(range(300 + k, 301 + k)), mode="ab")
        first.reload()
    named = {c.path for s in first._watcher.stores["a"].scalars.values() for c in s.chunks()}
    assert len(_chunk_paths(cache, "a")) > len(named)
    second = _load(logdir, cache)  # `first` still holds the cache: nothing is deleted
    assert len(_chunk_paths(cache, "a")) > len(named)
    del first, second
    import gc
    gc.collect()
    alone = _load(logdir, cache)
    assert set(_chunk_paths(cache, "a")) == named
    assert _dump(alone) == _dump(_load(logdir))


def test_a_full_cache_dir_is_given_up_once_and_serving_goes_on(tmp_path):
    logdir, cache = _logdir(tmp_path), str(tmp_path / "cache")
    provider = _load(logdir, cache)
    folder = os.path.dirname(_state_path(cache, "a"))
    # The next state write of this process lands on a device that is always full.
    os.symlink("/dev/full", os.path.join(folder, "state.%d.tmp" % os.getpid()))
    write_events(os.path.join(logdir, "a", "events.out.tfevents.1.x"), _events(range(300, 310)),
                 mode="ab")
    provider.reload()
    status = _status(provider)
    assert status["ok"] is False and "No space left" in status["error"]
    assert _dump(provider) == _dump(_load(logdir))


def test_a_sweep_waits_until_no_other_board_is_alive(tmp_path):
    cache = str(tmp_path / "cache")
    boards = [cache_mod.CacheDir(cache) for _ in range(3)]
    orphan = os.path.join(boards[0].folder("run"), "0123.arrow")
    open(orphan, "wb").close()
    for board in boards[1:]:
        board.sweep()
        assert os.path.exists(orphan)  # boards[0] (and the others) are alive
    boards[2].sweep(in_use=[orphan])
    del boards[:2]
    import gc
    gc.collect()
    boards[0].sweep(in_use=[orphan])
    assert os.path.exists(orphan)  # alone now, but this board still uses it
    boards[0].sweep()
    assert not os.path.exists(orphan)
    assert len(os.listdir(os.path.join(cache, "boards"))) == 1  # the dead boards' files went
