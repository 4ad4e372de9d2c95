"""The fast scalar encoder against json.dumps of the row lists the routes used to build."""

import json

import numpy as np
import pytest

from lens.board.params import cleanse
from lens.board.scalar_json import BodyCache, Raw, compose, objects_json, rows_json

SPECIAL32 = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 3.4028235e38, -3.4028235e38,
                      1.1754944e-38, 1e-45, -1e-45, 0.1, 1e16, 1e-5, 123456.79],
                     dtype=np.float32)


def old_json(obj):
    """What params.json_response wrote for these rows before the fast path."""
    try:
        return json.dumps(obj, allow_nan=False, separators=(",", ":"))
    except ValueError:
        return json.dumps(cleanse(obj), separators=(",", ":"))


def random_series(rng, n, special):
    steps = np.sort(rng.integers(-2 ** 62, 2 ** 63 - 1, size=n, dtype=np.int64))
    walls = rng.choice([1.7e9, 1e-300, 1e300, 0.0, 5e15], size=n) * rng.random(n)
    values = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 39, size=n)).astype(np.float32)
    if special and n:
        pick = rng.integers(0, n, size=max(1, n // 5))
        values[pick] = rng.choice(SPECIAL32, size=len(pick))
        walls[rng.integers(0, n, size=2)] = [np.nan, -np.inf]
    return steps, walls, values.astype(np.float64)


@pytest.mark.parametrize("seed", range(6))
def test_rows_and_objects_match_json_dumps(seed):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 37, 3000):
        steps, walls, values = random_series(rng, n, special=seed % 2 == 1)
        rows = [[w, s, v] for w, s, v in zip(walls.tolist(), steps.tolist(), values.tolist())]
        assert rows_json(steps, walls, values) == old_json(rows)
        objects = [{"wallTime": w, "step": s, "value": v} for w, s, v in rows]
        assert objects_json(steps, walls, values) == old_json(objects)


def test_every_special_float32_value():
    values = SPECIAL32.astype(np.float64)
    steps = np.arange(len(values), dtype=np.int64) * (2 ** 53 + 1)
    walls = np.full(len(values), 1700000000.123456)
    body = rows_json(steps, walls, values)
    assert '"NaN"' in body and '"-Infinity"' in body and "-0.0" in body
    assert body == old_json([[w, s, v] for w, s, v in
                             zip(walls.tolist(), steps.tolist(), values.tolist())])


def test_cache_follows_the_columns_content():
    cache = BodyCache(max_bytes=1 << 20, min_points=10)
    rng = np.random.default_rng(7)
    steps, walls, values = random_series(rng, 500, special=True)
    first = cache.encode(rows_json, steps, walls, values)
    assert cache.encode(rows_json, steps.copy(), walls.copy(), values.copy()) is first
    changed = values.copy()
    changed[250] += 1.0  # a replaced file re-read with one different point
    assert cache.encode(rows_json, steps, walls, changed) == rows_json(steps, walls, changed)
    grown = [np.append(c, c[-1:]) for c in (steps, walls, values)]
    assert cache.encode(rows_json, *grown) == rows_json(*grown)
    assert cache.encode(objects_json, steps, walls, values) == objects_json(steps, walls, values)


def test_cache_stays_under_its_budget():
    cache = BodyCache(max_bytes=50_000, min_points=10)
    rng = np.random.default_rng(3)
    for _ in range(30):
        cache.encode(rows_json, *random_series(rng, 200, special=False))
    assert 0 < cache._bytes <= 50_000
    assert cache._bytes == sum(len(b) for b in cache._bodies.values())


def test_compose_embeds_raw_text_like_json_dumps():
    rng = np.random.default_rng(11)
    steps, walls, values = random_series(rng, 40, special=True)
    objects = [{"wallTime": w, "step": s, "value": v}
               for w, s, v in zip(walls.tolist(), steps.tolist(), values.tolist())]
    answer = {"plugin": "scalars", "tag": "lo\u00df/\"x\"", "runToSeries": {
        "r\u00e9un": Raw(objects_json(steps, walls, values)), "b": [{"x": float("nan")}]}}
    plain = dict(answer, runToSeries={"r\u00e9un": objects, "b": [{"x": float("nan")}]})
    assert compose(answer) == old_json(plain)


def test_route_answers_like_the_provider_as_a_series_grows(tmp_path):
    from tensorboardX import SummaryWriter

    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    writer = SummaryWriter(str(tmp_path / "run"))
    values = np.random.default_rng(5).standard_normal(3000).astype(np.float32)
    values[[7, 70]] = [np.nan, -np.inf]
    for step, value in enumerate(values[:2500]):
        writer.add_scalar("loss", float(value), step, walltime=1.7e9 + step * 0.37)
    writer.flush()
    provider = DataProvider(str(tmp_path), reload_interval=0)
    client = create_app(provider, reload_interval=0).test_client()
    for grown in (False, True):
        if grown:  # the cached 2,500-point body must not answer for the grown series
            for step, value in enumerate(values[2500:], 2500):
                writer.add_scalar("loss", float(value), step, walltime=1.7e9 + step * 0.37)
            writer.flush()
        provider.reload()
        n = len(provider.scalars("run", "loss")[0])
        assert n > (2600 if grown else 2400)
        for downsample in ("", "&downsample=5000", "&downsample=%d" % n, "&downsample=100"):
            res = client.get("/data/plugin/scalars/scalars?run=run&tag=loss" + downsample)
            steps, walls, vals = provider.scalars("run", "loss", max_points=int(
                downsample.split("=")[1]) if downsample else None)
            rows = [[w, s, v] for w, s, v in zip(walls.tolist(), steps.tolist(), vals.tolist())]
            assert res.get_data(as_text=True) == old_json(rows)
            assert res.headers["X-Lens-Total-Points"] == str(n)
            assert (len(rows) == n) == (downsample != "&downsample=100")
    writer.close()
